"""One document of a corpus as its own unit of work: its own thread of the checkpointer,
its own store namespace, its own settings (its reader's: a PDF's split unit), the corpus's call log.

The document runs today's graph unchanged; it returns its tree instead of writing one
(`RunResources.writes_tree`), and the finished tree is kept in the corpus store, which is
what marks the document done. In an update, an unchanged (or moved) file's old record is
copied, and an edited file's thread runs the graph with its old tree's reuse index. Killed
halfway, the next run continues the thread from its checkpoint; a worker elsewhere could run the same unit, given the same store. A finished
document's thread is deleted from the checkpointer: its record in the store is what counts.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Callable, Literal

from chunker.config.settings import ChunkerSettings
from chunker.corpus.model import SourceFile
from chunker.corpus.signals import doc_info
from chunker.corpus.store import CorpusStore
from chunker.document.loader import BadInput, decode_document
from chunker.runs.record import Unit
from chunker.runs.runner import stream_config, tasks_of
from chunker.output.hierarchy import Hierarchy
from chunker.state.run import RunContext
from chunker.state.slots import CallSlots
from chunker.state.store import RunStore
from chunker.update.index import build_index, put_index

Reuse = Literal["copy", "update"] | None


class DocumentSkipped(Exception):
    """The file cannot be read as it was found (gone, changed, not extractable): the corpus
    goes on without it. The message is the skip reason ('changed: ...')."""


def unit_of(f: SourceFile, key: str, reuse: Reuse = None) -> Unit:
    """The unit of work of a file found, under `key` (an update's: with what it reuses)."""
    return Unit(rel=f.rel, key=key, path=f.path, kind=f.kind, sha256=f.sha256, size=f.size, reuse=reuse)


def document_key(rel: str, used: set[str]) -> str:
    """`D` and 8 hex digits of the path: stable for the file, unique in the corpus."""
    digest = hashlib.sha256(rel.encode("utf-8", "surrogatepass")).hexdigest()
    for width in range(8, len(digest) + 1):
        key = "D" + digest[:width]
        if key not in used:
            used.add(key)
            return key
    raise ValueError(f"no free key for {rel}")


def document_settings(unit: Unit, settings: dict, model: str) -> ChunkerSettings:
    """The document's own settings: the corpus's, and its reader's (a PDF's page unit, unless set)."""
    from chunker.readers.registry import reader
    from chunker.readers.source import run_settings

    settings = run_settings(reader(unit.kind), unit.path, settings)
    # the corpus reads the document's tree from its output, whatever `return_tree` says
    return ChunkerSettings(model=model, **{**settings, "return_tree": True})


def run_document(graph, unit: Unit, ctx: ChunkerSettings, cs: CorpusStore, *, out_dir: Path,
                 corpus_key: str, on_event: Callable[[dict], None] | None = None,
                 previous: CorpusStore | None = None, slots: CallSlots | None = None,
                 calls: str | None = None) -> dict:
    """The document's finished record (its tree, its text's run key, its stats, what it
    says of itself), from the store when an earlier run finished it. An update's unit
    takes its old record from `previous` (the tree being updated) as it is, or brings it
    up to date (see `chunker/update/`). `slots`: the corpus's cap on calls in flight, which
    with `llm.tasks_per_slot` also bounds the document's own parallel tasks (its regions);
    `calls`: the corpus's call log (`RunDir.calls_target`; default: OUT's)."""
    done = cs.document(unit.key)
    if done is not None:
        return done
    if unit.reuse == "copy":
        record = copied_record(previous.document(unit.key), unit, graph.store)
        cs.put_document(unit.key, record)
        return record
    folder = out_dir / ".chunker" / "docs" / unit.key
    slots = slots or CallSlots(1)
    context = RunContext.of(ctx, out_dir=str(folder), calls_dir=calls or str(out_dir), writes_tree=False,
                            slots=slots)
    config = stream_config(unit.thread_id(corpus_key), tasks_of(ctx, slots.limit))
    graph_input = None if graph.get_state(config).values else _first_input(unit, folder, ctx)
    if graph_input is not None and unit.reuse == "update":
        reuse_key = unit.thread_id(corpus_key)
        put_index(graph.store, reuse_key, document_index(previous.document(unit.key), graph_input, ctx))
        graph_input["reuse_key"] = reuse_key
    # subgraphs=True: the events of the nodes inside the subgraphs (graph/), where they all are
    for _, event in graph.stream(graph_input, config, context=context, stream_mode="custom", durability="sync",
                                 subgraphs=True):
        if on_event is not None:
            on_event(event)
    values = graph.get_state(config).values
    text = RunStore(graph.store, values["run_key"]).text()
    record = {"rel": unit.rel, "key": unit.key, "tree": values["tree"], "run_key": values["run_key"],
              "stats": values.get("stats", {}), "chars": len(text), "kind": unit.kind,
              "sha256": unit.sha256, "info": _said(unit.rel, text)}
    cs.put_document(unit.key, record)
    # The record is the document's result now: its thread's checkpoints (the last of which
    # repeats the whole tree) are dropped, so the corpus's checkpoints do not grow with it.
    graph.checkpointer.delete_thread(unit.thread_id(corpus_key))
    return record


def _said(rel: str, text: str) -> dict:
    """What the document says of itself (`signals.doc_info`), as its record keeps it."""
    info = doc_info(rel, text)
    return {"title": info.title, "title_source": info.title_source, "tags": list(info.tags),
            "category": info.category}


def copied_record(old: dict, unit: Unit, store) -> dict:
    """An unchanged (or only moved) file's record, as this update's: no call, every node
    reused; its stats count what it reused, not what built it. A moved file says again what
    it is (a title taken from its file name follows the new name)."""
    tree = Hierarchy.model_validate(old["tree"])
    leaves = sum(1 for n in tree.nodes if not n.children)
    moved = old["rel"] != unit.rel
    info = _said(unit.rel, RunStore(store, old["run_key"]).text()) if moved else old["info"]
    return {**old, "rel": unit.rel, "info": info,
            "stats": {f"update.documents.{'moved' if moved else 'reused'}": 1, "leaves": leaves,
                      "update.leaves.reused": leaves, "update.blocks.reused": len(tree.nodes) - leaves}}


def document_index(old: dict, graph_input: dict, ctx: ChunkerSettings) -> dict:
    """The reuse index of an edited file: its old tree against its new text."""
    from chunker.update.document import plan_document

    text = graph_input.get("text")
    if text is None:  # an extracted format: the extraction the thread reads
        text = Path(graph_input["path"]).read_text(encoding="utf-8")
    tree = Hierarchy.model_validate(old["tree"])
    sha = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    plan = plan_document(tree.nodes, tree.root, tree.meta.config, tree.meta.signature, text, sha, ctx,
                         flat_tree=bool(old["stats"].get("strategy.flat") or tree.meta.stats.get("strategy.flat")))
    if plan.index is None:  # the same text and settings: nothing stale, every passage reused
        plan.index = build_index(tree.nodes, tree.root, text, mode="patch", leaf_text_stale=False,
                                 may_split=True, source_sha256=sha)
    return plan.index


def _first_input(unit: Unit, folder: Path, ctx: ChunkerSettings) -> dict:
    """What the thread starts from: the file's text as it was found, or its extraction."""
    try:
        data = unit.path.read_bytes()
    except FileNotFoundError:
        raise DocumentSkipped("vanished: the file was removed before the run read it") from None
    except OSError as exc:
        raise DocumentSkipped(f"unreadable: {exc.strerror or exc}") from None
    if hashlib.sha256(data).hexdigest() != unit.sha256:
        raise DocumentSkipped("changed: the file changed after the run found it; run again to include it")
    from chunker.readers.model import ReaderError
    from chunker.readers.registry import reader as reader_for
    from chunker.readers.source import Source, read_settings

    reader = reader_for(unit.kind)
    if reader.extracted:
        from chunker.runs import extracted_source
        from chunker.runs.rundir import RunDir

        try:
            src = Source.open(unit.path, read_settings(ctx), reader)
        except ReaderError as exc:
            raise DocumentSkipped(skip_reason(exc)) from None
        folder.mkdir(parents=True, exist_ok=True)
        source, _ = extracted_source.start(RunDir(folder), src)
        return {"path": source}
    try:
        text = decode_document(data, encoding=ctx.input.encoding, source=unit.rel)
    except BadInput as exc:
        raise DocumentSkipped(f"unreadable: {exc}") from None
    from chunker.structured.media import intake

    # the local images it names, from its own folder (the thread knows only its `rel`)
    intake(folder / ".chunker", text, unit.path, (), max_bytes=ctx.input.max_bytes)
    return {"text": text, "path": unit.rel}


def skip_reason(exc) -> str:
    """A corpus's skip line for a file its reader refused (`ReaderError`): the reason, and the
    message when the reason is only a code."""
    return exc.reason if ":" in exc.reason else f"{exc.reason}: {exc}"

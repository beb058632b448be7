"""Running a corpus in OUT: every document as its own unit of work, then the upper levels,
then one tree written as a whole.

run.json (`kind: corpus`) lists the documents found (with their keys and hashes) and the
files skipped with their reasons; the checkpoints, the store and the call log are the
corpus's, shared by its documents (each on its own thread and namespace). A resume takes
the list from run.json, keeps every finished document, continues the one in progress from
its checkpoint, and redoes no finished synthesis of the upper levels.
"""

from __future__ import annotations

import hashlib
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from chunker import __version__
from chunker.config.settings import ChunkerSettings
from chunker.corpus.assemble import corpus_hierarchy, document_nodes, document_records, upper_nodes
from chunker.corpus.fanout import longest_first, run_all
from chunker.corpus.document_run import DocumentSkipped, document_key, document_settings, run_document, unit_of
from chunker.corpus.model import DocInfo, Discovery
from chunker.corpus.plan import build_plan
from chunker.corpus.signals import find_toc, toc_sha256
from chunker.corpus.store import CorpusStore
from chunker.corpus.update import corpus_update_records
from chunker.corpus.upper import Item, UpperBuilder
from chunker.document.tokens import count_tokens
from chunker.output.hierarchy import CorpusDocument, CorpusMeta, Hierarchy, RunMeta, SkippedFile, UpdateRecord
from chunker.output.writer import foreign_stems, write_tree
from chunker.knowledge.passes import annotate
from chunker.knowledge.proposals import carried
from chunker.persistence.store_url import redact
from chunker.runs.record import CorpusRun, CorpusUpdate, SkippedEntry, Unit, now
from chunker.runs.rundir import RunDir, changed
from chunker.runs.runner import concurrency_of, persistent_graph, tasks_of
from chunker.state.slots import CallSlots
from chunker.state.schema import add_counts
from chunker.state.store import RunStore
from chunker.update.signature import signature_of


def corpus_record(discovery: Discovery, ctx: ChunkerSettings, settings: dict, *, paths: list[Path],
                  include: list[str] | None = None, exclude: list[str] | None = None,
                  units: list[Unit] | None = None, store: str | None = None) -> CorpusRun:
    """The record of a new corpus run: the files found, under stable keys, and the skipped
    ones (an update passes its `units`: the old keys kept, each with what it reuses)."""
    toc = find_toc(discovery.root, [f.rel for f in discovery.files])
    if units is None:
        used: set[str] = set()
        units = [unit_of(f, document_key(f.rel, used)) for f in discovery.files]
    units = [u for u in units if toc is None or u.rel != toc.source]
    return CorpusRun(store=redact(store) if store else None, root=str(discovery.root),
                     paths=[str(p.resolve()) for p in paths], model=ctx.llm.model, config=ctx.flat_dict(),
                     settings=settings, corpus_key=uuid.uuid4().hex[:16], toc=toc.source if toc else None,
                     toc_sha256=toc_sha256(discovery.root, toc.source) if toc else None,
                     include=list(include or []), exclude=list(exclude or []), documents=units,
                     skipped=[SkippedEntry(rel=s.rel, reason=s.reason) for s in discovery.skipped],
                     tool_version=__version__, started_at=now())


@dataclass
class CorpusResult:
    stats: dict[str, int] = field(default_factory=dict)
    skipped: list[SkippedEntry] = field(default_factory=list)
    hierarchy: Hierarchy | None = None


def execute_corpus(run: RunDir, ctx: ChunkerSettings, on_event: Callable[[dict], None] | None = None,
                   generation: Generation | None = None) -> CorpusResult:
    """Run (or continue) the corpus that run.json describes (or an update's `generation`);
    returns its stats."""
    generation = generation or Generation.of_run(run)
    record = generation.record
    emit = on_event or (lambda event: None)
    started = time.perf_counter()
    units = list(record.documents)
    skipped = list(record.skipped)
    total_bytes = sum(u.size for u in units)
    order = {u.rel: i for i, u in enumerate(units)}
    slots = CallSlots(concurrency_of(ctx))  # one cap over all the documents' calls
    calls = run.calls_target(record.corpus_key)
    with persistent_graph(run, ctx) as graph:
        cs = CorpusStore(graph.store, record.corpus_key)
        previous = CorpusStore(graph.store, generation.previous) if generation.previous else None
        records: dict[str, dict] = {}
        lock = threading.Lock()
        progress = {"files": 0, "bytes": 0}
        left_out = {s.rel for s in skipped}  # skipped by discovery, or by an earlier try
        progress["bytes"] = sum(u.size for u in units if u.rel in left_out)

        def work(i: int) -> None:
            unit = units[i]
            emit({"event": "document", "phase": "start", "source": unit.rel, "index": i,
                  "total": len(units), "bytes": progress["bytes"], "bytes_total": total_bytes})
            doc_ctx = document_settings(unit, record.settings, record.model)
            try:
                done = run_document(graph, unit, doc_ctx, cs, out_dir=run.path, corpus_key=record.corpus_key,
                                    on_event=emit, previous=previous, slots=slots, calls=calls)
            except DocumentSkipped as exc:
                with lock:
                    skipped.append(SkippedEntry(rel=unit.rel, reason=str(exc)))
                    progress["bytes"] += unit.size
                    generation.save(skipped=skipped)
                emit({"event": "document", "phase": "skipped", "source": unit.rel, "reason": str(exc)})
                return
            with lock:
                records[unit.rel] = done
                progress["files"] += 1
                progress["bytes"] += unit.size
                now_at = dict(progress)
            emit({"event": "document", "phase": "done", "source": unit.rel, "index": i,
                  "files": now_at["files"], "total": len(units), "bytes": now_at["bytes"],
                  "bytes_total": total_bytes, "leaves": done["stats"].get("leaves", 0)})

        tasks = tasks_of(ctx, slots.limit)  # documents at once: the calls stay capped by `slots`
        todo = longest_first([i for i, u in enumerate(units) if u.rel not in left_out],
                             [u.size for u in units], tasks)
        run_all(todo, work, tasks)
        skipped.sort(key=lambda s: order.get(s.rel, -1))  # as found, whatever finished first
        if not records:
            raise DocumentSkipped("no document of the corpus could be read")
        result = assemble(run, ctx, generation, units, records, skipped, graph.store, cs, previous, emit,
                          slots=slots)
    elapsed = time.perf_counter() - started
    generation.save(status="finished", finished_at=now(), skipped=skipped,
                    wall_s=round(generation.record.wall_s + elapsed, 3), stats=result.stats)
    return result


@dataclass
class Generation:
    """The corpus run.json describes at its top level, or the one an update is building
    (run.json's `update.corpus`): its record, and where changes to it are saved."""

    run: RunDir
    record: CorpusRun
    previous: str | None = None
    """An update: the corpus key of the tree it brings up to date (its records are reused)."""
    names: dict[str, str] = field(default_factory=dict)
    """An update: the old tree's file names by node id (kept where they still hold)."""
    updates: list[UpdateRecord] = field(default_factory=list)
    """An update: hierarchy.json's record of the earlier updates (this one's is added last)."""

    @classmethod
    def of_run(cls, run: RunDir) -> "Generation":
        return cls(run=run, record=run.read_record())

    def save(self, **changes) -> None:
        self.record = changed(self.record, **changes)
        if self.previous is None:
            self.run.update_record(**changes)
        else:
            update: CorpusUpdate = self.run.read_record().update
            self.run.update_record(update=update.model_copy(update={"corpus": self.record}))


def assemble(run: RunDir, ctx: ChunkerSettings, generation: Generation, units: list[Unit],
              records: dict[str, dict], skipped: list[SkippedEntry], store, cs: CorpusStore,
              previous: CorpusStore | None, emit, slots: CallSlots | None = None) -> CorpusResult:
    record = generation.record
    root = Path(record.root)
    title = root.name or "corpus"
    rels = [u.rel for u in units if u.rel in records]
    infos = {rel: DocInfo(rel=rel, title=r["info"]["title"], title_source=r["info"]["title_source"],
                          tags=tuple(r["info"]["tags"]), category=r["info"]["category"])
             for rel, r in records.items()}
    toc = find_toc(root, rels) if record.toc else None
    plan, stats = build_plan(rels, infos, toc, corpus_title=title, min_group_size=ctx.aggregation.min_group_size)
    trees = {rel: Hierarchy.model_validate(records[rel]["tree"]) for rel in rels}
    keys = {u.rel: u.key for u in units}
    items = {}
    parts = []
    for rel in rels:
        nodes = document_nodes(trees[rel], rel, keys[rel], infos[rel])
        parts.extend(nodes)
        doc = nodes[0]
        items[rel] = Item(id=doc.id, title=infos[rel].title, level=doc.level, summary=doc.summary,
                          summary_tokens=count_tokens(doc.summary), rewritten=doc.rewritten,
                          rewritten_tokens=count_tokens(doc.rewritten))
    builder = UpperBuilder(ctx, cs, title, calls_dir=run.calls_target(record.corpus_key), writer=emit,
                           previous=previous, slots=slots or CallSlots(concurrency_of(ctx)))
    root_item = builder.build(plan, items)
    parts.extend(upper_nodes(builder.nodes))
    for rel in rels:
        stats = add_counts(stats, records[rel]["stats"])
    stats = add_counts(stats, builder.stats)
    stats.update({"documents": len(rels), "skipped": len(skipped)})
    texts = {rel: RunStore(store, records[rel]["run_key"]).text() for rel in rels}
    corpus = CorpusMeta(
        root=record.root, toc=record.toc,
        documents=[CorpusDocument(source=rel, doc_id=trees[rel].meta.doc_id, sha256=records[rel]["sha256"],
                                  chars=records[rel]["chars"], kind=records[rel]["kind"],
                                  node=items[rel].id, title=infos[rel].title) for rel in rels],
        skipped=[SkippedFile(source=s.rel, reason=s.reason) for s in skipped])
    run_meta = RunMeta(tool_version=__version__, model=ctx.llm.model,
                       doc_id=_corpus_id(records, rels), source=record.root,
                       source_chars=sum(len(t) for t in texts.values()), config=ctx.public_dict(),
                       stats=dict(sorted(stats.items())), finished_at=now(), corpus=corpus,
                       signature=signature_of(ctx.public_dict()))
    if generation.previous is not None:
        run_meta = run_meta.model_copy(update={"updates": corpus_update_records(
            generation, units, records, stats, _corpus_id(records, rels))})
    names = {u.id: u.name for u in builder.nodes if u.name}
    h = corpus_hierarchy(root_item.id, parts, run_meta, texts, corpus_name=title, names=names,
                         slug_max_length=ctx.output.slug_max_length, taken=foreign_stems(run.path),
                         old_files=generation.names)
    h = document_records(h, trees, keys)  # the documents' tables, equations, figures, checks
    # terms, references, links across the files (an update redoes them all); the terms a model
    # proposed were grounded when each file's tree was written: carried over, not asked again
    h = annotate(h, ctx.knowledge, carried((rel, trees[rel]) for rel in rels))
    write_tree(run.path, h, title, ctx.knowledge)
    return CorpusResult(stats=stats, skipped=skipped, hierarchy=h)


def _corpus_id(records: dict[str, dict], rels: list[str]) -> str:
    joined = "\n".join(f"{rel}\x00{records[rel]['sha256']}" for rel in rels)
    return hashlib.sha256(joined.encode("utf-8", "surrogatepass")).hexdigest()[:16]

"""write_outputs: assemble the tree, check it, and write it (or return it)."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from langgraph.runtime import Runtime

from chunker import __version__
from chunker.config.settings import ChunkerSettings
from chunker.document.tokens import count_tokens
from chunker.grounding import document_overview
from chunker.nodes.common import run_store
from chunker.state.store import RunStore
from chunker.nodes.patch import final_store, updated_records
from chunker.nodes.reuse import index_of
from chunker.output.assemble import assemble, assemble_records
from chunker.output.hierarchy import Hierarchy, RunMeta, UpdateRecord
from chunker.update.index import ReuseIndex
from chunker.update.signature import signature_of
from chunker.output.writer import foreign_stems, write_tree
from chunker.knowledge.passes import annotate
from chunker.knowledge.proposals import TermProposer, reused
from chunker.readers.source_map import load_map
from chunker.state.schema import ChunkerState

def write_outputs(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    cfg = runtime.context
    # an extracted format's tree is built on OUT/source.md: name the original itself
    source = cfg.input.source or state.get("path")
    meta = RunMeta(
        tool_version=__version__, model=cfg.llm.model, doc_id=state["doc_id"], source=source,
        source_chars=state["doc_chars"], config=cfg.public_dict(), signature=signature_of(cfg.public_dict()),
        stats=dict(sorted((state.get("stats") or {}).items())),
        finished_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    )
    rs = run_store(state, runtime)
    writes = bool(rs.out_dir) and rs.writes_tree
    taken = foreign_stems(rs.out_dir) if writes else None
    source_name = Path(source).name if source else None
    locate = _locator(rs.out_dir) if cfg.input.source else None
    if state.get("reuse_key"):  # an update: the old tree's ids and file names where they hold
        index = index_of(state, runtime)
        overview(final_store(rs) if index.patch else rs, cfg, state["root_id"])
        records, root_id, counts = updated_records(state, runtime)
        meta = meta.model_copy(update={"updates": update_records(index, meta, counts)})
        hierarchy = assemble_records(rs, records, root_id, meta, cfg.output.slug_max_length,
                                     taken=taken, source_name=source_name, names=index.names(),
                                     locate=locate)
    else:
        overview(rs, cfg, state["root_id"])
        hierarchy = assemble(rs, state["leaf_count"], state["block_counts"],
                             state["root_id"], meta, cfg.output.slug_max_length,
                             taken=taken, source_name=source_name, locate=locate)
    # the knowledge passes over the finished tree, written or returned (an update redoes them all)
    replaced = _replaced_tree(rs.out_dir) if state.get("reuse_key") and writes else None
    hierarchy, proposed, term_counts = _proposed_terms(hierarchy, cfg, rs, runtime, replaced)
    hierarchy = annotate(hierarchy, cfg.knowledge, proposed)
    if writes:
        title = Path(source).stem if source else "Document"
        write_tree(rs.out_dir, hierarchy, title, cfg.knowledge)
    return_tree = cfg.output.return_tree
    if return_tree is None:  # served, embedded, or one document of a corpus: the output is the way out
        return_tree = not writes
    return {"tree": hierarchy.model_dump(mode="json") if return_tree else None, "stats": term_counts}


def _replaced_tree(out_dir: str) -> Hierarchy | None:
    """The tree an update replaces, as OUT holds it (None: none, or unreadable: asked again)."""
    path = Path(out_dir) / "hierarchy.json"
    try:
        return Hierarchy.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _proposed_terms(h: Hierarchy, cfg: ChunkerSettings, rs: RunStore, runtime,
                    replaced: Hierarchy | None) -> tuple[Hierarchy, list, dict]:
    """Where the model is asked for terms (`model_tasks`): the tree with its stats counting
    the proposal calls and verdicts, the grounded proposals over its leaves (an update's
    unchanged leaves keep those of the tree it replaces, unasked), and those counts."""
    if not (cfg.llm.asks("terms") and cfg.knowledge.enabled):
        return h, [], {}
    kept, known = reused(replaced, h) if replaced is not None else ([], frozenset())
    proposer = TermProposer(cfg.llm, cfg.knowledge, calls_dir=rs.calls_dir, slots=rs.slots,
                            writer=runtime.stream_writer, memo=rs)
    proposed, counts = proposer.propose(h, skip=known)
    proposed = kept + proposed
    stats = dict(h.meta.stats)
    for key, n in counts.items():
        stats[key] = stats.get(key, 0) + n
    meta = h.meta.model_copy(update={"stats": dict(sorted(stats.items()))})
    return h.model_copy(update={"meta": meta}), proposed, counts


def _locator(out_dir: str | None):
    """Where a span lies in the run's original file, from its source map (None without one)."""
    source = load_map(out_dir)
    if source is None or not source.locator.has_location:
        return None

    def locate(span: tuple[int, int]) -> dict | None:
        found = source.locate(span)
        return found.as_dict() if found is not None else None
    return locate


def overview(rs: RunStore, cfg: ChunkerSettings, root_id: str) -> None:
    """The root's summary is the document's overview. When the model's was rejected, the
    extractive stand-in is drawn from all of the root's children (start, middle and end of
    the document), not from its first passage. Idempotent: a re-run writes the same."""
    root = rs.get_node(root_id)
    if root.level == 0 or root.summary_kept:
        return
    children = [rs.get_node(c).summary for c in root.children]
    summary = document_overview(children, max_chars=cfg.output.summary_max_chars, policy=cfg.grounding)
    if summary:
        rs.put_node(root.model_copy(update={"summary": summary, "summary_tokens": count_tokens(summary)}))


def update_records(index: ReuseIndex, meta: RunMeta, counts: dict[str, int]) -> list[UpdateRecord]:
    """The tree's updates so far, and this one: what it reused, redid, added and removed."""
    def by_kind(status: str) -> dict[str, int]:
        return {kind: counts[f"update.{kind}.{status}"] for kind in ("leaves", "blocks")
                if counts.get(f"update.{kind}.{status}")}
    this = UpdateRecord(at=meta.finished_at, source_sha256=index.raw["source_sha256"],
                        reused=by_kind("reused"), redone=by_kind("redone"), added=by_kind("new"),
                        removed=by_kind("removed"), calls=meta.stats.get("calls.total", 0),
                        stale=index.raw.get("stale") or {})
    return [*(UpdateRecord.model_validate(u) for u in index.raw.get("updates") or []), this]

"""reuse_leaves and rejoin_boundary: an update's passages that need no new boundary.

reuse_leaves copies the old leaves whose passages start at the cursor, one after another,
with their rewrite, summary and slug: no call. A leaf's rewrite was checked against the
text shown before it; when that text changed (its predecessor is a new passage), the
rewrite is checked again, by the same grounding gate, against the new one, and a rewrite
the new background no longer supports (a name it resolved from an edited sentence) is
written again, its boundary kept (`rejoin_end`). In a patch the whole run of reusable
leaves is copied in one step; a rebuild copies one leaf per step, so that the levels are
swept after each leaf as in a fresh run.

rejoin_boundary ends the leaf at `rejoin_end` without a call: the old boundary the cursor
met (expand_window found it past the minimum), or the old end of a passage being
rewritten again.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from chunker.background.policy import context_policy, leaf_background
from chunker.chunking.peel import leaf_structure
from chunker.chunking.strategy import tree_strategy
from chunker.config.settings import ChunkerSettings
from chunker.document.tokens import count_tokens
from chunker.grounding.gate import grounded
from chunker.nodes.common import progress, run_store
from chunker.state.records import LeafCut, NodeRecord
from chunker.state.schema import ChunkerState, reading_end
from chunker.state.store import RunStore, node_id
from chunker.update.index import ReuseIndex, reuse_index


def index_of(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> ReuseIndex | None:
    key = state.get("reuse_key")
    if not key:
        return None
    rs = run_store(state, runtime)
    return reuse_index(rs.store, key, rs.memo)


def reusable_old(state: ChunkerState, runtime: Runtime[ChunkerSettings], index: ReuseIndex,
                 pos: int) -> dict | None:
    """The old leaf whose passage starts at `pos`, its text unchanged and under the same
    headings (a heading added above it puts it in another section: it is redone)."""
    leaf = index.at(pos)
    if leaf is None:
        return None
    start, end = leaf["new"]
    if end > reading_end(state):  # a region's cursor never reads past its region
        return None
    here = leaf_structure(run_store(state, runtime), state["doc_id"], start, end)
    return leaf if list(here.header_path) == list(leaf["header_path"] or []) else None


def reusable_at(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict | None:
    """The old leaf to copy at the cursor: reusable, and what wrote its rewrite unchanged."""
    index = index_of(state, runtime)
    if index is None or index.leaf_text_stale:
        return None
    return reusable_old(state, runtime, index, state["cursor"])


def reuse_leaves(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    cfg = runtime.context
    rs = run_store(state, runtime)
    index = index_of(state, runtime)
    text = rs.units(state["doc_id"]).text
    count, cursor = state["leaf_count"], state["cursor"]
    pending = [list(level) for level in state["pending"]]
    stats: dict[str, int] = {}
    deferred = context_policy(cfg).defers_writing  # `source`: no sweep between leaves
    one_per_step = not index.patch and tree_strategy(state).sweeps and not deferred
    while True:
        leaf = reusable_at({**state, "cursor": cursor}, runtime)
        if leaf is None:
            break
        start, end = leaf["new"]
        original = text[start:end]
        record = _copied(leaf, count, original)
        if not _same_before(rs, index, leaf, count, deferred):
            # the text before it changed: its rewrite must still be supported by what it is shown now
            latest = index.latest_ids(cursor) if index.patch else state.get("latest") or []
            background = leaf_background(rs, cfg, count, latest, "rewrite", state["doc_id"])
            if record.rewrite_kept and not grounded(cfg.grounding, "rewrite", record.rewritten,
                                                    [original, background], stats, None, calls_dir=None):
                stats["update.leaves.regrounded_redone"] = stats.get("update.leaves.regrounded_redone", 0) + 1
                return _done(state, count, cursor, pending, stats) | {
                    "rejoin_end": end, "rejoin_origin": leaf["id"], **_latest(index, cursor)}
            stats["update.leaves.regrounded_kept"] = stats.get("update.leaves.regrounded_kept", 0) + 1
        rs.put_node(record)
        if deferred:  # written already: the leaf's cut says so, and shows its text to the next
            LeafCut(index=count, span=record.span, outcome=record.boundary, forced=record.forced_split,
                    origin=record.origin, reused=True).save(rs)
        pending[0].append([record.id, record.summary_tokens])
        stats["leaves"] = stats.get("leaves", 0) + 1
        stats["update.leaves.copied"] = stats.get("update.leaves.copied", 0) + 1
        count, cursor = count + 1, end
        if one_per_step:
            break
    progress(runtime, state, cursor, count)
    return _done(state, count, cursor, pending, stats)


def _same_before(rs: RunStore, index: ReuseIndex, leaf: dict, count: int, deferred: bool) -> bool:
    """Whether the passage before the old leaf `leaf` is the one it had: the same old passage
    (`origin`). A region's first leaf has its predecessor in the region before, being read at
    the same time: the same when the old predecessor's unchanged text ends where the region starts."""
    expected = index.predecessor(leaf["id"])
    if count == 0 and rs.region:
        old = index.leaves[index.leaf_index[expected]] if expected is not None else None
        return old is not None and old["new"] is not None and old["new"][1] == leaf["new"][0]
    prev = _before(rs, count, deferred)
    return (prev is None) == (expected is None) and (prev is None or prev.origin == expected)


def _before(rs: RunStore, count: int, deferred: bool) -> NodeRecord | LeafCut | None:
    """The leaf before the cursor (its `origin` says which old passage it is): its record,
    or under `source`, where it may not be written yet, its cut."""
    if not count:
        return None
    return LeafCut.load(rs, count - 1) if deferred else rs.find_node(node_id(0, count - 1))


def _latest(index: ReuseIndex, cursor: int) -> dict:
    if not index.patch:
        return {}
    return {"latest": index.latest_ids(cursor)}


def _done(state: ChunkerState, count: int, cursor: int, pending: list, stats: dict) -> dict:
    return {"leaf_count": count, "cursor": cursor, "pending": pending, "window_end": None,
            "chunk_end": None, "rejoin_end": None, "rejoin_origin": None, "stats": stats}


def _copied(leaf: dict, index: int, original: str) -> NodeRecord:
    rewritten, summary = leaf["rewritten"], leaf["summary"]
    tokens = count_tokens(original)
    return NodeRecord(
        id=node_id(0, index), level=0, index=index, span=tuple(leaf["new"]), original=original,
        rewritten=rewritten, rewritten_tokens=count_tokens(rewritten), tokens=tokens,
        summary=summary, summary_tokens=count_tokens(summary), slug_hint=leaf["slug"],
        forced_split=leaf["forced"], boundary=leaf["boundary"],
        # the fallback rewrite is the original's words: nothing a model wrote to check again
        rewrite_kept=rewritten != " ".join(original.split()),
        kind=leaf["content"], header_path=leaf["header_path"],
        pages=tuple(leaf["pages"]) if leaf["pages"] else None, scanned_pages=leaf["scanned"],
        origin=leaf["id"], reused=True)


def rejoin_boundary(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    return {"boundary_status": "match", "chunk_end": state["rejoin_end"], "chunk_outcome": "rejoin",
            "forced": False, "rejoin_end": None,  # rejoin_origin stays for rewrite_chunk
            "stats": {"boundary.rejoin": 1, "calls_saved.rejoin": 1}}


def seed_old_blocks(rs: RunStore, index: ReuseIndex) -> None:
    """The old blocks as records `old:<id>`, so a new passage's background shows the
    summaries above it (`latest`) as a fresh run would."""
    for b in index.raw["blocks"]:
        rs.put_node(NodeRecord(id=f"old:{b['id']}", level=b["level"], index=0, span=tuple(b["old"]),
                               rewritten=b["rewritten"], rewritten_tokens=0, summary=b["summary"],
                               summary_tokens=count_tokens(b["summary"])))

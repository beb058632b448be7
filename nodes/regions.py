"""plan_regions, hand_up, join_regions and number_nodes: a document read in regions.

plan_regions (no call) divides the document into regions (`chunker/chunking/regions.py`) and
makes the outline every call will see (`chunker/background/outline.py`), before any region is
read; a run in one cursor, and a document that is one region, plan nothing and run as they
always did. `region_jobs` sends one `region` task per region (`graph/regions.py`), each a
cursor of its own from the region's start to its end, its nodes counted from its own first
leaf in a scope of the store of their own. hand_up ends a region: what it holds for the
levels above it is kept in its scope (`RegionResult`).

join_regions joins them, in document order: every region's nodes are copied under ids
numbered on from the regions before it (leaves `L0-...` in document order, each level's
blocks in region order), and the nodes the regions left ungrouped are pending for the levels
above them, which `aggregate` builds as the section tree builds a section's. number_nodes
then numbers every level's blocks in document order (the levels above the regions were
made last), into the document's scope, where a run read in one cursor keeps its tree. An
update's patch takes the joined leaves in the document's scope at once (`patch_tree`).
"""

from __future__ import annotations

from langgraph.runtime import Runtime
from langgraph.types import Send

from chunker.background.outline import make_plan
from chunker.chunking.boundary import boundary_policy
from chunker.chunking.regions import plan_document, run_plan
from chunker.chunking.strategy import tree_strategy
from chunker.config.settings import ChunkerSettings
from chunker.nodes.aggregate import fresh_grouping
from chunker.nodes.common import emit, run_store
from chunker.nodes.reuse import index_of
from chunker.state.records import NodeRecord, RegionResult
from chunker.state.schema import ChunkerState, StepState
from chunker.state.store import RunStore, node_id


def plan_regions(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    cfg = runtime.context
    if cfg.regions.reading == "one_cursor":
        return {}  # nothing planned, nothing counted: the run is as it always was
    rs = run_store(state, runtime)
    strategy = tree_strategy(state)
    # an update embeds only where a window needs the signal: its plain text is one region
    has_signal = boundary_policy(cfg.chunking).reads_signal and not state.get("reuse_key")
    by, planned = plan_document(rs, cfg, state["doc_id"], uses_structure=strategy.uses_structure,
                                sweeps=strategy.sweeps, has_signal=has_signal)
    if len(planned) < 2:
        return {"regions": 1}
    plan = make_plan(rs.units(state["doc_id"]), by, planned, cfg.regions, cfg.grounding)
    plan.save(rs)
    rs.memo.put(("region-plan",), plan)
    emit(runtime, {"event": "regions", "spans": [list(r.span) for r in plan.regions]})
    return {"regions": len(plan.regions), "stats": {"regions": len(plan.regions), f"regions.{by}": 1}}


def region_jobs(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> list[Send]:
    """One `region` task per region, the longest first (a long region's calls are a chain:
    started last, it would run alone at the end); the order changes no node."""
    plan = run_plan(run_store(state, runtime))
    regions = sorted(plan.regions, key=lambda r: (r.span[0] - r.span[1], r.index))
    return [Send("region", region_start(state, r.index, tuple(r.span))) for r in regions]


def region_start(state: ChunkerState, region: int, span: tuple[int, int]) -> StepState:
    """The state a region's cursor starts from: as load_document's, at the region's start."""
    return StepState(
        run_key=state["run_key"], doc_id=state["doc_id"], doc_chars=state["doc_chars"],
        strategy=state["strategy"], reuse_key=state.get("reuse_key"), region=region, text_end=span[1],
        joined=False, cursor=span[0], window_end=None, leaf_count=0, pending=[[]], latest=[None],
        block_counts=[0], finalizing=False, root_id=None, groups_todo=[], rejoin_end=None,
        rejoin_origin=None, patch_todo=[])


def hand_up(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    """A region is read: its counts and its ungrouped nodes, in document order (the higher
    pending levels hold the earlier text), kept for join_regions."""
    pending = state["pending"]
    items = [item for level in range(len(pending) - 1, -1, -1) for item in pending[level]]
    RegionResult(leaf_count=state["leaf_count"], block_counts=list(state["block_counts"]),
                 items=items).save(run_store(state, runtime))
    return {}


def join_regions(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    rs = run_store(state, runtime)
    index = index_of(state, runtime)
    patch = index is not None and index.patch
    target = rs.scoped(joined=not patch)  # a patch takes the leaves in the document's scope
    leaves, counts, items = 0, [0], []
    for region in run_plan(rs).regions:
        here = rs.scoped(region=region.index)
        result = RegionResult.load(here)
        ids = {node_id(0, i): node_id(0, leaves + i) for i in range(result.leaf_count)}
        for level, count in enumerate(result.block_counts[1:], start=1):
            while len(counts) <= level:
                counts.append(0)
            ids.update({node_id(level, i): node_id(level, counts[level] + i) for i in range(count)})
            counts[level] += count
        _copy(here, target, ids)
        leaves += result.leaf_count
        items.extend([ids[nid], tokens] for nid, tokens in result.items)
    joined = {"cursor": state["doc_chars"], "leaf_count": leaves, "block_counts": counts,
              "finalizing": False, "root_id": None, "groups_todo": [], "agg_level": None}
    if patch:
        return joined
    return {**joined, **fresh_grouping(), "joined": True, "pending": [items], "latest": [None]}


def _copy(source: RunStore, target: RunStore, ids: dict[str, str]) -> None:
    """The records `ids` names, from `source` to `target` under their new ids."""
    records = source.get_nodes(list(ids))
    target.put_nodes([_renamed(r, ids[r.id], ids) for r in records])


def _renamed(record: NodeRecord, new: str, ids: dict[str, str]) -> NodeRecord:
    return record.model_copy(update={"id": new, "index": int(new.split("-")[1]),
                                     "children": [ids.get(c, c) for c in record.children]})


def number_nodes(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    """The joined tree, each level's blocks numbered in document order, into the document's
    scope (idempotent: it reads only the joined scope)."""
    joined = run_store(state, runtime)
    ids = {node_id(0, i): node_id(0, i) for i in range(state["leaf_count"])}
    for level, count in enumerate(state["block_counts"][1:], start=1):
        blocks = sorted(joined.get_nodes([node_id(level, i) for i in range(count)]), key=lambda r: r.span)
        ids.update({r.id: node_id(level, i) for i, r in enumerate(blocks)})
    _copy(joined, joined.scoped(), ids)
    return {"joined": False, "root_id": ids[state["root_id"]]}

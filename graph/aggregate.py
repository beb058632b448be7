"""The `aggregate` subgraph: the levels above the leaves, after each leaf the cursor (or
the `source` replay) hands them (`fresh` skips it for a leaf that leaves it nothing to do:
`due`), and at the end up to the root.

    [sweeping strategies] check_aggregation -> [a level crosses its thresholds] group_summaries
        | [the text is read] finalize_tree | end
    [flat, the text read] group_all -> synthesis
    group_summaries -> validate_groups -> [ok] synthesis | [retry] group_summaries | fallback_grouping
    synthesis -> [the tree is done] finalize_tree | check_aggregation
    finalize_tree -> [a root] end | [levels left] group_summaries

A sweep's groups are synthesised one per step (`synthesize_block`), or, built with
`at_once` (the `source` pipeline), all at once (one `synthesize_group` task each, then
`place_blocks`): the only difference between the two.
"""

from __future__ import annotations

from typing import Literal

from langgraph.graph import START
from langgraph.runtime import Runtime
from langgraph.types import RetryPolicy, Send

from chunker.chunking.strategy import tree_strategy
from chunker.config.settings import ChunkerSettings
from chunker.graph.wiring import Wiring
from chunker.nodes.aggregate import check_aggregation, fallback_grouping, validate_groups
from chunker.nodes.common import run_store
from chunker.nodes.finalize import finalize_tree, group_all
from chunker.nodes.grouping import group_summaries
from chunker.nodes.synthesize import synthesize_block
from chunker.nodes.synthesize_groups import group_jobs, place_blocks, synthesize_group
from chunker.state.schema import ChunkerState, in_region, read


def begin(state: ChunkerState, runtime: Runtime[ChunkerSettings]
          ) -> Literal["check_aggregation", "group_all", "finalize_tree", "__end__"]:
    """Every leaf of a sweeping strategy passes the aggregation hook; the flat strategy
    waits for the last leaf, then makes one block over all (none over a single leaf)."""
    if tree_strategy(state).sweeps:
        return "check_aggregation"
    if not at_the_top(state):
        return "__end__"
    return "group_all" if len(state["pending"][0]) > 1 else "finalize_tree"


def at_the_top(state: ChunkerState) -> bool:
    """The levels go up to one node now: the document is read, or a region whose strategy
    tops it (`tops_regions`: plain text); a section tree's region hands its nodes up instead,
    for the sections around it, made once the regions are joined."""
    return read(state) and (not in_region(state) or tree_strategy(state).tops_regions)


def due(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> bool:
    """Whether the levels have anything to do after this leaf: what `begin` and
    `check_aggregation` would find, read without running the subgraph. Most leaves only wait
    on their level, and a subgraph's run costs LangGraph a loop of its own, two steps more
    than its nodes and their checkpoints (fastapi-docs, scripted: 18,900 steps without the
    skip, 15,400 with it, 9 % less CPU): the pipeline skips it for them, leaving the state as
    a run through it would (`check_aggregation`'s bookkeeping is fresh after every run of it)."""
    strategy = tree_strategy(state)
    if at_the_top(state):
        return True
    if not strategy.sweeps:
        return False
    return strategy.next_sweep(state, run_store(state, runtime), runtime.context.aggregation) is not None


def after_check(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                ) -> Literal["group_summaries", "finalize_tree", "__end__"]:
    """Sweep a level, or finish once the text is read, or hand back for the next leaf."""
    if state.get("agg_level") is not None:
        return "group_summaries"
    return "finalize_tree" if at_the_top(state) else "__end__"


def after_grouping(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                   ) -> Literal["validate_groups", "fallback_grouping"]:
    """A grouping to check, or none because the model is not asked to group (`model_tasks`)."""
    if state.get("proposed") is None and not runtime.context.llm.asks("group"):
        return "fallback_grouping"
    return "validate_groups"


def after_validation(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                     ) -> Literal["synthesize_block", "group_summaries", "fallback_grouping"]:
    status = state["group_status"]
    if status == "ok":
        return "synthesize_block"
    return "group_summaries" if status == "retry" else "fallback_grouping"


def after_validation_at_once(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                             ) -> Literal["synthesize_group", "group_summaries", "fallback_grouping"] | list[Send]:
    status = state["group_status"]
    if status == "ok":
        return group_jobs(state)
    return "group_summaries" if status == "retry" else "fallback_grouping"


def synthesize_at_once(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                       ) -> Literal["synthesize_group"] | list[Send]:
    """A sweep's groups are chosen: one `synthesize_group` task each."""
    return group_jobs(state)


def after_synthesis(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                    ) -> Literal["synthesize_block", "finalize_tree", "check_aggregation"]:
    if state.get("groups_todo"):
        return "synthesize_block"
    return after_blocks_placed(state, runtime)


def after_blocks_placed(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                        ) -> Literal["finalize_tree", "check_aggregation"]:
    """A sweep's blocks are all written: finish the tree, or check the levels again."""
    return "finalize_tree" if state.get("finalizing") else "check_aggregation"


def after_finalize(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                   ) -> Literal["__end__", "group_summaries"]:
    return "__end__" if state.get("root_id") else "group_summaries"


def build_aggregate(retry: RetryPolicy, *, at_once: bool = False):
    """The levels: 7 nodes (8 at once: `source`'s, its sweeps' blocks synthesised together)."""
    w = Wiring(retry)
    w.plain(check_aggregation=check_aggregation, group_all=group_all, validate_groups=validate_groups,
            fallback_grouping=fallback_grouping, finalize_tree=finalize_tree)
    w.llm(group_summaries=group_summaries)
    w.route(START, begin)
    w.route("check_aggregation", after_check)
    w.route("group_summaries", after_grouping)
    if at_once:
        w.llm(synthesize_group=synthesize_group).plain(place_blocks=place_blocks)
        w.route("validate_groups", after_validation_at_once)
        for chosen in ("fallback_grouping", "group_all"):
            w.route(chosen, synthesize_at_once)
        w.edge("synthesize_group", "place_blocks")
        w.route("place_blocks", after_blocks_placed)
    else:
        w.llm(synthesize_block=synthesize_block)
        w.route("validate_groups", after_validation)
        w.edge("fallback_grouping", "synthesize_block").edge("group_all", "synthesize_block")
        w.route("synthesize_block", after_synthesis)
    w.route("finalize_tree", after_finalize)
    return w.compile("aggregate_at_once" if at_once else "aggregate")

"""check_aggregation, validate_groups and fallback_grouping: the pure parts of phase 2
(validate_groups and fallback_grouping are the grouping loop's `judge` and fall back,
chunker/aggregation/grouping.py, one step each).

Pending items of a level are `[id, summary_tokens]` pairs in document order. Higher
levels always cover earlier text than lower ones, so appending to the next level
keeps every level's pending list in document order.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from chunker.config.settings import ChunkerSettings
from chunker.aggregation.groups import grouping_problem
from chunker.aggregation.grouping import Attempt, fallback_groups, fallback_stats, judge
from chunker.nodes.common import run_store
from chunker.chunking.strategy import crossing_level, tree_strategy
from chunker.state.schema import ChunkerState


def check_aggregation(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    """Whether a level is swept now (the strategy's `next_sweep`), and from what pending levels
    (the section tree first gathers a closed section's items onto one level)."""
    agg = runtime.context.aggregation
    chosen = tree_strategy(state).next_sweep(state, run_store(state, runtime), agg)
    if chosen is None:
        return {"agg_level": None, **fresh_grouping()}
    level, pending = chosen
    return {"agg_level": level, "pending": pending, **fresh_grouping()}


def fresh_grouping() -> dict:
    """Grouping bookkeeping reset for a new sweep."""
    return {"proposed": None, "group_dips": None, "group_nudge": "", "hard_failures": 0,
            "soft_reprompted": False, "group_status": None}


def validate_groups(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    cfg = runtime.context
    agg = cfg.aggregation
    level = state["agg_level"]
    items, planner = tree_strategy(state).sweep_items(state, run_store(state, runtime), level, agg)
    groups = state.get("proposed")
    problem = grouping_problem(groups, len(items), agg.min_group_size)
    if planner is not None and problem is None:  # the outline's groups: sized by fanout_*
        return {**_accept(state, [[items[i][0] for i in g] for g in groups], level), "stats": {}}
    attempt = Attempt(state.get("hard_failures", 0), bool(state.get("soft_reprompted")),
                      state.get("group_nudge", ""))
    verdict = judge(groups, len(items), agg, attempt)
    if verdict.status == "ok":
        return {**_accept(state, [[items[i][0] for i in g] for g in groups], level), "stats": verdict.stats}
    return {"hard_failures": verdict.attempt.failures, "soft_reprompted": verdict.attempt.resized,
            "group_status": verdict.status, "group_nudge": verdict.attempt.nudge, "stats": verdict.stats}


def fallback_grouping(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    """After two hard failures, or at once when the model is not asked to group: consecutive
    groups cut at the deepest dips between the summaries (even-sized groups without a signal)."""
    cfg = runtime.context
    agg = cfg.aggregation
    level = state["agg_level"]
    items, planner = tree_strategy(state).sweep_items(state, run_store(state, runtime), level, agg)
    ids = [item[0] for item in items]
    dips = state.get("group_dips") or []
    if planner is not None:  # the outline decides
        groups = [[ids[i] for i in g] for g in planner(dips)]
    else:
        groups = [[ids[i] for i in g] for g in fallback_groups(len(ids), dips, agg)]
    return {**_accept(state, groups, level), "stats": fallback_stats(cfg.llm.asks("group"))}


def _accept(state: ChunkerState, groups: list[list[str]], level: int) -> dict:
    """The groups to synthesise. Items before the first group move up a level as they are
    (the nodes of earlier sections, see `chunker/chunking/sections.py`: they precede every new
    block); items after the last group stay pending (the section still being read)."""
    pending = [list(items) for items in state["pending"]]
    ids = [item[0] for item in pending[level]]
    first, last = ids.index(groups[0][0]), ids.index(groups[-1][-1])
    if first:
        while len(pending) <= level + 1:
            pending.append([])
        pending[level + 1].extend(pending[level][:first])
    pending[level] = pending[level][last + 1:]
    return {"groups_todo": groups, "pending": pending, "group_status": "ok"}

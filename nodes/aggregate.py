"""check_aggregation, validate_groups and fallback_grouping: the pure parts of phase 2.

Pending items of a level are `[id, summary_tokens]` pairs in document order. Higher
levels always cover earlier text than lower ones, so appending to the next level
keeps every level's pending list in document order.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from chunker.config.settings import ChunkerSettings
from chunker.aggregation.groups import even_groups, grouping_problem
from chunker.embeddings import split_at_dips
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
    if problem:
        failures = state.get("hard_failures", 0) + 1
        status = "fallback" if failures >= 2 else "retry"
        return {"hard_failures": failures, "group_status": status,
                "group_nudge": f"\nYour previous grouping was invalid: {problem}.",
                "stats": {"group.invalid": 1}}
    too_big = max(len(g) for g in groups) > agg.max_group_size
    if too_big and not state.get("soft_reprompted"):
        return {"soft_reprompted": True, "group_status": "retry",
                "group_nudge": f"\nYour previous grouping had a group of more than "
                               f"{agg.max_group_size} items: subdivide it.",
                "stats": {"group.oversize": 1}}
    stats = {"kept.group": 1} if len(items) >= 2 * agg.min_group_size else {}
    return {**_accept(state, [[items[i][0] for i in g] for g in groups], level),
            # a grouping the model proposed (a trivial one is decided without a call)
            "stats": stats}


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
    elif len(dips) == len(ids) - 1:
        groups = [[ids[i] for i in g] for g in split_at_dips(len(ids), dips, agg.min_group_size,
                                                              agg.max_group_size)]
    else:
        groups = even_groups(ids, agg.max_group_size, agg.min_group_size)
    update = _accept(state, groups, level)
    # a model not asked to group (`model_tasks`) did not fail: its grouping is extracted
    update["stats"] = {"group.fallback": 1} if cfg.llm.asks("group") else {"extracted.group": 1}
    return update


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

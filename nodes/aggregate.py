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
from chunker.chunking.strategy import tree_strategy
from chunker.chunking.sections import has_breaks, section_groups, section_problem
from chunker.state.schema import ChunkerState


def crossing_level(pending: list[list[list]], count_threshold: int, token_threshold: int,
                   min_group_size: int) -> int | None:
    """The lowest level whose pending summaries cross either threshold."""
    for level, items in enumerate(pending):
        if len(items) < min_group_size:
            continue
        if len(items) >= count_threshold or sum(tokens for _, tokens in items) >= token_threshold:
            return level
    return None


def check_aggregation(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    cfg = runtime.context
    agg = cfg.aggregation
    level = crossing_level(state["pending"], agg.summary_count_threshold,
                           agg.summary_aggregation_threshold, agg.min_group_size)
    if level is not None:
        items, _, _ = tree_strategy(state).sweep_items(state, run_store(state, runtime), level, agg)
        if len(items) < agg.min_group_size:  # wait until the open section closes
            level = None
    return {"agg_level": level, **fresh_grouping()}


def fresh_grouping() -> dict:
    """Grouping bookkeeping reset for a new sweep."""
    return {"proposed": None, "group_dips": None, "group_nudge": "", "hard_failures": 0,
            "soft_reprompted": False, "group_status": None}


def validate_groups(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    cfg = runtime.context
    agg = cfg.aggregation
    level = state["agg_level"]
    items, starts, after = tree_strategy(state).sweep_items(state, run_store(state, runtime), level, agg)
    groups = state.get("proposed")
    problem = grouping_problem(groups, len(items), agg.min_group_size)
    crossing = None
    if problem is None and starts is not None:
        crossing = section_problem(groups, starts, after)
        best = section_groups(starts, state.get("group_dips") or [], agg.min_group_size,
                              agg.max_group_size, after)
        if crossing and section_problem(best, starts, after) is None:
            problem = crossing  # a grouping that keeps sections apart exists: ask for it
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
    if crossing:
        stats["group.cross_section"] = 1  # unavoidable: no grouping keeps them apart
    return {**_accept(state, [[items[i][0] for i in g] for g in groups], level),
            # a grouping the model proposed (a trivial one is decided without a call)
            "stats": stats}


def fallback_grouping(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    """After two hard failures, or at once when the model is not asked to group: consecutive
    groups cut at the deepest dips between the summaries (even-sized groups without a signal)."""
    cfg = runtime.context
    agg = cfg.aggregation
    level = state["agg_level"]
    items, starts, after = tree_strategy(state).sweep_items(state, run_store(state, runtime), level, agg)
    ids = [item[0] for item in items]
    dips = state.get("group_dips") or []
    if starts is not None and has_breaks(starts):  # split at the sections first
        groups = [[ids[i] for i in g] for g in section_groups(starts, dips, agg.min_group_size,
                                                               agg.max_group_size, after)]
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
    (a section's leftover, see `chunker/chunking/sections.py`: they precede every new block); items
    after the last group stay pending (the section still being read)."""
    pending = [list(items) for items in state["pending"]]
    ids = [item[0] for item in pending[level]]
    first, last = ids.index(groups[0][0]), ids.index(groups[-1][-1])
    if first:
        while len(pending) <= level + 1:
            pending.append([])
        pending[level + 1].extend(pending[level][:first])
    pending[level] = pending[level][last + 1:]
    return {"groups_todo": groups, "pending": pending, "group_status": "ok"}

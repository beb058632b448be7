"""Routing functions: every decision in the graph, as a function of the state.

Each returns the name of the next node.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from chunker.nodes.common import settings
from chunker.state.schema import ChunkerState


def after_expand(state: ChunkerState, runtime: Runtime) -> str:
    """Safety valve: a window of max_chunk_tokens is split without asking the LLM."""
    if state["window_tokens"] >= settings(runtime).max_chunk_tokens:
        return "force_split"
    return "check_completeness"


def after_validate(state: ChunkerState, runtime: Runtime) -> str:
    status = state["boundary_status"]
    if status == "match":
        return "rewrite_chunk"
    if status == "expand":
        # Safety valve: still incomplete after max_expansion_attempts expansions.
        if state["expansions"] >= settings(runtime).max_expansion_attempts:
            return "force_split"
        return "expand_window"
    return "retry_boundary" if state.get("boundary_attempt", 0) == 0 else "fallback_boundary"


def after_aggregation_check(state: ChunkerState) -> str:
    """The aggregation hook after each leaf: sweep a level, or go on chunking, or finish."""
    if state.get("agg_level") is not None:
        return "group_summaries"
    if state["cursor"] >= state["doc_chars"]:
        return "finalize_tree"
    return "expand_window"


def after_group_validation(state: ChunkerState) -> str:
    return {"ok": "synthesize_block", "retry": "group_summaries",
            "fallback": "fallback_grouping"}[state["group_status"]]


def after_synthesis(state: ChunkerState) -> str:
    if state.get("groups_todo"):
        return "synthesize_block"
    return "finalize_tree" if state.get("finalizing") else "check_aggregation"


def after_finalize(state: ChunkerState) -> str:
    return "write_outputs" if state.get("root_id") else "group_summaries"

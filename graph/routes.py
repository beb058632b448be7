"""Routing functions: every decision in the graph, as a function of the state.

Each returns the name of the next node, typed as a `Literal` of its possible targets.
"""

from __future__ import annotations

from typing import Literal

from langgraph.runtime import Runtime

from chunker.config.settings import ChunkerSettings
from chunker.nodes.common import settings
from chunker.state.schema import ChunkerState


def after_expand(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                 ) -> Literal["rewrite_chunk", "force_split", "check_completeness"]:
    """A section's rest with no cut to choose is a leaf as it is (expand_window set its
    end); safety valve: a window of max_chunk_tokens is split without asking the LLM."""
    if state.get("chunk_end") is not None:
        return "rewrite_chunk"
    if state["window_tokens"] >= settings(runtime).max_chunk_tokens:
        return "force_split"
    return "check_completeness"


def after_validate(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> Literal[
        "rewrite_chunk", "expand_window", "retry_boundary", "fallback_boundary", "force_split"]:
    status = state["boundary_status"]
    if status == "match":
        return "rewrite_chunk"
    if status == "expand":
        # Safety valve: still incomplete after max_expansion_attempts expansions.
        if state["expansions"] >= settings(runtime).max_expansion_attempts:
            return "force_split"
        return "expand_window"
    return "retry_boundary" if state.get("boundary_attempt", 0) == 0 else "fallback_boundary"


def after_aggregation_check(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                            ) -> Literal["group_summaries", "finalize_tree", "expand_window"]:
    """The aggregation hook after each leaf: sweep a level, or go on chunking, or finish."""
    if state.get("agg_level") is not None:
        return "group_summaries"
    if state["cursor"] >= state["doc_chars"]:
        return "finalize_tree"
    return "expand_window"


def after_group_validation(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                           ) -> Literal["synthesize_block", "group_summaries", "fallback_grouping"]:
    status = state["group_status"]
    if status == "ok":
        return "synthesize_block"
    if status == "retry":
        return "group_summaries"
    return "fallback_grouping"


def after_synthesis(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                    ) -> Literal["synthesize_block", "finalize_tree", "check_aggregation"]:
    if state.get("groups_todo"):
        return "synthesize_block"
    return "finalize_tree" if state.get("finalizing") else "check_aggregation"


def after_finalize(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                   ) -> Literal["write_outputs", "synthesize_block", "group_summaries"]:
    if state.get("root_id"):
        return "write_outputs"
    # the flat strategy's one block over all leaves needs no grouping call
    return "synthesize_block" if state.get("groups_todo") else "group_summaries"

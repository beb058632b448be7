"""The `cut` subgraph: where the leaf at the cursor ends (one leaf a run, or the copied
passages of an update).

    [an old passage at the cursor] reuse_leaves -> [its rewrite to redo] rejoin_boundary | end
    expand_window -> [an old boundary met] rejoin_boundary | [a section's rest] end_at_section
        | [safety valve: max_chunk_tokens] force_split | boundary
    boundary -> [decided] end | [incomplete] expand_window | [max_expansion_attempts] force_split

`boundary` is the boundary policy's own subgraph: the model asked where the window is
complete (a retry, then the policy's own cut when its answers miss), or without a model
(`model_tasks`) the policy's cut at once. The subgraph ends with the leaf's end decided
(`chunk_end`), or after copied leaves with none (`chunk_end` None): the pipeline writes the
one, and goes on after the other.
"""

from __future__ import annotations

from typing import Literal

from langgraph.graph import END, START
from langgraph.runtime import Runtime
from langgraph.types import RetryPolicy

from chunker.config.settings import ChunkerSettings
from chunker.graph.wiring import Wiring
from chunker.nodes.boundary import (cut_without_model, end_at_section, fallback_boundary, force_split,
                                   validate_boundary)
from chunker.nodes.completeness import check_completeness, retry_boundary
from chunker.nodes.reuse import rejoin_boundary, reusable_at, reuse_leaves
from chunker.nodes.window import expand_window
from chunker.state.schema import ChunkerState


def next_passage(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                 ) -> Literal["reuse_leaves", "expand_window"]:
    """An update copies the old passage that starts at the cursor; anything else is read."""
    return "reuse_leaves" if reusable_at(state, runtime) is not None else "expand_window"


def after_reuse(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                ) -> Literal["rejoin_boundary", "__end__"]:
    """A copied leaf whose rewrite the new text before it no longer supports is written
    again at its old boundary; otherwise the copied leaves are done."""
    return "rejoin_boundary" if state.get("rejoin_end") is not None else "__end__"


def after_expand(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                 ) -> Literal["rejoin_boundary", "end_at_section", "force_split", "boundary"]:
    """An update's passage that ends at an old boundary needs no choice; a section's rest
    with no cut to choose is a leaf as it is (expand_window found its end); safety valve: a
    window of max_chunk_tokens is split without asking the LLM."""
    if state.get("rejoin_end") is not None:
        return "rejoin_boundary"
    if state.get("section_end") is not None:
        return "end_at_section"
    if state["window_tokens"] >= runtime.context.chunking.max_chunk_tokens:
        return "force_split"
    return "boundary"


def after_boundary(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                   ) -> Literal["__end__", "expand_window", "force_split"]:
    """Decided, or the window is incomplete: read more of it, unless it was expanded
    max_expansion_attempts times already (safety valve)."""
    if state["boundary_status"] != "expand":
        return "__end__"
    if state["expansions"] >= runtime.context.chunking.max_expansion_attempts:
        return "force_split"
    return "expand_window"


def ask_or_cut(state: ChunkerState, runtime: Runtime[ChunkerSettings]
               ) -> Literal["check_completeness", "cut_without_model"]:
    """A model not asked for boundaries (`model_tasks`) leaves the cut to the policy at once."""
    return "check_completeness" if runtime.context.llm.asks("boundary") else "cut_without_model"


def after_validate(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                   ) -> Literal["__end__", "retry_boundary", "fallback_boundary"]:
    """A match, or an incomplete window (`expand`: the cut subgraph reads on), ends the
    policy's turn; a miss is asked once again, then cut by the policy itself."""
    if state["boundary_status"] in ("match", "expand"):
        return "__end__"
    return "retry_boundary" if state.get("boundary_attempt", 0) == 0 else "fallback_boundary"


def build_boundary(retry: RetryPolicy):
    """The boundary policy's turn on one window: 5 nodes."""
    w = Wiring(retry)
    w.plain(validate_boundary=validate_boundary, fallback_boundary=fallback_boundary,
            cut_without_model=cut_without_model)
    w.llm(check_completeness=check_completeness, retry_boundary=retry_boundary)
    w.route(START, ask_or_cut)
    w.edge("check_completeness", "validate_boundary").edge("retry_boundary", "validate_boundary")
    w.route("validate_boundary", after_validate)
    w.edge("fallback_boundary", END).edge("cut_without_model", END)
    return w.compile("boundary")


def build_cut(retry: RetryPolicy):
    """The leaf at the cursor: 6 nodes (one of them the boundary policy's subgraph)."""
    w = Wiring(retry)
    w.plain(reuse_leaves=reuse_leaves, rejoin_boundary=rejoin_boundary, expand_window=expand_window,
            end_at_section=end_at_section, force_split=force_split, boundary=build_boundary(retry))
    w.route(START, next_passage)
    w.route("reuse_leaves", after_reuse)
    w.route("expand_window", after_expand)
    w.route("boundary", after_boundary)
    for decided in ("rejoin_boundary", "end_at_section", "force_split"):
        w.edge(decided, END)
    return w.compile("cut")

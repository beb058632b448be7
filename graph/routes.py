"""Routing functions: every decision in the graph, as a function of the state.

Each returns the name of the next node, typed as a `Literal` of its possible targets; the
`Literal` is what `graph/build.py` draws the edges from (`targets`); a fan-out route
(`background.context: source`) returns `Send`s instead, to the node its `Literal` names.
Where the way on depends on the run's mode, the route asks the run's policy
(`boundary_policy`, `tree_strategy`, `context_policy`): no route tests a mode by name.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Literal, Union, get_args, get_origin, get_type_hints

from langgraph.runtime import Runtime
from langgraph.types import Send

from chunker.background.policy import context_policy
from chunker.chunking.boundary import boundary_policy
from chunker.chunking.strategy import tree_strategy
from chunker.config.settings import ChunkerSettings
from chunker.nodes.reuse import index_of, reusable_at
from chunker.nodes.synthesize_groups import group_jobs
from chunker.nodes.write_leaf import leaf_jobs
from chunker.state.schema import ChunkerState


def targets(route: Callable) -> list[str]:
    """The nodes a route may lead to: the names in the `Literal` of its return type. A route
    that may also send tasks (`list[Send]`, a fan-out) names their node in its `Literal`
    too, so that the drawn graph shows the fan-out's edge."""
    hint = get_type_hints(route)["return"]
    parts = get_args(hint) if get_origin(hint) in (Union, types.UnionType) else (hint,)
    return [name for part in parts if get_origin(part) is Literal for name in get_args(part)]


def _deferred(runtime: Runtime[ChunkerSettings]) -> bool:
    """`background.context: source`: leaves are written after the cursor, blocks of a sweep
    together (`chunker/background/policy.py`)."""
    return context_policy(runtime.context).defers_writing


Passage = Literal["reuse_leaves", "expand_window"]


def next_passage(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> Passage:
    """An update copies the old passage that starts at the cursor; anything else is read."""
    return "reuse_leaves" if reusable_at(state, runtime) is not None else "expand_window"


def after_load(state: ChunkerState, runtime: Runtime[ChunkerSettings]
               ) -> Literal["embed_document", "expand_window", "reuse_leaves"]:
    """A policy that reads the embedding signal needs the document embedded first. An update
    embeds only when a window first needs the signal: most of its passages are copied or
    rejoin an old boundary, and a book takes minutes to embed."""
    if state.get("reuse_key"):
        return next_passage(state, runtime)
    return "embed_document" if boundary_policy(runtime.context.chunking).reads_signal else "expand_window"


def after_expand(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                 ) -> Literal["rejoin_boundary", "end_at_section", "force_split", "cut_without_model",
                              "check_completeness"]:
    """An update's passage that ends at an old boundary needs no choice; a section's rest
    with no cut to choose is a leaf as it is (expand_window found its end); safety valve: a
    window of max_chunk_tokens is split without asking the LLM; a model not asked for
    boundaries (`model_tasks`) leaves the cut to the policy at once."""
    cfg = runtime.context
    if state.get("rejoin_end") is not None:
        return "rejoin_boundary"
    if state.get("section_end") is not None:
        return "end_at_section"
    if state["window_tokens"] >= cfg.chunking.max_chunk_tokens:
        return "force_split"
    if not cfg.llm.asks("boundary"):
        return "cut_without_model"
    return "check_completeness"


def after_validate(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> Literal[
        "rewrite_chunk", "record_cut", "expand_window", "retry_boundary", "fallback_boundary", "force_split"]:
    status = state["boundary_status"]
    if status == "match":
        return after_cut(state, runtime)
    if status == "expand":
        # Safety valve: still incomplete after max_expansion_attempts expansions.
        if state["expansions"] >= runtime.context.chunking.max_expansion_attempts:
            return "force_split"
        return "expand_window"
    return "retry_boundary" if state.get("boundary_attempt", 0) == 0 else "fallback_boundary"


def after_cut(state: ChunkerState, runtime: Runtime[ChunkerSettings]
              ) -> Literal["rewrite_chunk", "record_cut"]:
    """A leaf's end is decided: write it now, or under `source` record the cut and read on."""
    return "record_cut" if _deferred(runtime) else "rewrite_chunk"


def read_on_or_write(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                     ) -> Literal["reuse_leaves", "expand_window", "write_leaf", "leaves_written"] | list[Send]:
    """Under `source`, after each cut: read on; at the end, write every leaf not written yet
    at once (one `write_leaf` task each), or with none to write go straight on."""
    if state["cursor"] < state["doc_chars"]:
        return next_passage(state, runtime)
    return leaf_jobs(state, runtime) or "leaves_written"


def after_leaves_written(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                         ) -> Literal["patch_tree", "replay_leaf", "group_all", "finalize_tree"]:
    """The levels, as after `written`'s last leaf: an update's patch, the sweeps (replayed
    leaf by leaf), or the flat strategy's one block."""
    index = index_of(state, runtime)
    if index is not None and index.patch:
        return "patch_tree"
    if tree_strategy(state).sweeps:
        return "replay_leaf"
    return "group_all" if len(state["pending"][0]) > 1 else "finalize_tree"


def after_leaf(state: ChunkerState, runtime: Runtime[ChunkerSettings]
               ) -> Literal["check_aggregation", "expand_window", "reuse_leaves", "group_all",
                            "finalize_tree", "patch_tree"]:
    """After each leaf: the aggregation hook, unless the strategy does not sweep (flat: read
    on, then one block over all leaves) or an update patches the old tree's levels once its
    leaves are done."""
    index = index_of(state, runtime)
    patching = index is not None and index.patch
    if tree_strategy(state).sweeps and not patching:
        return "check_aggregation"
    if state["cursor"] < state["doc_chars"]:
        return next_passage(state, runtime)
    if patching:
        return "patch_tree"
    return "group_all" if len(state["pending"][0]) > 1 else "finalize_tree"


def after_reuse(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                ) -> Literal["rejoin_boundary", "check_aggregation", "expand_window", "reuse_leaves",
                             "group_all", "finalize_tree", "patch_tree", "write_leaf",
                             "leaves_written"] | list[Send]:
    """A copied leaf whose rewrite the new text before it no longer supports is written
    again at its old boundary; otherwise on as after any leaf (under `source`, any cut)."""
    if state.get("rejoin_end") is not None:
        return "rejoin_boundary"
    if _deferred(runtime):
        return read_on_or_write(state, runtime)
    return after_leaf(state, runtime)


def after_patch(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                ) -> Literal["synthesize_patched", "write_outputs"]:
    return "synthesize_patched" if state.get("patch_todo") else "write_outputs"


def after_aggregation_check(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                            ) -> Literal["group_summaries", "finalize_tree", "expand_window", "reuse_leaves",
                                         "replay_leaf"]:
    """Sweep a level, or go on chunking (under `source`: feed the sweeps the next leaf), or
    finish."""
    if state.get("agg_level") is not None:
        return "group_summaries"
    if state["cursor"] >= state["doc_chars"]:
        return "finalize_tree"
    if _deferred(runtime):
        return "replay_leaf"
    return next_passage(state, runtime)


def after_grouping(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                   ) -> Literal["validate_groups", "fallback_grouping"]:
    """A grouping to check, or none because the model is not asked to group (`model_tasks`)."""
    if state.get("proposed") is None and not runtime.context.llm.asks("group"):
        return "fallback_grouping"
    return "validate_groups"


def after_group_validation(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                           ) -> Literal["synthesize_block", "synthesize_group", "group_summaries",
                                        "fallback_grouping"] | list[Send]:
    status = state["group_status"]
    if status == "ok":
        return to_synthesis(state, runtime)
    if status == "retry":
        return "group_summaries"
    return "fallback_grouping"


def to_synthesis(state: ChunkerState, runtime: Runtime[ChunkerSettings]
                 ) -> Literal["synthesize_block", "synthesize_group"] | list[Send]:
    """A sweep's groups are chosen: synthesise them one per step, or under `source` all at
    once (one `synthesize_group` task each)."""
    return group_jobs(state) if _deferred(runtime) else "synthesize_block"


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
                   ) -> Literal["write_outputs", "group_summaries"]:
    return "write_outputs" if state.get("root_id") else "group_summaries"

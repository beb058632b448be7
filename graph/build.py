"""The chunker graph: one function builds it, with or without persistence.

    load_document -> [signal] embed_document -> expand_window
      -> [section's rest] end_at_section | [cap] force_split | check_completeness -> validate_boundary
      -> [match] rewrite_chunk -> summarize_chunk
      -> [sweeping strategies] check_aggregation
           -> [sweep] group_summaries -> validate_groups -> synthesize_block ... -> check_aggregation
           -> [more text] expand_window | [done] finalize_tree -> ... -> write_outputs
      -> [flat] expand_window | [done] group_all -> synthesize_block -> finalize_tree -> write_outputs
    A task the model is not asked (`model_tasks`, the tiny profile) takes its no-model path:
    expand_window -> cut_without_model, group_summaries -> fallback_grouping.
    An update (`reuse_key` in the input, chunker/update/) copies unchanged passages:
      -> [old passage at the cursor] reuse_leaves -> ... | [old boundary ahead] rejoin_boundary -> rewrite_chunk
      -> [last leaf, patch] patch_tree -> synthesize_patched ... -> write_outputs
    `background.context: source` cuts first and writes after, in parallel (`Send` fan-outs):
      -> [a leaf's end decided] record_cut -> [more text] expand_window (or reuse_leaves)
      -> [done] write_leaf x every leaf not written yet -> leaves_written
      -> [sweeping strategies] replay_leaf -> check_aggregation -> [no sweep] replay_leaf
           | [sweep] group_summaries -> validate_groups -> synthesize_group x every group
             -> place_blocks -> check_aggregation | finalize_tree
      -> [flat] group_all -> synthesize_group -> place_blocks | [patch] patch_tree

Every conditional edge's targets come from its route's `Literal` return type
(`graph/routes.py`, `routes.targets`; a fan-out's `Literal` names the node its `Send`s go
to), so the picture above and the graph cannot drift apart.

The CLI compiles it with SqliteSaver + SqliteStore; `langgraph dev` serves it with
the platform's persistence; a parent graph can add it as a node (subgraph).
"""

from __future__ import annotations

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore
from langgraph.types import RetryPolicy

from chunker.config.settings import ChunkerSettings, LLMSettings
from chunker.graph import routes
from chunker.llm.errors import is_transient
from chunker.nodes.aggregate import check_aggregation, fallback_grouping, validate_groups
from chunker.nodes.boundary import (cut_without_model, end_at_section, fallback_boundary, force_split,
                                   validate_boundary)
from chunker.nodes.embed import embed_document
from chunker.nodes.completeness import check_completeness, retry_boundary
from chunker.nodes.cut import record_cut
from chunker.nodes.finalize import finalize_tree, group_all
from chunker.nodes.grouping import group_summaries
from chunker.nodes.load_document import load_document
from chunker.nodes.patch import patch_tree, synthesize_patched
from chunker.nodes.replay import replay_leaf
from chunker.nodes.reuse import rejoin_boundary, reuse_leaves
from chunker.nodes.rewrite import rewrite_chunk
from chunker.nodes.summarize import summarize_chunk
from chunker.nodes.synthesize import synthesize_block
from chunker.nodes.synthesize_groups import place_blocks, synthesize_group
from chunker.nodes.window import expand_window
from chunker.nodes.write import write_outputs
from chunker.nodes.write_leaf import leaves_written, write_leaf
from chunker.state.schema import ChunkerInput, ChunkerOutput, ChunkerState

_LLM_DEFAULTS = LLMSettings.model_fields


def llm_retry_policy(max_attempts: int = _LLM_DEFAULTS["max_attempts"].default,
                     initial_s: float = _LLM_DEFAULTS["retry_initial_s"].default) -> RetryPolicy:
    """Transient LLM failures: exponential backoff with jitter, bounded attempts."""
    return RetryPolicy(initial_interval=initial_s, backoff_factor=2.0, max_interval=30.0,
                       max_attempts=max_attempts, jitter=True, retry_on=is_transient)


def build_graph(checkpointer: BaseCheckpointSaver | None = None, store: BaseStore | None = None,
                *, llm_retry: RetryPolicy | None = None, name: str = "chunker"):
    retry = llm_retry or llm_retry_policy()
    g = StateGraph(ChunkerState, context_schema=ChunkerSettings, input_schema=ChunkerInput,
                   output_schema=ChunkerOutput)
    plain = {
        "load_document": load_document, "expand_window": expand_window,
        "validate_boundary": validate_boundary, "fallback_boundary": fallback_boundary,
        "force_split": force_split, "end_at_section": end_at_section,
        "cut_without_model": cut_without_model,
        "check_aggregation": check_aggregation, "group_all": group_all,
        "validate_groups": validate_groups, "fallback_grouping": fallback_grouping,
        "finalize_tree": finalize_tree, "write_outputs": write_outputs,
        "reuse_leaves": reuse_leaves, "rejoin_boundary": rejoin_boundary, "patch_tree": patch_tree,
        "record_cut": record_cut, "leaves_written": leaves_written, "replay_leaf": replay_leaf,
        "place_blocks": place_blocks,
    }
    llm = {  # and other calls to a model server (embeddings): retried on transient errors
        "embed_document": embed_document,
        "check_completeness": check_completeness, "retry_boundary": retry_boundary,
        "rewrite_chunk": rewrite_chunk, "summarize_chunk": summarize_chunk,
        "group_summaries": group_summaries, "synthesize_block": synthesize_block,
        "synthesize_patched": synthesize_patched,
        # background.context: source's fan-outs, one task per leaf or group (`Send`)
        "write_leaf": write_leaf, "synthesize_group": synthesize_group,
    }
    for node_name, fn in plain.items():
        g.add_node(node_name, fn)
    for node_name, fn in llm.items():
        # a fan-out's task gets its `Send` payload; the graph's channels stay the state's
        g.add_node(node_name, fn, retry_policy=retry, input_schema=ChunkerState)

    def route(source: str, path) -> None:
        g.add_conditional_edges(source, path, routes.targets(path))

    g.add_edge(START, "load_document")
    route("load_document", routes.after_load)
    g.add_edge("embed_document", "expand_window")
    route("expand_window", routes.after_expand)
    g.add_edge("check_completeness", "validate_boundary")
    g.add_edge("retry_boundary", "validate_boundary")
    route("validate_boundary", routes.after_validate)
    for decided in ("end_at_section", "fallback_boundary", "force_split", "cut_without_model",
                    "rejoin_boundary"):
        route(decided, routes.after_cut)
    g.add_edge("rewrite_chunk", "summarize_chunk")
    # The aggregation hook: every leaf of a sweeping strategy passes through check_aggregation.
    route("summarize_chunk", routes.after_leaf)
    # source: the cursor only cuts; at the end every leaf is written at once, then the
    # sweeps are replayed in leaf order
    route("record_cut", routes.read_on_or_write)
    g.add_edge("write_leaf", "leaves_written")
    route("leaves_written", routes.after_leaves_written)
    g.add_edge("replay_leaf", "check_aggregation")
    route("check_aggregation", routes.after_aggregation_check)
    route("group_summaries", routes.after_grouping)
    route("validate_groups", routes.after_group_validation)
    route("fallback_grouping", routes.to_synthesis)
    route("group_all", routes.to_synthesis)
    route("synthesize_block", routes.after_synthesis)
    g.add_edge("synthesize_group", "place_blocks")  # source: a sweep's blocks at once
    route("place_blocks", routes.after_blocks_placed)
    route("finalize_tree", routes.after_finalize)
    # an update (chunker/update/): copied leaves, then the old tree patched
    route("reuse_leaves", routes.after_reuse)
    route("patch_tree", routes.after_patch)
    route("synthesize_patched", routes.after_patch)
    g.add_edge("write_outputs", END)
    return g.compile(checkpointer=checkpointer, store=store, name=name)

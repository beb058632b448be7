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

Every conditional edge's targets come from its route's `Literal` return type
(`graph/routes.py`), so the picture above and the graph cannot drift apart.

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
from chunker.nodes.finalize import finalize_tree, group_all
from chunker.nodes.grouping import group_summaries
from chunker.nodes.load_document import load_document
from chunker.nodes.patch import patch_tree, synthesize_patched
from chunker.nodes.reuse import rejoin_boundary, reuse_leaves
from chunker.nodes.rewrite import rewrite_chunk
from chunker.nodes.summarize import summarize_chunk
from chunker.nodes.synthesize import synthesize_block
from chunker.nodes.window import expand_window
from chunker.nodes.write import write_outputs
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
    }
    llm = {  # and other calls to a model server (embeddings): retried on transient errors
        "embed_document": embed_document,
        "check_completeness": check_completeness, "retry_boundary": retry_boundary,
        "rewrite_chunk": rewrite_chunk, "summarize_chunk": summarize_chunk,
        "group_summaries": group_summaries, "synthesize_block": synthesize_block,
        "synthesize_patched": synthesize_patched,
    }
    for node_name, fn in plain.items():
        g.add_node(node_name, fn)
    for node_name, fn in llm.items():
        g.add_node(node_name, fn, retry_policy=retry)

    g.add_edge(START, "load_document")
    g.add_conditional_edges("load_document", routes.after_load)
    g.add_edge("embed_document", "expand_window")
    g.add_conditional_edges("expand_window", routes.after_expand)
    g.add_edge("check_completeness", "validate_boundary")
    g.add_edge("retry_boundary", "validate_boundary")
    g.add_conditional_edges("validate_boundary", routes.after_validate)
    for decided in ("end_at_section", "fallback_boundary", "force_split", "cut_without_model",
                    "rejoin_boundary"):
        g.add_edge(decided, "rewrite_chunk")
    g.add_edge("rewrite_chunk", "summarize_chunk")
    # The aggregation hook: every leaf of a sweeping strategy passes through check_aggregation.
    g.add_conditional_edges("summarize_chunk", routes.after_leaf)
    g.add_conditional_edges("check_aggregation", routes.after_aggregation_check)
    g.add_conditional_edges("group_summaries", routes.after_grouping)
    g.add_conditional_edges("validate_groups", routes.after_group_validation)
    g.add_edge("fallback_grouping", "synthesize_block")
    g.add_edge("group_all", "synthesize_block")
    g.add_conditional_edges("synthesize_block", routes.after_synthesis)
    g.add_conditional_edges("finalize_tree", routes.after_finalize)
    # an update (chunker/update/): copied leaves, then the old tree patched
    g.add_conditional_edges("reuse_leaves", routes.after_reuse)
    g.add_conditional_edges("patch_tree", routes.after_patch)
    g.add_conditional_edges("synthesize_patched", routes.after_patch)
    g.add_edge("write_outputs", END)
    return g.compile(checkpointer=checkpointer, store=store, name=name)

"""summarize_chunk: a 1-2 sentence summary and a slug; then the cursor moves on.

This is the end of a leaf's life in phase 1. The aggregation sweep plugs in right
after it (`check_aggregation`).
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from chunker import prompts
from chunker.document.tokens import count_tokens
from chunker.llm.invoke import call_llm
from chunker.nodes.common import cap_text, clean_line, emit, first_sentences, is_prose, settings, store_of
from chunker.nodes.completeness import leaf_context
from chunker.state.schema import ChunkerState
from chunker.state.store import get_node, node_id, put_node


def summarize_chunk(state: ChunkerState, runtime: Runtime) -> dict:
    cfg = settings(runtime)
    store = store_of(runtime)
    index = state["leaf_count"]
    record = get_node(store, state["doc_id"], node_id(0, index))
    if cfg.combine_rewrite_and_summary:  # the rewrite call already answered
        summary, slug_hint, stats = record["summary"], record["slug_hint"], {}
    else:
        result = call_llm(cfg, node="summarize_chunk", task="summarize",
                          user=prompts.render("summarize", chunk=record["context"]),
                          context_text=leaf_context(state, runtime), writer=runtime.stream_writer)
        stats = dict(result.stats)
        summary = result.parsed.summary if result.parsed else ""
        slug_hint = (result.parsed.slug if result.parsed else "") or ""
    summary = cap_text(clean_line(summary), cfg.summary_max_chars)
    if not is_prose(summary):
        summary = first_sentences(record["context"], cfg.summary_max_chars)
        stats["fallback.summary"] = 1
    record.update(summary=summary, summary_tokens=count_tokens(summary), slug_hint=slug_hint)
    put_node(store, state["doc_id"], record)

    pending = [list(level) for level in state["pending"]]
    pending[0].append([record["id"], record["summary_tokens"]])
    stats["leaves"] = 1
    emit(runtime, {"event": "progress", "cursor": state["chunk_end"], "total": state["doc_chars"],
                   "leaves": index + 1})
    return {
        "cursor": state["chunk_end"],
        "window_end": None,
        "chunk_end": None,
        "leaf_count": index + 1,
        "pending": pending,
        "stats": stats,
    }

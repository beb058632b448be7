"""rewrite_chunk: the chunk as a self-sufficient context, stored beside its original."""

from __future__ import annotations

from langgraph.runtime import Runtime

from chunker import prompts
from chunker.document.tokens import count_tokens
from chunker.llm.invoke import call_llm
from chunker.nodes.common import settings, store_of, units_of
from chunker.nodes.completeness import leaf_context
from chunker.state.schema import ChunkerState
from chunker.state.store import node_id, put_node


def rewrite_chunk(state: ChunkerState, runtime: Runtime) -> dict:
    cfg = settings(runtime)
    text = units_of(state, runtime).text
    start, end = state["cursor"], state["chunk_end"]
    original = text[start:end]
    task = "rewrite_summarize" if cfg.combine_rewrite_and_summary else "rewrite"
    result = call_llm(cfg, node="rewrite_chunk", task=task,
                      user=prompts.render(task, chunk=original),
                      context_text=leaf_context(state, runtime), writer=runtime.stream_writer)
    stats = dict(result.stats)
    context = (result.parsed.context.strip() if result.parsed else "")
    if not context:
        # Fallback: the original itself is always a faithful (if unresolved) context.
        context = " ".join(original.split())
        stats["fallback.rewrite"] = 1
    index = state["leaf_count"]
    put_node(store_of(runtime), state["doc_id"], {
        "id": node_id(0, index),
        "level": 0,
        "index": index,
        "span": [start, end],
        "original": original,
        "context": context,
        "context_tokens": count_tokens(context),
        "tokens": count_tokens(original),
        "forced_split": bool(state.get("forced")),
        "boundary": state.get("chunk_outcome"),
        "children": [],
        # combined mode: summarize_chunk checks these instead of asking again
        "summary": getattr(result.parsed, "summary", "") or "",
        "summary_tokens": 0,
        "slug_hint": getattr(result.parsed, "slug", "") or "",
    })
    return {"stats": stats}

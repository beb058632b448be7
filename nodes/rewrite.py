"""rewrite_chunk: the chunk as a self-sufficient context, stored beside its original."""

from __future__ import annotations

from langgraph.runtime import Runtime

from chunker import prompts
from chunker.document.tokens import count_tokens
from chunker.llm.invoke import call_llm
from chunker.nodes.common import recall, settings, store_of, units_of
from chunker.nodes.completeness import leaf_context
from chunker.state.schema import ChunkerState
from chunker.state.store import node_id, put_node


def rewrite_chunk(state: ChunkerState, runtime: Runtime) -> dict:
    cfg = settings(runtime)
    text = units_of(state, runtime).text
    start, end = state["cursor"], state["chunk_end"]
    original = text[start:end]
    task = "rewrite_summarize" if cfg.combine_rewrite_and_summary else "rewrite"
    original_tokens = count_tokens(original)
    result = call_llm(cfg, node="rewrite_chunk", task=task,
                      user=prompts.render(task, chunk=original),
                      context_text=leaf_context(state, runtime), writer=runtime.stream_writer,
                      max_output_tokens=int(1.3 * original_tokens) + 96)
    stats = dict(result.stats)
    context = (result.parsed.context.strip() if result.parsed else "")
    if context and recall(original, context) < cfg.rewrite_min_recall:
        context = ""  # the model dropped facts (or wrote about something else)
        stats["rewrite.unfaithful"] = 1
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
        "tokens": original_tokens,
        "forced_split": bool(state.get("forced")),
        "boundary": state.get("chunk_outcome"),
        "children": [],
        # combined mode: summarize_chunk checks these instead of asking again
        "summary": getattr(result.parsed, "summary", "") or "",
        "summary_tokens": 0,
        "slug_hint": getattr(result.parsed, "slug", "") or "",
    })
    return {"stats": stats}

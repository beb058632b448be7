"""synthesize_block: one summary block per group, one LLM call per step.

One group per step keeps "a crash costs at most one LLM call" true during
aggregation. The block's context is synthesised from its children's full contexts
(whole items, while they fit half the model's window; the rest by their summaries).
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from chunker import prompts
from chunker.context.builder import ContextBuilder, block_candidates
from chunker.document.tokens import count_tokens
from chunker.llm.invoke import call_llm
from chunker.nodes.common import cap_text, clean_line, first_sentences, is_prose, settings, store_of
from chunker.state.schema import ChunkerState
from chunker.state.store import get_node, node_id, put_node


def children_text(children: list[dict], budget_tokens: int) -> str:
    parts, used = [], 0
    for child in children:
        full, tokens = child["context"], child["context_tokens"]
        if used + tokens > budget_tokens:
            full, tokens = child["summary"], child["summary_tokens"]
        parts.append(f"[passage {child['id']}]\n{full}")
        used += tokens
    return "\n\n".join(parts)


def synthesize_block(state: ChunkerState, runtime: Runtime) -> dict:
    cfg = settings(runtime)
    store = store_of(runtime)
    doc_id = state["doc_id"]
    level = state["agg_level"] + 1
    group, rest = state["groups_todo"][0], state["groups_todo"][1:]
    children = [get_node(store, doc_id, cid) for cid in group]
    latest = list(state.get("latest") or [])
    context = ContextBuilder(cfg.context_budget_tokens, cfg.context_order).build(
        block_candidates(store, doc_id, level - 1, latest))
    user = prompts.render("synthesize", children=children_text(children, cfg.context_window // 2))
    result = call_llm(cfg, node="synthesize_block", task="synthesize", user=user,
                      context_text=context, writer=runtime.stream_writer)
    stats = dict(result.stats)
    answer = result.parsed
    block_context = (answer.context.strip() if answer else "")
    summary = cap_text(clean_line(answer.summary if answer else ""), cfg.summary_max_chars)
    if not is_prose(block_context):
        block_context = "\n\n".join(c["summary"] for c in children)
        stats["fallback.synthesize"] = 1
    if not is_prose(summary):
        summary = first_sentences(block_context, cfg.summary_max_chars)
        stats["fallback.summary"] = stats.get("fallback.summary", 0) + 1

    counts = list(state["block_counts"])
    pending = [list(items) for items in state["pending"]]
    while len(counts) <= level:
        counts.append(0)
    while len(pending) <= level:
        pending.append([])
    while len(latest) <= level:
        latest.append(None)
    nid = node_id(level, counts[level])
    put_node(store, doc_id, {
        "id": nid,
        "level": level,
        "index": counts[level],
        "span": [children[0]["span"][0], children[-1]["span"][1]],
        "children": [c["id"] for c in children],
        "context": block_context,
        "context_tokens": count_tokens(block_context),
        "summary": summary,
        "summary_tokens": count_tokens(summary),
        "slug_hint": (answer.slug if answer else "") or "",
        "forced_split": False,
        "boundary": None,
    })
    counts[level] += 1
    pending[level].append([nid, count_tokens(summary)])
    latest[level] = nid
    stats[f"blocks.L{level}"] = 1
    return {"groups_todo": rest, "block_counts": counts, "pending": pending, "latest": latest,
            "stats": stats}

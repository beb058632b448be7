"""synthesize_block: one summary block per group, one LLM call per step.

One group per step keeps "a crash costs at most one LLM call" true during
aggregation. A block of level `synthesize_full_text_levels` or below is synthesised
from its children's full rewritten texts (whole items, while they fit half the model's
window; the rest by their summaries); higher blocks from their children's summaries,
which already condense everything below them and keep prompts small.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from chunker import prompts
from chunker.background.policy import block_background
from chunker.config.settings import ChunkerSettings
from chunker.document.tokens import count_tokens
from chunker.llm.invoke import CallResult, call_llm
from chunker.grounding import summary_of_summaries
from chunker.nodes.common import cap_text, clean_line, run_store
from chunker.grounding.gate import grounded
from chunker.state.records import NodeRecord
from chunker.state.schema import ChunkerState
from chunker.state.store import node_id


def children_text(children: list[NodeRecord], budget_tokens: int) -> str:
    parts, used = [], 0
    for child in children:
        full, tokens = child.rewritten, child.rewritten_tokens
        if used + tokens > budget_tokens:
            full, tokens = child.summary, child.summary_tokens
        parts.append(f"[passage {child.id}]\n{full}")
        used += tokens
    return "\n\n".join(parts)


def synthesize_block(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    cfg = runtime.context
    rs = run_store(state, runtime)
    level = state["agg_level"] + 1
    group, rest = state["groups_todo"][0], state["groups_todo"][1:]
    children = [rs.get_node(cid) for cid in group]
    latest = list(state.get("latest") or [])
    background = block_background(rs, cfg.background, level - 1, latest)
    full_budget = cfg.llm.model_window // 2 if level <= cfg.aggregation.synthesize_full_text_levels else 0
    asked = cfg.llm.asks("synthesis")
    if not asked:  # the profile's model never writes a usable synthesis
        result = CallResult(parsed=None, stats={"extracted.synthesis": 1})
    else:
        user = prompts.render("synthesize", children=children_text(children, full_budget))
        # an in-process model's cap: a block is about as long as a chunk
        result = call_llm(cfg.llm, node="synthesize_block", task="synthesize", user=user,
                          background=background, writer=runtime.stream_writer, memo=rs,
                          max_output_tokens=max(256, round(1.5 * cfg.chunking.max_chunk_tokens)),
                          calls_dir=rs.out_dir)
    stats = dict(result.stats)
    answer = result.parsed
    block_text = (answer.rewritten.strip() if answer else "")
    summary = clean_line(answer.summary if answer else "")
    evidence = [c.rewritten for c in children] + [c.summary for c in children]
    if grounded(cfg.grounding, "synthesize", block_text, evidence, stats, result.log_id,
                calls_dir=rs.out_dir):
        stats["kept.synthesize"] = 1
    else:  # the children's own summaries, in order, say what the section holds
        block_text = "\n\n".join(c.summary for c in children)
        if asked:
            stats["fallback.synthesize"] = 1
    summary_kept = grounded(cfg.grounding, "block_summary", summary, evidence, stats, result.log_id,
                            calls_dir=rs.out_dir)
    if summary_kept:
        summary = cap_text(summary, cfg.output.summary_max_chars)
        stats["kept.block_summary"] = 1
    else:
        summary = summary_of_summaries([c.summary for c in children], max_chars=cfg.output.summary_max_chars,
                                       policy=cfg.grounding) or children[0].summary
        if asked:
            stats["fallback.block_summary"] = 1

    counts = list(state["block_counts"])
    pending = [list(items) for items in state["pending"]]
    while len(counts) <= level:
        counts.append(0)
    while len(pending) <= level:
        pending.append([])
    while len(latest) <= level:
        latest.append(None)
    nid = node_id(level, counts[level])
    summary_tokens = count_tokens(summary)
    rs.put_node(NodeRecord(
        id=nid, level=level, index=counts[level],
        span=(children[0].span[0], children[-1].span[1]), children=[c.id for c in children],
        rewritten=block_text, rewritten_tokens=count_tokens(block_text), tokens=count_tokens(block_text),
        summary=summary, summary_tokens=summary_tokens, summary_kept=summary_kept,
        call_id=result.log_id,
        slug_hint=(answer.slug if answer else "") or "",
    ))
    counts[level] += 1
    pending[level].append([nid, summary_tokens])
    latest[level] = nid
    stats[f"blocks.L{level}"] = 1
    return {"groups_todo": rest, "block_counts": counts, "pending": pending, "latest": latest,
            "stats": stats}

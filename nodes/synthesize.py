"""synthesize_block: one summary block per group, one LLM call per step.

One group per step keeps "a crash costs at most one LLM call" true during
aggregation. A block of level `synthesize_full_text_levels` or below is synthesised
from its children's full rewritten texts (whole items, while they fit half the model's
window; the rest by their summaries); higher blocks from their children's summaries,
which already condense everything below them and keep prompts small.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from chunker.aggregation.synthesis import synthesize
from chunker.background.policy import block_background
from chunker.config.settings import ChunkerSettings
from chunker.document.tokens import count_tokens
from chunker.nodes.common import run_store
from chunker.state.records import NodeRecord
from chunker.state.schema import ChunkerState
from chunker.state.store import node_id


def synthesize_block(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    cfg = runtime.context
    rs = run_store(state, runtime)
    level = state["agg_level"] + 1
    group, rest = state["groups_todo"][0], state["groups_todo"][1:]
    children = [rs.get_node(cid) for cid in group]
    latest = list(state.get("latest") or [])
    background = block_background(rs, cfg.background, level - 1, latest)
    full_budget = cfg.llm.model_window // 2 if level <= cfg.aggregation.synthesize_full_text_levels else 0
    made = synthesize(cfg, children, node="synthesize_block", background=background,
                      full_budget=full_budget, memo=rs, calls_dir=rs.calls_dir, slots=rs.slots,
                      writer=runtime.stream_writer)
    stats, block_text, summary = made.stats, made.text, made.summary

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
        summary=summary, summary_tokens=summary_tokens, summary_kept=made.summary_kept,
        call_id=made.log_id, slug_hint=made.slug_hint,
    ))
    counts[level] += 1
    pending[level].append([nid, summary_tokens])
    latest[level] = nid
    stats[f"blocks.L{level}"] = 1
    return {"groups_todo": rest, "block_counts": counts, "pending": pending, "latest": latest,
            "stats": stats}

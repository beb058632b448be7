"""group_summaries: the LLM proposes contiguous, coherent groups of pending items.

The prompt lists only the short summaries, so it stays small however long the
document is. With fewer than two minimum-size groups' worth of items, exactly one
grouping is valid (all of them together), and no LLM call is made.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from chunker import prompts
from chunker.background.policy import block_background
from chunker.config.settings import ChunkerSettings
from chunker.llm.invoke import call_llm
from chunker.nodes.common import clean_line, run_store, settings
from chunker.state.schema import ChunkerState


def group_summaries(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    cfg = settings(runtime)
    level = state["agg_level"]
    items = state["pending"][level]
    n = len(items)
    if n < 2 * cfg.min_group_size:
        return {"proposed": [list(range(n))], "stats": {"group.trivial": 1}}
    rs = run_store(state, runtime)
    lines = [f"[{i}] {clean_line(rs.get_node(nid).summary)}" for i, (nid, _) in enumerate(items)]
    user = prompts.render("group", items="\n".join(lines), count=n,
                          min_group_size=cfg.min_group_size, max_group_size=cfg.max_group_size,
                          nudge=state.get("group_nudge", ""))
    background = block_background(rs, cfg, level, state.get("latest") or [])
    result = call_llm(cfg, node="group_summaries", task="group", user=user, background=background,
                      writer=runtime.stream_writer, memo=rs)
    groups = result.parsed.groups if result.parsed else None
    return {"proposed": groups, "stats": result.stats}

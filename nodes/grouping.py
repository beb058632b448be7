"""group_summaries: the LLM proposes contiguous, coherent groups of pending items (the
grouping loop's `ask`, chunker/aggregation/grouping.py).

The prompt lists only the short summaries, so it stays small however long the
document is. Where the embedding signal is on, the deepest similarity dips between
consecutive summaries are offered as suggested breaks (and kept for the fallback). With fewer than two minimum-size groups' worth of items, exactly one
grouping is valid (all of them together), and no LLM call is made. With Markdown
structure the outline decides the groups (`chunker/chunking/sections.py`), also without a
call: a section's node, or its intermediate blocks cut at the dips.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from chunker.aggregation.grouping import grouping_prompt
from chunker.background.policy import block_background
from chunker.config.settings import ChunkerSettings
from chunker.embeddings import get_embeddings, summary_dips
from chunker.llm.invoke import call_llm
from chunker.document.prose import clean_line
from chunker.nodes.common import run_store
from chunker.nodes.synthesize import span_of
from chunker.chunking.strategy import tree_strategy
from chunker.state.schema import ChunkerState


def group_summaries(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    cfg = runtime.context
    agg = cfg.aggregation
    level = state["agg_level"]
    rs = run_store(state, runtime)
    items, planner = tree_strategy(state).sweep_items(state, rs, level, agg)
    n = len(items)
    if planner is not None and n <= agg.fanout_max:  # a section's node: no dips to cut at
        return {"proposed": planner([]), "stats": {"group.sections": 1}}
    if planner is None and n < 2 * agg.min_group_size:
        return {"proposed": [list(range(n))], "stats": {"group.trivial": 1}}
    summaries = [clean_line(rs.get_node(nid).summary) for nid, _ in items]
    dips = state.get("group_dips")
    if dips is None:
        embeddings = get_embeddings(cfg.embedding.provider) if cfg.embedding.provider else None
        dips = summary_dips(summaries, embeddings) if embeddings is not None else []
    if planner is not None:  # the outline decides, cut at the dips: no call
        return {"proposed": planner(dips), "group_dips": dips, "stats": {"group.sections": 1}}
    if not cfg.llm.asks("group"):  # the signal's dips decide (fallback_grouping): no call
        return {"proposed": None, "group_dips": dips}
    user = grouping_prompt(summaries, dips, agg, state.get("group_nudge", ""))
    background = block_background(rs, cfg, level, state.get("latest") or [],
                                  span_of(rs, [items[0][0], items[-1][0]]))
    result = call_llm(cfg.llm, node="group_summaries", task="group", user=user, background=background,
                      writer=runtime.stream_writer, memo=rs, calls_dir=rs.calls_dir, slots=rs.slots)
    groups = result.parsed.groups if result.parsed else None
    return {"proposed": groups, "group_dips": dips, "stats": result.stats}

"""Which background each LLM task is offered, and under which budget.

- **rewrite** must resolve pronouns and vague references at the chunk's start, so it
  sees the text right before its chunk *in full* (the predecessor's rewritten text, or
  its original when that is shorter or the rewrite was not kept), then the latest
  summary of each level above. Its budget is a share of the model's window
  (`rewrite_background_share`), not `background_budget_tokens`, because a predecessor
  is a whole chunk (`min_chunk_tokens` or more) and a small budget could never hold it.
- **completeness** (and its retry) and **summarize** decide where a topic ends or what
  a chunk says: the topic so far is enough, so they see the level summaries, the
  predecessor's *summary* and earlier summaries, under `background_budget_tokens`.
- **group** and **synthesize** (blocks) see the preceding block at the target level
  and the levels above it, under `background_budget_tokens`.

All offers start with the level summaries, so consecutive prompts share that prefix.
"""

from __future__ import annotations

from typing import Iterator, Literal

from chunker.background.builder import BackgroundBuilder, BackgroundItem
from chunker.config.sections import BackgroundSettings
from chunker.config.settings import ChunkerSettings
from chunker.state.store import RunStore, node_id

LeafTask = Literal["completeness", "rewrite", "summarize"]

MAX_EARLIER_LOOKUPS = 24
"""How far back the walk over earlier chunks goes, so prompts never grow with the document."""


def rewrite_budget(cfg: ChunkerSettings) -> int:
    return int(cfg.llm.model_window * cfg.background.rewrite_share)


def leaf_background(rs: RunStore, cfg: ChunkerSettings, leaf_index: int,
                    latest: list[str | None], task: LeafTask) -> str:
    """The rendered background for a call about leaf `leaf_index`."""
    if task == "rewrite":
        builder = BackgroundBuilder(rewrite_budget(cfg), cfg.background.order)
        items = rewrite_items(rs, leaf_index, latest)
    else:
        builder = BackgroundBuilder(cfg.background.budget_tokens, cfg.background.order)
        items = summary_items(rs, leaf_index, latest)
    return builder.build(items, at_start=leaf_index == 0)


def rewrite_items(rs: RunStore, leaf_index: int,
                       latest: list[str | None]) -> Iterator[BackgroundItem]:
    if leaf_index > 0:
        prev = rs.find_node(node_id(0, leaf_index - 1))
        if prev:
            text, tokens = prev.background_text()
            yield BackgroundItem("predecessor", prev.id, text, tokens, position=leaf_index - 1,
                                 label="the text right before this passage")
    yield from level_items(rs, latest, above=0)


def summary_items(rs: RunStore, leaf_index: int,
                       latest: list[str | None]) -> Iterator[BackgroundItem]:
    """Level summaries first, then the predecessor's summary, then earlier summaries."""
    yield from level_items(rs, latest, above=0)
    if leaf_index > 0:
        prev = rs.find_node(node_id(0, leaf_index - 1))
        if prev:
            yield BackgroundItem("predecessor", prev.id, prev.summary, prev.summary_tokens,
                                 position=leaf_index - 1, label="previous passage, summary")
    for back in range(2, min(leaf_index, MAX_EARLIER_LOOKUPS + 1) + 1):
        rec = rs.find_node(node_id(0, leaf_index - back))
        if rec:
            yield BackgroundItem("earlier", rec.id, rec.summary, rec.summary_tokens,
                                 position=leaf_index - back)


def level_items(rs: RunStore, latest: list[str | None], above: int) -> Iterator[BackgroundItem]:
    """The latest block of each level above `above`, highest level first."""
    for level in range(len(latest) - 1, above, -1):
        nid = latest[level]
        rec = rs.find_node(nid) if nid else None
        if rec:
            yield BackgroundItem("level", rec.id, rec.summary, rec.summary_tokens, level=level)


def block_background(rs: RunStore, background: BackgroundSettings, level: int,
                     latest: list[str | None]) -> str:
    """For grouping or synthesising at `level` (new blocks go to level+1): the preceding
    block at level+1 as predecessor (its summary), then the levels above it."""
    def items() -> Iterator[BackgroundItem]:
        target = level + 1
        if target < len(latest) and latest[target]:
            rec = rs.find_node(latest[target])
            if rec:
                yield BackgroundItem("predecessor", rec.id, rec.summary, rec.summary_tokens,
                                     label="previous section, summary")
        yield from level_items(rs, latest, above=target)

    at_start = not any(latest[level + 1:]) if level + 1 < len(latest) else True
    return BackgroundBuilder(background.budget_tokens, background.order).build(
        items(), at_start=at_start)

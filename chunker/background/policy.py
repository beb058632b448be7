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

A document read in regions (`chunker/chunking/regions.py`) adds two things to every call.
The outline (`chunker/background/outline.py`), the whole document at a glance with the call's
place marked, stands in for the summaries of the levels that other regions are building at
the same time; inside a region the level summaries and predecessors are the region's own, as
above. And a region's first leaf, whose predecessor another region is cutting, is shown the
source text right before the region instead (whole sentences from its end: as many as
`min_chunk_tokens` hold for the rewrite, as the budget holds for the other calls). Only a
call at the document's very start gets the start marker.

That is `background.context: written`. Under `source` (`ContextPolicy.defers_writing`) a
call sees only the source before it, never model output of the document that is not yet
fixed, so the calls that do not wait on the cursor run at once: a leaf's completeness and
summary calls see the end of its predecessor's *original* text (whole sentences from the
end, under `background_budget_tokens`), its rewrite the whole predecessor original (under
the rewrite budget), and none of them level summaries (levels are built after the
leaves). A sweep's blocks are synthesised together: each sees the level summaries as they
were when the sweep began and, in place of its preceding sibling's synthesis (not written
yet), the summaries of that sibling's children.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Iterator, Literal

from chunker.background.builder import BackgroundBuilder, BackgroundItem
from chunker.background.outline import outline_item
from chunker.chunking.regions import run_plan
from chunker.config.settings import ChunkerSettings
from chunker.document.tokens import count_tokens
from chunker.state.records import LeafCut
from chunker.state.store import RunStore, node_id

LeafTask = Literal["completeness", "rewrite", "summarize"]

MAX_EARLIER_LOOKUPS = 24
"""How far back the walk over earlier chunks goes, so prompts never grow with the document."""


@dataclass(frozen=True)
class ContextPolicy:
    """What a run's calls are shown of the document before them (`background.context`), and
    so what waits on what: the routes ask this, never the setting's name."""

    name: str
    defers_writing: bool
    """`source`: the cursor only cuts the leaves; they are written after it reached the end,
    in parallel, and a sweep's blocks are synthesised in parallel. `written`: each leaf is
    written as it is cut, each block one after another."""


_POLICIES = {"written": ContextPolicy("written", False), "source": ContextPolicy("source", True)}


def context_policy(cfg: ChunkerSettings) -> ContextPolicy:
    return _POLICIES[cfg.background.context]


def rewrite_budget(cfg: ChunkerSettings) -> int:
    return int(cfg.llm.model_window * cfg.background.rewrite_share)


def leaf_background(rs: RunStore, cfg: ChunkerSettings, leaf_index: int,
                    latest: list[str | None], task: LeafTask, doc_id: str | None = None) -> str:
    """The rendered background for a call about leaf `leaf_index` (of `rs`'s region, when
    the document is read in regions). Under `source` it is cut from the text of `doc_id` (the
    run's document), and `latest` is not shown."""
    if context_policy(cfg).defers_writing:
        return source_background(rs, cfg, doc_id, leaf_index, task)
    at_start = leaf_index == 0 and not rs.region
    outline = region_outline(rs, cfg)
    if task == "rewrite":
        builder = BackgroundBuilder(rewrite_budget(cfg), cfg.background.order)
        first = region_start(rs, cfg, doc_id, leaf_index, "rewrite", builder, outline)
        items = rewrite_items(rs, leaf_index, latest, first, outline)
    else:
        builder = BackgroundBuilder(cfg.background.budget_tokens, cfg.background.order)
        first = region_start(rs, cfg, doc_id, leaf_index, task, builder, outline)
        items = summary_items(rs, leaf_index, latest, first, outline)
    return builder.build(items, at_start=at_start)


def rewrite_items(rs: RunStore, leaf_index: int, latest: list[str | None],
                  first: BackgroundItem | None = None,
                  outline: BackgroundItem | None = None) -> Iterator[BackgroundItem]:
    """The predecessor in full (a region's first leaf: the source before the region, `first`),
    then the level summaries, then the outline."""
    if leaf_index > 0:
        prev = rs.find_node(node_id(0, leaf_index - 1))
        if prev:
            text, tokens = prev.background_text()
            yield BackgroundItem("predecessor", prev.id, text, tokens, position=leaf_index - 1,
                                 label="the text right before this passage")
    elif first is not None:
        yield first
    yield from level_items(rs, latest, above=0)
    if outline is not None:
        yield outline


def summary_items(rs: RunStore, leaf_index: int, latest: list[str | None],
                  first: BackgroundItem | None = None,
                  outline: BackgroundItem | None = None) -> Iterator[BackgroundItem]:
    """Level summaries first, then the predecessor's summary (a region's first leaf: the end
    of the source before it), then the outline, then earlier summaries."""
    yield from level_items(rs, latest, above=0)
    if leaf_index > 0:
        prev = rs.find_node(node_id(0, leaf_index - 1))
        if prev:
            yield BackgroundItem("predecessor", prev.id, prev.summary, prev.summary_tokens,
                                 position=leaf_index - 1, label="previous passage, summary")
    elif first is not None:
        yield first
    if outline is not None:
        yield outline
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


def block_background(rs: RunStore, cfg: ChunkerSettings, level: int, latest: list[str | None],
                     span: tuple[int, int] | None = None) -> str:
    """For grouping or synthesising at `level` (new blocks go to level+1): the preceding
    block at level+1 as predecessor (its summary), then the levels above it, then (read in
    regions) the outline with the text `span` the blocks cover marked."""
    background = cfg.background
    outline = region_outline(rs, cfg, span)

    def items() -> Iterator[BackgroundItem]:
        target = level + 1
        if target < len(latest) and latest[target]:
            rec = rs.find_node(latest[target])
            if rec:
                yield BackgroundItem("predecessor", rec.id, rec.summary, rec.summary_tokens,
                                     label="previous section, summary")
        yield from level_items(rs, latest, above=target)
        if outline is not None:
            yield outline

    at_start = not any(latest[level + 1:]) if level + 1 < len(latest) else True
    if outline is not None:  # read in regions: only a block at the document's very start
        at_start = at_start and not rs.region and (span is None or span[0] == 0)
    return BackgroundBuilder(background.budget_tokens, background.order).build(
        items(), at_start=at_start)


def region_outline(rs: RunStore, cfg: ChunkerSettings, span: tuple[int, int] | None = None
                   ) -> BackgroundItem | None:
    """The outline item of a call in a document read in regions (None in one cursor): its
    region marked, or for a call above the regions the regions `span` covers."""
    plan = run_plan(rs)
    if plan is None:
        return None
    if rs.region is not None:
        span = tuple(plan.regions[rs.region].span)
    if span is None:
        return None
    return outline_item(rs, plan, span, int(cfg.regions.outline_share * cfg.background.budget_tokens))


REGION_START_LABEL = "the source text right before this part"


def region_start(rs: RunStore, cfg: ChunkerSettings, doc_id: str | None, leaf_index: int, task: LeafTask,
                 builder: BackgroundBuilder, outline: BackgroundItem | None) -> BackgroundItem | None:
    """For the first leaf of a region after the first: the end of the source before the
    region, whole sentences from its end, as many as `min_chunk_tokens` hold (the rewrite) or
    as fit the budget beside the outline (the other calls). None for any other leaf."""
    if leaf_index > 0 or not rs.region or doc_id is None:
        return None
    start = run_plan(rs).regions[rs.region].span[0]
    units = rs.units(doc_id)
    fixed = [outline] if outline is not None else []
    cap = cfg.chunking.min_chunk_tokens if task == "rewrite" else None
    return _tail(units, max(0, start - 40 * (cap or cfg.background.budget_tokens)), start,
                 lambda text: BackgroundItem("predecessor", "region-start", text, count_tokens(text),
                                             label=REGION_START_LABEL),
                 builder, fixed, cap)


def _tail(units, start: int, end: int, item, builder: BackgroundBuilder, fixed: list[BackgroundItem],
          cap: int | None = None) -> BackgroundItem | None:
    """The longest tail of text[start:end], grown a sentence at a time from its end, whose
    item (`item(text)`) still fits the builder beside `fixed` (and holds at most `cap` tokens)."""
    best = None
    first = bisect.bisect_right(units.sentences, start)
    starts = [start] + [e for e in units.sentences[first:] if e < end]
    for pos in reversed(starts):
        tail = units.text[pos:end].strip()
        if not tail:
            continue
        candidate = item(tail)
        if cap is not None and candidate.tokens > cap:
            break
        if candidate not in builder.select([*fixed, candidate]):
            break  # one more sentence no longer fits: the tail so far is the background
        best = candidate
    return best


# -- background.context: source --------------------------------------------------------------
SOURCE_LABEL = "the source text right before this passage"


def source_background(rs: RunStore, cfg: ChunkerSettings, doc_id: str | None, leaf_index: int,
                      task: LeafTask) -> str:
    """Under `source`: the rewrite sees its predecessor's whole original (skipped whole when
    it does not fit, like any item); the other calls the end of it, whole sentences from the
    end, as many as fit `background_budget_tokens` (read in regions: beside the outline)."""
    at_start = leaf_index == 0 and not rs.region
    outline = region_outline(rs, cfg)
    fixed = [outline] if outline is not None else []
    rewrite = task == "rewrite"
    builder = BackgroundBuilder(rewrite_budget(cfg) if rewrite else cfg.background.budget_tokens,
                                cfg.background.order)
    cut = LeafCut.load(rs, leaf_index - 1) if leaf_index > 0 else None
    if cut is None:  # the document's first leaf, or a region's: the source before the region
        first = region_start(rs, cfg, doc_id, leaf_index, task, builder, outline)
        return builder.build([*fixed, *([first] if first else [])], at_start=at_start)
    units = rs.units(doc_id)
    start, end = cut.span
    if rewrite:
        return builder.build([_source_item(cut, units.text[start:end]), *fixed], at_start=at_start)
    best = _tail(units, start, end, lambda tail: _source_item(cut, tail), builder, fixed)
    return builder.build([*fixed, *([best] if best else [])], at_start=at_start)


def _source_item(cut: LeafCut, text: str) -> BackgroundItem:
    return BackgroundItem("predecessor", node_id(0, cut.index), text, count_tokens(text),
                          position=cut.index, label=SOURCE_LABEL)


def group_background(rs: RunStore, cfg: ChunkerSettings, level: int, latest: list[str | None],
                     sibling: list[str] | None, span: tuple[int, int] | None = None) -> str:
    """A block of a sweep synthesised beside its siblings (`source`): the first sees what a
    `written` block sees (`block_background`: the sweep began after that block was fixed);
    a later one sees, in place of its preceding sibling's synthesis, the summaries of that
    sibling's children (`sibling`), nearest first in priority, then the levels above (read
    in regions: the outline first)."""
    background = cfg.background
    if sibling is None:
        return block_background(rs, cfg, level, latest, span)
    outline = region_outline(rs, cfg, span)

    def items() -> Iterator[BackgroundItem]:
        if outline is not None:
            yield outline
        for position in range(len(sibling) - 1, -1, -1):
            rec = rs.find_node(sibling[position])
            if rec:
                yield BackgroundItem("earlier", rec.id, rec.summary, rec.summary_tokens,
                                     position=position)
        yield from level_items(rs, latest, above=level + 1)

    return BackgroundBuilder(background.budget_tokens, background.order).build(items())

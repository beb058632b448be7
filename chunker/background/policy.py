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
from chunker.config.sections import BackgroundSettings
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
    """The rendered background for a call about leaf `leaf_index`. Under `source` it is cut
    from the text of `doc_id` (the run's document), and `latest` is not shown."""
    if context_policy(cfg).defers_writing:
        return source_background(rs, cfg, doc_id, leaf_index, task)
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


# -- background.context: source --------------------------------------------------------------
SOURCE_LABEL = "the source text right before this passage"


def source_background(rs: RunStore, cfg: ChunkerSettings, doc_id: str | None, leaf_index: int,
                      task: LeafTask) -> str:
    """Under `source`: the rewrite sees its predecessor's whole original (skipped whole when
    it does not fit, like any item); the other calls the end of it, whole sentences from the
    end, as many as fit `background_budget_tokens`."""
    at_start = leaf_index == 0
    cut = LeafCut.load(rs, leaf_index - 1) if leaf_index > 0 else None
    if cut is None:
        return BackgroundBuilder(0).build([], at_start=at_start)
    units = rs.units(doc_id)
    start, end = cut.span
    if task == "rewrite":
        builder = BackgroundBuilder(rewrite_budget(cfg), cfg.background.order)
        return builder.build([_source_item(cut, units.text[start:end])], at_start=at_start)
    builder = BackgroundBuilder(cfg.background.budget_tokens, cfg.background.order)
    best: list[BackgroundItem] = []
    # sentence starts inside the predecessor, latest first: the tail grows a sentence at a time
    first = bisect.bisect_right(units.sentences, start)
    starts = [start] + [e for e in units.sentences[first:] if e < end]
    for pos in reversed(starts):
        tail = units.text[pos:end].strip()
        if not tail:
            continue
        chosen = builder.select([_source_item(cut, tail)])
        if not chosen:
            break  # one more sentence no longer fits: the tail so far is the background
        best = chosen
    return builder.render(best, at_start=at_start)


def _source_item(cut: LeafCut, text: str) -> BackgroundItem:
    return BackgroundItem("predecessor", node_id(0, cut.index), text, count_tokens(text),
                          position=cut.index, label=SOURCE_LABEL)


def group_background(rs: RunStore, background: BackgroundSettings, level: int,
                     latest: list[str | None], sibling: list[str] | None) -> str:
    """A block of a sweep synthesised beside its siblings (`source`): the first sees what a
    `written` block sees (`block_background`: the sweep began after that block was fixed);
    a later one sees, in place of its preceding sibling's synthesis, the summaries of that
    sibling's children (`sibling`), nearest first in priority, then the levels above."""
    if sibling is None:
        return block_background(rs, background, level, latest)

    def items() -> Iterator[BackgroundItem]:
        for position in range(len(sibling) - 1, -1, -1):
            rec = rs.find_node(sibling[position])
            if rec:
                yield BackgroundItem("earlier", rec.id, rec.summary, rec.summary_tokens,
                                     position=position)
        yield from level_items(rs, latest, above=level + 1)

    return BackgroundBuilder(background.budget_tokens, background.order).build(items())

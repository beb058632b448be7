"""Tree strategies: how a document's tree is built, one class per strategy, chosen once by
load_document.

    auto: plain text (no structure)                        -> full  (the LLM loop over the text)
          structured, tokens <= flat_window_share x window -> flat  (peel's leaves, one block)
          structured, longer                               -> peel  (headings first)

A strategy owns whether the Markdown structure shapes the leaves (`uses_structure`: leaves
end at headings and never inside tables or code), whether levels aggregate while the text is
read (`sweeps`: the flat strategy's one block over all leaves is made at the end instead, by
the graph's `group_all` node), and which of a level's pending items a sweep may group
(`sweep_items`: `peel` groups within sections). The choice is logged and counted in the
stats (`strategy.flat`, `strategy.peel`, `strategy.full`).
"""

from __future__ import annotations

import functools
from typing import Literal

from chunker.chunking.sections import level_after, promoted_count, start_levels, swept_count
from chunker.config.sections import AggregationSettings
from chunker.config.settings import ChunkerSettings
from chunker.document.tokens import count_tokens
from chunker.state.schema import ChunkerState
from chunker.state.store import RunStore

Chosen = Literal["flat", "peel", "full"]

# A cl100k token holds about 4 characters of English and 7 of a Markdown table; past this
# many characters per allowed token a document is surely too long to be flat, and a book
# is not counted token by token just to learn that.
_MAX_CHARS_PER_TOKEN = 32

SweepItems = tuple[list, list[int | None] | None, int | None]
"""A sweep's items, their section break levels and the break level right after them."""


class TreeStrategy:
    """`full`: the LLM loop over the whole text, structure ignored, levels swept as they fill."""

    name: Chosen = "full"
    uses_structure = False
    sweeps = True

    def sweep_items(self, state: ChunkerState, rs: RunStore, level: int,
                    agg: AggregationSettings) -> SweepItems:
        """The level's pending items that a sweep groups (here: all of them)."""
        return state["pending"][level], None, None


class FlatStrategy(TreeStrategy):
    """`flat`: peel's leaves, then one block over all of them (no intermediate levels)."""

    name: Chosen = "flat"
    uses_structure = True
    sweeps = False


class PeelStrategy(TreeStrategy):
    """`peel`: headings first; the LLM chunks only inside sections and blocks follow them."""

    name: Chosen = "peel"
    uses_structure = True

    def sweep_items(self, state: ChunkerState, rs: RunStore, level: int,
                    agg: AggregationSettings) -> SweepItems:
        """All but the run of a section still being read (see `chunker.chunking.sections`),
        less a leading run too small for a group, which moves up a level."""
        items = state["pending"][level]
        starts = start_levels(rs, state["doc_id"], items)
        if starts is None:
            return items, None, None
        end = level_after(rs, state, level)
        n = swept_count(starts, end, agg.min_group_size, agg.max_group_size, agg.summary_count_threshold,
                        bool(state.get("finalizing")))
        head = promoted_count(starts[:n], agg.min_group_size)
        return items[head:n], starts[head:n], (starts[n] if n < len(items) else end)


@functools.cache
def _strategies() -> dict[str, TreeStrategy]:
    return {s.name: s for s in (TreeStrategy(), FlatStrategy(), PeelStrategy())}


def strategy_named(name: Chosen) -> TreeStrategy:
    """The strategy called `name` (stateless: one instance serves every run)."""
    return _strategies()[name]


def tree_strategy(state: ChunkerState) -> TreeStrategy:
    """The run's strategy, as load_document chose it."""
    return strategy_named(state.get("strategy") or "full")


def flat_limit(cfg: ChunkerSettings) -> int:
    """The most tokens a document may hold to be built flat under `strategy=auto`."""
    return int(cfg.chunking.flat_window_share * cfg.llm.model_window)


def choose_strategy(cfg: ChunkerSettings, text: str, structured: bool) -> Chosen:
    if cfg.chunking.strategy != "auto":
        return cfg.chunking.strategy  # type: ignore[return-value]
    if not structured:
        return "full"
    limit = flat_limit(cfg)
    if len(text) <= limit * _MAX_CHARS_PER_TOKEN and count_tokens(text) <= limit:
        return "flat"
    return "peel"

"""Tree strategies: how a document's tree is built, one class per strategy, chosen once by
load_document.

    auto: plain text (no structure)                        -> full  (the LLM loop over the text)
          headings                                         -> peel  (the section tree)
          structured without headings, tokens <= flat_window_share x window
                                                           -> flat  (peel's leaves, one block)
          structured without headings, longer              -> peel

A strategy owns whether the Markdown structure shapes the leaves (`uses_structure`: leaves
end at headings and never inside tables or code), whether levels aggregate while the text is
read (`sweeps`: the flat strategy's one block over all leaves is made at the end instead, by
the graph's `group_all` node), when a sweep happens (`next_sweep`: `full` when a level
crosses the count or token threshold, `peel` when a section closes, see
`chunker/chunking/sections.py`) and which of a level's pending items it groups, and how
(`sweep_items`: the model proposes groups, or `peel`'s outline decides them). The choice is
logged and counted in the stats (`strategy.flat`, `strategy.peel`, `strategy.full`).
"""

from __future__ import annotations

import functools
from typing import Literal, NamedTuple

from chunker.chunking.peel import run_outline
from chunker.chunking.regions import region_span
from chunker.chunking.sections import Planner, fan_groups, gathered, next_sweep
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



class Sweep(NamedTuple):
    """A sweep's items (`[id, tokens]` pairs of one level) and, where the structure decides
    their groups without the model, how (`planner`: from the dips between their summaries)."""

    items: list
    planner: Planner | None = None


def crossing_level(pending: list[list[list]], count_threshold: int, token_threshold: int,
                   min_group_size: int) -> int | None:
    """The lowest level whose pending summaries cross either threshold."""
    for level, items in enumerate(pending):
        if len(items) < min_group_size:
            continue
        if len(items) >= count_threshold or sum(tokens for _, tokens in items) >= token_threshold:
            return level
    return None


class TreeStrategy:
    """`full`: the LLM loop over the whole text, structure ignored, levels swept as they fill.

    Read in regions, a region is a text of its own: its levels are swept and closed up to one
    node as a whole document's are (`tops_regions`), and the levels above the regions group
    the regions' nodes as sections are closed (`chunker/chunking/sections.py`): cut at the dips
    between their summaries, without a grouping call; nothing groups across a region's top."""

    name: Chosen = "full"
    uses_structure = False
    sweeps = True
    tops_regions = True
    """Whether a region's levels go up to one node of its own (its top) before the regions are
    joined; `peel` hands a region's nodes up instead, for the sections around it to group."""

    def next_sweep(self, state: ChunkerState, rs: RunStore, agg: AggregationSettings
                   ) -> tuple[int, list[list[list]]] | None:
        """The level to sweep now and the pending levels to sweep it from, or None (here:
        the lowest level past the count or token threshold, as it is)."""
        spans = self.closing(state, rs)
        if spans is not None:
            return _section_sweep(state, rs, spans, agg)
        level = crossing_level(state["pending"], agg.summary_count_threshold,
                               agg.summary_aggregation_threshold, agg.min_group_size)
        return None if level is None else (level, state["pending"])

    def sweep_items(self, state: ChunkerState, rs: RunStore, level: int,
                    agg: AggregationSettings) -> Sweep:
        """The level's pending items that a sweep groups (here: all of them, as the model
        proposes)."""
        spans = self.closing(state, rs)
        if spans is not None:
            return _section_items(state, rs, spans, level, agg)
        return Sweep(state["pending"][level])

    def closing(self, state: ChunkerState, rs: RunStore) -> list[tuple[int, int]] | None:
        """The spans closed as sections now: above the regions, the document's (over the
        regions' nodes). None: the thresholds decide, as in one cursor and inside a region."""
        return [(0, state["doc_chars"])] if rs.joined else None


class FlatStrategy(TreeStrategy):
    """`flat`: peel's leaves, then one block over all of them (no intermediate levels)."""

    name: Chosen = "flat"
    uses_structure = True
    sweeps = False


class PeelStrategy(TreeStrategy):
    """`peel`: headings first; the LLM chunks only inside sections and blocks follow them.
    Read in regions, a region closes only the sections it holds whole: the sections around
    it are closed above the regions, over every region's nodes."""

    name: Chosen = "peel"
    uses_structure = True
    tops_regions = False

    def next_sweep(self, state: ChunkerState, rs: RunStore, agg: AggregationSettings
                   ) -> tuple[int, list[list[list]]] | None:
        """A closed section's items (gathered onto one level), or an open section's leading
        ones (`chunker/chunking/sections.py`); without structure, as `full`."""
        spans = self._spans(state, rs)
        if spans is None:
            return super().next_sweep(state, rs, agg)
        return _section_sweep(state, rs, spans, agg)

    def sweep_items(self, state: ChunkerState, rs: RunStore, level: int,
                    agg: AggregationSettings) -> Sweep:
        """The items `next_sweep` chose (the state holds them gathered), with their groups;
        at the end of the document (finalize_tree) a level's items all, as one section's."""
        spans = self._spans(state, rs)
        if spans is None:
            return super().sweep_items(state, rs, level, agg)
        return _section_items(state, rs, spans, level, agg)

    @staticmethod
    def _spans(state: ChunkerState, rs: RunStore) -> list[tuple[int, int]] | None:
        """The outline's sections this state may close: in a region, those inside it."""
        outline = run_outline(rs, state["doc_id"])
        if outline is None:
            return None
        if rs.region is None:
            return list(outline.spans)
        lo, hi = region_span(rs)
        return [(s, e) for s, e in outline.spans if lo <= s and e <= hi]


def _section_sweep(state: ChunkerState, rs: RunStore, spans: list[tuple[int, int]],
                   agg: AggregationSettings) -> tuple[int, list[list[list]]] | None:
    sweep = next_sweep(rs, spans, state["pending"], state["cursor"], agg)
    return None if sweep is None else (sweep.level, gathered(state["pending"], sweep))


def _section_items(state: ChunkerState, rs: RunStore, spans: list[tuple[int, int]], level: int,
                   agg: AggregationSettings) -> Sweep:
    items = state["pending"][level]
    sweep = next_sweep(rs, spans, state["pending"], state["cursor"], agg)
    if sweep is not None and sweep.level == level:
        return Sweep(items[sweep.first:sweep.first + sweep.count], sweep.planner(agg))
    return Sweep(items, lambda dips: fan_groups(len(items), dips, agg))


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


def choose_strategy(cfg: ChunkerSettings, text: str, structured: bool, headings: bool = False) -> Chosen:
    """The strategy `cfg.chunking.strategy` names, or under `auto` the one the text calls for."""
    if cfg.chunking.strategy != "auto":
        return cfg.chunking.strategy  # type: ignore[return-value]
    if not structured:
        return "full"
    if headings:
        return "peel"  # the section tree: each heading's section a node
    limit = flat_limit(cfg)
    if len(text) <= limit * _MAX_CHARS_PER_TOKEN and count_tokens(text) <= limit:
        return "flat"
    return "peel"

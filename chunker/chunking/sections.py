"""The section tree: which pending items a sweep groups when a document has an outline.

Every heading's section is one node titled by its heading (`chunker/chunking/outline.py`: its
span, empty headings folded into their first subsection); its children are its own leaves and
its subsections' nodes; a block never mixes two sections' children. The document is the
outermost section. Sweeps follow from where the cursor stands, no LLM call:

- *closing*: once the cursor has passed a section's end, the items inside it (at least two)
  become its node. More than `fanout_max` of them first get intermediate blocks, cut at the
  deepest summary dips into sizes that keep both those blocks and the section's node within
  `fanout_min`..`fanout_max` as far as the count allows (`fan_groups`); the next sweep closes
  the section over those blocks. A section with one item has that item as its node.
- *early*: the section still being read holds more than `fanout_max` items on one level: its
  leading items become an intermediate block now (the state stays bounded on a long chapter
  without subheadings).

Pending items live on levels (`pending[level]`, the higher levels covering earlier text); a
section's items may lie on several (its own leaves, promoted, beside its subsections' blocks).
A closing sweep first moves them all onto the level of its first item (`gathered`), the
highest of them, so the block made one level above stays "one above its highest child".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from chunker.config.sections import AggregationSettings
from chunker.embeddings import split_at_dips
from chunker.state.store import RunStore

Planner = Callable[[Sequence[float]], list[list[int]]]
"""The groups of a sweep's items (indices), given the dips between their summaries."""


@dataclass(frozen=True)
class SectionSweep:
    """One sweep the outline asks for."""

    level: int
    """The pending level whose items are grouped (after `gathered`)."""
    first: int
    """Index in `pending[level]` of the first item grouped."""
    count: int
    """How many items the sweep covers."""
    closing: bool
    """True: the items are a closed section's (all of them are grouped); False: an open
    section's leading items (one intermediate block, the rest stays pending)."""

    def planner(self, agg: AggregationSettings) -> Planner:
        if self.closing:
            return lambda dips: fan_groups(self.count, dips, agg)
        return lambda dips: [leading_group(self.count, dips, agg)]


def fan_groups(n: int, dips: Sequence[float], agg: AggregationSettings) -> list[list[int]]:
    """Groups of items 0..n-1 of one section: all of them when they fit `fanout_max`; else
    k consecutive groups cut at the deepest dips, k near sqrt(n) (the section and its blocks
    get alike fan-outs), at least ceil(n / fanout_max), at most what keeps every group at
    `fanout_min` (each group's floor is never below `min_group_size`)."""
    if n <= agg.fanout_max:
        return [list(range(n))]
    fewest = math.ceil(n / agg.fanout_max)
    most = max(fewest, n // agg.fanout_min)
    k = min(max(round(math.sqrt(n)), fewest, agg.fanout_min), most)
    return split_at_dips(n, _dips(n, dips), min(agg.fanout_min, n // k), math.ceil(n / k))


def leading_group(n: int, dips: Sequence[float], agg: AggregationSettings) -> list[int]:
    """The first intermediate block of an open section's `n` (> fanout_max) items: about
    halfway into the range, cut at the deepest dip among the first `fanout_max` items."""
    target = (agg.fanout_min + agg.fanout_max) // 2
    parts = split_at_dips(min(n, agg.fanout_max), _dips(min(n, agg.fanout_max), dips),
                          agg.fanout_min, target)
    return parts[0]


def _dips(n: int, dips: Sequence[float]) -> list[float]:
    return [float(d) for d in dips[:n - 1]] if len(dips) >= n - 1 else [0.0] * (n - 1)


def _ordered(rs: RunStore, pending: list[list[list]]) -> list[tuple[int, int, tuple[int, int]]]:
    """(level, index, span) of every pending item, in document order (highest level first)."""
    return [(level, i, tuple(rs.get_node(item[0]).span))
            for level in range(len(pending) - 1, -1, -1) for i, item in enumerate(pending[level])]


def next_sweep(rs: RunStore, spans: Sequence[tuple[int, int]], pending: list[list[list]], cursor: int,
               agg: AggregationSettings) -> SectionSweep | None:
    """The sweep the sections `spans` ask for now (the innermost closed section with two
    items or more, else an open section's early block), or None; `pending` as it is (not
    gathered). `spans`: an outline's (`Outline.spans`), or those a region holds."""
    items = _ordered(rs, pending)
    best: tuple[int, list[int]] | None = None
    for start, end in spans:
        if end > cursor:
            continue
        inside = [k for k, (_, _, span) in enumerate(items) if start <= span[0] and span[1] <= end]
        if len(inside) >= 2 and (best is None or end - start < best[0]):
            best = (end - start, inside)
    if best is not None:
        inside = best[1]
        level, first, _ = items[inside[0]]
        return SectionSweep(level=level, first=first, count=len(inside), closing=True)
    open_start = max((s for s, e in spans if s <= cursor < e), default=0)
    for level, level_items in enumerate(pending):
        inside = [i for i, item in enumerate(level_items) if rs.get_node(item[0]).span[0] >= open_start]
        if len(inside) > agg.fanout_max:
            return SectionSweep(level=level, first=inside[0], count=len(inside), closing=False)
    return None


def gathered(pending: list[list[list]], sweep: SectionSweep) -> list[list[list]]:
    """`pending` with a closing sweep's items all on `sweep.level`: its items on lower levels
    (later text) move up, after those already there, so document order holds."""
    out = [list(items) for items in pending]
    if not sweep.closing:
        return out
    here = len(out[sweep.level]) - sweep.first
    lower = sweep.count - here
    for level in range(sweep.level - 1, -1, -1):
        if lower <= 0:
            break
        take = out[level][:lower]
        out[sweep.level].extend(take)
        out[level] = out[level][len(take):]
        lower -= len(take)
    return out

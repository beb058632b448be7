"""The grouping signal: where consecutive summaries drift apart, and splits at those dips.

`summary_dips` embeds the summaries of consecutive items (leaves or blocks of one level)
and scores each gap by TextTiling depth with a block of one item (`GROUPING_WINDOW`): the
group_summaries prompt can show them as suggested breaks. `split_at_dips` is the grouping
fallback: the same number of groups as even splitting would make, but cut where the
summaries dip most, so a fallback group still tends to hold one topic.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from langchain_core.embeddings import Embeddings

from chunker.embeddings.settings import SignalSettings
from chunker.embeddings.signal import depths_of, embed_array

GROUPING_WINDOW = 1
"""Items on each side of a gap: a summary already condenses a whole passage."""


def summary_dips(summaries: Sequence[str], embeddings: Embeddings) -> list[float]:
    """Depth of the similarity dip at each of the len(summaries) - 1 gaps (0 on a slope)."""
    if len(summaries) < 2:
        return []
    vectors = embed_array(embeddings, list(summaries))
    return depths_of(vectors, SignalSettings(method="tiling", window=GROUPING_WINDOW))


def split_at_dips(n: int, dips: Sequence[float], min_size: int, max_size: int) -> list[list[int]]:
    """Contiguous groups of the item indices 0..n-1, cut at the deepest dips.

    `dips[i]` scores the gap between items i and i + 1. The group count is even splitting's,
    `max(1, min(ceil(n / max_size), n // min_size))`; every group holds at least `min_size`
    items (one group of all when n < 2 * min_size), and at most `max_size` unless that is
    impossible at that count (then at most ceil(n / count)). Among the admissible splits the
    one with the largest sum of dips at its cuts wins; ties go to the most even sizes (then
    a fixed order), so without a signal (all dips equal) this is even splitting.
    """
    if n <= 0:
        return []
    if len(dips) != n - 1:
        raise ValueError(f"{n} items need {n - 1} dips, got {len(dips)}")
    min_size, max_size = max(1, min_size), max(1, max_size)
    count = max(1, min(math.ceil(n / max_size), n // min_size))
    most = max(max_size, math.ceil(n / count), min_size)
    # best[g][p]: the best (dip sum, -sum of squared sizes) for the first p items in g groups,
    # with the start of the last group in back[g][p].
    neg = (-math.inf, -math.inf)
    best = [[neg] * (n + 1) for _ in range(count + 1)]
    back = [[-1] * (n + 1) for _ in range(count + 1)]
    best[0][0] = (0.0, 0.0)
    for g in range(1, count + 1):
        for p in range(g * min_size, n + 1):
            for start in range(max(0, p - most), p - min_size + 1):
                prev = best[g - 1][start]
                if prev == neg:
                    continue
                gain = float(dips[start - 1]) if start > 0 else 0.0
                cand = (prev[0] + gain, prev[1] - (p - start) ** 2)
                if cand > best[g][p]:  # strict: the earliest start wins ties
                    best[g][p], back[g][p] = cand, start
    if best[count][n] == neg:  # cannot happen given `most`; keep the items together
        return [list(range(n))]
    groups: list[list[int]] = []
    p = n
    for g in range(count, 0, -1):
        start = back[g][p]
        groups.append(list(range(start, p)))
        p = start
    return groups[::-1]

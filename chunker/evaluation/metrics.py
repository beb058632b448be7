"""Segmentation metrics over a sequence of units (sentences): Pk and WindowDiff.

A segmentation of N units is given as *masses* (segment sizes, e.g. `[3, 4, 3]`, summing
to N) or as *boundaries* (sorted unit indices where a new segment starts, excluding 0:
`[3, 7]` for the masses above). Both metrics slide a window of `k` units over the text,
at the N - k positions i = 0 .. N-k-1, comparing units i and i + k:

- **Pk** (Beeferman, Berger and Lafferty 1999): the share of positions where reference
  and hypothesis disagree on whether units i and i + k lie in the same segment.
- **WindowDiff** (Pevzner and Hearst 2002): the share of positions where the number of
  boundaries between units i and i + k differs between reference and hypothesis.

Both are penalties in [0, 1]; lower is better. These definitions, the window size rule
(half the mean reference segment length, rounded half-to-even, at least 2) and the
normalisation by N - k are exactly those of the `segeval` package (tested against it).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate
from statistics import mean, pstdev


def masses_to_boundaries(masses: Sequence[int]) -> list[int]:
    """`[3, 4, 3]` -> `[3, 7]` (the unit index where each segment after the first starts)."""
    if any(m <= 0 for m in masses):
        raise ValueError(f"segment masses must be positive: {list(masses)}")
    return list(accumulate(masses))[:-1]


def boundaries_to_masses(boundaries: Iterable[int], n_units: int) -> list[int]:
    """`[3, 7]`, 10 -> `[3, 4, 3]`. Boundaries are de-duplicated and sorted; 0 and n dropped."""
    cuts = sorted({b for b in boundaries if 0 < b < n_units})
    edges = [0, *cuts, n_units]
    return [b - a for a, b in zip(edges, edges[1:])]


def labels(masses: Sequence[int]) -> list[int]:
    """Segment index of every unit: `[2, 1]` -> `[0, 0, 1]`."""
    return [i for i, m in enumerate(masses) for _ in range(m)]


def window_size(reference_masses: Sequence[int]) -> int:
    """k: half the mean reference segment length, rounded half-to-even, at least 2 (segeval's rule)."""
    if not reference_masses:
        raise ValueError("empty reference segmentation")
    k = round(sum(reference_masses) / len(reference_masses) / 2)
    return max(2, int(k))


def _check(reference: Sequence[int], hypothesis: Sequence[int], k: int | None) -> int:
    if sum(reference) != sum(hypothesis):
        raise ValueError(f"reference covers {sum(reference)} units, hypothesis {sum(hypothesis)}")
    k = window_size(reference) if k is None else k
    if k < 1:
        raise ValueError("window size must be at least 1")
    return k


def pk(reference: Sequence[int], hypothesis: Sequence[int], k: int | None = None) -> float:
    """Pk of hypothesis masses against reference masses (0 when the text is not longer than k)."""
    k = _check(reference, hypothesis, k)
    ref, hyp = labels(reference), labels(hypothesis)
    n = len(ref)
    if n <= k:
        return 0.0
    errors = sum((ref[i] == ref[i + k]) != (hyp[i] == hyp[i + k]) for i in range(n - k))
    return errors / (n - k)


def window_diff(reference: Sequence[int], hypothesis: Sequence[int], k: int | None = None) -> float:
    """WindowDiff of hypothesis masses against reference masses (0 when the text is not longer than k).

    The number of boundaries between units i and i + k is label[i + k] - label[i].
    """
    k = _check(reference, hypothesis, k)
    ref, hyp = labels(reference), labels(hypothesis)
    n = len(ref)
    if n <= k:
        return 0.0
    errors = sum((ref[i + k] - ref[i]) != (hyp[i + k] - hyp[i]) for i in range(n - k))
    return errors / (n - k)


def boundary_precision_recall(reference: Sequence[int], hypothesis: Sequence[int],
                              tolerance: int = 0) -> tuple[float | None, float | None]:
    """Share of hypothesis boundaries within `tolerance` units of a reference boundary
    (precision), and of reference boundaries within `tolerance` of a hypothesis one (recall).

    None where there is nothing to share (no boundary on that side). Unlike Pk, precision
    does not punish a segmentation for being coarser than the reference: it asks only
    whether the cuts that were made fall on topic shifts.
    """
    if sum(reference) != sum(hypothesis):
        raise ValueError(f"reference covers {sum(reference)} units, hypothesis {sum(hypothesis)}")
    ref, hyp = masses_to_boundaries(reference), masses_to_boundaries(hypothesis)

    def near(b: int, others: list[int]) -> bool:
        return any(abs(b - o) <= tolerance for o in others)

    precision = sum(near(b, ref) for b in hyp) / len(hyp) if hyp else None
    recall = sum(near(b, hyp) for b in ref) / len(ref) if ref else None
    return precision, recall


@dataclass(frozen=True)
class Summary:
    """Mean, population standard deviation, minimum, maximum and count of some values."""

    mean: float
    std: float
    min: float
    max: float
    n: int

    @classmethod
    def of(cls, values: Iterable[float]) -> Summary:
        vals = [float(v) for v in values if v is not None and not math.isnan(float(v))]
        if not vals:
            return cls(float("nan"), float("nan"), float("nan"), float("nan"), 0)
        return cls(mean(vals), pstdev(vals), min(vals), max(vals), len(vals))

    def as_dict(self) -> dict:
        return {"mean": self.mean, "std": self.std, "min": self.min, "max": self.max, "n": self.n}

"""The document's own scale and contrast: the block size and the cutoff its depths are read with.

A fixed TextTiling block (2 sentences) fits topics of 3-5 sentences and fails on longer
ones: inside a 10-sentence topic, 2-sentence blocks dip wherever two sentences happen to
share few words, and every dip past the minimum becomes a cut. Both numbers are read off
the document instead.

**Block size: the similarity half-life.** In text made of topics of about L sentences, two
sentences d apart lie in one topic with a probability that falls roughly as 1 - d / L, so
their mean cosine falls from its level at distance 1 towards the document's mean over all
pairs, halfway at about L / 2. That distance (interpolated, at most
`HALF_LIFE_MAX_DISTANCE`) is the block: on each side of a gap, a block of half a topic lies
inside one topic whenever the gap is a boundary, and averages over enough sentences to
smooth the dips inside it.

**Cutoff: the contrast.** A cut between two unrelated stretches shows on each side as the
drop from the curve's own shoulders (its local maxima: how alike neighbouring blocks are
inside a topic) to the cosine of blocks that share no sentence (the document's floor). Its
depth is then about twice that drop. A peak stands out when its depth reaches
`share` x that full depth; 0.5 is the midpoint between no drop and a full one. Both levels
come from this document's vectors, so a document whose topics are all alike (a floor close
to its shoulders) gets a low cutoff, and one of unrelated parts a high one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from chunker.embeddings.rank import normalised
from chunker.embeddings.settings import HALF_LIFE_MAX_DISTANCE, TILING_WINDOW


@dataclass(frozen=True)
class DocumentSignal:
    """A document's depth per gap and what its standout peaks are measured against."""

    depths: list[float]
    window: int
    """The block size the depths were taken with (sentences on each side of a gap)."""
    contrast: float | None
    """Shoulder minus floor of the cosine curve (the drop a cut between unrelated blocks
    shows on one side), or None for a curve that is not a cosine (the rank transform)."""
    half_life: float | None
    """The similarity half-life in sentences, when the block was derived from it."""


def _unit_rows(vectors: np.ndarray) -> np.ndarray:
    return normalised(np.asarray(vectors, dtype=np.float64))


def _mean_offdiagonal(rows: np.ndarray, skip: int) -> float:
    """Mean cosine of unit rows i, j with |i - j| >= skip (skip >= 1), in O(n x skip)."""
    n = len(rows)
    total = rows.sum(axis=0)
    pair_sum = float(total @ total - np.einsum("ij,ij->", rows, rows))
    pairs = n * (n - 1)
    for d in range(1, min(skip, n)):
        pair_sum -= 2.0 * float(np.einsum("ij,ij->", rows[:-d], rows[d:]))
        pairs -= 2 * (n - d)
    return pair_sum / pairs if pairs > 0 else 0.0


def half_life(vectors: np.ndarray, max_distance: int = HALF_LIFE_MAX_DISTANCE) -> float | None:
    """The distance (in sentences, interpolated) at which the mean cosine of sentence pairs has
    fallen halfway from its value at distance 1 to the document's mean over all pairs; None
    for fewer than 4 sentences or no excess similarity between neighbours."""
    rows = _unit_rows(vectors)
    n = len(rows)
    if n < 4:
        return None
    base = _mean_offdiagonal(rows, 1)
    excess = [float(np.einsum("ij,ij->", rows[:-d], rows[d:])) / (n - d) - base
              for d in range(1, min(max_distance, n - 2) + 1)]
    first = excess[0]
    if first <= 0:
        return None
    half = first / 2
    for d in range(2, len(excess) + 1):
        before, now = excess[d - 2], excess[d - 1]
        if now <= half:
            return (d - 1) + (before - half) / (before - now)
    return float(len(excess))


def block_for(life: float | None) -> int:
    """The block size for a half-life: the nearest whole sentence, at least 1 (the fixed
    TILING_WINDOW when the document is too short to say)."""
    return TILING_WINDOW if life is None else max(1, int(life + 0.5))


def contrast(vectors: np.ndarray, similarities: list[float], window: int) -> float:
    """Mean of the curve's local maxima minus the mean cosine of disjoint `window`-sentence
    blocks (summed as in `gap_similarities`, then compared)."""
    if not similarities:
        return 0.0
    s = np.asarray(similarities)
    top = [i for i in range(len(s))
           if (i == 0 or s[i] >= s[i - 1]) and (i == len(s) - 1 or s[i] >= s[i + 1])]
    shoulder = float(s[top].mean())
    rows = np.asarray(vectors, dtype=np.float64)
    cum = np.vstack([np.zeros((1, rows.shape[1])), np.cumsum(rows, axis=0)])
    n = len(rows)
    starts = np.arange(0, max(1, n - window + 1))
    blocks = cum[np.minimum(n, starts + window)] - cum[starts]
    return shoulder - _mean_offdiagonal(_unit_rows(blocks), window)


def standout_cutoff(signal: DocumentSignal, share: float) -> float | None:
    """The depth a peak must exceed: `share` x the full depth of a cut between unrelated
    blocks (twice the contrast); None when the curve has no contrast."""
    if signal.contrast is None:
        return None
    return share * 2.0 * signal.contrast

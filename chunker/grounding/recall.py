"""Rewrite recall: how much of a leaf's original a rewrite kept (`rewrite_min_recall`).

What is counted are the original's long terms: runs of at least `RECALL_MIN_CHARS` letters
or digits ("taylor", "2024"; stop words too, unlike the grounding check's content words)
and its numbers ("3.5"), case-insensitively. A rewrite that keeps too few of them has lost
facts, and the original itself becomes the leaf's context.
"""

from __future__ import annotations

from chunker.document.words import long_term_pattern

RECALL_MIN_CHARS = 4
"""Shorter terms ("the", "of", "is") say nothing about what a rewrite kept."""


def recall_terms(text: str, min_chars: int = RECALL_MIN_CHARS) -> set[str]:
    """The text's distinct terms of at least `min_chars` characters and its numbers, lower-cased."""
    return {t.lower() for t in long_term_pattern(min_chars).findall(text)}


def recall(original: str, rewrite: str) -> float:
    """Share of the original's `recall_terms` found in the rewrite (1.0 when it has none)."""
    wanted = recall_terms(original)
    if not wanted:
        return 1.0
    return len(wanted & recall_terms(rewrite)) / len(wanted)

"""Model-written prose made tidy: one line, and capped at a sentence end."""

from __future__ import annotations

from chunker.document.units import sentence_ends


def clean_line(text: str | None) -> str:
    """Collapse whitespace (summaries are one paragraph)."""
    return " ".join((text or "").split())


def cap_text(text: str, max_chars: int) -> str:
    """Cut at the last sentence end (the same pysbd segmenter as the split units), else at
    a word boundary, within max_chars."""
    if len(text) <= max_chars:
        return text
    head = text[:max_chars]
    ends = [e for e in sentence_ends(text) if e <= max_chars]
    if ends and ends[-1] > max_chars // 3:
        return head[:ends[-1]].rstrip()
    cut = head.rfind(" ")
    return (head[:cut] if cut > max_chars // 3 else head).rstrip() + "\u2026"

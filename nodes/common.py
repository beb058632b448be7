"""Helpers shared by the nodes: resolved settings, the store, progress events, text."""

from __future__ import annotations

import re

from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore

from chunker.config.context import ChunkerContext
from chunker.document.units import Units
from chunker.state.store import get_units

# Used only when the graph is embedded in a parent graph compiled without a store.
_FALLBACK_STORE = InMemoryStore()


def settings(runtime: Runtime) -> ChunkerContext:
    ctx = runtime.context
    if ctx is None:
        ctx = ChunkerContext()
    elif isinstance(ctx, dict):
        ctx = ChunkerContext(**ctx)
    return ctx.resolve()


def store_of(runtime: Runtime) -> BaseStore:
    return runtime.store if runtime.store is not None else _FALLBACK_STORE


def units_of(state: dict, runtime: Runtime) -> Units:
    return get_units(store_of(runtime), state["doc_id"])


def emit(runtime: Runtime, event: dict) -> None:
    """A custom stream event (progress bar); a no-op when nobody listens."""
    runtime.stream_writer(event)


def clean_line(text: str | None) -> str:
    """Collapse whitespace (summaries are one paragraph)."""
    return " ".join((text or "").split())


_SENTENCE_END = re.compile(r"[.!?\u2026][\"'\u201d\u2019)\]]*(?=\s|$)")


def cap_text(text: str, max_chars: int) -> str:
    """Cut at the last sentence end, else word boundary, within max_chars."""
    if len(text) <= max_chars:
        return text
    head = text[:max_chars]
    ends = [m.end() for m in _SENTENCE_END.finditer(head)]
    if ends and ends[-1] > max_chars // 3:
        return head[:ends[-1]]
    cut = head.rfind(" ")
    return (head[:cut] if cut > max_chars // 3 else head).rstrip() + "\u2026"


def first_sentences(text: str, max_chars: int) -> str:
    """An extractive summary: the opening sentence(s) of `text`, capped."""
    text = clean_line(text)
    m = _SENTENCE_END.search(text, 20)
    first = text[:m.end()] if m else text
    return cap_text(first, max_chars) or "(empty passage)"


_WORD = re.compile(r"[^\W_]{4,}|\d+(?:[.,]\d+)*")
_HAS_WORDS = re.compile(r"[^\W\d_]{2,}")


def recall(original: str, rewrite: str) -> float:
    """Share of the original's content words (4+ letters) and numbers found in the rewrite."""
    wanted = {w.lower() for w in _WORD.findall(original)}
    if not wanted:
        return 1.0
    have = {w.lower() for w in _WORD.findall(rewrite)}
    return len(wanted & have) / len(wanted)


def is_prose(text: str, min_words: int = 3) -> bool:
    """At least a few real words (rejects "...", "{ document_content }" and the like)."""
    return len(_HAS_WORDS.findall(text)) >= min_words

"""validate_boundary, fallback_boundary and force_split: deciding where a chunk ends.

All three are pure: they read the window and the model's answer from the state and
write `chunk_end` and the outcome. Every outcome is counted in the stats.
"""

from __future__ import annotations

import logging

from langgraph.runtime import Runtime

from chunker.config.settings import ChunkerSettings
from chunker.document.tokens import count_tokens, prefix_within
from chunker.chunking.candidates import deepest_in_window, offered
from chunker.nodes.common import run_store, settings, units_of
from chunker.chunking.peel import peel_of
from chunker.state.schema import ChunkerState

log = logging.getLogger("chunker")


def starts_word(text: str, pos: int) -> bool:
    """Whether a match at `pos` begins at a word boundary (not inside a word)."""
    return pos == 0 or not (text[pos - 1].isalnum() and text[pos].isalnum())


def find_phrase(text: str, phrase: str, lo: int, hi: int) -> int | None:
    """Start of the first verbatim occurrence of `phrase` wholly inside text[lo:hi] that
    begins at a word boundary ("hird closes the" never matches inside "third")."""
    pos = text.find(phrase, lo, hi)
    while pos >= 0:
        if starts_word(text, pos):
            return pos
        pos = text.find(phrase, pos + 1, hi)
    return None


def validate_boundary(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    cfg = settings(runtime)
    rs = run_store(state, runtime)
    text = rs.units(state["doc_id"]).text
    cursor, window_end = state["cursor"], state["window_end"]
    peel = peel_of(rs, state["doc_id"], cursor)
    # the window's hard end: the section's end with structure, else the text's end
    n = peel.limit if peel else len(text)
    complete, phrase = state.get("complete"), state.get("phrase")
    retried = state.get("boundary_attempt", 0) > 0

    def accept(end: int, outcome: str) -> dict:
        return {"boundary_status": "match", "chunk_end": end, "chunk_outcome": outcome,
                "forced": False, "stats": {f"boundary.{outcome}": 1}}

    if complete is False:
        if window_end >= n:
            return accept(n, "end")
        return {"boundary_status": "expand", "stats": {"boundary.incomplete": 1}}
    if cfg.boundary_mode == "candidates":
        number = state.get("boundary_number")
        if complete is True and window_end >= n and number is None:
            return accept(n, "end")
        if complete is True and number is not None:
            cut = next((c for c in offered(state, rs, cfg) if c.number == number), None)
            if cut is not None and count_tokens(text[cursor:cut.offset]) <= cfg.max_chunk_tokens:
                return accept(cut.offset, "retry_match" if retried else "match")
        if complete is True and number is None:
            # "complete" but no cut named: the model agrees the thought ends here and leaves
            # the choice to the signal. The deepest cut in the window, without a retry
            # (asking a model that named none to name one rarely helps; it costs a call).
            cut = deepest_in_window(state, rs, cfg)
            if cut is not None:
                return accept(cut.offset, "deepest")
        # no answer, or a number that was not offered
        return {"boundary_status": "miss", "stats": {"boundary.miss": 1}}
    phrase = (phrase or "").strip()
    if complete is True and window_end >= n and not phrase:
        return accept(n, "end")  # the window holds the rest of the document
    # A null or blank phrase is a miss like any other: the boundary must be named.
    if complete is True and len(phrase) >= cfg.min_boundary_chars:
        pos = find_phrase(text, phrase, state["min_end"], state["shown_end"])
        if pos is not None and peel is not None and not peel.allows(pos):
            pos = None  # inside a table, code block, formula or heading
        if pos is not None and pos > cursor and count_tokens(text[cursor:pos]) <= cfg.max_chunk_tokens:
            return accept(pos, "retry_match" if retried else "match")
    # an invalid answer, a short phrase, or one not in the text past the minimum size
    return {"boundary_status": "miss", "stats": {"boundary.miss": 1}}


def fallback_boundary(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    """Second miss: end at the deepest candidate gap in the window (candidates mode), else
    at the last sentence boundary in the window."""
    cfg = settings(runtime)
    units = units_of(state, runtime)
    cursor, window_end, min_end = state["cursor"], state["window_end"], state["min_end"]
    rs = run_store(state, runtime)
    cut = (deepest_in_window(state, rs, cfg)
           if cfg.boundary_mode == "candidates" else None)
    end = cut.offset if cut is not None else (units.last_sentence_end(min_end - 1, window_end)
                                              or units.last_sentence_end(cursor, window_end)
                                              or window_end)
    peel = peel_of(rs, state["doc_id"], cursor)
    if peel is not None:
        end = peel.snap(end)  # never inside a table, code block, formula or heading
    return {"boundary_status": "match", "chunk_end": end, "chunk_outcome": "fallback",
            "forced": False, "stats": {"boundary.fallback": 1}}


def force_split(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    """Safety valve: split at the deepest gap of the signal past the minimum and under the
    token cap (candidates mode), else at the last sentence boundary under the cap; with no
    sentence boundary, at the last word boundary; with no word boundary, at the cap."""
    cfg = settings(runtime)
    units = units_of(state, runtime)
    text = units.text
    cursor, window_end = state["cursor"], state["window_end"]
    cap = cursor + prefix_within(text[cursor:window_end], cfg.max_chunk_tokens)
    cut = (deepest_in_window({**state, "window_end": cap}, run_store(state, runtime), cfg)
           if cfg.boundary_mode == "candidates" else None)
    end, how = (cut.offset, "deepest") if cut is not None else (units.last_sentence_end(cursor, cap), "sentence")
    if end is None:
        words = units.word_ends(cursor, cap)
        end, how = (words[-1], "word") if words else (cap, "character")
    if end <= cursor:  # a single token longer than the cap: still make progress
        end, how = min(window_end, cursor + max(1, cap - cursor)), "character"
    peel = peel_of(run_store(state, runtime), state["doc_id"], cursor)
    if peel is not None and peel.snap(end) != end:
        # never inside a code block, formula or heading; a table splits between its rows
        end, how = peel.snap(end), "structure"
    log.warning("forced split at a %s boundary, char %d (window of %d tokens after %d expansions)",
                how, end, state.get("window_tokens", 0), state.get("expansions", 0))
    return {"boundary_status": "match", "chunk_end": end, "chunk_outcome": f"forced_{how}",
            "forced": True, "stats": {"forced_splits": 1}}

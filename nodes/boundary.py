"""validate_boundary, fallback_boundary, cut_without_model, force_split and end_at_section:
deciding where a chunk ends.

All are pure: they read the window and the model's answer from the state and write
`chunk_end` and the outcome; what depends on the boundary mode is the run's policy's
(`chunker.chunking.boundary`). Every outcome is counted in the stats.
"""

from __future__ import annotations

import logging

from langgraph.runtime import Runtime

from chunker.chunking.boundary import Window, boundary_policy
from chunker.chunking.peel import peel_of
from chunker.config.settings import ChunkerSettings
from chunker.document.tokens import prefix_within
from chunker.nodes.common import run_store
from chunker.state.schema import ChunkerState, reading_end

log = logging.getLogger("chunker")


def window_of(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> Window:
    rs = run_store(state, runtime)
    return Window(state=state, rs=rs, cfg=runtime.context,
                  peel=peel_of(rs, state["doc_id"], state["cursor"]))


def _accept(end: int, outcome: str, forced: bool = False, stats: dict | None = None) -> dict:
    return {"boundary_status": "match", "chunk_end": end, "chunk_outcome": outcome,
            "forced": forced, "stats": stats or {f"boundary.{outcome}": 1}}


def validate_boundary(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    w = window_of(state, runtime)
    # the window's hard end: the section's end with structure, else the text's (or region's) end
    limit = min(w.peel.limit if w.peel else len(w.units.text), reading_end(state))
    complete = state.get("complete")
    if complete is False:
        if state["window_end"] >= limit:
            return _accept(limit, "end")
        return {"boundary_status": "expand", "stats": {"boundary.incomplete": 1}}
    cut = boundary_policy(w.cfg.chunking).answered_cut(w, limit) if complete is True else None
    if cut is None:  # no answer, or one that names no valid cut
        return {"boundary_status": "miss", "stats": {"boundary.miss": 1}}
    end, outcome = cut
    if outcome == "match" and state.get("boundary_attempt", 0) > 0:
        outcome = "retry_match"
    return _accept(end, outcome)


def fallback_boundary(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    """Second miss: the policy's own cut (the deepest candidate gap in the window), else the
    last sentence boundary in the window."""
    return _accept(_own_cut(window_of(state, runtime)), "fallback")


def cut_without_model(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    """A run whose model is not asked for boundaries (`model_tasks`): the fallback's cut at
    once, counted as extracted."""
    return _accept(_own_cut(window_of(state, runtime)), "extracted",
                   stats={"extracted.boundary": 1})


def _own_cut(w: Window) -> int:
    state = w.state
    cursor, window_end, min_end = state["cursor"], state["window_end"], state["min_end"]
    end = boundary_policy(w.cfg.chunking).fallback_cut(w)
    if end is None:
        end = (w.units.last_sentence_end(min_end - 1, window_end)
               or w.units.last_sentence_end(cursor, window_end) or window_end)
    if w.peel is not None:
        end = w.peel.snap(end)  # never inside a table, code block, formula or heading
    return end


def force_split(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    """Safety valve: split at the policy's cut under the token cap (the deepest gap of the
    signal past the minimum), else at the last sentence boundary under the cap; with no
    sentence boundary, at the last word boundary; with no word boundary, at the cap."""
    w = window_of(state, runtime)
    units, text = w.units, w.units.text
    cursor, window_end = state["cursor"], state["window_end"]
    cap = cursor + prefix_within(text[cursor:window_end], w.cfg.chunking.max_chunk_tokens)
    cut = boundary_policy(w.cfg.chunking).forced_cut(w, cap)
    end, how = (cut, "deepest") if cut is not None else (units.last_sentence_end(cursor, cap), "sentence")
    if end is None:
        words = units.word_ends(cursor, cap)
        end, how = (words[-1], "word") if words else (cap, "character")
    if end <= cursor:  # a single token longer than the cap: still make progress
        end, how = min(window_end, cursor + max(1, cap - cursor)), "character"
    if w.peel is not None and w.peel.snap(end) != end:
        # never inside a code block, formula or heading; a table splits between its rows
        end, how = w.peel.snap(end), "structure"
    log.warning("forced split at a %s boundary, char %d (window of %d tokens after %d expansions)",
                how, end, state.get("window_tokens", 0), state.get("expansions", 0))
    return _accept(end, f"forced_{how}", forced=True, stats={"forced_splits": 1})


def end_at_section(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    """The rest of a Markdown section, or of a plain text, with no cut to choose: one leaf,
    no LLM call (expand_window found it and set `section_end`). A short file is one leaf so."""
    peeled = peel_of(run_store(state, runtime), state["doc_id"], state["cursor"]) is not None
    outcome = "section" if peeled else "end"
    return _accept(state["section_end"], outcome,
                   stats={f"boundary.{outcome}": 1, f"calls_saved.{outcome}": 1})

"""expand_window: grow the window one split unit at a time.

A new window grows from the cursor until it holds `min_chunk_tokens`; each later
expansion adds `expand_step` units. In candidates mode a window also grows until it holds
a candidate cut (a sentence end past the minimum). The lookahead shown to the LLM is the
next `lookahead_units` sentences.

With Markdown structure (`chunker/chunking/peel.py`) the window, its lookahead and its candidates
stop at the end of the cursor's section, and a window end never falls inside a table,
code block, formula, figure or heading. A window that holds the rest of its section and
offers no candidate cut ends the chunk at the section end without asking the LLM (a
small section is one leaf on its own): `chunk_end` is set and the route goes straight to
rewrite_chunk.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from chunker.config.settings import ChunkerSettings
from chunker.document.tokens import count_tokens
from chunker.chunking.candidates import has_candidate, offered
from chunker.nodes.common import run_store, settings
from chunker.nodes.embed import run_peaks
from chunker.chunking.peel import peel_of
from chunker.state.schema import ChunkerState


def expand_window(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    cfg = settings(runtime)
    rs = run_store(state, runtime)
    units = rs.units(state["doc_id"])
    text, n = units.text, len(units.text)
    cursor = state["cursor"]
    peel = peel_of(rs, state["doc_id"], cursor)
    stop = peel.limit if peel else n

    def step(pos: int) -> int:
        nxt = units.next_end(pos, cfg.split_unit)
        return peel.grow(nxt) if peel else nxt

    end = state.get("window_end")
    grown_from = end  # after an "incomplete" answer, the window must offer a new cut
    if end is None:
        end, tokens = cursor, 0
        while end < stop and tokens < cfg.min_chunk_tokens:
            nxt = step(end)
            tokens = count_tokens(text[cursor:nxt])  # exact: unit counts summed overestimate
            end = nxt
        min_end, expansions = end, 0
    else:
        tokens = state["window_tokens"]
        for _ in range(cfg.expand_step):
            if end >= stop:
                break
            nxt = step(end)
            tokens = count_tokens(text[cursor:nxt])  # exact: unit counts summed overestimate
            end = nxt
        min_end, expansions = state["min_end"], state["expansions"] + 1
    if cfg.boundary_mode == "candidates":
        # A window must hold a candidate cut (a peak of the signal past the minimum), and
        # after an "incomplete" answer one it did not hold before (asking again about the same
        # cuts would waste a call): until it does, it grows by more than one unit per step,
        # up to max_chunk_tokens.
        peaks = run_peaks(rs, cfg, state["doc_id"])
        allowed = peel.allows if peel else None
        lo = min_end if grown_from is None else max(min_end, grown_from + 1)
        while end < stop and tokens < cfg.max_chunk_tokens and not has_candidate(
                units, peaks, lo, end, allowed):
            nxt = step(end)
            tokens = count_tokens(text[cursor:nxt])  # exact: unit counts summed overestimate
            end = nxt
    shown_end = end
    for _ in range(cfg.lookahead_units):
        shown_end = units.next_end(shown_end, "sentence")
    if peel:
        shown_end = peel.clamp(shown_end)
    update = {
        "window_end": end,
        "window_tokens": tokens,
        "min_end": min_end,
        "shown_end": shown_end,
        "expansions": expansions,
        "complete": None,
        "phrase": None,
        "boundary_number": None,
        "boundary_attempt": 0,
        "boundary_status": None,
        "chunk_end": None,
    }
    if peel and end >= stop and tokens < cfg.max_chunk_tokens and (
            min_end >= stop
            or (cfg.boundary_mode == "candidates" and not offered({**state, **update}, rs, cfg))):
        # the rest of the section, with no cut to choose: one leaf, no LLM call
        update.update({"boundary_status": "match", "chunk_end": stop, "chunk_outcome": "section",
                       "forced": False, "stats": {"boundary.section": 1, "calls_saved.section": 1}})
    return update

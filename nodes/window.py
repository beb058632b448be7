"""expand_window: grow the window one split unit at a time.

A new window grows from the cursor until it holds `min_chunk_tokens`; each later
expansion adds `expand_step` units. In candidates mode a window also grows until it holds
a candidate cut (a sentence end past the minimum). The lookahead shown to the LLM is the
next `lookahead_units` sentences.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from chunker.config.settings import ChunkerSettings
from chunker.document.tokens import count_tokens
from chunker.nodes.candidates import has_candidate
from chunker.nodes.common import run_store, settings, units_of
from chunker.nodes.embed import run_peaks
from chunker.state.schema import ChunkerState


def expand_window(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    cfg = settings(runtime)
    units = units_of(state, runtime)
    text, n = units.text, len(units.text)
    cursor = state["cursor"]
    end = state.get("window_end")
    if end is None:
        end, tokens = cursor, 0
        while end < n and tokens < cfg.min_chunk_tokens:
            nxt = units.next_end(end, cfg.split_unit)
            tokens += count_tokens(text[end:nxt])
            end = nxt
        min_end, expansions = end, 0
    else:
        tokens = state["window_tokens"]
        for _ in range(cfg.expand_step):
            if end >= n:
                break
            nxt = units.next_end(end, cfg.split_unit)
            tokens += count_tokens(text[end:nxt])
            end = nxt
        min_end, expansions = state["min_end"], state["expansions"] + 1
    if cfg.boundary_mode == "candidates":
        # A window must hold a candidate cut (a peak of the signal past the minimum): while
        # it holds none, it grows by more than one unit per step, up to max_chunk_tokens.
        rs = run_store(state, runtime)
        peaks = run_peaks(rs, cfg, state["doc_id"])
        while end < n and tokens < cfg.max_chunk_tokens and not has_candidate(units, peaks, min_end, end):
            nxt = units.next_end(end, cfg.split_unit)
            tokens += count_tokens(text[end:nxt])
            end = nxt
    shown_end = end
    for _ in range(cfg.lookahead_units):
        shown_end = units.next_end(shown_end, "sentence")
    return {
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

"""The `candidates` boundary policy: the embedding signal offers numbered cuts, the model
answers a number (LumberChunker-style; nothing to copy).

A window grows until it holds an offered cut past the minimum (and, after "incomplete", one
it did not hold before); a "complete" answer with no number, a second miss and the safety
valve all take the deepest gap of the signal in the window.
"""

from __future__ import annotations

from collections.abc import Callable

from chunker.chunking.boundary import BoundaryPolicy, Question, Window
from chunker.chunking.candidates import deepest_in_window, has_candidate, marked, numbers, offered, run_peaks
from chunker.document.tokens import count_tokens
from chunker.state.schema import ChunkerState


class CandidatesPolicy(BoundaryPolicy):
    name = "candidates"
    reads_signal = True

    def grow_until_choice(self, w: Window, lo: int, end: int, tokens: int, stop: int,
                          step: Callable[[int], int], measure: Callable[[int], int]) -> tuple[int, int]:
        # Asking again about the same cuts would waste a call: until the window holds a peak
        # of the signal past `lo`, it grows by more than one unit per step, up to the cap.
        peaks = run_peaks(w.rs, w.cfg, w.state["doc_id"])
        allowed = w.peel.allows if w.peel else None
        while end < stop and tokens < w.cfg.chunking.max_chunk_tokens and not has_candidate(
                w.units, peaks, lo, end, allowed):
            end = step(end)
            tokens = measure(end)
        return end, tokens

    def nothing_to_choose(self, w: Window) -> bool:
        return not offered(w.state, w.rs, w.cfg)

    def question(self, w: Window, task: str) -> Question:
        s, text = w.state, w.units.text
        cuts = offered(s, w.rs, w.cfg)
        return Question(task=f"{task}_candidates",
                        window=marked(text, s["cursor"], s["window_end"], cuts),
                        lookahead=marked(text, s["window_end"], s["shown_end"], cuts),
                        extra={"numbers": numbers(cuts)})

    def retry_hint(self, state: ChunkerState) -> dict[str, str]:
        number = state.get("boundary_number")
        return {"bad_answer": "no number" if number is None else str(number)}

    def answered_cut(self, w: Window, limit: int) -> tuple[int, str] | None:
        s = w.state
        number = s.get("boundary_number")
        if number is None:
            if s["window_end"] >= limit:
                return limit, "end"
            # "complete" but no cut named: the model agrees the thought ends here and leaves
            # the choice to the signal. The deepest cut in the window, without a retry
            # (asking a model that named none to name one rarely helps; it costs a call).
            cut = deepest_in_window(s, w.rs, w.cfg)
            return None if cut is None else (cut.offset, "deepest")
        cut = next((c for c in offered(s, w.rs, w.cfg) if c.number == number), None)
        cap = w.cfg.chunking.max_chunk_tokens
        if cut is not None and count_tokens(w.units.text[s["cursor"]:cut.offset]) <= cap:
            return cut.offset, "match"
        return None  # a number that was not offered

    def fallback_cut(self, w: Window) -> int | None:
        cut = deepest_in_window(w.state, w.rs, w.cfg)
        return None if cut is None else cut.offset

    def forced_cut(self, w: Window, cap: int) -> int | None:
        cut = deepest_in_window({**w.state, "window_end": cap}, w.rs, w.cfg)
        return None if cut is None else cut.offset

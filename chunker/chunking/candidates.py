"""The numbered cuts a window offers the LLM (candidates mode), and how they are shown.

The same pure function of the state and the stored depths serves check_completeness
(which shows them), validate_boundary (which maps the answered number to an offset) and
fallback_boundary (the deepest cut in the window), so nothing about them is kept in the
state.
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Callable

from chunker.config.settings import ChunkerSettings
from chunker.embeddings import Candidate, candidates, deepest
from chunker.nodes.embed import OUT_OF_REACH as _OUT, run_depths, run_peak_depths
from chunker.chunking.peel import peel_of
from chunker.state.schema import ChunkerState
from chunker.state.store import RunStore


def offered(state: ChunkerState, rs: RunStore, cfg: ChunkerSettings) -> list[Candidate]:
    """The deepest `candidate_count` peak gaps past the minimum, inside the shown text,
    numbered in document order."""
    units = rs.units(state["doc_id"])
    cuts = candidates(units.sentences, run_peak_depths(rs, cfg, state["doc_id"]), cursor=state["cursor"],
                      window_end=state["window_end"], min_end=state["min_end"],
                      shown_end=state["shown_end"], k=cfg.candidate_count)
    peel = peel_of(rs, state["doc_id"], state["cursor"])
    kept = [c for c in cuts if c.depth != _OUT and (peel is None or peel.allows(c.offset))]
    return [dataclasses.replace(c, number=n) for n, c in enumerate(kept, start=1)]


def has_candidate(units, peaks: frozenset[int], lo: int, hi: int,
                  allowed: Callable[[int], bool] | None = None) -> bool:
    """Whether a peak gap lies at a sentence end e with lo <= e <= hi (and, with
    structure, where a cut is allowed)."""
    i = bisect.bisect_left(units.sentences, lo)
    while i < len(units.sentences) - 1 and units.sentences[i] <= hi:
        if i in peaks and (allowed is None or allowed(units.sentences[i])):
            return True
        i += 1
    return False


def deepest_in_window(state: ChunkerState, rs: RunStore, cfg: ChunkerSettings) -> Candidate | None:
    """The fallback cut: the deepest gap in the window past the minimum (peak or not),
    among the gaps where a cut is allowed (with structure)."""
    units = rs.units(state["doc_id"])
    depths = run_depths(rs, cfg, state["doc_id"])
    peel = peel_of(rs, state["doc_id"], state["cursor"])
    if peel is not None:  # mask the gaps inside the window only, not the whole document
        depths = list(depths)
        lo = bisect.bisect_left(units.sentences, state["min_end"])
        hi = min(bisect.bisect_right(units.sentences, state["window_end"]), len(depths))
        for i in range(lo, hi):
            if not peel.allows(units.sentences[i]):
                depths[i] = _OUT
    cut = deepest(units.sentences, depths, cursor=state["cursor"],
                  min_end=state["min_end"], end=state["window_end"])
    return None if cut is None or cut.depth == _OUT else cut


def marked(text: str, start: int, end: int, cuts: list[Candidate]) -> str:
    """text[start:end] with a marker `[n]` where each cut inside it falls (before the
    sentence that would start the next passage)."""
    parts, pos = [], start
    for cut in cuts:
        if start < cut.offset < end or (cut.offset == start and start > 0):
            parts.append(text[pos:cut.offset])
            parts.append(f"[{cut.number}] ")
            pos = cut.offset
    parts.append(text[pos:end])
    return "".join(parts)


def numbers(cuts: list[Candidate]) -> str:
    return ", ".join(str(c.number) for c in cuts)

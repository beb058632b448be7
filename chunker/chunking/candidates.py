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
from chunker.document.readable import readable_copy
from chunker.embeddings import (Candidate, candidates, deepest, document_signal, get_embeddings,
                                sentence_texts, signal_for)
from chunker.embeddings.adaptive import DocumentSignal, standout_cutoff
from chunker.embeddings.cache import drop_vectors
from chunker.embeddings.signal import own_count_gaps, standout_gaps
from chunker.chunking.peel import peel_of
from chunker.state.schema import ChunkerState
from chunker.state.store import RunStore

_OUT = float("-inf")
"""The depth given to a gap that may not be offered."""


def run_signal(rs: RunStore, cfg: ChunkerSettings, doc_id: str) -> DocumentSignal:
    """The run's document signal: the depth of every sentence gap (`depths[i]`: the gap at
    sentence end i), with the block and contrast of this document; embedded and stored on
    first use (resumable batch by batch), once per run."""
    def compute() -> DocumentSignal:
        units = rs.units(doc_id)
        namespace = rs.ns("embeddings", cfg.embedding.provider.replace(".", "_"))
        signal = document_signal(rs.store, namespace, sentence_texts(readable_copy(units.text), units.sentences),
                                 get_embeddings(cfg.embedding.provider), signal=signal_for(cfg.embedding.provider),
                                 batch_size=cfg.embedding.batch_size)
        # the depths are stored: the vectors only served a resume mid-embedding
        drop_vectors(rs.store, namespace, len(units.sentences), batch_size=cfg.embedding.batch_size)
        return signal
    return rs.memo.get(("signal", doc_id, cfg.embedding.provider), compute)


def run_depths(rs: RunStore, cfg: ChunkerSettings, doc_id: str) -> list[float]:
    """Depth of every sentence gap of the run's document (see `run_signal`)."""
    return run_signal(rs, cfg, doc_id).depths


def _cutoff_key(cfg: ChunkerSettings) -> tuple:
    c = cfg.chunking
    return (c.candidate_cutoff, c.candidate_depth_share, c.candidate_peak_std)


def run_peaks(rs: RunStore, cfg: ChunkerSettings, doc_id: str) -> frozenset[int]:
    """The gaps that may be offered as cuts, local maxima of depth that stand out in this
    document: by `candidate_cutoff`, above `candidate_depth_share` x the depth of a cut
    between unrelated blocks (`contrast`), or above mean - `candidate_peak_std` x std of
    the maxima (`peak_std`, and any curve without a contrast: the lexical rank curve)."""
    def compute() -> frozenset[int]:
        signal = run_signal(rs, cfg, doc_id)
        cutoff = standout_cutoff(signal, cfg.chunking.candidate_depth_share)
        if cfg.chunking.candidate_cutoff == "contrast" and cutoff is not None:
            return frozenset(standout_gaps(signal.depths, cutoff))
        return frozenset(own_count_gaps(signal.depths, cfg.chunking.candidate_peak_std))
    return rs.memo.get(("peaks", doc_id, cfg.embedding.provider, *_cutoff_key(cfg)), compute)


def run_peak_depths(rs: RunStore, cfg: ChunkerSettings, doc_id: str) -> list[float]:
    """The depths with every gap that is not a peak pushed out of reach (built once per
    run: every window's candidate offer reads it)."""
    def compute() -> list[float]:
        depths, peaks = run_depths(rs, cfg, doc_id), run_peaks(rs, cfg, doc_id)
        return [d if i in peaks else _OUT for i, d in enumerate(depths)]
    return rs.memo.get(("peak_depths", doc_id, cfg.embedding.provider, *_cutoff_key(cfg)), compute)


def offered(state: ChunkerState, rs: RunStore, cfg: ChunkerSettings) -> list[Candidate]:
    """The deepest `candidate_count` peak gaps past the minimum, inside the shown text,
    numbered in document order."""
    units = rs.units(state["doc_id"])
    cuts = candidates(units.sentences, run_peak_depths(rs, cfg, state["doc_id"]), cursor=state["cursor"],
                      window_end=state["window_end"], min_end=state["min_end"],
                      shown_end=state["shown_end"], k=cfg.chunking.candidate_count)
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

"""embed_document: the boundary signal, computed once per document.

Every sentence is embedded (batched, each finished batch kept in the run's store, so a
crash mid-way loses at most one batch) and every sentence gap gets a TextTiling depth
score. The depths live in the store, never in the graph state; `run_depths` reads them
back (cached per process) for the candidate cuts of each window.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from chunker.config.settings import ChunkerSettings
from chunker.embeddings import document_depths, get_embeddings, sentence_texts, signal_for
from chunker.embeddings.cache import drop_vectors
from chunker.embeddings.signal import own_count_gaps
from chunker.nodes.common import emit, run_store, settings
from chunker.state.schema import ChunkerState
from chunker.state.store import RunStore

_DEPTHS: dict[str, list[float]] = {}
_PEAKS: dict[str, frozenset[int]] = {}
_PEAK_DEPTHS: dict[str, list[float]] = {}
OUT_OF_REACH = float("-inf")
"""The depth given to a gap that may not be offered."""


def embed_document(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    cfg = settings(runtime)
    if cfg.boundary_mode != "candidates":
        return {}
    rs = run_store(state, runtime)
    depths = run_depths(rs, cfg, state["doc_id"])
    emit(runtime, {"event": "progress", "cursor": 0, "total": state["doc_chars"], "leaves": 0})
    return {"stats": {"embeddings.sentences": len(depths) + 1}}


def run_depths(rs: RunStore, cfg: ChunkerSettings, doc_id: str) -> list[float]:
    """Depth of every sentence gap of the run's document (`depths[i]`: the gap at sentence
    end i), computed on first use and stored."""
    key = f"{rs.run_key}:{cfg.embeddings}"
    if key not in _DEPTHS:
        units = rs.units(doc_id)
        embeddings = get_embeddings(cfg.embeddings)
        _DEPTHS.clear()  # one document at a time per process is the common case
        _PEAKS.clear()
        _PEAK_DEPTHS.clear()
        namespace = rs.ns("embeddings", cfg.embeddings.replace(".", "_"))
        _DEPTHS[key] = document_depths(rs.store, namespace,
                                       sentence_texts(units.text, units.sentences), embeddings,
                                       signal=signal_for(cfg.embeddings),
                                       batch_size=cfg.embed_batch_size)
        # the depths are stored: the vectors only served a resume mid-embedding
        drop_vectors(rs.store, namespace, len(units.sentences), batch_size=cfg.embed_batch_size)
    return _DEPTHS[key]


def run_peaks(rs: RunStore, cfg: ChunkerSettings, doc_id: str) -> frozenset[int]:
    """The gaps that may be offered as cuts: local maxima of depth above the document's
    own threshold (mean - `candidate_peak_std` x std of its maxima)."""
    key = f"{rs.run_key}:{cfg.embeddings}:{cfg.candidate_peak_std}"
    if key not in _PEAKS:
        _PEAKS[key] = frozenset(own_count_gaps(run_depths(rs, cfg, doc_id), cfg.candidate_peak_std))
    return _PEAKS[key]


def run_peak_depths(rs: RunStore, cfg: ChunkerSettings, doc_id: str) -> list[float]:
    """The depths with every gap that is not a peak pushed out of reach (built once per
    run: every window's candidate offer reads it)."""
    key = f"{rs.run_key}:{cfg.embeddings}:{cfg.candidate_peak_std}"
    if key not in _PEAK_DEPTHS:
        depths, peaks = run_depths(rs, cfg, doc_id), run_peaks(rs, cfg, doc_id)
        _PEAK_DEPTHS[key] = [d if i in peaks else OUT_OF_REACH for i, d in enumerate(depths)]
    return _PEAK_DEPTHS[key]


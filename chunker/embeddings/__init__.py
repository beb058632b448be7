"""Embeddings as a boundary signal: providers, depth scores, numbered candidates, grouping dips.

- `get_embeddings(spec)` / `preflight_embeddings(spec)`: `local`, `lexical`, `ollama:NAME`, `none`.
- `document_depths(store, namespace, texts, embeddings, ...)`: depth per sentence gap, resumable;
  `document_signal(...)` adds the block and contrast of the document (`adaptive.py`).
- `candidates(...)` / `deepest(...)`: the cuts offered to the LLM, and the fallback cut.
- `summary_dips(...)` / `split_at_dips(...)`: the grouping signal and fallback.
"""

from chunker.embeddings.cache import document_depths, document_signal, sentence_texts, sentence_vectors
from chunker.embeddings.candidates import Candidate, candidates, deepest
from chunker.embeddings.grouping import split_at_dips, summary_dips
from chunker.embeddings.registry import (
    embeddings_prefix,
    get_embeddings,
    preflight_embeddings,
    register_embeddings,
    register_embeddings_instance,
)
from chunker.embeddings.settings import SignalSettings, signal_for

__all__ = [
    "Candidate", "SignalSettings", "candidates", "deepest", "document_depths", "document_signal", "embeddings_prefix",
    "get_embeddings", "preflight_embeddings", "register_embeddings", "register_embeddings_instance",
    "sentence_texts", "sentence_vectors", "signal_for", "split_at_dips", "summary_dips",
]

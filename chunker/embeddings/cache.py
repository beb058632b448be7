"""Per-document depth scores, with sentence vectors kept batch by batch in a LangGraph store.

Embedding a book with a real model takes minutes, so the vectors are computed once, in
batches of `batch_size` sentences, and each finished batch is written to the store before
the next starts: after a crash, a rerun reads the finished batches back and embeds only
the rest. Vectors never enter the graph state (they would be checkpointed at every step).

Layout under the caller's `namespace` (the caller includes its run key and the provider):
- `vectors-{start:08d}-{stop:08d}`: `{"sha", "rows", "dim", "f32"}`, the batch's rows as
  little-endian float32 bytes in base64 (1.33 x 4 bytes a dimension: 2,048 characters a
  sentence for MiniLM's 384), and the SHA-256 of the batch's sentences, so a record that
  does not belong to these sentences (another document, another split) is recomputed.
- `depths`: `{"sha", "signal", "f32", "window", "contrast", "half_life"}`, the finished
  depth array and the block and contrast the document's own scale gave
  (`chunker.embeddings.adaptive`), so later calls are one read.

Depths are always computed from the vectors as decoded from the store, so a resumed run
gets bit-identical depths to an uninterrupted one. Providers marked `cacheable = False`
(lexical: microseconds a sentence, but wide vectors) are embedded in one call and only their
depths are stored.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence

import numpy as np
from langchain_core.embeddings import Embeddings
from langgraph.store.base import BaseStore

from chunker.embeddings.adaptive import DocumentSignal
from chunker.embeddings.settings import EMBED_BATCH_SIZE, SignalSettings
from chunker.embeddings.signal import embed_array, signal_of

DEPTHS_KEY = "depths"


def sentence_texts(text: str, sentences: Sequence[int]) -> list[str]:
    """The stripped text of every sentence, given the sorted sentence end offsets."""
    starts = [0, *sentences[:-1]]
    return [text[a:b].strip() for a, b in zip(starts, sentences)]


def _sha(texts: Sequence[str], *extra: str) -> str:
    h = hashlib.sha256()
    for part in (*extra, *texts):
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\x1f")
    return h.hexdigest()


def _encode(array: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(array, dtype="<f4").tobytes()).decode("ascii")


def _decode(data: str, rows: int) -> np.ndarray:
    flat = np.frombuffer(base64.b64decode(data), dtype="<f4")
    return flat.reshape(rows, -1) if rows else flat.reshape(0, 0)


def _embed(embeddings: Embeddings, texts: Sequence[str]) -> np.ndarray:
    """Rows for every text; blank texts get zero rows without being sent to the provider."""
    filled = [i for i, t in enumerate(texts) if t]
    if not filled:
        return np.zeros((len(texts), 1), dtype=np.float32)
    got = embed_array(embeddings, [texts[i] for i in filled])
    out = np.zeros((len(texts), got.shape[1]), dtype=np.float32)
    out[filled] = got
    return out


def sentence_vectors(store: BaseStore, namespace: tuple[str, ...], texts: Sequence[str],
                     embeddings: Embeddings, *, batch_size: int = EMBED_BATCH_SIZE) -> np.ndarray:
    """All sentence vectors (float32, one row per text), embedding only the batches not stored yet."""
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    parts: list[np.ndarray] = []
    for start in range(0, len(texts), batch_size):
        batch = texts[start:start + batch_size]
        key = _vectors_key(start, start + len(batch))
        sha = _sha(batch)
        item = store.get(namespace, key)
        if item is None or item.value.get("sha") != sha:
            rows = _embed(embeddings, batch)
            store.put(namespace, key, {"sha": sha, "rows": len(batch), "dim": int(rows.shape[1]),
                                       "f32": _encode(rows)}, index=False)
            item = store.get(namespace, key)
        parts.append(_decode(item.value["f32"], item.value["rows"]))
    if not parts:
        return np.zeros((0, 1), dtype=np.float32)
    dims = {p.shape[1] for p in parts}
    if len(dims) > 1:  # cannot happen with one provider; guard against a mixed namespace
        raise ValueError(f"stored batches disagree on the vector size: {sorted(dims)}")
    return np.vstack(parts)


def _vectors_key(start: int, stop: int) -> str:
    return f"vectors-{start:08d}-{stop:08d}"


def drop_vectors(store: BaseStore, namespace: tuple[str, ...], count: int,
                 *, batch_size: int = EMBED_BATCH_SIZE) -> None:
    """Delete the stored vector batches of `count` sentences once their depths are stored:
    they only serve a resume in the middle of embedding, and cost ~2 KB a sentence."""
    for start in range(0, count, batch_size):
        store.delete(namespace, _vectors_key(start, min(count, start + batch_size)))


def document_depths(store: BaseStore, namespace: tuple[str, ...], texts: Sequence[str],
                    embeddings: Embeddings, *, signal: SignalSettings = SignalSettings(),
                    batch_size: int = EMBED_BATCH_SIZE) -> list[float]:
    """The depth score of every gap between consecutive `texts` (len(texts) - 1 values)."""
    return document_signal(store, namespace, texts, embeddings, signal=signal, batch_size=batch_size).depths


def document_signal(store: BaseStore, namespace: tuple[str, ...], texts: Sequence[str],
                    embeddings: Embeddings, *, signal: SignalSettings = SignalSettings(),
                    batch_size: int = EMBED_BATCH_SIZE) -> DocumentSignal:
    """Every gap's depth, with the block and contrast of this document (`signal_of`).

    Stored once computed; a second call with the same sentences and signal is one read.
    """
    window = str(signal.window or "auto")
    spec = f"{signal.method}:{window}"
    # hashed as the code before the derived block did, so its fixed-window records still read
    sha = _sha(texts, signal.method, window)
    item = store.get(namespace, DEPTHS_KEY)
    value = None if item is None else item.value
    if value is None or value.get("sha") != sha:
        if getattr(embeddings, "cacheable", True):
            vectors = sentence_vectors(store, namespace, texts, embeddings, batch_size=batch_size)
        else:
            vectors = _embed(embeddings, texts)
        got = signal_of(vectors, signal)
        depths = np.asarray(got.depths, dtype="<f4")
        value = {"sha": sha, "signal": spec, "f32": _encode(depths.reshape(1, -1)),
                 "window": got.window, "contrast": got.contrast, "half_life": got.half_life}
        store.put(namespace, DEPTHS_KEY, value, index=False)
    # Always decoded from the stored record (float32-rounded), so first and resumed runs agree.
    depths = _decode(value["f32"], 1)[0].astype(float).tolist() if texts[1:] else []
    # a record stored before the block was derived has the fixed window its spec names
    return DocumentSignal(depths, value.get("window", signal.window), value.get("contrast"),
                          value.get("half_life"))

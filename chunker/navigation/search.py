"""Search over node texts: an embeddings provider, or BM25 (`bm25`).

Both indexes answer `scores(query) -> {id: score}` (higher is better), so that the
`search` tool, the navigator's embedding fallback and the flat top-k baselines rank
with exactly the same code. Embeddings come from `chunker.embeddings.get_embeddings`
(any LangChain `Embeddings`); BM25 from the maintained `rank-bm25` package.

Sentence-embedding models read a few hundred word pieces and silently drop the rest
(all-MiniLM-L6-v2: 256), so a text longer than `piece_tokens` is embedded in pieces
and scored by its best piece: the end of a long leaf is as findable as its start.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path
from typing import Protocol

import numpy as np

from chunker.document.tokens import encoding
from chunker.document.words import TERM

log = logging.getLogger(__name__)

BM25 = "bm25"
"""The search method string of the BM25 index (rank-bm25: no embedding model at all)."""
BM25_SPECS = (BM25, "none")
"""What asks for BM25 where an embeddings provider could go: `bm25`, and `none`, its older
spelling (`chunker ask --embeddings none` and saved settings still work)."""


class TextIndex(Protocol):
    method: str

    def scores(self, query: str) -> dict[str, float]:
        """Every indexed id with its relevance to `query` (higher is better)."""


def split_pieces(text: str, piece_tokens: int) -> list[str]:
    """`text` cut into consecutive pieces of at most `piece_tokens` tokens."""
    enc = encoding()
    ids = enc.encode_ordinary(text)
    if len(ids) <= piece_tokens:
        return [text]
    return [enc.decode(ids[i:i + piece_tokens]) for i in range(0, len(ids), piece_tokens)]


def tokenize(text: str) -> list[str]:
    """BM25 terms: case-folded `TERM`s (curly and straight apostrophes both split words)."""
    return TERM.findall(text.casefold())


class Bm25Index:
    """Okapi BM25 over whole texts (BM25 normalises length itself: no pieces needed)."""

    method = BM25

    def __init__(self, texts: dict[str, str]):
        from rank_bm25 import BM25Okapi

        self.ids = list(texts)
        corpus = [tokenize(texts[i]) or ["\u2205"] for i in self.ids]
        self._bm25 = BM25Okapi(corpus) if corpus else None

    def scores(self, query: str) -> dict[str, float]:
        if self._bm25 is None:
            return {}
        values = self._bm25.get_scores(tokenize(query))
        return {i: float(v) for i, v in zip(self.ids, values)}


class EmbeddingIndex:
    """Cosine similarity between the query and each text's best piece."""

    def __init__(self, embeddings, texts: dict[str, str], *, method: str, piece_tokens: int,
                 cache_dir: Path | None = None):
        self.method = method
        self._embeddings = embeddings
        self.ids = list(texts)
        pieces: list[str] = []
        owners: list[int] = []
        for n, node_id in enumerate(self.ids):
            for piece in split_pieces(texts[node_id], piece_tokens):
                pieces.append(piece)
                owners.append(n)
        self._owners = np.asarray(owners, dtype=np.int64)
        self._matrix = _normalise(self._embed(pieces, method, cache_dir))

    def _embed(self, pieces: list[str], method: str, cache_dir: Path | None) -> np.ndarray:
        if not pieces:
            return np.zeros((0, 1), dtype=np.float32)
        digest = hashlib.sha256("\x00".join([method, *pieces]).encode("utf-8", "surrogatepass"))
        cache = cache_dir / f"{digest.hexdigest()[:24]}.npy" if cache_dir else None
        if cache is not None and cache.is_file():
            try:
                cached = np.load(cache)
                if cached.shape[0] == len(pieces):
                    return cached
            except (OSError, ValueError):
                pass
        matrix = np.asarray(self._embeddings.embed_documents(pieces), dtype=np.float32)
        if cache is not None:
            try:  # a read-only run folder just means no cache
                cache.parent.mkdir(parents=True, exist_ok=True)
                np.save(cache, matrix)
            except OSError as exc:
                log.info("embedding cache not written: %s", exc)
        return matrix

    def scores(self, query: str) -> dict[str, float]:
        if not self.ids:
            return {}
        q = _normalise(np.asarray([self._embeddings.embed_query(query)], dtype=np.float32))[0]
        sims = self._matrix @ q
        best = np.full(len(self.ids), -np.inf, dtype=np.float64)
        np.maximum.at(best, self._owners, sims)
        return {i: float(v) for i, v in zip(self.ids, best)}


def _normalise(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


def load_embeddings(spec: str):
    """The LangChain `Embeddings` for a provider string, or None for BM25."""
    if spec in BM25_SPECS:
        return None
    from chunker.embeddings.registry import get_embeddings  # lazy: torch is heavy

    return get_embeddings(spec)


def batch_relative(spec: str) -> bool:
    """Whether an index's scores depend on the other texts indexed with it (BM25's and the
    lexical embeddings' term statistics), so that a file's own index ranks differently
    from the corpus's; a sentence-embedding model's vectors do not."""
    embeddings = load_embeddings(spec)
    return embeddings is None or bool(getattr(embeddings, "batch_relative", False))


def build_index(texts: dict[str, str], spec: str, *, piece_tokens: int,
                cache_dir: Path | None = None) -> TextIndex:
    """An embedding index for `spec`, or BM25 when `spec` asks for it (`BM25_SPECS`)."""
    embeddings = load_embeddings(spec)
    if embeddings is None:
        return Bm25Index(texts)
    return EmbeddingIndex(embeddings, texts, method=spec, piece_tokens=piece_tokens,
                          cache_dir=cache_dir)


def top_k(scores: dict[str, float], k: int) -> list[tuple[str, float]]:
    """The k best (id, score) pairs, best first; ties keep index order."""
    order = sorted(scores.items(), key=lambda item: -item[1])
    return order[:max(0, k)]

"""The `lexical` provider: a term-vector signal that needs no model.

A sentence becomes the counts of its content words: lower-cased, stop words dropped
(sumy's English list), Porter-stemmed (nltk, no data files needed), each stem hashed into
`LEXICAL_DIMENSIONS` buckets so that vectors from separate calls share one space.

When `embed_documents` gets a whole document it also weights each stem by its inverse
document frequency over that document's sentences (`idf = log((1 + n) / (1 + df)) + 1`,
scikit-learn's smoothed form), so words that run through the whole text (a character's
name) do not glue every block to the next. Vectors are comparable by cosine only within
one call: the weights depend on the sentences given together. `bench/boundary_signals.py`
measures plain counts against this weighting on Choi 3-5.
"""

from __future__ import annotations

import functools
import math
import re
import zlib
from collections import Counter
from collections.abc import Sequence

import numpy as np
from langchain_core.embeddings import Embeddings

from chunker.document.words import word_pattern
from chunker.embeddings.settings import LEXICAL_DIMENSIONS
from chunker.grounding.text import SUMY_IMPORTS

_WORD = word_pattern("'\u2019")  # raw text: curly apostrophes join words too
_POSSESSIVE = re.compile(r"'s$")
"""Cinderella's is Cinderella: the stemmer would keep the apostrophe."""
_MIN_LETTERS = 2
"""Shorter tokens (single letters, initials) carry no topic."""


@functools.lru_cache(maxsize=1)
def _stop_words() -> frozenset[str]:
    with SUMY_IMPORTS:  # sumy too is imported by one thread at a time
        from sumy.utils import get_stop_words

    return frozenset(get_stop_words("english"))


def _stemmer():
    with SUMY_IMPORTS:  # nltk is imported by one thread at a time (a run warms it up on another)
        return _built_stemmer()


@functools.lru_cache(maxsize=1)
def _built_stemmer():
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer()


@functools.lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return _stemmer().stem(word)


def terms(text: str) -> list[str]:
    """The content stems of a text, in order."""
    stop = _stop_words()
    words = (_POSSESSIVE.sub("", w.lower().replace("\u2019", "'")) for w in _WORD.findall(text))
    return [_stem(w) for w in words if len(w) >= _MIN_LETTERS and w not in stop]


def _bucket(term: str, dimensions: int) -> int:
    return zlib.crc32(term.encode("utf-8")) % dimensions


class LexicalEmbeddings(Embeddings):
    """Hashed, optionally IDF-weighted content-stem counts (see the module docstring).

    `cacheable` is False: recomputing costs microseconds a sentence, storing a vector costs
    `4 * dimensions` bytes, so the resumable cache computes these in one call instead.
    """

    cacheable = False
    batch_relative = True
    """With IDF, a text's vector depends on the texts embedded with it: an index over one
    file of a corpus must be built over that file alone to rank as the file alone would."""

    def __init__(self, dimensions: int = LEXICAL_DIMENSIONS, idf: bool = True) -> None:
        self.dimensions = dimensions
        self.idf = idf

    def embed_array(self, texts: Sequence[str]) -> np.ndarray:
        """The vectors as one float32 array (rows = texts): the fast path of the boundary signal."""
        counts = [Counter(_bucket(t, self.dimensions) for t in terms(text)) for text in texts]
        weights = np.ones(self.dimensions, dtype=np.float32)
        if self.idf and counts:
            df = Counter(b for c in counts for b in c)
            n = len(counts)
            for b, d in df.items():
                weights[b] = math.log((1 + n) / (1 + d)) + 1.0
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, c in enumerate(counts):
            if c:
                cols = np.fromiter(c.keys(), dtype=np.int64, count=len(c))
                out[row, cols] = np.fromiter(c.values(), dtype=np.float32, count=len(c))
        return out * weights

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed_array(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_array([text])[0].tolist()

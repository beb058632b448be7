"""Pieces of a leaf: consecutive character spans of about `piece_tokens` tokens that tile it.

A reader on a small budget should not have to take a 1,500-token leaf whole to get the three
sentences it needs, and a sentence-embedding model reads only the first 256 word pieces of
what it is given. So a long leaf is searched, and may be read, piece by piece: it is tiled by
half-pieces (`piece_spans` with half the piece size), and the units searched are overlapping
windows of two consecutive halves (`windows`). A piece ends at
the last sentence or line end in the final quarter of its token window (a cut mid-sentence
reads badly and splits the words a question names), else at the window's edge.
"""

from __future__ import annotations

import re

from chunker.document.tokens import encoding

_END = re.compile(r"(?:[.!?][\"'\u201d\u2019)\]]*\s+|\n\s*)")
"""A sentence end (with closing quotes or brackets) or a line end, and the space after it."""
SNAP_SHARE = 0.25
"""How far back from a window's edge a piece may end to end at a sentence (share of the window)."""


def piece_spans(text: str, piece_tokens: int) -> list[tuple[int, int]]:
    """(start, end) character spans tiling `text`, each of at most about `piece_tokens` tokens."""
    if not text:
        return [(0, 0)]
    enc = encoding()
    ids = enc.encode_ordinary(text)
    if len(ids) <= piece_tokens:
        return [(0, len(text))]
    # the character offset where each token starts (decoding prefixes is exact for cl100k)
    lengths = [len(enc.decode([t])) for t in ids]
    starts, pos = [], 0
    for length in lengths:
        starts.append(pos)
        pos += length
    if pos != len(text):  # a token that splits a multi-byte character: fall back to ratios
        starts = [round(i * len(text) / len(ids)) for i in range(len(ids))]
    spans, first = [], 0
    token = 0
    while token + piece_tokens < len(ids):
        edge = starts[token + piece_tokens]
        floor = starts[token + int(piece_tokens * (1 - SNAP_SHARE))]
        cut = edge
        for m in _END.finditer(text, floor, edge):
            cut = m.end()
        if cut <= first:
            cut = edge
        spans.append((first, cut))
        first = cut
        while token < len(starts) and starts[token] < cut:
            token += 1
    spans.append((first, len(text)))
    return spans


def windows(halves: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping windows over half-pieces: (first half, last half) index pairs, each window
    two consecutive halves, so that any passage up to a half-piece long lies wholly inside one
    window (a quotation cut in two by a piece's end is found whole in the next window)."""
    if len(halves) <= 2:
        return [(0, len(halves) - 1)]
    return [(i, i + 1) for i in range(len(halves) - 1)]


def aligned_slice(text: str, first: int, last: int, count: int) -> str:
    """Slices `first` to `last` (inclusive) of `count` equal slices of `text`, widened to
    whole words: the part of a rewrite that corresponds to those halves of the original."""
    if count <= 1 or (first == 0 and last >= count - 1):
        return text
    size = len(text)
    a, b = round(first * size / count), round((last + 1) * size / count)
    while a > 0 and not text[a - 1].isspace():
        a -= 1
    while b < size and not text[b].isspace():
        b += 1
    return text[a:b].strip()

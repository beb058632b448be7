"""Flat baselines of `chunker eval navigation`: rank units of the same text, read the best.

Units (`UNITS`), each a stretch of one file with its characters:

- `leaves`: the tree's leaves, indexed by their original text;
- `fixed200`, `fixed400`: consecutive chunks of 200 or 400 tokens (cl100k_base) of each file,
  cut wherever the count says, never across files;
- `contextual`: the tree's leaves indexed with their context (document title, heading path,
  ancestors' summaries, own summary, rewrite: `contextual_leaf_text` with the navigator's
  `context_fields`), the flat form of contextual retrieval. What is *read* is still the leaf's
  original text: the context only helps to find it. (For the embeddings the whole contextual
  text is cut into pieces of `piece_tokens` like any long text, so the context lines sit in the
  first piece only; BM25 reads all of it.)

Rankers (`RANKERS`): `bm25` (rank-bm25; a unit sharing no word with the question is not ranked),
`embeddings` (the provider given: cosine similarity of the best piece of `piece_tokens`), and
`fusion` (reciprocal-rank fusion of the two, sum of 1 / (rrf_k + rank) with the navigator's
`rrf_k`, BM25's zero scores unranked, as `chunker.navigation.scoring` fuses).

Reading within a budget (`read_within`): units in rank order, each whole while it fits; the
first that does not fit whole is cut to what is left (its first tokens), then reading stops.
Tokens read are the tokens of the text read (no header, no file name).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from chunker.document.tokens import count_tokens, encoding
from chunker.evaluation.navigation_questions import Read
from chunker.navigation.context_index import contextual_leaf_text
from chunker.navigation.search import BM25_SPECS, Bm25Index, EmbeddingIndex, load_embeddings
from chunker.navigation.settings import NavigatorSettings
from chunker.navigation.tree import Tree

UNITS = ("leaves", "fixed200", "fixed400", "contextual")
RANKERS = ("bm25", "embeddings", "fusion")
FIXED_SIZES = {"fixed200": 200, "fixed400": 400}


@dataclass(frozen=True)
class FlatUnit:
    id: str
    source: str
    span: tuple[int, int]
    text: str
    """What is read: the source's characters `span`."""
    tokens: int


def fixed_chunks(text: str, size: int) -> list[tuple[int, int]]:
    """Character spans of consecutive `size`-token pieces of `text` (cl100k_base)."""
    enc = encoding()
    ids = enc.encode_ordinary(text)
    if not ids:
        return []
    decoded, starts = enc.decode_with_offsets(ids)
    if decoded != text:  # not expected for valid Unicode: cut by proportional characters
        starts = [round(i * len(text) / len(ids)) for i in range(len(ids))]
    cuts = [starts[i] for i in range(0, len(ids), size)] + [len(text)]
    return [(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]


def build_units(tree: Tree, files: dict[str, str], kind: str,
                settings: NavigatorSettings) -> tuple[list[FlatUnit], dict[str, str]]:
    """The units of one kind, and what each is indexed by (same order)."""
    units: list[FlatUnit] = []
    indexed: dict[str, str] = {}
    if kind in FIXED_SIZES:
        for source, text in files.items():
            for n, (a, b) in enumerate(fixed_chunks(text, FIXED_SIZES[kind])):
                unit = FlatUnit(f"{source}#{kind}-{n:05d}", source, (a, b), text[a:b],
                                count_tokens(text[a:b]))
                units.append(unit)
                indexed[unit.id] = unit.text
        return units, indexed
    default = next(iter(files)) if files else ""
    for leaf in tree.hierarchy.leaves():
        original = leaf.original or ""
        span = leaf.span or (0, len(original))
        unit = FlatUnit(leaf.id, leaf.source or default, (span[0], span[1]), original,
                        count_tokens(original))
        units.append(unit)
        indexed[unit.id] = (original if kind == "leaves" else
                            contextual_leaf_text(tree, leaf.id, settings.context_fields,
                                                 settings.context_tokens))
    return units, indexed


def _rank(scores: dict[str, float], drop_zero: bool) -> list[str]:
    kept = {i: v for i, v in scores.items() if v > 0} if drop_zero else scores
    return sorted(kept, key=lambda i: -kept[i])  # stable: ties keep reading order


class FlatSearch:
    """One unit kind indexed for BM25 and (unless the provider is BM25) for embeddings."""

    def __init__(self, units: list[FlatUnit], indexed: dict[str, str], embeddings,
                 settings: NavigatorSettings, cache_dir: Path | None):
        self.units = {u.id: u for u in units}
        self.rrf_k = settings.rrf_k
        self.bm25 = Bm25Index(indexed)
        self.embedded = (None if embeddings is None else
                         EmbeddingIndex(embeddings, indexed, method=settings.embeddings,
                                        piece_tokens=settings.piece_tokens, cache_dir=cache_dir))

    def ranked(self, ranker: str, question: str, prefix: str | None = None) -> list[FlatUnit]:
        """The units best first (only files under `prefix`, when given)."""
        if ranker == "bm25":
            order = _rank(self.bm25.scores(question), drop_zero=True)
        elif ranker == "embeddings":
            order = _rank(self.embedded.scores(question), drop_zero=False)
        else:
            fused = {i: 0.0 for i in self.units}
            for order in (_rank(self.bm25.scores(question), True),
                          _rank(self.embedded.scores(question), False)):
                for rank, uid in enumerate(order, 1):
                    fused[uid] += 1.0 / (self.rrf_k + rank)
            order = _rank(fused, drop_zero=True)
        units = [self.units[i] for i in order]
        return [u for u in units if prefix is None or u.source.startswith(prefix)]


def read_within(ranked: list[FlatUnit], budget: int) -> tuple[list[Read], int]:
    """What a flat method reads within `budget` tokens (the module's rule) and its tokens."""
    out: list[Read] = []
    left = budget
    for unit in ranked:
        if left <= 0:
            break
        if unit.tokens <= left:
            out.append(Read(unit.id, "chunk", unit.source, unit.span, unit.text, unit.tokens))
            left -= unit.tokens
            continue
        text = _first_tokens(unit.text, left)
        if text:
            a = unit.span[0]
            out.append(Read(unit.id, "chunk", unit.source, (a, a + len(text)), text, count_tokens(text)))
        break
    return out, sum(r.tokens for r in out)


def _first_tokens(text: str, tokens: int) -> str:
    """The longest start of `text` that is at most `tokens` tokens and a prefix of it (a cut
    inside a multi-byte character is moved back)."""
    enc = encoding()
    ids = enc.encode_ordinary(text)
    n = min(tokens, len(ids))
    while n > 0:
        start = enc.decode(ids[:n])
        if text.startswith(start) and count_tokens(start) <= tokens:
            return start
        n -= 1
    return ""


@dataclass
class FlatMethod:
    """One ranker over one unit kind: `name` is `RANKER-UNITS` (e.g. `bm25-fixed200`)."""

    name: str
    search: FlatSearch
    ranker: str

    def ranked(self, question: str, prefix: str | None) -> tuple[list[FlatUnit], float]:
        started = time.perf_counter()
        ranked = self.search.ranked(self.ranker, question, prefix)
        return ranked, time.perf_counter() - started


def flat_methods(tree: Tree, files: dict[str, str], settings: NavigatorSettings,
                 wanted=lambda name: True) -> list[FlatMethod]:
    """Every flat baseline `wanted` lets through; without an embeddings provider (BM25 as the
    provider) only the `bm25-*` ones, the others would repeat them."""
    embeddings = None if settings.embeddings in BM25_SPECS else load_embeddings(settings.embeddings)
    rankers = RANKERS if embeddings is not None else ("bm25",)
    cache = tree.path / ".chunker" / "navigation" if settings.cache_embeddings and tree.path else None
    out = []
    for kind in UNITS:
        names = [(r, f"{r}-{kind}") for r in rankers if wanted(f"{r}-{kind}")]
        if not names:
            continue
        units, indexed = build_units(tree, files, kind, settings)
        embed = any(r != "bm25" for r, _ in names)  # BM25 alone: no embedding of this kind
        search = FlatSearch(units, indexed, embeddings if embed else None, settings, cache)
        out += [FlatMethod(name, search, ranker) for ranker, name in names]
    return out

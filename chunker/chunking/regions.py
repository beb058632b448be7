"""Regions: the stretches of a document that are read independently, at once.

A cursor reads its text in order, and every call waits on the one before. Most of that order
is not needed: a chapter does not need the chapter before it to be cut first (the section
tree never groups across sections), only context, which the outline gives every call
(`chunker/background/outline.py`). So a document is divided into regions, each read by a
cursor of its own (`graph/regions.py`), and decided from the document alone, never from
timing, so the tree is the same at every concurrency:

- **sections**, where the tree follows the document's headings (`peel`): its top-level
  sections, a section larger than `region_max_tokens` split at its subsections (its own text
  before the first of them is a piece of its own), and then consecutive pieces merged while
  smaller than `region_min_tokens`. A region never starts where a folded heading runs into
  its first subsection (`Outline.joins`): every region starts where a leaf may start.
- **dips**, for text without headings that has the embedding signal: cuts at the signal's
  deepest sentence gaps, deepest first, each kept while both stretches it makes hold at least
  `region_min_tokens` (where a cut is allowed: never inside a table or code block).
- **one region** otherwise (no signal, the `flat` strategy, a short document): the document is
  read as it always was.

The plan is pure: `plan_from_sections` and `plan_from_dips` take plain inputs (offsets,
depths, a token counter), so tests give them deterministic ones.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from chunker.chunking.candidates import run_depths
from chunker.chunking.outline import Outline
from chunker.chunking.peel import run_outline, run_structure
from chunker.config.settings import ChunkerSettings
from chunker.document.markdown_query import safe_cut
from chunker.document.structure import DocumentStructure
from chunker.document.tokens import count_tokens
from chunker.state.records import RegionPlan
from chunker.state.store import RunStore

Tokens = Callable[[int, int], int]
"""Tokens of the text between two offsets."""


@dataclass(frozen=True)
class Piece:
    """A stretch that a region boundary may surround: [start, end), with its headings."""

    start: int
    end: int
    titles: tuple[str, ...] = ()


@dataclass(frozen=True)
class Planned:
    """A region as planned: where it lies, and the headings of the sections it holds (its
    top-level ones, in order; none without headings)."""

    start: int
    end: int
    titles: tuple[str, ...] = field(default=())


def _children(structure: DocumentStructure) -> dict[int | None, list[int]]:
    out: dict[int | None, list[int]] = {}
    for s in structure.sections:
        out.setdefault(s.parent, []).append(s.index)
    return out


def _pieces(structure: DocumentStructure, tokens: Tokens, max_tokens: int) -> list[Piece]:
    """The top-level sections (and the preamble), each larger than `max_tokens` replaced by
    its own text and its subsections', recursively, in document order."""
    sections = structure.sections
    children = _children(structure)

    def piece(index: int) -> list[Piece]:
        s = sections[index]
        title = (s.heading.title,) if s.heading is not None else ()
        kids = children.get(index, [])
        if not kids or tokens(s.start, s.subtree_end) <= max_tokens:
            return [Piece(s.start, s.subtree_end, title)]
        out = [Piece(s.start, sections[kids[0]].start, title)]  # its heading and own text
        for kid in kids:
            out.extend(piece(kid))
        return out

    return [p for top in children.get(None, []) for p in piece(top)]


def _merged(pieces: list[Piece], keep_apart: Callable[[Piece, Piece], bool]) -> list[Piece]:
    """Consecutive pieces joined wherever `keep_apart(previous, next)` says no."""
    out: list[Piece] = []
    for p in pieces:
        if out and not keep_apart(out[-1], p):
            last = out.pop()
            p = Piece(last.start, p.end, last.titles + p.titles)
        out.append(p)
    return out


def plan_from_sections(structure: DocumentStructure, outline: Outline, tokens: Tokens,
                       min_tokens: int, max_tokens: int) -> list[Planned]:
    """Regions of a document whose tree follows its headings (see the module's docstring)."""
    pieces = [p for p in _pieces(structure, tokens, max_tokens) if p.end > p.start]
    pieces = _merged(pieces, lambda a, b: b.start not in outline.joins)  # a fold is one leaf
    # merged while small: each region takes the pieces after it until it holds min_tokens
    pieces = _merged(pieces, lambda a, b: tokens(a.start, a.end) >= min_tokens)
    if len(pieces) > 1 and tokens(pieces[-1].start, pieces[-1].end) < min_tokens:
        last, before = pieces.pop(), pieces.pop()  # the small rest joins the region before it
        pieces.append(Piece(before.start, last.end, before.titles + last.titles))
    return [Planned(p.start, p.end, p.titles) for p in pieces]


def plan_from_dips(length: int, gaps: Sequence[int], depths: Sequence[float], tokens: Tokens,
                   min_tokens: int, allowed: Callable[[int], bool] | None = None) -> list[Planned]:
    """Regions of a text without headings: cuts at the gaps (`gaps[i]`, an offset, of depth
    `depths[i]`), deepest first (the earlier of two equal ones first), each kept while both
    stretches it makes hold `min_tokens` tokens; `allowed` may refuse an offset."""
    cuts: list[int] = []
    order = sorted(range(min(len(gaps), len(depths))), key=lambda i: (-depths[i], gaps[i]))
    for i in order:
        at, depth = gaps[i], depths[i]
        if not (0 < at < length) or depth != depth or depth == float("-inf"):  # NaN, masked
            continue
        if allowed is not None and not allowed(at):
            continue
        k = bisect.bisect_left(cuts, at)
        if k < len(cuts) and cuts[k] == at:
            continue
        left = cuts[k - 1] if k else 0
        right = cuts[k] if k < len(cuts) else length
        if tokens(left, at) >= min_tokens and tokens(at, right) >= min_tokens:
            cuts.insert(k, at)
    bounds = [0, *cuts, length]
    return [Planned(a, b) for a, b in zip(bounds, bounds[1:])]


class SentenceTokens:
    """Tokens between sentence ends, from one count per sentence (a book is counted once, not
    once per stretch): exact between sentence ends, where the dips lie."""

    def __init__(self, text: str, ends: Sequence[int], count: Callable[[str], int]) -> None:
        self.ends = list(ends)
        self.through = [0]  # through[j]: the tokens of the first j sentences
        start = 0
        for end in self.ends:
            self.through.append(self.through[-1] + count(text[start:end]))
            start = end

    def __call__(self, a: int, b: int) -> int:
        """Tokens of the sentences that end in (a, b]."""
        return self.through[bisect.bisect_right(self.ends, b)] - self.through[bisect.bisect_right(self.ends, a)]


def plan_document(rs: RunStore, cfg: ChunkerSettings, doc_id: str, *, uses_structure: bool,
                  sweeps: bool, has_signal: bool) -> tuple[str, list[Planned]]:
    """What divides the run's document (`sections`, `dips` or `one`: a single region) and
    its regions, by the rules of the module's docstring. `uses_structure`, `sweeps`: the
    run's tree strategy's; `has_signal`: whether the signal's depths are there to cut at."""
    settings = cfg.regions
    whole = [Planned(0, len(rs.units(doc_id).text))]
    if settings.reading == "one_cursor" or not sweeps:  # flat: one block over all leaves
        return "one", whole
    text = rs.units(doc_id).text
    structure = run_structure(rs, doc_id) if uses_structure else None
    if structure is not None and structure.headings:
        planned = plan_from_sections(structure, run_outline(rs, doc_id), lambda a, b: count_tokens(text[a:b]),
                                     settings.min_tokens, settings.max_tokens)
        return ("sections" if len(planned) > 1 else "one"), planned
    if not has_signal:
        return "one", whole
    units = rs.units(doc_id)
    depths = run_depths(rs, cfg, doc_id)
    allowed = (lambda at: safe_cut(at, structure)) if structure is not None else None
    tokens = SentenceTokens(text, units.sentences, count_tokens)
    planned = plan_from_dips(len(text), units.sentences, depths, tokens, settings.min_tokens, allowed)
    return ("dips" if len(planned) > 1 else "one"), planned


def run_plan(rs: RunStore) -> RegionPlan | None:
    """The run's regions (read once per run), or None for a run read in one cursor."""
    return rs.memo.get(("region-plan",), lambda: RegionPlan.load(rs))


def region_span(rs: RunStore) -> tuple[int, int]:
    """The span of the region `rs` reads."""
    plan = run_plan(rs)
    if plan is None or rs.region is None:
        raise LookupError(f"run {rs.run_key} reads no region")
    return tuple(plan.regions[rs.region].span)

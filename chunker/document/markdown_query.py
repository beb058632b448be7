"""Questions the chunking loop asks of a parsed structure: where may it cut, what does a
leaf hold, which section is this, and how does a too-large table split between rows.

All lookups bisect the structure's sorted lists, so each costs O(log n) (kind_of also
walks the blocks its span overlaps).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import TypeVar

from .markdown_parse import line_starts_within
from .markdown_records import DocumentStructure, LeafKind, Section, Span

S = TypeVar("S", bound=Span)

# A GFM table's first two lines are its header row and its delimiter row (`|---|---|`);
# each further line is one body row (a cell never spans lines).
_HEADER_LINES = 2


def atomic_spans(structure: DocumentStructure) -> list[tuple[int, int, str]]:
    """(start, end, kind) of every atomic unit, in text order."""
    return [(u.start, u.end, u.kind) for u in structure.atomic_units]


def covering(spans: Sequence[S], offset: int) -> S | None:
    """The span with start <= offset < end in a sorted, non-overlapping list, or None."""
    i = bisect.bisect_right(spans, offset, key=lambda s: s.start) - 1
    if i >= 0 and offset < spans[i].end:
        return spans[i]
    return None


def _strictly_inside(spans: Sequence[Span], offset: int) -> bool:
    span = covering(spans, offset)
    return span is not None and span.start < offset


def safe_cut(offset: int, structure: DocumentStructure) -> bool:
    """May a chunk boundary fall at `offset`? False strictly inside an atomic unit, a
    heading (a Setext heading spans two lines) or the front matter; True at their edges."""
    if _strictly_inside(structure.atomic_units, offset):
        return False
    if _strictly_inside(structure.headings, offset):
        return False
    fm = structure.front_matter
    return not (fm is not None and fm.start < offset < fm.end)


def _overlapping(spans: Sequence[S], start: int, end: int):
    """The spans of a sorted, non-overlapping list that overlap [start, end)."""
    i = bisect.bisect_right(spans, start, key=lambda s: s.end)
    while i < len(spans) and spans[i].start < end:
        yield spans[i]
        i += 1


def kind_of(text_span: tuple[int, int], structure: DocumentStructure) -> LeafKind:
    """What the span [start, end) holds: the one kind of all content blocks it overlaps
    (prose, table, code, math or figure), or "mixed" when they differ.

    Document-level headings, thematic breaks, front matter and blank lines are neutral
    (a leaf that starts with its section's heading and holds one table is a "table"
    leaf); a span with no content block at all is "prose".
    """
    start, end = text_span
    kinds: set[str] = set()
    for unit in _overlapping(structure.atomic_units, start, end):
        kinds.add(unit.kind)
        if len(kinds) > 1:
            return "mixed"
    if next(_overlapping(structure.prose_blocks, start, end), None) is not None:
        return "mixed" if kinds else "prose"
    return kinds.pop() if kinds else "prose"  # type: ignore[return-value]


def section_of(offset: int, structure: DocumentStructure) -> Section:
    """The section holding `offset` (the end of the text belongs to the last section)."""
    if not structure.sections or not 0 <= offset <= structure.length:
        raise ValueError(f"offset {offset} is outside the text [0, {structure.length}]")
    if offset == structure.length:
        return structure.sections[-1]
    section = covering(structure.sections, offset)
    assert section is not None, "sections tile the text"
    return section


def _table_lines(table_span: tuple[int, int], text: str) -> list[int]:
    start, end = table_span
    starts = line_starts_within(text, start, end)
    if len(starts) < _HEADER_LINES:
        raise ValueError(f"span {table_span} is not a table: a table has a header and a delimiter row")
    return starts


def table_row_cuts(table_span: tuple[int, int], text: str) -> list[int]:
    """Offsets between body rows of a table, in order: where a too-large table may split.

    The first part keeps the header, the delimiter and at least one body row; every cut
    falls at a row's line start, so the parts concatenate to the table exactly.
    """
    return _table_lines(table_span, text)[_HEADER_LINES + 1:]


def table_header(table_span: tuple[int, int], text: str) -> str:
    """The header and delimiter rows (with their line endings), to repeat in the rewritten
    text of each later part of a split table (the original text stays exact)."""
    starts = _table_lines(table_span, text)
    header_end = starts[_HEADER_LINES] if len(starts) > _HEADER_LINES else table_span[1]
    return text[table_span[0]:header_end]

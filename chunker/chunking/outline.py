"""The outline: a document's headed sections as the tree builds them, empty headings folded.

Every heading's section (with its subsections) becomes one node of the tree, titled by its
heading (`chunker/chunking/sections.py` groups by these spans). A heading with no text of its
own would make a leaf of a few tokens beside its subsections (`# Emma` and its byline before
`## VOLUME I. CHAPTER I`): such a heading *folds* into its first subsection instead. Its
text does not end a leaf (`leaf_limit`): the first leaf runs from the folded heading through
the subsection's own text, so the leaves still concatenate to the source exactly, and the
subsection's node starts where the folded heading does (`node_spans`). A preamble (the text
before the first heading) that is as short folds into the first section the same way.

"No text of its own" means fewer than `FOLD_MAX_TOKENS` tokens between the heading line and
the first subsection: room for a title line, a byline or a date, never for a paragraph.
"""

from __future__ import annotations

from dataclasses import dataclass

from chunker.document.structure import DocumentStructure, Section, section_of
from chunker.document.tokens import count_tokens

FOLD_MAX_TOKENS = 16
"""A section whose own text (after its heading, before its first subsection) holds fewer
tokens than this folds into that subsection. 16 cl100k tokens hold a title line or a byline
("by Jane Austen", "Draft, 3 March 2024") but not a sentence that says something; a section
with a real introduction keeps it as its own first leaf."""


@dataclass(frozen=True)
class Outline:
    """The folds and the node spans of one document's structure."""

    folded: frozenset[int]
    """Indices of the sections that fold into the section after them."""
    joins: frozenset[int]
    """Where those next sections start: no leaf may end there (the folded heading would be
    a leaf of its own again)."""
    spans: tuple[tuple[int, int], ...]
    """(start, end) of every section's node, folds applied (a folded heading's start passes
    to its first subsection), in document order; the document's own span (0, length) first."""
    titles: dict[tuple[int, int], str]
    """Node span -> the heading's title; where a folded heading and its only subsection
    share one span, the outer heading's title."""


def _folds(section: Section, following: Section | None, text: str) -> bool:
    """Whether `section` folds into `following` (the section right after it)."""
    if following is None:
        return False
    if section.heading is not None and following.parent != section.index:
        return False  # no subsection follows: its text, however short, is its own leaf
    own = text[section.body_start:section.end].strip()
    return count_tokens(own) < FOLD_MAX_TOKENS if own else True


def outline_of(structure: DocumentStructure, text: str) -> Outline:
    """The outline of a parsed document (its `text` decides which headings are empty)."""
    sections = structure.sections
    folded = frozenset(i for i, s in enumerate(sections)
                       if _folds(s, sections[i + 1] if i + 1 < len(sections) else None, text))
    starts: list[int] = []
    for i, s in enumerate(sections):
        starts.append(starts[i - 1] if i and (i - 1) in folded else s.start)
    spans: list[tuple[int, int]] = [(0, structure.length)]
    titles: dict[tuple[int, int], str] = {}
    for i, s in enumerate(sections):
        if s.heading is None:
            continue  # the preamble is the document's own text, not a node of its own
        span = (starts[i], s.subtree_end)
        if span not in titles:
            titles[span] = s.heading.title
        if span not in spans:
            spans.append(span)
    joins = frozenset(sections[i + 1].start for i in folded)
    return Outline(folded=folded, joins=joins, spans=tuple(spans), titles=titles)


def leaf_limit(structure: DocumentStructure, outline: Outline, cursor: int) -> int:
    """Where a leaf starting at `cursor` must end at the latest: the end of the cursor's
    section, or of the first section after it that does not fold."""
    section = section_of(cursor, structure)
    index = section.index
    while index in outline.folded:
        index += 1
    return structure.sections[index].end


def leaf_section(structure: DocumentStructure, outline: Outline, start: int) -> Section:
    """The section a leaf starting at `start` belongs to: past the folded headings it opens
    with, the first that has text of its own (its heading path is the leaf's)."""
    index = section_of(start, structure).index
    while index in outline.folded:
        index += 1
    return structure.sections[index]

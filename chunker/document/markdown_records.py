"""Typed records of a Markdown document's structure, with exact character offsets.

Every offset indexes the original text (line endings as stored: LF, CRLF or CR), so
`text[start:end]` is the exact source of the record and spans built from them keep the
lossless invariant. Block spans cover whole lines: they start at the first line's start
and end after the last line's line ending (or at the end of the text), because chunk
cuts fall between lines, never inside a line ending.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

AtomicKind = Literal["table", "code", "math", "figure"]
"""What an atomic unit holds; an atomic unit is never split by a chunk cut."""

LeafKind = Literal["prose", "table", "code", "math", "figure", "mixed"]
"""What a leaf's span holds (see `markdown_query.kind_of`)."""


class Span(BaseModel):
    """A half-open character range [start, end) of the original text."""

    model_config = ConfigDict(frozen=True)

    start: int
    end: int

    @property
    def span(self) -> tuple[int, int]:
        return (self.start, self.end)


class Heading(Span):
    """A document-level heading (not one quoted in a blockquote or nested in a list).

    The span covers the heading line, or for a Setext heading its text lines and the
    `===`/`---` underline, each with its line ending.
    """

    level: int
    """1 to 6 (Setext: `===` is 1, `---` is 2)."""
    title: str
    """The heading text without markup (emphasis, code ticks, links, escapes), whitespace collapsed."""
    style: Literal["atx", "setext"]


class AtomicUnit(Span):
    """A block that stays whole: fenced or indented code, a pipe table, display math,
    or a figure (a paragraph made only of images, possibly linked)."""

    kind: AtomicKind


class FrontMatter(Span):
    """The YAML block at the very start, `---` fences included."""

    metadata: dict[str, Any]
    """The YAML mapping as plain JSON values (dates as ISO strings, keys as strings)."""


class Section(Span):
    """A heading's section, from its heading start to the next heading of any level;
    or the preamble (no heading) before the first heading. Sections tile the text."""

    index: int
    heading: Heading | None
    """None for the preamble."""
    level: int
    """The heading's level; 0 for the preamble."""
    body_start: int
    """Where the text after the heading begins (== start for the preamble; == end for an
    empty section, one that is only its heading)."""
    header_path: list[str]
    """Titles of the enclosing headings from the outermost down, this section's own last
    (e.g. ["Emma", "VOLUME I. CHAPTER III"]); [] for the preamble."""
    parent: int | None
    """Index of the enclosing section (the nearest earlier heading of a lower level)."""
    subtree_end: int
    """End of this section together with its subsections: the start of the next heading of
    the same or a higher level (a lower number), or the end of the text."""


class DocumentStructure(BaseModel):
    """The parse of one document: what the chunking graph peels and keeps whole."""

    model_config = ConfigDict(frozen=True)

    length: int
    """len(text) of the parsed text."""
    front_matter: FrontMatter | None
    headings: list[Heading]
    """Document-level headings in text order."""
    sections: list[Section]
    """In text order; they tile [0, length) with no gap and no overlap."""
    atomic_units: list[AtomicUnit]
    """In text order, non-overlapping, at any nesting depth (a table in a list item counts)."""
    prose_blocks: list[Span]
    """The other content blocks (paragraphs, HTML blocks, quoted or nested headings), in
    text order: with `atomic_units` they let `kind_of` tell prose from mixed content."""

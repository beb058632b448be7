"""What PDF extraction hands to the rest of chunker: the Markdown text and where each page,
table and heading lies in it, plus the settings that steer extraction.

Every span is `[start, end)` in characters of `PdfText.markdown`, the text that becomes
`OUT/source.md`; the leaves concatenate to it, so these spans are what maps a leaf back to
its pages.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal


PDF_HEADER = re.compile(rb"%PDF-\d\.\d")
"""The header line: `%PDF-` and a version (a text that merely mentions "%PDF-" is no PDF)."""
MAGIC_WINDOW = 1024
"""The PDF standard lets the header start anywhere in the first 1024 bytes."""
DEFAULT_DPI = 150
DEFAULT_MAX_IMAGES = 4


def is_pdf(path: str | Path) -> bool:
    """True when the file's first kilobyte holds the `%PDF-1.x` header, whatever its name."""
    try:
        with open(path, "rb") as f:
            return PDF_HEADER.search(f.read(MAGIC_WINDOW)) is not None
    except OSError:
        return False


@dataclass(frozen=True, slots=True)
class PdfSettings:
    """Thresholds of PDF extraction and rendering; each one is a documented choice."""

    heading_size_ratio: float = 1.15
    """A paragraph set wholly in one style at least this many times the body text's glyph size is a
    heading (1.15: 12 pt body, 14 pt and up headings; footnotes and table text are smaller)."""
    heading_bold_min_ratio: float = 0.9
    """A paragraph set wholly in bold, at least this fraction of the body size, is a heading of the
    lowest level (reports often mark sections with bold body-size lines, not with larger type)."""
    heading_max_chars: int = 200
    """A longer run of large or bold text is emphasis or display text, not a heading."""
    size_cluster_tolerance: float = 0.06
    """Heading glyph sizes within 6 % of each other are one level (rounding and font metrics differ)."""
    paragraph_gap_ratio: float = 1.4
    """Between two text boxes (PyMuPDF's "blocks"), a baseline gap over this many times the
    page's usual line pitch starts a new paragraph; smaller gaps continue one (PDFs often make
    every line a box of its own)."""
    heading_gap_ratio: float = 1.5
    """Consecutive lines of one heading level with a baseline gap up to this many line pitches
    are one heading (a two-line chapter title: 1.45 pitches in the lecture notes), more are two
    headings (1.6 pitches between two bold headings in the earnings release)."""
    same_line_tolerance: float = 2.0
    """Lines of one text box whose baselines differ by less than this (points) are one visual line."""
    min_glyph_height: float = 1.0
    """Median span height (points) below which a PDF's font sizes are degenerate (Type3 fonts
    scaled by their matrix, as dvips writes them); glyph size is then the mean advance width of a
    character, which orders heading sizes the same way."""
    find_tables: bool = True
    """Run PyMuPDF's table finder (its layout model, when pymupdf-layout is installed, finds tables
    drawn without ruling lines); tables come out as Markdown pipe tables."""
    dpi: int = DEFAULT_DPI
    """Resolution of rendered page images (the issue's `pdf_dpi`)."""
    max_images: int = DEFAULT_MAX_IMAGES
    """The most page images one vision call receives; the first pages of a span are kept."""


@dataclass(frozen=True, slots=True)
class PageSpan:
    """One page's text in the Markdown. Consecutive pages tile the text: each starts where the
    previous one ends. A page with no text has `start == end`."""

    number: int
    """1-based page number."""
    start: int
    end: int
    scanned: bool
    """No extractable text but images: a scan (or a picture-only page) that only a vision model
    can read. Its range is empty."""


@dataclass(frozen=True, slots=True)
class TableSpan:
    """A table as one Markdown pipe table, whole inside its page's range."""

    page: int
    start: int
    end: int
    rows: int
    cols: int


@dataclass(frozen=True, slots=True)
class HeadingSpan:
    """A `#` line the extraction wrote: its level (1 = `#`) and title."""

    page: int
    start: int
    end: int
    level: int
    title: str


HeadingSource = Literal["outline", "font", "none"]


@dataclass(frozen=True, slots=True)
class PdfText:
    """A PDF as Markdown, with its page map, tables and headings."""

    markdown: str
    pages: tuple[PageSpan, ...]
    tables: tuple[TableSpan, ...]
    headings: tuple[HeadingSpan, ...]
    heading_source: HeadingSource
    """`outline` when the PDF's bookmarks gave the headings, `font` when glyph sizes and bold did,
    `none` when neither found any."""
    repaired: bool
    """MuPDF had to repair the file's structure on opening (for example a lost cross-reference
    table); the text was read, but a caller may want to warn."""

    @property
    def scanned_pages(self) -> tuple[int, ...]:
        return tuple(p.number for p in self.pages if p.scanned)


def pages_of(span: tuple[int, int], page_map: Sequence[PageSpan]) -> tuple[int, int]:
    """The first and last 1-based page that the character span `[start, end)` touches.

    An empty span names the page at its offset: an empty (scanned) page there if there is one,
    since a flagged leaf for a scanned page has an empty span at exactly that page's offset.
    """
    start, end = span
    if not page_map:
        raise ValueError("empty page map")
    if start < 0 or end < start or end > page_map[-1].end:
        raise ValueError(f"span {span} lies outside the text [0, {page_map[-1].end})")
    if start == end:
        for page in page_map:
            if page.start == start and page.end == start and page.scanned:
                return page.number, page.number
        return _page_at(start, page_map), _page_at(start, page_map)
    return _page_at(start, page_map), _page_at(end - 1, page_map)


def _page_at(offset: int, page_map: Sequence[PageSpan]) -> int:
    """The page whose non-empty range holds `offset` (the last page for the text's end)."""
    ends = [p.end for p in page_map]
    i = bisect.bisect_right(ends, offset)
    if i >= len(page_map):
        return page_map[-1].number
    return page_map[i].number

"""One PDF page as Markdown elements: paragraphs, `#` headings and pipe tables, in reading order.

Reading order is the order of the page's content stream (the order the producer wrote the text,
which for typeset documents and most reports is column by column); tables take the place of
the first line they cover. Lines become paragraphs by text box (PyMuPDF's "blocks") and
vertical gap; a paragraph wholly in a heading style (see `pdf_fonts`) or matching an outline
entry becomes a heading.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass
from typing import Literal

import pymupdf

from chunker.document.pdf_fonts import FontProfile, StyleKey, style_of
from chunker.document.pdf_model import PdfSettings
from chunker.document.pdf_tables import TablePart, table_parts

# Fonts without a Unicode map (TeX's Type3 fonts from dvips) keep TeX's OT1 codes, where
# 0x0B-0x0F are the ligatures ff, fi, fl, ffi, ffl; other control codes carry no text.
_LIGATURES = str.maketrans({"\x0b": "ff", "\x0c": "fi", "\x0d": "fl", "\x0e": "ffi", "\x0f": "ffl"})
_CONTROL = re.compile(r"[\x00-\x08\x10-\x1f\x7f]")
# Lines that Markdown would read as structure although they are text: an ATX heading, a code
# fence, a Setext underline. A backslash keeps them text.
_MARKDOWN_LIKE = re.compile(r"^(#|```|~~~|[=-]+\s*$)")
_SPACES = re.compile(r"\s+")
# A heading names something: it holds a letter (a row of figure glyphs such as "@ @ @" does not)
# and does not start with the punctuation left where a font's digits had no Unicode (". Types").
_LETTER = re.compile(r"[^\W\d_].*[^\W\d_]")
_LEADING_PUNCT = re.compile(r"^[^\w(\[]+")


@dataclass(frozen=True, slots=True)
class OutlineEntry:
    """A bookmark of the PDF pointing into this page."""

    level: int
    title: str
    y: float | None


@dataclass(slots=True)
class _Line:
    text: str
    style: StyleKey | None
    y: float
    box: int
    """Which of the page's text boxes (PyMuPDF's "blocks") the line comes from."""


@dataclass(slots=True)
class PageElement:
    """One Markdown element of a page (a paragraph, heading or table): its text ends without a
    newline; the page joins its elements."""

    kind: Literal["text", "heading", "table"]
    text: str
    y: float
    level: int = 0
    rows: int = 0
    cols: int = 0


def clean_text(text: str) -> str:
    return _CONTROL.sub("", text.translate(_LIGATURES))


def norm(text: str) -> str:
    """Casefolded, single-spaced text, for matching outline titles against lines."""
    return _SPACES.sub(" ", text).strip().casefold()


def page_elements(page: pymupdf.Page, profile: FontProfile, settings: PdfSettings,
                outline: list[OutlineEntry] | None) -> list[PageElement]:
    """The page's Markdown elements. With `outline` (the PDF has bookmarks), headings come from
    it alone; without, from the font profile."""
    found = [table_parts(t) for t in (page.find_tables().tables if settings.find_tables else [])]
    rects = [box for box, _ in found]
    emitted: set[int] = set()
    elements: list[PageElement] = []
    lines: list[_Line] = []
    data = page.get_text("dict", flags=pymupdf.TEXTFLAGS_TEXT)
    for box, raw in enumerate(data["blocks"]):
        for line in raw.get("lines", ()):
            bbox = pymupdf.Rect(line["bbox"])
            inside = next((i for i, r in enumerate(rects)
                           if r.contains(pymupdf.Point((bbox.x0 + bbox.x1) / 2, (bbox.y0 + bbox.y1) / 2))),
                          None)
            if inside is not None:
                if inside not in emitted:
                    elements.extend(_paragraphs(lines, profile, settings, outline is not None))
                    lines = []
                    elements.extend(_table_elements(found[inside][1]))
                    emitted.add(inside)
                continue
            text = clean_text("".join(s["text"] for s in line["spans"])).strip()
            if not text:
                continue
            style = _line_style(line["spans"])
            prev = lines[-1] if lines else None
            if prev and prev.box == box and abs(prev.y - bbox.y1) < settings.same_line_tolerance:
                # PyMuPDF splits a visual line at wide gaps; one baseline is one line, so a
                # word set in a larger font inside a body line never looks like a heading.
                prev.text += " " + text
                prev.style = prev.style if prev.style == style else None
            else:
                lines.append(_Line(text, style, bbox.y1, box))
    elements.extend(_paragraphs(lines, profile, settings, outline is not None))
    for i, (_, parts) in enumerate(found):
        if i not in emitted:
            elements.extend(_table_elements(parts))
    if outline is not None:
        elements = _apply_outline(elements, outline)
    return elements


def _line_style(spans: list[dict]) -> StyleKey | None:
    """The one style of a line's visible text, or None when it mixes styles."""
    styles = {style_of(s) for s in spans if s["text"].strip()}
    return styles.pop() if len(styles) == 1 else None


def _table_elements(parts: list[TablePart]) -> list[PageElement]:
    """A found table's pipe tables (two or more where the finder's grid stacks them) and the
    caption lines between them (`pdf_tables`)."""
    return [PageElement(p.kind, p.text, p.y, rows=p.rows, cols=p.cols) for p in parts]


def _paragraphs(lines: list[_Line], profile: FontProfile, settings: PdfSettings,
                outline_mode: bool) -> list[PageElement]:
    """Group lines into paragraphs and headings."""
    if not lines:
        return []
    gaps = [b.y - a.y for a, b in zip(lines, lines[1:]) if b.y > a.y]
    pitch = statistics.median(gaps) if gaps else float("inf")
    groups: list[tuple[int, list[_Line]]] = []
    for line in lines:
        level = 0 if outline_mode else profile.level_of(line.style)
        if groups:
            prev_level, prev_lines = groups[-1]
            prev = prev_lines[-1]
            gap = line.y - prev.y
            limit = settings.heading_gap_ratio if level else settings.paragraph_gap_ratio
            same_para = level == prev_level and (
                line.box == prev.box or 0 < gap <= pitch * limit)
            if same_para:
                prev_lines.append(line)
                continue
        groups.append((level, [line]))
    out: list[PageElement] = []
    for level, group in groups:
        title = _LEADING_PUNCT.sub("", " ".join(line.text for line in group))
        if level and _LETTER.search(title) and len(title) <= settings.heading_max_chars:
            out.append(PageElement("heading", f"{'#' * level} {title}", group[0].y, level=level))
        else:
            out.append(PageElement("text", "\n".join(_escape(line.text) for line in group), group[0].y))
    return out


def _escape(line: str) -> str:
    return "\\" + line if _MARKDOWN_LIKE.match(line) else line


def _apply_outline(elements: list[PageElement], outline: list[OutlineEntry]) -> list[PageElement]:
    """Turn the lines that carry an outline title into headings of its level; a title found in
    no line is inserted as a heading where its bookmark points (the page top when unknown)."""
    out = list(elements)
    for entry in outline:
        level = min(entry.level, 6)
        for i, element in enumerate(out):
            n = _title_lines(element, norm(entry.title)) if element.kind == "text" else 0
            if n:
                lines = element.text.split("\n")
                title = " ".join(line.removeprefix("\\") for line in lines[:n])
                rest = "\n".join(lines[n:])
                out[i:i + 1] = ([PageElement("heading", f"{'#' * level} {title}", element.y, level=level)]
                                + ([PageElement("text", rest, element.y)] if rest else []))
                break
        else:
            heading = PageElement("heading", f"{'#' * level} {norm_title(entry.title)}", entry.y or 0.0,
                            level=level)
            at = next((i for i, b in enumerate(out) if entry.y is not None and b.y >= entry.y), None)
            out.insert(at if at is not None else (0 if entry.y is None else len(out)), heading)
    return out


def _title_lines(element: PageElement, want: str) -> int:
    """How many leading lines of a text element spell the title `want` (0: they do not)."""
    lines = element.text.split("\n")
    for n in range(1, len(lines) + 1):
        got = norm(" ".join(line.removeprefix("\\") for line in lines[:n]))
        if got == want:
            return n
        if len(got) >= len(want):
            return 0
    return 0


def norm_title(title: str) -> str:
    """An outline title as one heading line."""
    return _SPACES.sub(" ", clean_text(title)).strip()

"""PDF documents: detection by content, text as Markdown with a page map, page images.

PyMuPDF (AGPL-3.0, in the `pdf` extra) reads the file. The text comes from PyMuPDF's own
primitives rather than pymupdf4llm: measured on the corpus (bench/results/pdf/report.md),
pymupdf4llm's layout mode collapses the Type3-font lecture notes into one paragraph a page with
no headings, and its legacy mode finds no headings in either PDF (it ranks font sizes only, and
the earnings release marks sections in bold body-size type). Tables come from PyMuPDF's table
finder, which uses the pymupdf-layout model when installed (the earnings release's tables are
drawn without rules; the rule-based finder alone finds none), written as pipe tables by
`pdf_tables` (all 25 tables of the earnings release, every cell as the page shows it:
bench/results/structured/parse.json).

Pages are read one at a time (two passes: font statistics, then text), so memory holds one
page's objects plus the Markdown built so far.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pymupdf

from chunker.document.loader import BadInput
from chunker.document.pdf_fonts import profile_fonts, text_pages
from chunker.document.pdf_model import (DEFAULT_DPI, DEFAULT_MAX_IMAGES, MAGIC_WINDOW, HeadingSpan, HeadingSource,
                                        PageSpan, PdfSettings, PdfText, TableSpan,
                                        is_pdf)  # noqa: F401 (is_pdf is re-exported)
from chunker.document.pdf_page import OutlineEntry, page_elements

ELEMENT_SEP = "\n\n"
"""Between Markdown elements, and after each page's last one: pages tile the text."""


@contextmanager
def open_pdf(path: str | Path) -> Iterator[pymupdf.Document]:
    """Open a PDF or raise BadInput with one line (encrypted, damaged, empty); MuPDF's own
    messages are silenced so that this line is the only one the user sees."""
    p = Path(path)
    if not p.is_file():
        raise BadInput(f"no such file: {p}" if not p.exists() else f"{p} is not a file")
    with _quiet_mupdf():
        try:
            doc = pymupdf.open(p, filetype="pdf")
        except (pymupdf.FileDataError, RuntimeError, ValueError) as exc:
            raise BadInput(f"{p} is a damaged PDF that cannot be opened ({_one_line(exc)})") from None
        try:
            if doc.needs_pass:
                raise BadInput(f"{p} is encrypted and needs a password; "
                               "decrypt it first (for example `qpdf --decrypt --password=PW in.pdf out.pdf`)")
            if doc.is_repaired and not _has_eof_marker(p):
                raise BadInput(f"{p} is a damaged PDF: it was cut short (no %%EOF at its end)")
            if doc.page_count == 0:
                raise BadInput(f"{p} is a damaged PDF: it has no pages")
            yield doc
        finally:
            doc.close()


def extract(path: str | Path, *, settings: PdfSettings = PdfSettings()) -> PdfText:
    """The PDF's text as Markdown, with the range of every page, table and heading in it."""
    p = Path(path)
    with open_pdf(p) as doc, _quiet_mupdf():
        try:
            return _extract(doc, settings)
        except BadInput:
            raise
        except (RuntimeError, ValueError) as exc:
            raise BadInput(f"{p} is a damaged PDF ({_one_line(exc)})") from None


def _extract(doc: pymupdf.Document, settings: PdfSettings) -> PdfText:
    outline = _outline(doc)
    profile = profile_fonts(text_pages(doc), settings)
    parts: list[str] = []
    offset = 0
    pages: list[PageSpan] = []
    tables: list[TableSpan] = []
    headings: list[HeadingSpan] = []
    for number in range(doc.page_count):
        page = doc.load_page(number)
        elements = page_elements(page, profile, settings,
                                 outline.get(number + 1, []) if outline else None)
        start = offset
        for element in elements:
            end = offset + len(element.text)
            if element.kind == "table":
                tables.append(TableSpan(number + 1, offset, end, element.rows, element.cols))
            elif element.kind == "heading":
                headings.append(HeadingSpan(number + 1, offset, end, element.level,
                                            element.text.lstrip("#").strip()))
            parts.append(element.text + ELEMENT_SEP)
            offset = end + len(ELEMENT_SEP)
        scanned = not elements and bool(page.get_images(full=False))
        pages.append(PageSpan(number + 1, start, offset, scanned))
        del page
    markdown = "".join(parts)
    repaired = bool(doc.is_repaired)
    if not markdown.strip() and not any(pg.scanned for pg in pages):
        reason = "damaged: MuPDF repaired it but" if repaired else "empty:"
        raise BadInput(f"{doc.name} is {reason} no page has text or images")
    source: HeadingSource = "outline" if outline else ("font" if headings else "none")
    return PdfText(markdown, tuple(pages), tuple(tables), tuple(headings), source, repaired)


def _outline(doc: pymupdf.Document) -> dict[int, list[OutlineEntry]]:
    """The PDF's bookmarks by 1-based page (empty when it has none)."""
    by_page: dict[int, list[OutlineEntry]] = {}
    for item in doc.get_toc(simple=False):
        level, title, page = item[0], item[1], item[2]
        if page < 1 or not title.strip():
            continue
        dest = item[3] if len(item) > 3 else {}
        point = dest.get("to") if isinstance(dest, dict) else None
        by_page.setdefault(page, []).append(OutlineEntry(level, title, point.y if point else None))
    return by_page


def render_pages(path: str | Path, pages: list[int], *, dpi: int = DEFAULT_DPI,
                 max_images: int = DEFAULT_MAX_IMAGES) -> list[bytes]:
    """PNG images of the given 1-based pages, at most `max_images` (the first ones)."""
    with open_pdf(path) as doc, _quiet_mupdf():
        images: list[bytes] = []
        for number in pages[:max_images]:
            if not 1 <= number <= doc.page_count:
                raise ValueError(f"page {number} is outside 1..{doc.page_count}")
            page = doc.load_page(number - 1)
            images.append(page.get_pixmap(dpi=dpi).tobytes("png"))
            del page
        return images


def _has_eof_marker(path: Path) -> bool:
    """A complete PDF ends with `%%EOF` (a few bytes of trailing junk are common); a file
    without it in its last kilobyte was cut short, and MuPDF's repair would silently drop
    what was lost."""
    with open(path, "rb") as f:
        f.seek(max(0, path.stat().st_size - MAGIC_WINDOW))
        return b"%%EOF" in f.read()


@contextmanager
def _quiet_mupdf() -> Iterator[None]:
    """Keep MuPDF's error and warning lines off stderr for the duration, then restore."""
    errors = pymupdf.TOOLS.mupdf_display_errors()
    warnings = pymupdf.TOOLS.mupdf_display_warnings()
    pymupdf.TOOLS.mupdf_display_errors(False)
    pymupdf.TOOLS.mupdf_display_warnings(False)
    try:
        yield
    finally:
        pymupdf.TOOLS.mupdf_display_errors(errors)
        pymupdf.TOOLS.mupdf_display_warnings(warnings)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__

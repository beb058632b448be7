"""PDF: the text layer as Markdown, one place a page; a page without one read by OCR.

Extraction itself is `chunker/document/pdf.py` (PyMuPDF, the `pdf` extra). A scanned page
(images, no text layer) is rendered and read by OCR (`chunker/readers/ocr.py`, the `ocr`
extra and the `tesseract` program) when it is installed: its text takes the page's place,
which records the engine's confidence. Without OCR the page contributes `SCANNED_NOTE`, one
line of its own (a leaf cannot be empty: the lossless check requires every leaf to cover at
least one character, so a zero-width scan would break the tiling it guards), and the
reader says once which pages it could not read and what to install; a vision model, when
given, still transcribes such a page at rewrite.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from chunker.document.loader import BadInput
from chunker.document.pdf_model import MAGIC_WINDOW, PDF_HEADER, PageSpan
from chunker.readers.base import ReadSettings, Reader
from chunker.readers.model import Extracted, ExtraMissing, Metadata, Place, ReaderError

SCANNED_NOTE = "[Page {number} is a scanned image without a text layer.]\n\n"
"""The text a scanned page contributes when OCR does not read it (a sentence and a paragraph
of its own)."""
OCR_SEP = "\n\n"
"""After a page's OCR text: it is a paragraph (at least) of its own, as every page's elements are."""
EXTRA_HINT = "reading PDFs needs the pdf extra (PyMuPDF, AGPL-3.0): pip install 'chunker-tree[pdf]'"


class PdfReader(Reader):
    id = "pdf"
    label = "PDF"
    extra = "pdf"
    split_unit = "page"

    def sniff(self, head: bytes, path: Path) -> bool:
        return PDF_HEADER.search(head[:MAGIC_WINDOW]) is not None

    def available(self) -> str | None:
        if any(importlib.util.find_spec(name) is not None for name in ("pymupdf", "fitz")):
            return None
        return EXTRA_HINT

    def check(self, data: bytes, path: Path, settings: ReadSettings) -> None:
        if _encrypted(data):
            raise ReaderError("it needs a password; decrypt it first", reason="encrypted-pdf")

    def read(self, path: Path, settings: ReadSettings) -> Extracted:
        p = Path(path)
        size = p.stat().st_size
        if size > settings.max_bytes:
            raise ReaderError(f"{p} is {size:,} bytes, over the limit of {settings.max_bytes:,} (--max-bytes)",
                              reason=f"too-large: {size} bytes, over --max-bytes {settings.max_bytes}")
        try:
            from chunker.document.pdf import extract
        except ImportError:
            raise ExtraMissing(f"{p} is a PDF; {EXTRA_HINT}", "pdf") from None
        try:
            got = extract(p)
        except BadInput as exc:
            reason = "encrypted-pdf" if "needs a password" in str(exc) else "unreadable-pdf"
            raise ReaderError(str(exc), reason=reason) from None
        scanned = [pg.number for pg in got.pages if pg.scanned and pg.start == pg.end]
        read, notes = ocr_pages(p, scanned, settings) if scanned else ({}, ())
        text, places = fill_scans(got.markdown, got.pages, read)
        from chunker.readers.pdf_images import embedded_images

        images = embedded_images(p, text, places, settings.figure_min_px)
        return Extracted(text, places, Metadata(), images=images, notes=notes)

    def page_images(self, path: Path, pages: list[int], *, dpi: int, max_images: int) -> list[bytes]:
        from chunker.document.pdf import render_pages

        return render_pages(path, pages, dpi=dpi, max_images=max_images)


def fill_scans(markdown: str, pages: tuple[PageSpan, ...], read: dict[int, tuple[str, float]]
               ) -> tuple[str, tuple[Place, ...]]:
    """The text with each scanned page's (empty) place filled: its OCR text where `read` has
    it, else `SCANNED_NOTE`; one place a page."""
    parts: list[str] = []
    places: list[Place] = []
    shift, last = 0, 0
    for page in pages:
        if page.scanned and page.start == page.end:
            ocr = read.get(page.number)
            fill = ocr[0] + OCR_SEP if ocr else SCANNED_NOTE.format(number=page.number)
            parts.append(markdown[last:page.start])
            parts.append(fill)
            last = page.start
            places.append(Place(page.start + shift, page.start + shift + len(fill), page=page.number,
                                scanned=True, ocr_confidence=round(ocr[1], 1) if ocr else None))
            shift += len(fill)
        else:
            places.append(Place(page.start + shift, page.end + shift, page=page.number, scanned=page.scanned))
    parts.append(markdown[last:])
    return "".join(parts), tuple(places)


def ocr_pages(path: Path, numbers: list[int], settings: ReadSettings
              ) -> tuple[dict[int, tuple[str, float]], tuple[str, ...]]:
    """OCR text and confidence of the scanned pages it could read, and the note for the rest."""
    label = ", ".join(map(str, numbers))
    pages_word = "page" if len(numbers) == 1 else "pages"
    if not settings.ocr:
        return {}, (f"{pages_word} {label} of {path.name} {'has' if len(numbers) == 1 else 'have'} no text "
                    "layer and OCR is off: read as a placeholder line",)
    try:
        from chunker.readers import ocr
    except ImportError:  # pragma: no cover - ocr.py ships with chunker
        missing = "OCR needs chunker.readers.ocr"
    else:
        missing = ocr.missing()
    if missing:
        return {}, (f"{pages_word} {label} of {path.name} {'has' if len(numbers) == 1 else 'have'} no text "
                    f"layer and could not be read by OCR: {missing}",)
    from chunker.document.pdf import render_pages

    images = render_pages(path, numbers, dpi=settings.dpi, max_images=len(numbers))
    read: dict[int, tuple[str, float]] = {}
    failed: list[str] = []
    for number, png in zip(numbers, images):
        try:
            text, confidence = ocr.read_image(png, lang=settings.ocr_lang)
        except ocr.OcrError as exc:  # an unknown language, a failing program: said once, below
            failed.append(str(exc))
            continue
        text = text.strip()
        if text:
            read[number] = (text, float(confidence))
    unread = [n for n in numbers if n not in read]
    notes = ((f"OCR found no text on page(s) {', '.join(map(str, unread))} of {path.name}"
              + (f" ({failed[0]})" if failed else ""),) if unread else ())
    return read, notes


def _encrypted(data: bytes) -> bool:
    """True when opening the PDF needs a password. MuPDF knows (a PDF encrypted with an empty
    user password opens, so it is not counted); without it, any /Encrypt entry counts."""
    try:
        import pymupdf
    except ImportError:
        try:
            import fitz as pymupdf  # PyMuPDF before 1.24 has only this name
        except ImportError:
            return b"/Encrypt" in data
    errors, warnings = pymupdf.TOOLS.mupdf_display_errors(), pymupdf.TOOLS.mupdf_display_warnings()
    pymupdf.TOOLS.mupdf_display_errors(False)  # a damaged PDF is reported when it is chunked
    pymupdf.TOOLS.mupdf_display_warnings(False)
    try:
        with pymupdf.open(stream=data, filetype="pdf") as doc:
            return bool(doc.needs_pass or doc.is_encrypted)
    except (RuntimeError, ValueError):  # damaged beyond opening: judge by the bytes
        return b"/Encrypt" in data
    finally:
        pymupdf.TOOLS.mupdf_display_errors(errors)
        pymupdf.TOOLS.mupdf_display_warnings(warnings)

"""A PDF as a run's source: extracted once into `OUT/source.md`, its page map beside it.

The graph reads `source.md` like any text file, so every guarantee of a text run holds
against it (the leaves concatenate to it exactly; resume re-reads it, never the PDF). The page
map (`OUT/.chunker/pages.json`) is what maps a node's character span back to its PDF pages;
it never enters the graph state.

Scanned pages (images, no text layer) have no text, and a leaf cannot be empty: the lossless
check (`output.hierarchy.check_lossless`) requires every leaf to cover at least one character,
so a zero-width leaf would break the tiling it guards. Such a page therefore contributes one
line of its own to `source.md`, `SCANNED_NOTE`, as its text: the leaf holding it is flagged
(`scanned_pages`), carries no document text, and a vision model transcribes the page at rewrite.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from chunker.document.loader import BadInput
from chunker.document.pdf_model import PageSpan, TableSpan, pages_of
from chunker.document.units import register_page_ends

SOURCE_FILE = "source.md"
"""The extracted text, in OUT: what the leaves concatenate to."""
PAGE_MAP_FILE = "pages.json"
"""The page map, in OUT/.chunker."""
SCANNED_NOTE = "[Page {number} is a scanned image without a text layer.]\n\n"
"""The text a scanned page contributes to source.md (a sentence and a paragraph of its own)."""
EXTRA_HINT = "reading PDFs needs the pdf extra (PyMuPDF, AGPL-3.0): pip install 'chunker-tree[pdf]'"


class PdfExtraMissing(BadInput):
    """PyMuPDF is not installed; the message names the extra."""


@dataclass(frozen=True)
class PdfSource:
    """A PDF's text as the run will read it, with its page map and tables."""

    pdf: Path
    sha256: str
    """Of the PDF's bytes (run.json records it; a resume from a moved PDF checks it)."""
    text: str
    pages: tuple[PageSpan, ...]
    tables: tuple[TableSpan, ...]
    heading_source: str

    @property
    def scanned_pages(self) -> list[int]:
        return [p.number for p in self.pages if p.scanned]


@dataclass(frozen=True)
class PageMap:
    """What nodes need of a PDF run: where its pages lie in source.md, and the PDF itself."""

    pdf: str
    pages: tuple[PageSpan, ...]

    def range_of(self, span: tuple[int, int]) -> tuple[int, int]:
        """First and last 1-based page of a character span of source.md."""
        return pages_of(span, self.pages)

    def scanned_in(self, first: int, last: int) -> list[int]:
        return [p.number for p in self.pages if p.scanned and first <= p.number <= last]


def file_sha256(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for data in iter(lambda: f.read(1 << 20), b""):
            digest.update(data)
    return digest.hexdigest()


def extract_source(path: str | Path, *, max_bytes: int) -> PdfSource:
    """Extract a PDF (page by page) into the text a run reads; BadInput with one line when
    it is encrypted, damaged, empty, too large, or PyMuPDF is missing."""
    p = Path(path)
    size = p.stat().st_size
    if size > max_bytes:
        raise BadInput(f"{p} is {size:,} bytes, over the limit of {max_bytes:,} (--max-bytes)")
    try:
        from chunker.document.pdf import extract
    except ImportError:
        raise PdfExtraMissing(f"{p} is a PDF; {EXTRA_HINT}") from None
    got = extract(p)
    text, pages, tables = with_scanned_notes(got.markdown, got.pages, got.tables)
    return PdfSource(p.resolve(), file_sha256(p), text, pages, tables, got.heading_source)


def with_scanned_notes(markdown: str, pages: tuple[PageSpan, ...], tables: tuple[TableSpan, ...]
                       ) -> tuple[str, tuple[PageSpan, ...], tuple[TableSpan, ...]]:
    """The text with `SCANNED_NOTE` at each scanned page's (empty) place, spans shifted."""
    parts: list[str] = []
    out_pages: list[PageSpan] = []
    shift_at: list[tuple[int, int]] = []  # (offset in the old text, shift from there on)
    shift, last = 0, 0
    for page in pages:
        if page.scanned and page.start == page.end:
            note = SCANNED_NOTE.format(number=page.number)
            parts.append(markdown[last:page.start])
            parts.append(note)
            last = page.start
            out_pages.append(PageSpan(page.number, page.start + shift, page.start + shift + len(note), True))
            shift += len(note)
            shift_at.append((page.start, shift))
        else:
            out_pages.append(PageSpan(page.number, page.start + shift, page.end + shift, page.scanned))
    parts.append(markdown[last:])

    def moved(offset: int) -> int:
        return offset + max((s for at, s in shift_at if at <= offset), default=0)

    out_tables = tuple(TableSpan(t.page, moved(t.start), moved(t.start) + (t.end - t.start), t.rows, t.cols)
                       for t in tables)
    return "".join(parts), tuple(out_pages), out_tables


def write_source(src: PdfSource, out_dir: Path, meta_dir: Path) -> Path:
    """Write OUT/source.md and OUT/.chunker/pages.json (each atomically); returns source.md."""
    source = out_dir / SOURCE_FILE
    _atomic_write(source, src.text)
    meta_dir.mkdir(parents=True, exist_ok=True)
    _atomic_write(meta_dir / PAGE_MAP_FILE, json.dumps({
        "pdf": str(src.pdf), "pdf_sha256": src.sha256, "heading_source": src.heading_source,
        "pages": [[p.number, p.start, p.end, p.scanned] for p in src.pages],
        "tables": [[t.page, t.start, t.end, t.rows, t.cols] for t in src.tables],
    }, indent=0) + "\n")
    register_page_ends(src.text, [p.end for p in src.pages])
    return source


def load_page_map(run_dir: str | Path) -> PageMap | None:
    """The run's page map (None when OUT holds none), with the page unit registered for its
    text; cached per file version, since every rewrite asks."""
    meta_dir = Path(run_dir) / ".chunker"
    path = meta_dir / PAGE_MAP_FILE
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        return None
    return _load(str(path), stamp, str(Path(run_dir) / SOURCE_FILE))


@functools.lru_cache(maxsize=8)
def _load(path: str, stamp: int, source: str) -> PageMap:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    pages = tuple(PageSpan(n, s, e, bool(sc)) for n, s, e, sc in data["pages"])
    if os.path.exists(source):
        with open(source, encoding="utf-8", newline="") as f:
            register_page_ends(f.read(), [p.end for p in pages])
    return PageMap(data["pdf"], pages)


def relocate_pdf(run_dir: str | Path, pdf: Path) -> None:
    """Point the page map at the PDF's new place (a resume with `--source`)."""
    path = Path(run_dir) / ".chunker" / PAGE_MAP_FILE
    data = json.loads(path.read_text(encoding="utf-8"))
    data["pdf"] = str(pdf.resolve())
    _atomic_write(path, json.dumps(data, indent=0) + "\n")


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    os.replace(tmp, path)

"""The reader interface: one class per document format, found by content.

A reader is a subclass of `Reader` (or any object with the same attributes) that the
registry (`chunker/readers/registry.py`) builds once, with no arguments:

    class DocxReader(Reader):
        id = "docx"                      # stable: run.json, corpus records and --json name it
        label = "Word document"          # for messages: "a.docx is a Word document; ..."
        extra = "docx"                   # the pyproject extra that brings its libraries (None: built-in)

        def sniff(self, head: bytes, path: Path) -> bool:
            # by content, never by the name alone: `head` is the file's first HEAD_BYTES bytes;
            # a zip container is told apart by its members (see chunker/readers/sniffing.py)
            return is_zip(head) and "word/document.xml" in zip_names(path)

        def available(self) -> str | None:
            # None when it can read now; else one line saying what to install
            return missing_modules(["docx"], self.extra, "reading Word documents")

        def read(self, path: Path, settings: ReadSettings) -> Extracted:
            ...  # the Markdown, its places (they tile it), metadata, images, notes

Contract of `read(path, settings) -> Extracted` (`chunker/readers/model.py`):
- It is called only after `sniff` said yes and `available()` said None.
- `Extracted.markdown` is the text the run chunks; for `extracted = True` readers it is written
  to `OUT/source.md` and the leaves concatenate to it exactly. It must not be empty: a document
  with no text raises `ReaderError(..., reason="empty")`.
- `Extracted.places` tile the Markdown (`Extracted.check()`); each says what the format has
  (page, part, anchor, slide, paragraph, ocr_confidence). One place spanning the whole text is
  valid for a format with no finer structure.
- A file it cannot read raises `ReaderError(one_line, reason=...)`: the line is what the user
  sees (`chunker run` exits 2 with it), `reason` the short code a corpus lists it as skipped by
  (`broken-docx`, `encrypted-pdf`, `drm-epub`, `password-docx`, ...); a library found missing at
  read time raises `ExtraMissing(one_line, extra)`. No other exception may escape: wrap the
  library's own (zipfile.BadZipFile, lxml errors, KeyError of a missing member) in ReaderError.
- It must be deterministic (same bytes and settings, same Extracted: resume and `update`
  compare texts) and offline (no download at run time).
- `settings` (`ReadSettings`) holds what every reader may need; a reader ignores what it does
  not use.

Class attributes the pipeline asks instead of testing formats (defaults below):
- `extracted`: the run's text is an extraction (written to OUT/source.md); False for plain text
  and Markdown, whose file is itself the source.
- `split_unit`: the default split unit of a run on this format (`page` for PDF), None for the
  run's own default.
- `check(data, path, settings)`: a cheap test a corpus runs on discovery (raise ReaderError for an
  encrypted or truncated file); optional.
- `page_images(path, pages, dpi=, max_images=)`: PNG images of 1-based pages for a vision model
  (PDF); the default has none.

A plugin package adds a format through the entry-point group `chunker.readers`:

    [project.entry-points."chunker.readers"]
    rtf = "my_package.rtf:RtfReader"

Built-ins are sniffed first, in the registry's order, then plugins by entry-point name.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from chunker.readers.model import Extracted

HEAD_BYTES = 8192
"""How much of the file `sniff` sees (a PDF header may start anywhere in the first 1024 bytes;
an HTML doctype follows a BOM, a comment or an XML declaration)."""
DEFAULT_MAX_BYTES = 200 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class ReadSettings:
    """What a reader may need of the run's settings (built from them by the registry)."""

    encoding: str = "utf-8"
    """The text encoding of a plain-text file (`--encoding`); formats that declare their own ignore it."""
    max_bytes: int = DEFAULT_MAX_BYTES
    """Larger files are refused (`--max-bytes`); a container's members count uncompressed."""
    ocr: bool = True
    """Read pages and images without a text layer by OCR when the engine is installed."""
    ocr_lang: str = "eng"
    """Tesseract's language code(s) for OCR (`eng`, `deu+eng`)."""
    dpi: int = 150
    """The resolution pages are rendered at (for OCR and for a vision model)."""
    figure_min_px: int = 64
    """A PDF's embedded image smaller than this on either side is no figure (`pdf.figure_min_px`)."""


class Reader:
    """One document format. Subclasses set `id`, `label`, and implement `sniff` and `read`."""

    id: ClassVar[str] = ""
    label: ClassVar[str] = ""
    extra: ClassVar[str | None] = None
    extracted: ClassVar[bool] = True
    split_unit: ClassVar[str | None] = None

    def sniff(self, head: bytes, path: Path) -> bool:  # pragma: no cover - interface
        raise NotImplementedError

    def available(self) -> str | None:
        """None when the reader can read now, else one line: what is missing, what to install."""
        return None

    def check(self, data: bytes, path: Path, settings: ReadSettings) -> None:
        """A cheap test a corpus runs when it finds the file (`data`: its bytes), before any
        work: raise ReaderError for what is sure to fail (a password, DRM, a truncated
        container), so `--strict` can refuse early. The default finds nothing; `read` still
        raises for whatever this does not catch."""

    def read(self, path: Path, settings: ReadSettings) -> Extracted:  # pragma: no cover - interface
        raise NotImplementedError

    def page_images(self, path: Path, pages: list[int], *, dpi: int, max_images: int) -> list[bytes]:
        """PNG images of the given 1-based pages (the first `max_images`); none by default."""
        return []

    def __repr__(self) -> str:
        return f"<reader {self.id}>"


def missing_modules(modules: list[str], extra: str | None, doing: str) -> str | None:
    """None when every module imports, else the line `available()` returns:
    `reading Word documents needs the docx extra: pip install 'chunker-tree[docx]'`."""
    if all(importlib.util.find_spec(name) is not None for name in modules):
        return None
    return f"{doing} needs the {extra} extra: pip install 'chunker-tree[{extra}]'"

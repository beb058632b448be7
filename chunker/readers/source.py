"""A file as a run sees it: which reader reads it, its text, where that text lies in the file.

The pipeline asks a `Source` (or, once the run has started, the `SourceMap` written beside
it: `chunker/readers/source_map.py`) what it would otherwise test a format for: whether the
run's text is an extraction written into OUT as `source.md`, the split unit it defaults to,
where a span lies in the original (pages, parts, slides, paragraphs), and the notes to say.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from chunker.readers.base import HEAD_BYTES, ReadSettings, Reader
from chunker.readers.location import Location, Locator
from chunker.readers.model import Extracted, ExtraMissing, Image, Metadata, Place, ReaderError
from chunker.readers.registry import READERS

EXTRACTED_SETTING = "extracted_source"
"""The flat setting that names the original file of a run whose text is an extraction."""


def file_sha256(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for data in iter(lambda: f.read(1 << 20), b""):
            digest.update(data)
    return digest.hexdigest()


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def reader_of(path: str | Path) -> Reader:
    """The reader of a file given by path, ready to read (its extra installed); ReaderError
    with one line when the file is missing, a folder, unknown, or its extra is not installed."""
    p = Path(path)
    if not p.exists():
        raise ReaderError(f"no such file: {p}", reason="vanished")
    if p.is_dir():
        raise ReaderError(f"{p} is a directory; give a text file", reason="unreadable: a directory")
    try:
        with open(p, "rb") as f:
            head = f.read(HEAD_BYTES)
    except OSError as exc:
        raise ReaderError(f"cannot read {p}: {exc.strerror}", reason=f"unreadable: {exc.strerror}") from None
    reader = READERS.sniff(p, head)
    missing = reader.available()
    if missing is not None:
        raise ExtraMissing(f"{p} is a {reader.label}; {missing}", reader.extra or reader.id)
    return reader


def run_settings(reader: Reader, path: str | Path, settings: dict) -> dict:
    """The run's settings for a file of this reader: its default split unit unless the user
    chose one, and the original's path when the text is an extraction."""
    if not reader.extracted:
        return settings
    unit = {"split_unit": reader.split_unit} if reader.split_unit else {}
    return {**unit, **settings, EXTRACTED_SETTING: str(Path(path).resolve())}


@dataclass(frozen=True)
class Source:
    """A read file: its reader, what the reader extracted, and the fingerprint of its bytes."""

    path: Path
    """The original file, absolute."""
    reader: Reader
    extracted: Extracted
    fingerprint: str
    """sha256 of the file's bytes (run.json records it; resume and `update` compare it)."""

    @classmethod
    def open(cls, path: str | Path, settings: ReadSettings, reader: Reader | None = None) -> "Source":
        """Read the file (ReaderError with one line when it cannot be read)."""
        p = Path(path)
        reader = reader or reader_of(p)
        try:
            extracted = reader.read(p, settings)
        except ReaderError:
            raise
        except OSError as exc:
            raise ReaderError(f"cannot read {p}: {exc.strerror or exc}",
                              reason=f"unreadable: {exc.strerror or exc}") from None
        if not extracted.markdown.strip():
            raise ReaderError(f"{p} holds no text", reason="empty")
        return cls(p.resolve(), reader, extracted, file_sha256(p))

    @property
    def reader_id(self) -> str:
        return self.reader.id

    @property
    def text(self) -> str:
        """What the leaves concatenate to."""
        return self.extracted.markdown

    @property
    def text_sha256(self) -> str:
        return text_sha256(self.text)

    @property
    def places(self) -> tuple[Place, ...]:
        return self.extracted.places

    @property
    def metadata(self) -> Metadata:
        return self.extracted.metadata

    @property
    def images(self) -> tuple[Image, ...]:
        return self.extracted.images

    @property
    def writes_source(self) -> bool:
        """The text is an extraction: written into OUT as `source.md`, the run reads that."""
        return self.reader.extracted

    @property
    def split_unit(self) -> str | None:
        return self.reader.split_unit

    def locate(self, start: int, end: int) -> Location | None:
        return Locator(self.places).locate(start, end)

    @property
    def placeholder_pages(self) -> list[int]:
        """Pages whose text is a stand-in line (scans OCR did not read)."""
        return [p.page for p in self.places if p.placeholder and p.page is not None]

    def notes(self, *, vision_model: bool) -> list[str]:
        """The lines to say once at the start of a run: the reader's own, and for a format
        with page images read without a vision model, that its pages are read as text only."""
        lines = list(self.extracted.notes)
        if not vision_model and type(self.reader).page_images is not Reader.page_images:
            line = f"no --vision-model: {self.reader.label} pages are read as text only"
            scanned = self.placeholder_pages
            if scanned:
                line += (f"; scanned page(s) {', '.join(map(str, scanned))} have no text layer and become "
                         "flagged leaves without their content")
            lines.insert(0, line)
        return lines


def read_settings(ctx) -> ReadSettings:
    """What a reader needs of a run's settings (`ChunkerSettings`)."""
    return ReadSettings(encoding=ctx.input.encoding, max_bytes=ctx.input.max_bytes, dpi=ctx.pdf.dpi,
                        figure_min_px=ctx.pdf.figure_min_px)

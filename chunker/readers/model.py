"""What a reader hands to the rest of chunker: a document's text as Markdown, where every
character of it lies in the original file, its metadata and the images a vision model may see.

Every span is `[start, end)` in characters of `Extracted.markdown`, the text that becomes the
run's source (`OUT/source.md` for every format that is not plain text or Markdown); the
leaves concatenate to it, so these spans are what map a node back to its pages, chapters,
slides or paragraphs. Records are frozen: a reader builds them once.
"""

from __future__ import annotations

from dataclasses import dataclass, field


class ReaderError(ValueError):
    """The file cannot be read by its reader (truncated, encrypted, DRM, password): one line
    for the user, and for a corpus the skip reason (`reason` is its short kind, `broken-docx`)."""

    def __init__(self, message: str, reason: str = "unreadable") -> None:
        super().__init__(message)
        self.reason = reason

    @property
    def skip(self) -> str:
        """The corpus's skip line: the reason, followed by the message when the reason is a
        bare code (`broken-docx: a.docx is a truncated zip`)."""
        if ":" in self.reason or str(self) == self.reason:
            return self.reason
        return f"{self.reason}: {self}"


class ExtraMissing(ReaderError):
    """The format's libraries are not installed: `extra` names the pyproject extra."""

    def __init__(self, message: str, extra: str) -> None:
        super().__init__(message, reason=f"needs-extra:{extra}")
        self.extra = extra

    @property
    def skip(self) -> str:
        return f"{self.reason}: pip install 'chunker-tree[{self.extra}]'"


@dataclass(frozen=True, slots=True)
class Place:
    """Where one stretch of the Markdown came from. The places of one document tile its text:
    sorted, each starts where the previous one ends, the first at 0, the last at its length.
    Fields a format does not have stay None."""

    start: int
    end: int
    page: int | None = None
    """1-based page (PDF; a scanned page too)."""
    part: str | None = None
    """The file inside a container the text came from: an EPUB chapter (`ch03.xhtml`), a DOCX's
    `word/document.xml` or its footnotes."""
    anchor: str | None = None
    """An id inside the part (`#section-2`) where the stretch starts, when the format has one."""
    slide: int | None = None
    """1-based slide (PPTX)."""
    paragraph: int | None = None
    """0-based index of the source paragraph (block) in its part (DOCX, ODT, HTML, EPUB)."""
    ocr_confidence: float | None = None
    """Set when the text was read by OCR: the engine's mean word confidence, 0-100."""
    scanned: bool = False
    """The stretch stands for an image without a text layer (a scanned page): its text is OCR's
    (`ocr_confidence` set) or, where OCR could not run, a one-line placeholder that is no
    document text (a vision model may transcribe it at rewrite)."""

    @property
    def placeholder(self) -> bool:
        """Its text is a stand-in line, not the document's (a scan OCR did not read)."""
        return self.scanned and self.ocr_confidence is None


@dataclass(frozen=True, slots=True)
class Metadata:
    title: str | None = None
    authors: tuple[str, ...] = ()
    date: str | None = None
    language: str | None = None


@dataclass(frozen=True, slots=True)
class Image:
    """An image of the document a vision model may be shown, placed at `offset` in the text."""

    name: str
    """A file name unique in the document (`image-3.png`), for `OUT/media/`."""
    data: bytes = field(repr=False)
    mime: str
    offset: int
    alt: str | None = None
    caption: str | None = None
    figure: bool = True
    """An image of the document (a figure, written into `OUT/media/`); False for a render of
    a whole page (a scanned image file), which stands for its text."""


@dataclass(frozen=True, slots=True)
class Extracted:
    """A reader's whole result for one file."""

    markdown: str
    places: tuple[Place, ...]
    metadata: Metadata = Metadata()
    images: tuple[Image, ...] = ()
    notes: tuple[str, ...] = ()
    """One line each for the user: what could not be read and what would read it
    (`page 3 has no text layer and tesseract is not installed: apt-get install tesseract-ocr`)."""

    def check(self) -> None:
        """Raise AssertionError unless the places tile the text (a reader's own test calls it)."""
        pos = 0
        for place in self.places:
            assert place.start == pos and place.end >= place.start, (place, pos)
            pos = place.end
        assert pos == len(self.markdown), (pos, len(self.markdown))

    def places_in(self, start: int, end: int) -> tuple[Place, ...]:
        """The places a character span `[start, end)` of the text overlaps."""
        return tuple(p for p in self.places if p.start < end and p.end > start
                     or (p.start == p.end == start))

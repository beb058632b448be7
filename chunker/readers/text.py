"""Plain text and Markdown: the file itself is the run's source, decoded exactly as stored.

Plain text claims whatever no other reader did (it is sniffed last) and refuses what is not
text: a reason with a stable code (`binary: contains NUL bytes`, `invalid-utf8: byte 17`,
`empty`) found from the bytes in the order `decode_document` checks them, so that no code
depends on the wording of its message.
"""

from __future__ import annotations

import codecs
from pathlib import Path

from chunker.document.loader import BadInput, decode_document, read_document
from chunker.readers.base import ReadSettings, Reader
from chunker.readers.model import Extracted, Place, ReaderError

MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".mkd", ".mkdn", ".mdx"})
_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


class TextReader(Reader):
    id = "text"
    label = "text file"
    extracted = False

    def sniff(self, head: bytes, path: Path) -> bool:
        return True  # the last resort: `read` refuses what is not text

    def read(self, path: Path, settings: ReadSettings) -> Extracted:
        try:
            text = read_document(path, encoding=settings.encoding, max_bytes=settings.max_bytes)
        except BadInput as exc:
            raise ReaderError(str(exc), reason=_reason_of(Path(path), settings.encoding, settings.max_bytes)) from None
        return Extracted(text, (Place(0, len(text)),))

    def check(self, data: bytes, path: Path, settings: ReadSettings) -> None:
        problem = text_problem(data, settings.encoding)
        if problem is not None:
            raise ReaderError(problem, reason=problem)

    def decode(self, data: bytes, settings: ReadSettings, source: str) -> str:
        """The text of bytes already read (a corpus reads each file once); ReaderError with
        the skip reason when they are not text."""
        try:
            return decode_document(data, encoding=settings.encoding, source=source)
        except BadInput as exc:
            raise ReaderError(str(exc), reason=text_problem(data, settings.encoding) or "unreadable") from None


class MarkdownReader(TextReader):
    """Markdown is text with structure, told apart by its name (its content is text either way)."""

    id = "markdown"
    label = "Markdown file"

    def sniff(self, head: bytes, path: Path) -> bool:
        return Path(path).suffix.lower() in MARKDOWN_SUFFIXES


def _reason_of(path: Path, encoding: str, max_bytes: int) -> str:
    try:
        if path.is_dir():
            return "unreadable: a directory"
        if path.stat().st_size > max_bytes:
            return f"too-large: over {max_bytes} bytes (--max-bytes)"
        data = path.read_bytes()
    except FileNotFoundError:
        return "vanished"
    except OSError as exc:
        return f"unreadable: {exc.strerror or exc}"
    return text_problem(data, encoding) or "unreadable"


def text_problem(data: bytes, encoding: str) -> str | None:
    """None when `decode_document` (what a run will use) accepts the bytes, else a reason with
    a stable code."""
    try:
        decode_document(data, encoding=encoding)
        return None
    except BadInput:
        pass
    explicit = encoding.lower().replace("_", "-") not in ("utf-8", "utf8")
    if not explicit and data.startswith(_UTF16_BOMS):
        return "binary: it starts with a UTF-16 byte-order mark (pass --encoding utf-16)"
    if not explicit and b"\x00" in data:
        return "binary: contains NUL bytes"
    try:
        text = data.decode(encoding if explicit else "utf-8-sig")
    except UnicodeDecodeError as exc:
        if explicit:
            return f"invalid-encoding: byte {exc.start} is not valid {encoding}"
        return f"invalid-utf8: byte {exc.start}"
    except LookupError:
        return f"unknown-encoding: {encoding}"
    if not text:
        return "empty"
    if not text.strip():
        return "empty: whitespace only"
    return "binary: contains NUL characters"  # the one check of decode_document left

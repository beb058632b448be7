"""What the office readers (DOCX, ODT, PPTX) share: Markdown assembled block by block with
the place each block came from, GFM tables, and telling a broken or encrypted container apart.

Blocks are joined by a blank line (list items of one list by a newline); the separator after a
block belongs to that block's place, so the places tile the text with no gaps.
"""

from __future__ import annotations

import io
import os
import re
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from typing import ClassVar

from chunker.readers.base import ReadSettings, Reader, missing_modules
from chunker.readers.model import Extracted, Image, Metadata, Place, ReaderError
from chunker.readers.sniffing import is_zip, zip_names

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
"""An OLE compound file: what Office writes for a password-protected OOXML document (and for the
legacy .doc/.ppt formats)."""
_ENCRYPTED_STREAM = "EncryptedPackage".encode("utf-16-le")
_LOCAL_HEADER = re.compile(rb"PK\x03\x04.{22}(..)(..)", re.DOTALL)
_SCAN_BYTES = 64 * 1024 * 1024
DAMAGED = (zipfile.BadZipFile, zlib.error, EOFError, OSError, KeyError, ValueError,
           NotImplementedError, SyntaxError)
"""What a damaged container raises while it is read: a bad CRC or deflate stream, a missing
member, an unsupported zip feature, malformed XML (lxml's XMLSyntaxError is a SyntaxError)."""


@dataclass(slots=True)
class _Block:
    text: str
    place: dict
    group: object  # a list item's list: joined to the next item of the same list by one newline


class MarkdownBuilder:
    """Collects blocks of Markdown with their places; `build()` joins and tiles them."""

    def __init__(self) -> None:
        self._blocks: list[_Block] = []
        self._images: list[Image] = []
        self._pending: list[dict] = []  # images shown by the next block
        self._offset = 0  # where the text so far ends

    def add(self, text: str, *, group: object = None, **place: object) -> None:
        """One block (a paragraph, a heading, a table, a list item); empty text is dropped.
        List items of one list share a `group` (any value but None)."""
        text = text.strip("\n")
        if not text.strip():
            return
        if self._blocks:
            prev = self._blocks[-1]
            self._offset += len(self._sep(prev, group))
        self._images += [Image(offset=self._offset, **image) for image in self._pending]
        self._pending.clear()
        self._blocks.append(_Block(text, dict(place), group))
        self._offset += len(text)

    def image(self, name: str, data: bytes, mime: str, *, alt: str | None,
              caption: str | None = None) -> None:
        """An image shown by the next block added (its `![alt](name)` is in that block's text)."""
        self._pending.append(dict(name=name, data=data, mime=mime, alt=alt, caption=caption))

    @staticmethod
    def _sep(block: _Block, group: object) -> str:
        return "\n" if block.group is not None and block.group == group else "\n\n"

    def build(self, metadata: Metadata, notes: list[str] | tuple[str, ...] = ()) -> Extracted:
        parts: list[str] = []
        places: list[Place] = []
        pos = 0
        for i, block in enumerate(self._blocks):
            nxt = self._blocks[i + 1] if i + 1 < len(self._blocks) else None
            sep = "\n" if nxt is None else self._sep(block, nxt.group)
            chunk = block.text + sep
            parts.append(chunk)
            places.append(Place(start=pos, end=pos + len(chunk), **block.place))
            pos += len(chunk)
        return Extracted(markdown="".join(parts), places=tuple(places), metadata=metadata,
                         images=tuple(self._images), notes=tuple(notes))


def split_authors(text: str | None) -> tuple[str, ...]:
    """`Ann Lee; Bob Roy` (or comma separated) as its names."""
    return tuple(a.strip() for a in re.split(r"[;,]", text or "") if a.strip())


def core_metadata(cp, language: str | None = None) -> Metadata:
    """Metadata from OOXML core properties (python-docx's and python-pptx's `core_properties`);
    `language` where the properties have none."""
    when = cp.created or cp.modified
    return Metadata(title=(cp.title or "").strip() or None, authors=split_authors(cp.author),
                    date=when.date().isoformat() if when else None,
                    language=cp.language or language)


def heading(level: int, text: str) -> str:
    """`## text` with the level clamped to Markdown's six, the text on one line."""
    return "#" * max(1, min(6, level)) + " " + " ".join(text.split())


_BLOCK_START = re.compile(r"^(?:#|>|[-+*](?:\s|$)|\||```|~~~|=+\s*$)")
_ORDERED_START = re.compile(r"^(\d{1,9})([.)])(\s|$)")


def escape_block(text: str) -> str:
    """A paragraph's text with a backslash where Markdown would read its start as structure
    (a heading, a quote, a list item, a table, a fence): `\\# 1`, `2024\\. A year`."""
    m = _ORDERED_START.match(text)
    if m:
        return f"{m.group(1)}\\{text[len(m.group(1)):]}"
    return "\\" + text if _BLOCK_START.match(text) else text


def cell_text(text: str) -> str:
    """A table cell's content on one line, its pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def gfm_table(rows: list[list[str]]) -> str:
    """A GFM pipe table; the first row is the header (GFM has no table without one)."""
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    rows = [[cell_text(c) for c in r] + [""] * (width - len(r)) for r in rows]
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return "\n".join(lines)


def fence(code: str) -> str:
    """A fenced code block, its fence longer than any backtick run inside."""
    longest = max((len(m) for m in re.findall(r"`+", code)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}\n{code.rstrip(chr(10))}\n{ticks}"


def inline_code(text: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def emphasis(text: str, marker: str) -> str:
    """`*text*` with the run's outer spaces kept outside the markers (`* a*` is no emphasis)."""
    core = text.strip()
    if not core:
        return text
    lead = text[: len(text) - len(text.lstrip())]
    trail = text[len(text.rstrip()):]
    return f"{lead}{marker}{core}{marker}{trail}"


def linked(text: str, target: str) -> str:
    """`[text](target)`, the text's outer spaces kept outside the brackets; a link's runs (its
    emphasis, its code) are written inside one link, not one link each."""
    core = text.strip()
    if not core:
        return text
    lead, trail = text[: len(text) - len(text.lstrip())], text[len(text.rstrip()):]
    return f"{lead}[{core}]({target}){trail}"


def open_zip(path: Path, *, kind: str, label: str, required: str,
             max_bytes: int | None = None) -> zipfile.ZipFile:
    """The container, or ReaderError: `encrypted-<kind>` for a password-protected Office file
    (an OLE compound file holding an EncryptedPackage), `broken-<kind>` for a truncated or
    damaged zip or one without its `required` member."""
    with open(path, "rb") as f:
        head = f.read(len(OLE_MAGIC))
    if head == OLE_MAGIC:
        raise ole_error(path, kind=kind, label=label)
    z = _open(path, path, kind=kind, label=label, required=required)
    if max_bytes is not None:
        size = sum(i.file_size for i in z.infolist())
        if size > max_bytes:
            z.close()
            raise ReaderError(f"{path} holds {size} bytes uncompressed, over the limit of "
                              f"{max_bytes} (--max-bytes)", reason="too-large")
    return z


def check_container(data: bytes, path: Path, *, kind: str, label: str, required: str) -> zipfile.ZipFile:
    """A reader's cheap `check` on the file's bytes: ReaderError as `open_zip` raises it, else
    the open container (for a format's own further test)."""
    if data.startswith(OLE_MAGIC):
        raise ole_error(path, kind=kind, label=label, data=data)
    return _open(io.BytesIO(data), path, kind=kind, label=label, required=required)


def _open(source, path: Path, *, kind: str, label: str, required: str) -> zipfile.ZipFile:
    try:
        z = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, EOFError, ValueError) as exc:
        raise ReaderError(f"{path} is a damaged {label} (not a readable zip: {exc})",
                          reason=f"broken-{kind}") from exc
    if required not in z.namelist():
        z.close()
        raise ReaderError(f"{path} is a damaged {label} (it has no {required})", reason=f"broken-{kind}")
    return z


def damaged(path: Path, *, kind: str, label: str, exc: BaseException) -> ReaderError:
    """`broken-<kind>`, its message on one line whatever the library's said."""
    return ReaderError(f"{path} is a damaged {label} ({' '.join(str(exc).split())[:200]})",
                       reason=f"broken-{kind}")


def ole_error(path: Path, *, kind: str, label: str, data: bytes | None = None) -> ReaderError:
    data = (Path(path).read_bytes() if data is None else data)[:_SCAN_BYTES]
    if _ENCRYPTED_STREAM in data:
        return ReaderError(f"{path} is a password-protected {label}: save it without a "
                           "password and read that copy", reason=f"encrypted-{kind}")
    return ReaderError(f"{path} is a legacy Office (97-2003) file, not a {label}: save it "
                       f"as .{kind} and read that copy", reason=f"legacy-{kind}")


def is_ole(head: bytes) -> bool:
    return head.startswith(OLE_MAGIC)


def local_names(path: Path) -> set[str]:
    """Member names from the zip's local headers, read front to back: what a truncated zip
    (no central directory) still says about itself."""
    try:
        with open(path, "rb") as f:
            data = f.read(_SCAN_BYTES)
    except OSError:
        return set()
    names = set()
    for m in _LOCAL_HEADER.finditer(data):
        n = int.from_bytes(m.group(1), "little")
        start = m.end()
        names.add(data[start:start + n].decode("utf-8", "replace"))
    return names


def zip_has(path: Path, names: frozenset[str], member: str) -> bool:
    """The zip holds `member`: by its directory, or for a damaged zip by its local headers."""
    if names:
        return member in names
    return member in local_names(path)


def suffix_in(path: Path, suffixes: tuple[str, ...]) -> bool:
    return os.fspath(path).lower().endswith(suffixes)


class OoxmlReader(Reader):
    """An Office Open XML format (DOCX, PPTX): a zip holding `member`, or, encrypted, an OLE
    compound file with one of `suffixes`; subclasses give `extract`."""

    member: ClassVar[str] = ""
    suffixes: ClassVar[tuple[str, ...]] = ()
    module: ClassVar[str] = ""
    doing: ClassVar[str] = ""

    def extract(self, path: Path, max_bytes: int | None) -> Extracted:  # pragma: no cover
        raise NotImplementedError

    def sniff(self, head: bytes, path: Path) -> bool:
        if is_ole(head):  # password-protected (or legacy) Office file: read() says which
            return suffix_in(path, self.suffixes)
        return is_zip(head) and zip_has(path, zip_names(path), self.member)

    def available(self) -> str | None:
        return missing_modules([self.module], self.extra, self.doing)

    def check(self, data: bytes, path: Path, settings: ReadSettings) -> None:
        check_container(data, path, kind=self.id, label=self.label, required=self.member).close()

    def read(self, path: Path, settings: ReadSettings) -> Extracted:
        result = self.extract(path, settings.max_bytes)
        if not result.markdown.strip():
            raise ReaderError(f"{path} has no text", reason="empty")
        return result

"""Reading a document file: exact text, or one clear error.

The text is decoded exactly as stored (no newline translation), because the lossless
invariant compares the leaves with it character for character.
"""

from __future__ import annotations

import codecs
from pathlib import Path

DEFAULT_MAX_BYTES = 200 * 1024 * 1024


class BadInput(ValueError):
    """The document cannot be used; the message is one line for the user."""


def decode_document(data: bytes, *, encoding: str = "utf-8", source: str = "input") -> str:
    explicit = encoding.lower().replace("_", "-") not in ("utf-8", "utf8")
    if not explicit:
        if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            raise BadInput(f"{source} is UTF-16 (it starts with a UTF-16 byte-order mark); "
                           "pass --encoding utf-16 or convert it to UTF-8")
        if b"\x00" in data:
            raise BadInput(f"{source} looks binary (it contains NUL bytes); chunker reads text files")
        encoding = "utf-8-sig"
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise BadInput(f"{source} is not valid {encoding} (byte {exc.start}); "
                       "pass --encoding NAME (for example --encoding latin-1)") from None
    except LookupError:
        raise BadInput(f"unknown encoding {encoding!r}") from None
    if not text:
        raise BadInput(f"{source} is empty")
    if not text.strip():
        raise BadInput(f"{source} holds only whitespace")
    if "\x00" in text:
        raise BadInput(f"{source} contains NUL characters; chunker reads text files")
    return text


def read_document(path: str | Path, *, encoding: str = "utf-8",
                  max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    p = Path(path)
    if not p.exists():
        raise BadInput(f"no such file: {p}")
    if p.is_dir():
        raise BadInput(f"{p} is a directory; give a text file")
    size = p.stat().st_size
    if size > max_bytes:
        raise BadInput(f"{p} is {size:,} bytes, over the limit of {max_bytes:,} (--max-bytes)")
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise BadInput(f"cannot read {p}: {exc.strerror}") from None
    return decode_document(data, encoding=encoding, source=str(p))

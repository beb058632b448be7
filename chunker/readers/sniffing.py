"""Helpers a reader's `sniff` uses: telling containers apart by their content, cheaply."""

from __future__ import annotations

import functools
import os
import re
import zipfile
from pathlib import Path

ZIP_MAGIC = b"PK\x03\x04"
_MIMETYPE = re.compile(rb"^PK\x03\x04.{26}mimetype([\x20-\x7e]{1,80})", re.DOTALL)
_HTML = re.compile(rb"<!doctype\s+html|<html[\s>]|xmlns\s*=\s*[\"']http://www\.w3\.org/1999/xhtml", re.IGNORECASE)


def is_zip(head: bytes) -> bool:
    return head.startswith(ZIP_MAGIC)


def zip_mimetype(head: bytes) -> str | None:
    """The `mimetype` member's content when it is the zip's first member, stored (EPUB, ODF
    require exactly that), else None: `application/epub+zip`."""
    m = _MIMETYPE.match(head)
    if m is None:
        return None
    value = m.group(1)
    end = value.find(b"PK")
    return (value[:end] if end >= 0 else value).decode("ascii").strip() or None


def zip_names(path: str | Path) -> frozenset[str]:
    """The member names of a zip file (empty when it is no readable zip: a truncated one)."""
    p = os.fspath(path)
    try:
        st = os.stat(p)
    except OSError:
        return frozenset()
    return _names(p, st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=64)
def _names(path: str, stamp: int, size: int) -> frozenset[str]:
    try:
        with zipfile.ZipFile(path) as z:
            return frozenset(z.namelist())
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return frozenset()


def looks_html(head: bytes) -> bool:
    """An HTML or XHTML document: a doctype, an `<html` tag or the XHTML namespace in its head."""
    return _HTML.search(head) is not None

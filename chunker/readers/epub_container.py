"""An EPUB's container: telling one by its content, refusing DRM (font obfuscation is no DRM)
and a book too large to read (`chunker/readers/epub.py` reads the rest)."""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path

from chunker.readers.model import ReaderError
from chunker.readers.sniffing import zip_mimetype, zip_names

# Font obfuscation (IDPF, Adobe) is not DRM: the text is readable.
FONT_OBFUSCATION = {"http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"}
EPUB_MIME = b"application/epub+zip"


def is_epub(head: bytes, path: Path | None = None) -> bool:
    """An EPUB by content: a zip whose first entry is `mimetype` = application/epub+zip (as the
    spec requires), or any zip holding such a `mimetype` file."""
    if not head.startswith(b"PK\x03\x04"):
        return False
    if zip_mimetype(head) == EPUB_MIME.decode():
        return True
    if path is None or "mimetype" not in zip_names(path):
        return False
    try:
        with zipfile.ZipFile(path) as zf:
            return zf.read("mimetype").strip() == EPUB_MIME
    except (KeyError, OSError, zipfile.BadZipFile, zlib.error, EOFError, ValueError):
        return False


def check_drm(zf: zipfile.ZipFile, name: str) -> None:
    """Raise `drm-epub` when the book's content is encrypted (fonts alone do not count)."""
    names = set(zf.namelist())
    if "META-INF/rights.xml" in names:
        raise ReaderError(f"{name} is DRM-protected (META-INF/rights.xml): chunker cannot "
                          "read its text", "drm-epub")
    if "META-INF/encryption.xml" not in names:
        return
    from lxml import etree

    try:
        root = etree.fromstring(zf.read("META-INF/encryption.xml"))
    except etree.XMLSyntaxError:
        raise ReaderError(f"{name} has an unreadable encryption.xml", "drm-epub") from None
    for data in root.iter("{*}EncryptedData"):
        method = next(data.iter("{*}EncryptionMethod"), None)
        if method is None or method.get("Algorithm") not in FONT_OBFUSCATION:
            raise ReaderError(f"{name} is DRM-protected (its content is encrypted, "
                              "META-INF/encryption.xml): chunker cannot read its text",
                              "drm-epub")


def check_size(path: Path, max_bytes: int) -> None:
    """Refuse a book whose members, uncompressed, exceed `max_bytes` (a zip bomb too)."""
    try:
        with zipfile.ZipFile(path) as zf:
            size = sum(info.file_size for info in zf.infolist())
    except (zipfile.BadZipFile, OSError, EOFError, ValueError):
        raise ReaderError(f"{path.name} is not a readable EPUB (a broken or truncated zip)",
                          "broken-epub") from None
    if size > max_bytes:
        raise ReaderError(f"{path.name} holds {size} bytes uncompressed, more than {max_bytes} "
                          "(--max-bytes)", "too-large")

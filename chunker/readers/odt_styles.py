"""An ODT's namespaces, what its styles say (code, outline level: a heading by style,
bold/italic/monospace of a span, bullet or number of a list level; read from `styles.xml`,
the named styles, and `content.xml`, the automatic ones) and its metadata (`meta.xml`);
`chunker/readers/odt.py` uses this.
"""

from __future__ import annotations

import re
import zipfile

from chunker.readers.model import Metadata
from chunker.readers.office import split_authors

NS = {
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "style": "urn:oasis:names:tc:opendocument:xmlns:style:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "draw": "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0",
    "fo": "urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0",
    "xlink": "http://www.w3.org/1999/xlink",
    "dc": "http://purl.org/dc/elements/1.1/",
    "meta": "urn:oasis:names:tc:opendocument:xmlns:meta:1.0",
    "svg": "urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0",
    "manifest": "urn:oasis:names:tc:opendocument:xmlns:manifest:1.0",
}
_CODE_STYLE = re.compile(r"preformatted|source|code|verbatim", re.IGNORECASE)
_MONO = re.compile(r"mono|courier|consolas|menlo|monaco|code", re.IGNORECASE)


def q(name: str) -> str:
    prefix, local = name.split(":")
    return f"{{{NS[prefix]}}}{local}"


class Styles:
    def __init__(self, *roots) -> None:
        self._by_name: dict[str, object] = {}
        self._lists: dict[str, object] = {}
        for root in roots:
            if root is None:
                continue
            for el in root.iter(q("style:style")):
                self._by_name[el.get(q("style:name"))] = el
            for el in root.iter(q("text:list-style")):
                self._lists[el.get(q("style:name"))] = el

    def _chain(self, name: str | None):
        seen = set()
        while name and name not in seen and name in self._by_name:
            seen.add(name)
            el = self._by_name[name]
            yield name, el
            name = el.get(q("style:parent-style-name"))

    def is_code(self, name: str | None) -> bool:
        return any(_CODE_STYLE.search(n) or _CODE_STYLE.search(el.get(q("style:display-name")) or "")
                   for n, el in self._chain(name))

    def outline_level(self, name: str | None) -> int | None:
        if name == "Title":  # the document title, as DOCX's Title style (often left undefined)
            return 1
        for n, el in self._chain(name):
            if n == "Title":
                return 1
            lvl = el.get(q("style:default-outline-level"))
            if lvl and lvl.isdigit():
                return int(lvl)
        return None

    def text_flags(self, name: str | None) -> tuple[bool, bool, bool]:
        bold = italic = code = False
        for n, el in self._chain(name):
            props = el.find(q("style:text-properties"))
            if props is not None:
                bold = bold or props.get(q("fo:font-weight")) in ("bold", "600", "700", "800", "900")
                italic = italic or props.get(q("fo:font-style")) in ("italic", "oblique")
                code = code or bool(_MONO.search(props.get(q("style:font-name")) or ""))
            code = code or bool(_CODE_STYLE.search(n))
        return bold, italic, code

    def numbered(self, list_style: str | None, level: int) -> bool:
        el = self._lists.get(list_style or "")
        if el is None:
            return False
        for child in el:
            if child.get(q("text:level")) == str(level):
                return child.tag == q("text:list-level-style-number")
        return False


def odt_metadata(z: zipfile.ZipFile, etree) -> Metadata:
    if "meta.xml" not in z.namelist():
        return Metadata()
    meta = etree.fromstring(z.read("meta.xml")).find(q("office:meta"))
    if meta is None:
        return Metadata()

    def text(name: str) -> str | None:
        el = meta.find(q(name))
        return (el.text or "").strip() or None if el is not None else None

    authors = text("dc:creator") or text("meta:initial-creator")
    date = text("meta:creation-date") or text("dc:date")
    return Metadata(title=text("dc:title"),
                    authors=split_authors(authors),
                    date=date[:10] if date else None, language=text("dc:language"))

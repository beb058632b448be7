"""What a DOCX's styles and numbering say about a paragraph: its heading level (by style name
or outline level, up the `basedOn` chain), whether it is code, its list numbering, and the
formatting its character style gives a run. Read from `word/styles.xml` and
`word/numbering.xml` as python-docx loads them (`chunker/readers/docx.py` uses this).
"""

from __future__ import annotations

import re

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
CODE_STYLE = re.compile(r"code|verbatim|preformatted|source|macro", re.IGNORECASE)
GENERATED_STYLE = re.compile(r"^(?:toc|contents|index) ?(?:[1-9]|heading)$", re.IGNORECASE)
"""A table of contents' or an index's entries and title (Word's `toc 1`, `TOC Heading`,
`index 1`; LibreOffice's `Contents 1`): text the document generates from its headings."""
_HEADING_STYLE = re.compile(r"^heading\s*([1-9])$", re.IGNORECASE)
_OFF = {"0", "false", "off", "none"}


def w(tag: str) -> str:
    return f"{{{W}}}{tag}"


def val(el, tag: str) -> str | None:
    child = el.find(w(tag)) if el is not None else None
    return None if child is None else child.get(w("val"), "true")


def on(el, tag: str) -> bool:
    v = val(el, tag)
    return v is not None and v.lower() not in _OFF


class Styles:
    """The style chain facts a block needs: heading level, code, numbering, run formatting."""

    def __init__(self, styles_el) -> None:
        self._by_id = {s.get(w("styleId")): s for s in styles_el.iter(w("style"))}

    def _chain(self, style_id: str | None):
        seen = set()
        while style_id and style_id not in seen and style_id in self._by_id:
            seen.add(style_id)
            el = self._by_id[style_id]
            yield el
            style_id = val(el, "basedOn")

    def name(self, style_id: str | None) -> str:
        el = self._by_id.get(style_id or "")
        return (val(el, "name") or style_id or "") if el is not None else (style_id or "")

    def heading_level(self, style_id: str | None, ppr) -> int | None:
        """The paragraph's outline level (1-9), or None for body text. The nearest word wins,
        as in Word: the paragraph's own `w:outlineLvl`, else the first style up the `basedOn`
        chain that sets one or is named `Heading N` (or `Title`). Level 9 is body text: Word's
        `TOC Heading`, based on `Heading 1`, sets it so that it is no heading."""
        lvl = val(ppr, "outlineLvl")
        if lvl is None:
            for el in self._chain(style_id):
                lvl = val(el.find(w("pPr")), "outlineLvl")
                if lvl is not None:
                    break
                name = val(el, "name") or ""
                m = _HEADING_STYLE.match(name)
                if m:
                    return int(m.group(1))
                if name.lower() == "title":
                    return 1
        if lvl is not None and lvl.isdigit() and int(lvl) < 9:
            return int(lvl) + 1
        return None

    def matches(self, style_id: str | None, pattern: re.Pattern) -> bool:
        return any(pattern.search(val(el, "name") or "") for el in self._chain(style_id))

    def numbering(self, style_id: str | None) -> tuple[str, int] | None:
        for el in self._chain(style_id):
            num = el.find(f"{w('pPr')}/{w('numPr')}")
            if num is not None:
                return val(num, "numId") or "0", int(val(num, "ilvl") or 0)
        return None

    def run_flags(self, style_id: str | None) -> tuple[bool, bool, bool]:
        bold = italic = code = False
        for el in self._chain(style_id):
            rpr = el.find(w("rPr"))
            bold, italic = bold or on(rpr, "b"), italic or on(rpr, "i")
            code = code or bool(CODE_STYLE.search(val(el, "name") or ""))
        return bold, italic, code


class Numbering:
    """numId -> bullet or number for each level (`numFmt`), and counters for numbered lists."""

    def __init__(self, numbering_el) -> None:
        self._fmt: dict[tuple[str, int], str] = {}
        self._counts: dict[str, list[int]] = {}
        if numbering_el is None:
            return
        abstract = {a.get(w("abstractNumId")): a for a in numbering_el.iter(w("abstractNum"))}
        for num in numbering_el.iter(w("num")):
            a = abstract.get(val(num, "abstractNumId"))
            for lvl in a.iter(w("lvl")) if a is not None else ():
                fmt = val(lvl, "numFmt") or "decimal"
                self._fmt[(num.get(w("numId")), int(lvl.get(w("ilvl"), "0")))] = fmt

    def marker(self, num_id: str, ilvl: int) -> str:
        fmt = self._fmt.get((num_id, ilvl), "bullet")
        counts = self._counts.setdefault(num_id, [0] * 10)
        ilvl = min(ilvl, 9)
        counts[ilvl] += 1
        counts[ilvl + 1:] = [0] * (9 - ilvl)
        return "- " if fmt in ("bullet", "none") else f"{counts[ilvl]}. "

"""A table's caption and the unit stated above it, from the text around its pipe lines.

The caption is a `Table 3: ...` line above or below the table, else the sentence that
introduces it (`_intro`), else the heading it sits under; a unit (`(in millions)`) may be
stated by a short paragraph right above it.
"""

from __future__ import annotations

import re

from chunker.document.markdown_records import DocumentStructure
from chunker.document.structure import section_of
from chunker.structured.numbers import header_unit

_TAGS = re.compile(r"<[^>]+>")
CAPTION = re.compile(r"^\s*[*_]*(Table|Tab\.|Exhibit)\s+([A-Z]-?)?\d+(?:[.\-]\d+)*[a-z]?[*_]*"
                     r"\s*(?:[:.\u2014\u2013]|\s-\s)", re.IGNORECASE)
"""A caption line: `Table 3: ...`, `**Table 2.1.** ...`, `Exhibit 4 - ...`."""
INTRO_MAX_CHARS = 300
"""The last sentence above the table that ends with `:` ("the following table summarizes ...:")
or points down at it ("the following table is ...") is its caption when there is no `Table N`
line, if it is at most this long."""



def paragraph_above(text: str, start: int) -> tuple[int, int] | None:
    """The span of the paragraph right above `start` (blank lines between allowed)."""
    before = text[:start].rstrip()
    if not before:
        return None
    cut = max(before.rfind("\n\n"), before.rfind("\r\n\r\n"))
    para_start = cut + 2 if cut >= 0 else 0
    while para_start < len(before) and before[para_start] in "\r\n":
        para_start += 1
    return para_start, len(before)


def _paragraph_below(text: str, end: int) -> tuple[int, int] | None:
    rest = text[end:]
    stripped = rest.lstrip()
    if not stripped:
        return None
    start = end + len(rest) - len(stripped)
    cut = re.search(r"\r?\n\s*\r?\n", text[start:])
    return start, start + (cut.start() if cut else len(text) - start)


def caption_of(text: str, span: tuple[int, int], structure: DocumentStructure | None
             ) -> tuple[str | None, tuple[int, int] | None]:
    above, below = paragraph_above(text, span[0]), _paragraph_below(text, span[1])
    for para in (above, below):
        if para and CAPTION.match(_TAGS.sub("", text[para[0]:para[1]])):
            return " ".join(_TAGS.sub("", text[para[0]:para[1]]).strip(" *_").split()), para
    if above and not text[above[0]:above[1]].lstrip().startswith(("#", "|")):
        intro = _intro(text, above)
        if intro is not None:
            return " ".join(text[intro[0]:intro[1]].strip(" *_").split()), intro
    if structure is not None:
        section = section_of(span[0], structure)
        if section.heading is not None:
            return section.heading.title, section.heading.span
    return None, None


_SENTENCE_END = re.compile(r"(?<=[.!?:])\s+(?=[A-Z(\"\u201c])")
_POINTS_DOWN = re.compile(r"\b(following|below)\s+(table|tables|figures|amounts)\b", re.IGNORECASE)


def _intro(text: str, para: tuple[int, int]) -> tuple[int, int] | None:
    """The sentence that introduces the table: the paragraph's last sentence (often run into
    the paragraph above it, in a PDF) when it ends with `:` or points down at the table ("the
    following table is on a sequential basis."), if at most INTRO_MAX_CHARS long."""
    start, end = para
    cut = [m.end() for m in _SENTENCE_END.finditer(text, start, end)]
    s = cut[-1] if cut else start
    sentence = text[s:end].strip().strip("*_").strip()
    if len(sentence) > INTRO_MAX_CHARS or not (sentence.endswith(":") or _POINTS_DOWN.search(sentence)):
        return None
    lead = len(text[s:end]) - len(text[s:end].lstrip())
    return s + lead, end


def unit_above(text: str, span: tuple[int, int]) -> str | None:
    above = paragraph_above(text, span[0])
    if above and above[1] - above[0] <= INTRO_MAX_CHARS:
        return header_unit(text[above[0]:above[1]])
    return None

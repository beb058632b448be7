"""Where a span of the extracted text lies in the original file, from the places that tile it.

A node records it (hierarchy.json's `location`, its frontmatter, what the navigation tools
return): the pages, container parts, slides and paragraphs its text came from, whatever the
format has, and the lowest OCR confidence among the stretches of it that OCR read.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from chunker.readers.model import Place


@dataclass(frozen=True, slots=True)
class Location:
    pages: tuple[int, int] | None = None
    """First and last 1-based page."""
    parts: tuple[str, ...] | None = None
    """The container's files the text comes from, in order (an EPUB's chapter files)."""
    anchor: str | None = None
    """The id nearest before the span's start in its first part (`#section-2`)."""
    slides: tuple[int, int] | None = None
    """First and last 1-based slide."""
    paragraphs: tuple[int, int] | None = None
    """The first paragraph (of the first part) and the last (of the last part), 0-based."""
    ocr_confidence: float | None = None
    """The lowest mean confidence (0-100) of the OCR'd stretches the span holds."""

    def as_dict(self) -> dict:
        """The fields that are set, JSON-ready (ranges as two-item lists)."""
        out: dict = {}
        for name in ("pages", "parts", "anchor", "slides", "paragraphs", "ocr_confidence"):
            value = getattr(self, name)
            if value is not None:
                out[name] = list(value) if isinstance(value, tuple) else value
        return out


def _range(values: list[int]) -> tuple[int, int] | None:
    return (values[0], values[-1]) if values else None


class Locator:
    """Answers `locate(start, end)` over one document's places (sorted, tiling its text)."""

    def __init__(self, places: Sequence[Place]) -> None:
        self.places = tuple(places)
        self._starts = [p.start for p in self.places]
        self.has_location = any(p.page is not None or p.part is not None or p.slide is not None
                                or p.paragraph is not None or p.ocr_confidence is not None
                                for p in self.places)

    def places_in(self, start: int, end: int) -> tuple[Place, ...]:
        """The places `[start, end)` overlaps; an empty span: the place(s) at its offset."""
        if not self.places:
            return ()
        i = max(0, bisect.bisect_right(self._starts, start) - 1)
        while i > 0 and self.places[i - 1].end > start:
            i -= 1
        out = []
        for place in self.places[i:]:
            if place.start >= end and not (start == end and place.start == start):
                break
            if place.start < end and place.end > start or place.start == start == end or (
                    start == end and place.start <= start < place.end):
                out.append(place)
        if not out and start == end == self.places[-1].end:  # the text's end: the last place
            out.append(self.places[-1])
        return tuple(out)

    def locate(self, start: int, end: int) -> Location | None:
        """The span's location; None for a format with no location beyond characters."""
        if not self.has_location:
            return None
        within = self.places_in(start, end)
        if not within:
            return None
        slides = [p.slide for p in within if p.slide is not None]
        paragraphs = [p.paragraph for p in within if p.paragraph is not None]
        parts: list[str] = []
        for p in within:
            if p.part is not None and (not parts or parts[-1] != p.part):
                parts.append(p.part)
        ocr = [p.ocr_confidence for p in within if p.ocr_confidence is not None]
        return Location(pages=self.pages(start, end), parts=tuple(dict.fromkeys(parts)) or None,
                        anchor=self._anchor(within[0]), slides=_range(slides),
                        paragraphs=_range(paragraphs), ocr_confidence=min(ocr) if ocr else None)

    def _anchor(self, first: Place) -> str | None:
        """`first`'s anchor, else the nearest earlier one in the same part."""
        i = bisect.bisect_right(self._starts, first.start) - 1
        while i >= 0:
            place = self.places[i]
            if place.part != first.part:
                return None
            if place.anchor is not None:
                return place.anchor
            i -= 1
        return None

    def pages(self, start: int, end: int) -> tuple[int, int] | None:
        """First and last page the span touches (as `document.pdf_model.pages_of` counts: an
        empty page at the span's edge is not touched; an empty span names the page at its
        offset, an empty scanned page there first); None when the places have no pages."""
        paged = [p for p in self.places if p.page is not None]
        if not paged:
            return None
        ends = [p.end for p in paged]

        def at(offset: int) -> int:
            i = bisect.bisect_right(ends, offset)
            return paged[min(i, len(paged) - 1)].page

        if start == end:
            for p in paged:
                if p.start == p.end == start and p.scanned:
                    return p.page, p.page
            return at(start), at(start)
        return at(start), at(end - 1)

    def placeholders_in(self, start: int, end: int) -> list[Place]:
        """The stand-in lines (scans OCR did not read) the span holds."""
        return [p for p in self.places_in(start, end) if p.placeholder]


def describe(location: dict | None) -> str:
    """A location (`Location.as_dict()`, as hierarchy.json keeps it) in a few words, for
    links and the navigation's headers: `pages 3–5`, `slide 2`, `ch03.xhtml#intro`,
    `paragraphs 4–9`, `OCR 71%`; empty when there is none."""
    if not location:
        return ""

    def span(word: str, pair) -> str:
        first, last = pair
        return f"{word} {first}" if first == last else f"{word}s {first}\u2013{last}"

    out = []
    if location.get("pages"):
        out.append(span("page", location["pages"]))
    if location.get("slides"):
        out.append(span("slide", location["slides"]))
    parts = location.get("parts") or []
    if parts:
        first = parts[0] + (f"#{location['anchor']}" if location.get("anchor") else "")
        out.append(first if len(parts) == 1 else f"{first} \u2026 {parts[-1]}")
    if location.get("paragraphs") and not location.get("pages") and not location.get("slides"):
        out.append(span("paragraph", [p + 1 for p in location["paragraphs"]]))
    if location.get("ocr_confidence") is not None:
        out.append(f"OCR {round(location['ocr_confidence'])}%")
    return ", ".join(out)

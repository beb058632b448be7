"""Which text styles of a PDF are headings, and at which level, from glyph sizes and bold.

A first pass over the pages counts characters per style (font, size); the style with the most
characters is the body text. Styles clearly larger than the body are headings, larger first;
bold styles near body size come last (reports mark sections with bold body-size lines). The
counts are running sums per style, so the pass holds no per-page data.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

import pymupdf

from chunker.document.pdf_model import PdfSettings

StyleKey = tuple[str, float]
"""(font name, font size rounded to 0.1 pt): what a span is set in."""

_BOLD_FLAG = 16  # bit 4 of a span's `flags` (PyMuPDF's TEXT_FONT_BOLD)
_MAX_LEVEL = 6  # Markdown has six heading levels


def style_of(span: dict) -> StyleKey:
    return span["font"], round(float(span["size"]), 1)


def is_bold(span: dict) -> bool:
    return bool(span["flags"] & _BOLD_FLAG) or "bold" in span["font"].lower()


@dataclass
class _StyleStats:
    chars: int = 0
    width: float = 0.0
    degenerate_chars: int = 0
    bold: bool = False


@dataclass
class FontProfile:
    """Heading levels by style for one document (level 0: body text)."""

    levels: dict[StyleKey, int] = field(default_factory=dict)
    body: StyleKey | None = None
    degenerate: bool = False
    """Span heights were degenerate (Type3 fonts); sizes are mean advance widths."""

    def level_of(self, style: StyleKey | None) -> int:
        return self.levels.get(style, 0) if style is not None else 0


def text_pages(doc: pymupdf.Document) -> Iterable[dict]:
    """Each page's `dict` text, one page at a time (the page object is dropped after use)."""
    for number in range(doc.page_count):
        page = doc.load_page(number)
        yield page.get_text("dict", flags=pymupdf.TEXTFLAGS_TEXT)
        del page


def profile_fonts(pages: Iterable[dict], settings: PdfSettings) -> FontProfile:
    """Count characters per style over all pages and rank the heading styles."""
    stats: dict[StyleKey, _StyleStats] = defaultdict(_StyleStats)
    for page in pages:
        for box in page["blocks"]:  # PyMuPDF's text boxes
            for line in box.get("lines", ()):
                for span in line["spans"]:
                    n = len(span["text"].strip())
                    if not n:
                        continue
                    s = stats[style_of(span)]
                    s.chars += n
                    x0, y0, x1, y1 = span["bbox"]
                    s.width += (x1 - x0) * n / len(span["text"])
                    s.degenerate_chars += n if (y1 - y0) < settings.min_glyph_height else 0
                    s.bold = s.bold or is_bold(span)
    if not stats:
        return FontProfile()
    total = sum(s.chars for s in stats.values())
    degenerate = sum(s.degenerate_chars for s in stats.values()) * 2 > total
    sizes = _glyph_sizes(stats, degenerate)
    body = max(stats, key=lambda k: stats[k].chars)
    body_size = sizes[body]
    large = {k: v for k, v in sizes.items() if v >= body_size * settings.heading_size_ratio}
    bold = {k: v for k, v in sizes.items()
            if k not in large and k != body and stats[k].bold and not stats[body].bold
            and v >= body_size * settings.heading_bold_min_ratio}
    levels: dict[StyleKey, int] = {}
    next_level = 1
    for group in (large, bold):
        ranked = _cluster(group, settings.size_cluster_tolerance)
        for rank, members in enumerate(ranked):
            for key in members:
                levels[key] = min(next_level + rank, _MAX_LEVEL)
        next_level += len(ranked)
    return FontProfile(levels=levels, body=body, degenerate=degenerate)


def _glyph_sizes(stats: dict[StyleKey, _StyleStats], degenerate: bool) -> dict[StyleKey, float]:
    """A comparable glyph size per style: the font size, or, when sizes are degenerate, the
    font's mean advance width per character (all sizes of one font pooled)."""
    if not degenerate:
        return {k: k[1] for k in stats}
    chars: dict[str, int] = defaultdict(int)
    width: dict[str, float] = defaultdict(float)
    for (font, _), s in stats.items():
        chars[font] += s.chars
        width[font] += s.width
    return {k: width[k[0]] / chars[k[0]] for k in stats}


def _cluster(sizes: dict[StyleKey, float], tolerance: float) -> list[list[StyleKey]]:
    """Styles grouped by size, largest first; a size within `tolerance` of its group's
    largest joins that group."""
    groups: list[list[StyleKey]] = []
    top = 0.0
    for key in sorted(sizes, key=lambda k: -sizes[k]):
        if groups and sizes[key] >= top * (1 - tolerance):
            groups[-1].append(key)
        else:
            groups.append([key])
            top = sizes[key]
    return groups

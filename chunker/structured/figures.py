"""Figures as `FigureRecord`s: an image paragraph's alt text and path, its caption, and a
description only when a vision model is given (its image into `OUT/media/`: `media.py`; the
vision call: `describe.py`).

The caption is a `Figure 2: ...` line above or below the image, else its title attribute.
The description is the vision model's, kept only when grounded against the caption and the
sentences that cite the figure (the grounding check of every other model text); no vision
model: no description, never an invented one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from markdown_it.token import Token

from chunker.document.markdown_parse import LineOffsets, is_figure, plain_text
from chunker.document.markdown_records import DocumentStructure
from chunker.document.structure import section_of
from chunker.structured.records import FigureRecord

CAPTION = re.compile(r"^\s*[*_]*(Figure|Fig\.)\s+([\w.\-]+)\s*[:.\u2014\u2013-]", re.IGNORECASE)


def parse_figures(text: str, tokens: list[Token], structure: DocumentStructure | None,
                  images: Sequence = ()) -> list[FigureRecord]:
    """The figure paragraphs of `text`; `images` are the reader's `Image`s (bytes and offset),
    matched to a figure by the offset falling inside it, or by name."""
    lines = LineOffsets(text)
    out: list[FigureRecord] = []
    for i, tok in enumerate(tokens):
        if tok.type != "paragraph_open" or not is_figure(tokens[i + 1].children or []):
            continue
        start, end = lines.span(tok)
        image = next(c for c in tokens[i + 1].children if c.type == "image")
        alt = plain_text(image.children or []) or None
        src = image.attrGet("src")
        caption = _caption(text, start, end) or image.attrGet("title") or None
        section = section_of(start, structure).header_path if structure is not None else []
        out.append(FigureRecord(id=f"figure-{len(out) + 1}", span=(start, end), caption=caption,
                                alt=alt, image=str(src) if src else None, section=section))
    for img in images:  # images a reader placed without a figure paragraph (a PDF's)
        if not any(f.span[0] <= img.offset < max(f.span[1], f.span[0] + 1) for f in out):
            out.append(FigureRecord(id="", span=(img.offset, img.offset), caption=img.caption,
                                    alt=img.alt, image=img.name))
    out.sort(key=lambda f: f.span)
    return [f.model_copy(update={"id": f"figure-{k + 1}"}) for k, f in enumerate(out)]


def _caption(text: str, start: int, end: int) -> str | None:
    above = text[:start].rstrip().rsplit("\n", 1)[-1]
    below = text[end:].lstrip().split("\n", 1)[0]
    for line in (below, above):
        if CAPTION.match(line):
            return " ".join(line.strip(" *_").split())
    return None


def citing_text(text: str, figure: FigureRecord) -> str:
    """The sentences that cite the figure by its number ("as Figure 2 shows")."""
    m = CAPTION.match(figure.caption or "")
    if m is None:
        return ""
    pattern = re.compile(rf"[^.\n]*\b(?:Figure|Fig\.)\s+{re.escape(m.group(2).rstrip('.:'))}\b[^.\n]*\.?")
    return " ".join(x.group(0).strip() for x in pattern.finditer(text)
                    if not (figure.span[0] <= x.start() < figure.span[1] + 200))


def describe(figures: list[FigureRecord], text: str, vision: Callable[[FigureRecord], str] | None,
             is_grounded: Callable[[str, list[str]], bool]) -> list[FigureRecord]:
    """Each figure with the vision model's description when one is given and grounded against
    its caption, alt text and citing sentences; else unchanged (no description is invented)."""
    if vision is None:
        return figures
    out = []
    for fig in figures:
        evidence = [x for x in (fig.caption, fig.alt, citing_text(text, fig)) if x]
        said = (vision(fig) or "").strip() if evidence else ""
        out.append(fig.model_copy(update={"description": said}) if said and is_grounded(said, evidence) else fig)
    return out

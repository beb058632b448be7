"""Slide decks (PPTX) read with python-pptx: each slide a section under its title.

A slide's title placeholder becomes `# title` (an untitled slide continues the section before
it, as a deck's continuation slides do); its other shapes follow in reading order (top to
bottom, then left to right, groups opened): text frames as paragraphs (bullets and numbers
where the paragraph or its body placeholder has them, nested by level; a paragraph set wholly
in bold and short, the way decks mark a sub-heading, as `## text`; monospace paragraphs as
code), tables as GFM tables, pictures as images; then the speaker notes as a quoted block
starting `Notes:`.

A place's `slide` is the 1-based slide number and its `part` the slide's (or notes') XML part.
"""

from __future__ import annotations

import re
from pathlib import Path

from chunker.readers.model import Extracted, ExtraMissing, ReaderError
from chunker.readers.office import (
    DAMAGED, MarkdownBuilder, OoxmlReader, core_metadata, damaged, emphasis, escape_block,
    fence, gfm_table, heading, inline_code, open_zip,
)

A = "http://schemas.openxmlformats.org/drawingml/2006/main"
PRESENTATION = "ppt/presentation.xml"
SUBHEADING_MAX_WORDS = 12
"""A wholly bold paragraph of at most this many words, not ending as a sentence, is a sub-heading."""
_MONO = re.compile(r"mono|courier|consolas|menlo|monaco|code", re.IGNORECASE)
_BODY_TYPES = {"BODY", "OBJECT"}  # placeholders whose paragraphs are bullets unless marked


def _a(tag: str) -> str:
    return f"{{{A}}}{tag}"


class _Deck:
    def __init__(self, prs) -> None:
        self.prs = prs
        self.out = MarkdownBuilder()
        self.images = 0
        self.notes: list[str] = []  # what the deck holds that is not read, one line each

    def slide(self, number: int, slide) -> None:
        part = str(slide.part.partname).lstrip("/")
        where = dict(part=part, slide=number)
        title_shape = slide.shapes.title
        if title_shape is not None and title_shape.has_text_frame and title_shape.text_frame.text.strip():
            self.out.add(heading(1, title_shape.text_frame.text), **where)
        for shape in self._ordered(slide.shapes, skip=title_shape):
            self.shape(shape, where)
        if slide.has_notes_slide:
            notes = slide.notes_slide
            frame = notes.notes_text_frame
            paras = [self.inline(p) for p in frame.paragraphs] if frame is not None else []
            paras = [p.strip() for p in paras if p.strip()]
            if paras:
                text = "> Notes: " + "\n>\n> ".join(paras)
                self.out.add(text, part=str(notes.part.partname).lstrip("/"), slide=number)

    @staticmethod
    def _ordered(shapes, skip=None):
        def key(s):
            return (s.top if s.top is not None else 0, s.left if s.left is not None else 0)
        return sorted((s for s in shapes if skip is None or s.shape_id != skip.shape_id), key=key)

    def shape(self, shape, where: dict) -> None:
        kind = getattr(shape, "shape_type", None)
        if hasattr(shape, "shapes") and kind is not None and int(kind) == 6:  # a group
            for inner in self._ordered(shape.shapes):
                self.shape(inner, where)
        elif getattr(shape, "has_table", False) and shape.has_table:
            self.out.add(self.table(shape.table), **where)
        elif kind is not None and int(kind) == 13 or hasattr(shape, "image") and not shape.has_text_frame:
            self.picture(shape, where)
        elif shape.has_text_frame:
            self.frame(shape, where)
        elif getattr(shape, "has_chart", False) and shape.has_chart:
            self.notes.append(f"slide {where['slide']}: a chart ({shape.name}) is not read")
        elif "diagram" in "".join(shape._element.xpath(".//*[local-name()='graphicData']/@uri")):
            self.notes.append(f"slide {where['slide']}: a SmartArt diagram ({shape.name}) is not read")

    def _placeholder_type(self, shape) -> str | None:
        if not shape.is_placeholder:
            return None
        try:
            return shape.placeholder_format.type.name
        except (AttributeError, ValueError):
            return None

    def frame(self, shape, where: dict) -> None:
        body = self._placeholder_type(shape) in _BODY_TYPES
        code: list[str] = []
        counters = [0] * 10
        for p in shape.text_frame.paragraphs:
            ppr = p._p.pPr
            runs = [r for r in p.runs if r.text.strip()]
            if runs and all(_MONO.search(r.font.name or "") for r in runs):
                code.append(p.text)
                continue
            if code:
                self.out.add(fence("\n".join(code)), **where)
                code = []
            text = self.inline(p).strip()
            if not text:
                continue
            bullet = self._bullet(ppr, body)
            level = min(p.level, 9)
            if bullet:
                counters[level] += 1
                counters[level + 1:] = [0] * (9 - level)
                marker = f"{counters[level]}. " if bullet == "number" else "- "
                self.out.add("    " * level + marker + " ".join(text.split("\n")), group=shape.shape_id, **where)
            elif runs and all(r.font.bold for r in runs) and len(p.text.split()) <= SUBHEADING_MAX_WORDS \
                    and not p.text.rstrip().endswith((".", ",", ";", ":")):
                self.out.add(heading(2, p.text), **where)
            else:
                self.out.add(escape_block(text), **where)
        if code:
            self.out.add(fence("\n".join(code)), **where)

    @staticmethod
    def _bullet(ppr, body: bool) -> str | None:
        if ppr is not None:
            if ppr.find(_a("buNone")) is not None:
                return None
            if ppr.find(_a("buAutoNum")) is not None:
                return "number"
            if ppr.find(_a("buChar")) is not None:
                return "bullet"
        return "bullet" if body else None

    @staticmethod
    def inline(paragraph) -> str:
        out = []
        for child in paragraph._p:
            if child.tag == _a("br"):
                out.append("\n")
                continue
            if child.tag not in (_a("r"), _a("fld")):
                continue
            text = "".join(t.text or "" for t in child.iter(_a("t")))
            rpr = child.find(_a("rPr"))
            if not text.strip() or rpr is None:
                out.append(text)
                continue
            latin = rpr.find(_a("latin"))
            if latin is not None and _MONO.search(latin.get("typeface") or ""):
                text = inline_code(text)
            elif rpr.get("b") in ("1", "true") or rpr.get("i") in ("1", "true"):
                bold, italic = rpr.get("b") in ("1", "true"), rpr.get("i") in ("1", "true")
                text = emphasis(text, "***" if bold and italic else "**" if bold else "*")
            link = rpr.find(_a("hlinkClick"))
            rid = link.get("{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id") \
                if link is not None else None
            if rid:
                rels = paragraph.part.rels if hasattr(paragraph, "part") else {}
                if rid in rels and rels[rid].is_external:
                    text = f"[{text}]({rels[rid].target_ref})"
            out.append(text)
        return "".join(out)

    @staticmethod
    def table(table) -> str:
        rows = []
        for row in table.rows:
            rows.append(["" if cell.is_spanned else " ".join(
                _Deck.inline(p) for p in cell.text_frame.paragraphs) for cell in row.cells])
        return gfm_table(rows)

    def picture(self, shape, where: dict) -> None:
        try:
            image = shape.image
        except (AttributeError, ValueError, KeyError):
            return
        alt = " ".join((shape._element.xpath("./*[1]/*[local-name()='cNvPr']/@descr") or [""])[0].split())
        self.images += 1
        name = f"image-{self.images}.{image.ext}"
        self.out.image(name=name, data=image.blob, mime=image.content_type, alt=alt or None)
        self.out.add(f"![{alt}]({name})", **where)


def extract_pptx(path: str | Path, *, max_bytes: int | None = None) -> Extracted:
    path = Path(path)
    try:
        import pptx
        from pptx.exc import PackageNotFoundError
    except ImportError as exc:
        raise ExtraMissing(f"reading {path.name} needs the pptx extra: "
                           "pip install 'chunker-tree[pptx]'", "pptx") from exc
    open_zip(path, kind="pptx", label="PowerPoint deck", required=PRESENTATION,
             max_bytes=max_bytes).close()
    try:
        prs = pptx.Presentation(str(path))
        deck = _Deck(prs)
        for number, slide in enumerate(prs.slides, 1):
            deck.slide(number, slide)
    except ReaderError:
        raise
    except (PackageNotFoundError, *DAMAGED) as exc:
        raise damaged(path, kind="pptx", label="PowerPoint deck", exc=exc) from exc
    return deck.out.build(core_metadata(prs.core_properties), deck.notes)


class PptxReader(OoxmlReader):
    id = "pptx"
    label = "PowerPoint deck"
    extra = "pptx"
    member = PRESENTATION
    suffixes = (".pptx", ".pptm", ".ppt")
    module = "pptx"
    doing = "reading PowerPoint decks"

    def extract(self, path: Path, max_bytes: int | None) -> Extracted:
        return extract_pptx(path, max_bytes=max_bytes)

"""Slide decks (PPTX) read with python-pptx: each slide a section under its title.

A slide's title placeholder (one of type title, never another placeholder that merely has
index 0, as LibreOffice writes its content placeholders) becomes `# title`. An untitled slide
whose first line is short and set in large type (a deck built on blank slides titles them with
a text box) has that line as its `# title`; otherwise it continues the section before it, as a
deck's continuation slides do. The other shapes follow in reading order, groups
opened: shapes side by side (overlapping vertically by half the smaller height) left to right,
rows of them top to bottom, so two columns are read one after the other. Text frames become
paragraphs (bullets and numbers where the paragraph, its shape's list style, its layout's
placeholder or its master's say so, nested by level; a paragraph set wholly in bold and short,
the way decks mark a sub-heading, as `## text`; monospace paragraphs as code), tables GFM
tables, pictures images; then the speaker notes as a quoted block starting `Notes:`.

A place's `slide` is the 1-based slide number and its `part` the slide's (or notes') XML part.
"""

from __future__ import annotations

import re
from pathlib import Path

from chunker.readers.model import Extracted, ExtraMissing, ReaderError
from chunker.readers.office import (
    DAMAGED, MarkdownBuilder, OoxmlReader, core_metadata, damaged, emphasis, escape_block,
    fence, gfm_table, heading, inline_code, linked, open_zip,
)

A = "http://schemas.openxmlformats.org/drawingml/2006/main"
P = "http://schemas.openxmlformats.org/presentationml/2006/main"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PRESENTATION = "ppt/presentation.xml"
SUBHEADING_MAX_WORDS = 12
"""A wholly bold paragraph of at most this many words, not ending as a sentence, is a sub-heading."""
_MONO = re.compile(r"mono|courier|consolas|menlo|monaco|code", re.IGNORECASE)
_BODY_TYPES = {"BODY", "OBJECT"}  # placeholders whose paragraphs are bullets unless marked
_TITLE_TYPES = {"TITLE", "CENTER_TITLE", "VERTICAL_TITLE"}
TITLE_MIN_PT = 24
"""An untitled slide's first line at this size or more is the slide's title (a bold line at the
body's size is not: pandoc's continuation slides start with a sub-heading set in bold)."""
SIDE_BY_SIDE = 0.5
"""Shapes overlapping vertically by this share of the smaller one's height are side by side."""


def _a(tag: str) -> str:
    return f"{{{A}}}{tag}"


class _Deck:
    def __init__(self, prs) -> None:
        self.prs = prs
        self.out = MarkdownBuilder()
        self.images = 0
        self.notes: list[str] = []  # what the deck holds that is not read, one line each
        self._untitled = False  # the slide has no title yet: its first line may be one

    def slide(self, number: int, slide) -> None:
        part = str(slide.part.partname).lstrip("/")
        where = dict(part=part, slide=number)
        title_shape = next((s for s in slide.placeholders if self._placeholder_type(s) in _TITLE_TYPES
                            and s.has_text_frame and s.text_frame.text.strip()), None)
        self._untitled = title_shape is None  # its first line may title it (`frame`)
        if title_shape is not None:
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
        """Reading order: rows of shapes top to bottom, the shapes of a row left to right."""
        def box(s):
            top = s.top if s.top is not None else 0
            return top, top + (s.height or 0), s.left if s.left is not None else 0

        items = sorted((s for s in shapes if skip is None or s.shape_id != skip.shape_id),
                       key=lambda s: (box(s)[0], box(s)[2]))
        rows: list[list] = []
        for s in items:
            top, bottom, _ = box(s)
            if rows:
                row_top, row_bottom = rows[-1][0], rows[-1][1]
                overlap = min(bottom, row_bottom) - top
                if overlap > 0 and overlap >= SIDE_BY_SIDE * min(bottom - top, row_bottom - row_top):
                    rows[-1][1] = max(row_bottom, bottom)
                    rows[-1][2].append(s)
                    continue
            rows.append([top, bottom, [s]])
        return [s for _, _, row in rows for s in sorted(row, key=lambda s: (box(s)[2], box(s)[0]))]

    def shape(self, shape, where: dict) -> None:
        kind = getattr(shape, "shape_type", None)
        if hasattr(shape, "shapes") and kind is not None and int(kind) == 6:  # a group
            for inner in self._ordered(shape.shapes):
                self.shape(inner, where)
        elif getattr(shape, "has_table", False) and shape.has_table:
            self.out.add(self.table(shape.table), **where)
            self._untitled = False
        elif kind is not None and int(kind) == 13 or hasattr(shape, "image") and not shape.has_text_frame:
            self.picture(shape, where)
            self._untitled = False
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
        styles = self._list_styles(shape)
        code: list[str] = []
        counters = [0] * 10
        for p in shape.text_frame.paragraphs:
            ppr = p._p.pPr
            runs = [r for r in p.runs if r.text.strip()]
            if runs and all(_MONO.search(r.font.name or "") for r in runs):
                code.append(p.text)
                self._untitled = False
                continue
            if code:
                self.out.add(fence("\n".join(code)), **where)
                code = []
            text = self.inline(p).strip()
            if not text:
                continue
            level = min(p.level, 9)
            short = len(p.text.split()) <= SUBHEADING_MAX_WORDS and not p.text.rstrip().endswith(
                (".", ",", ";", ":"))
            bold = bool(runs) and all(r.font.bold for r in runs)
            first, self._untitled = self._untitled, False
            if first and short and runs and all((r.font.size or 0) >= Pt(TITLE_MIN_PT) for r in runs):
                self.out.add(heading(1, p.text), **where)  # an untitled slide's title line
                continue
            bullet = self._bullet(ppr, body, [lst.find(_a(f"lvl{level + 1}pPr")) for lst in styles])
            if bullet:
                counters[level] += 1
                counters[level + 1:] = [0] * (9 - level)
                marker = f"{counters[level]}. " if bullet == "number" else "- "
                self.out.add("    " * level + marker + " ".join(text.split("\n")), group=shape.shape_id, **where)
            elif bold and short:
                self.out.add(heading(2, p.text), **where)
            else:
                self.out.add(escape_block(text), **where)
        if code:
            self.out.add(fence("\n".join(code)), **where)

    @staticmethod
    def _list_styles(shape) -> list:
        """The list styles a shape's paragraphs inherit: its own, then its layout's and its
        master's placeholder's (python-pptx's `_base_placeholder` chain)."""
        out, el = [], shape
        while el is not None:
            body = el._element.find(f"{{{P}}}txBody")
            lst = body.find(_a("lstStyle")) if body is not None else None
            if lst is not None:
                out.append(lst)
            el = getattr(el, "_base_placeholder", None) if getattr(el, "is_placeholder", False) else None
        return out

    @staticmethod
    def _bullet(ppr, body: bool, inherited: list) -> str | None:
        for level in (ppr, *inherited):
            if level is None:
                continue
            if level.find(_a("buNone")) is not None:
                return None
            if level.find(_a("buAutoNum")) is not None:
                return "number"
            if level.find(_a("buChar")) is not None or level.find(_a("buBlip")) is not None:
                return "bullet"
        return "bullet" if body else None

    @staticmethod
    def inline(paragraph) -> str:
        pieces: list[tuple[str, str | None]] = []  # (Markdown of a run, its link target)
        for child in paragraph._p:
            if child.tag == _a("br"):
                pieces.append(("\n", None))
                continue
            if child.tag not in (_a("r"), _a("fld")):
                continue
            text = "".join(t.text or "" for t in child.iter(_a("t")))
            rpr = child.find(_a("rPr"))
            if not text.strip() or rpr is None:
                pieces.append((text, None))
                continue
            latin = rpr.find(_a("latin"))
            if latin is not None and _MONO.search(latin.get("typeface") or ""):
                text = inline_code(text)
            elif rpr.get("b") in ("1", "true") or rpr.get("i") in ("1", "true"):
                bold, italic = rpr.get("b") in ("1", "true"), rpr.get("i") in ("1", "true")
                text = emphasis(text, "***" if bold and italic else "**" if bold else "*")
            link = rpr.find(_a("hlinkClick"))
            rid = link.get(f"{{{R}}}id") if link is not None else None
            target = None
            if rid:
                rels = paragraph.part.rels if hasattr(paragraph, "part") else {}
                if rid in rels and rels[rid].is_external:
                    target = rels[rid].target_ref
            pieces.append((text, target))
        out, i = [], 0
        while i < len(pieces):  # consecutive runs of one link: one Markdown link
            j, target = i + 1, pieces[i][1]
            while target and j < len(pieces) and pieces[j][1] == target:
                j += 1
            text = "".join(t for t, _ in pieces[i:j])
            out.append(linked(text, target) if target else text)
            i = j
        return "".join(out)

    @staticmethod
    def table(table) -> str:
        rows: list[list[str]] = []
        for row in table.rows:
            cells: list[str] = []
            for cell in row.cells:
                if not cell.is_spanned:
                    cells.append(" ".join(_Deck.inline(p) for p in cell.text_frame.paragraphs))
                else:  # covered by a merge: in the header row, the label of the columns it heads
                    cells.append(cells[-1] if not rows and cells else "")
            rows.append(cells)
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


def Pt(points: float) -> int:  # noqa: N802 - python-pptx's name for the unit
    return int(points * 12700)  # EMU per point


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

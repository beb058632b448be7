"""Word documents (DOCX) read with python-docx into Markdown with their structure.

python-docx opens the package and gives the styles, numbering, core properties and related
parts; the body is walked as XML (its children in order, so paragraphs and tables keep their
order, which `Document.paragraphs` would lose). Headings come from heading styles (`Heading 1`..,
`Title`) and from outline levels (`w:outlineLvl` on the paragraph or anywhere up its style
chain, which is how many documents mark them); lists from numbering (bullet or number by the
level's `numFmt`, nesting by `w:ilvl`); footnotes and endnotes, which python-docx has no API
for, from their own parts, as `[^n]` references with the notes at the end.

A place's `paragraph` is the block's 0-based index among the body's paragraphs and tables
(content controls unwrapped); a footnote's is its index among the notes of its part.
"""

from __future__ import annotations

import re
from pathlib import Path

from chunker.readers.docx_inline import A, R, WP, Inline
from chunker.readers.docx_styles import CODE_STYLE, GENERATED_STYLE, Numbering, Styles, val, w
from chunker.readers.model import Extracted, ExtraMissing, Metadata, ReaderError
from chunker.readers.office import (
    DAMAGED, MarkdownBuilder, OoxmlReader, core_metadata, damaged, escape_block, fence,
    gfm_table, heading, open_zip,
)

BODY_PART = "word/document.xml"
_CAPTION_STYLE = re.compile(r"caption", re.IGNORECASE)
_LIST_STYLE = re.compile(r"^list(?: bullet| number| paragraph| continue)? ([2-9])$", re.IGNORECASE)


class _Doc:
    """One conversion: the document's parts and what has been read of them."""

    def __init__(self, document, path: Path) -> None:
        self.doc = document
        self.styles = Styles(document.styles.element)
        numbering = None
        try:
            numbering = document.part.numbering_part.element
        except (KeyError, NotImplementedError):
            pass
        self.numbering = Numbering(numbering)
        self.out = MarkdownBuilder()
        self.notes: dict[tuple[str, str], str] = {}  # (kind, id) -> label, in reference order
        self.runs = Inline(self.styles, self.notes, self._image)
        self.images = 0
        self._pending_image: dict | None = None  # the image the paragraph being read shows
        self.warnings: list[str] = []

    def inline(self, p, part, *, plain: bool = False) -> str:
        """A paragraph's runs as Markdown (emphasis, code, links, note references, images)."""
        return self.runs.text(p, part, plain=plain)

    def _image(self, drawing, part) -> str:
        blip = next(drawing.iter(f"{{{A}}}blip"), None)
        pr = next(drawing.iter(f"{{{WP}}}docPr"), None)
        alt = " ".join(((pr.get("descr") or pr.get("title") or "") if pr is not None else "").split())
        rid = blip.get(f"{{{R}}}embed") if blip is not None else None
        if not rid or rid not in part.related_parts:
            return f"![{alt}]()" if alt else ""
        img = part.related_parts[rid]
        self.images += 1
        ext = str(img.partname).rsplit(".", 1)[-1].lower()
        name = f"image-{self.images}.{ext}"
        self._pending_image = dict(name=name, data=img.blob, mime=img.content_type, alt=alt or None)
        return f"![{alt}]({name})"

    # --- blocks -------------------------------------------------------------------------
    def blocks(self, parent, generated: bool = False):
        """(block element, generated?) in order, content controls (`w:sdt`) unwrapped; the
        blocks of a table of contents' control are generated (Word and LibreOffice write one
        as a `w:sdt` whose gallery is `Table of Contents`)."""
        for child in parent:
            if child.tag in (w("p"), w("tbl")):
                yield child, generated
            elif child.tag == w("sdt"):
                gallery = child.find(f"{w('sdtPr')}/{w('docPartObj')}/{w('docPartGallery')}")
                toc = gallery is not None and (gallery.get(w("val")) or "").lower() == "table of contents"
                content = child.find(w("sdtContent"))
                if content is not None:
                    yield from self.blocks(content, generated or toc)

    def body(self) -> None:
        part = self.doc.part
        blocks = list(self.blocks(self.doc.element.body))
        code: list[str] = []
        code_at = 0
        for index, (el, generated) in enumerate(blocks):
            self.runs.boxes = []
            if el.tag == w("tbl"):
                self._flush_code(code, code_at)
                self.out.add(self.table(el, part), part=BODY_PART, paragraph=index)
                self._boxes(index)
                continue
            ppr = el.find(w("pPr"))
            style = val(ppr, "pStyle")
            if generated or self.styles.matches(style, GENERATED_STYLE):
                self.inline(el, part, plain=True)  # read only to keep the fields it opens balanced
                continue  # a table of contents' or an index's entry: the headings say it already
            if self.styles.matches(style, CODE_STYLE) and not self.styles.heading_level(style, ppr):
                if not code:
                    code_at = index
                code.append(self.inline(el, part, plain=True))
                continue
            self._flush_code(code, code_at)
            following = next((b for b, _ in blocks[index + 1:index + 2]), None)
            self.paragraph(el, ppr, style, index, following)
            self._boxes(index)
        self._flush_code(code, code_at)

    def _boxes(self, index: int) -> None:
        """The floating text boxes anchored in the block just read, each a paragraph after it."""
        for text in self.runs.boxes:
            self.out.add(escape_block(text), part=BODY_PART, paragraph=index)
        self.runs.boxes = []

    def _flush_code(self, code: list[str], index: int) -> None:
        while code and not code[-1].strip():  # blank lines around a block are no code
            code.pop()
        while code and not code[0].strip():
            code.pop(0)
        if code:
            self.out.add(fence("\n".join(code)), part=BODY_PART, paragraph=index)
            code.clear()

    def paragraph(self, p, ppr, style, index: int, following) -> None:
        part = self.doc.part
        level = self.styles.heading_level(style, ppr)
        if level is not None:
            title = self.inline(p, part, plain=True).strip()
            if title:  # a heading whose text was all deleted (tracked) is no heading
                self.out.add(heading(level, title), part=BODY_PART, paragraph=index)
            return
        self._pending_image = None
        text = self.inline(p, part).strip()
        if self._pending_image is not None:
            caption = None
            if following is not None and following.tag == w("p"):
                f_style = val(following.find(w("pPr")), "pStyle")
                if self.styles.matches(f_style, _CAPTION_STYLE):
                    caption = " ".join(self.runs.peek(following, part).split()) or None
            self.out.image(**self._pending_image, caption=caption)
        num = ppr.find(w("numPr")) if ppr is not None else None
        numbering = ((val(num, "numId") or "0", int(val(num, "ilvl") or 0))
                     if num is not None else self.styles.numbering(style))
        nested = _LIST_STYLE.match(self.styles.name(style))
        if numbering and nested and (num is None or val(num, "ilvl") is None):
            numbering = (numbering[0], int(nested.group(1)) - 1)  # `List Bullet 2` nests by its name
        if numbering and numbering[0] != "0" and text:
            num_id, ilvl = numbering
            marker = self.numbering.marker(num_id, ilvl)
            self.out.add("    " * ilvl + marker + " ".join(text.split("\n")), group=num_id,
                         part=BODY_PART, paragraph=index)
            return
        self.out.add(escape_block(text), part=BODY_PART, paragraph=index)

    def table(self, tbl, part) -> str:
        rows: list[list[str]] = []
        for tr in tbl.iter(w("tr")):
            if tr.getparent() is not tbl and tr.getparent().getparent() is not tbl:
                continue  # a nested table's row: its text is in the outer cell
            row: list[str] = []
            # a header row (the first, or one repeated on each page): a merged label is written
            # over every column it heads, as the other readers write it
            trpr = tr.find(w("trPr"))
            heading = not rows or (trpr is not None and trpr.find(w("tblHeader")) is not None)
            for tc in tr.iter(w("tc")):
                if tc.getparent() is not tr:
                    continue
                tcpr = tc.find(w("tcPr"))
                span = int(val(tcpr, "gridSpan") or 1)
                merged = tcpr is not None and tcpr.find(w("vMerge")) is not None \
                    and val(tcpr, "vMerge") != "restart"
                text = "" if merged else " ".join(
                    self.inline(p, part) for p in tc.iter(w("p"))).strip()
                row += [text] + [text if heading else ""] * (span - 1)
            rows.append(row)
        return gfm_table(rows)

    def notes_section(self) -> None:
        """The referenced footnotes and endnotes, `[^n]: text`, in reference order."""
        if not self.notes:
            return
        import lxml.etree as etree

        wanted = {}
        for rel in self.doc.part.rels.values():
            kind = rel.reltype.rsplit("/", 1)[-1]
            if kind in ("footnotes", "endnotes") and not rel.is_external:
                note_part = rel.target_part
                root = etree.fromstring(note_part.blob)
                name = str(note_part.partname).lstrip("/")
                for i, note in enumerate(root.findall(w(kind[:-1]))):
                    wanted[(kind[:-1], note.get(w("id")))] = (note, name, i, note_part)
        for key, label in self.notes.items():
            if key not in wanted:
                self.warnings.append(f"{key[0]} {key[1]} is referenced but missing")
                continue
            note, name, i, note_part = wanted[key]
            text = " ".join(self.inline(p, note_part) for p in note.iter(w("p"))).strip()
            self.out.add(f"[^{label}]: {text}", part=name, paragraph=i)


def _metadata(document) -> Metadata:
    lang = document.styles.element.find(f"{w('docDefaults')}/{w('rPrDefault')}/{w('rPr')}/{w('lang')}")
    return core_metadata(document.core_properties, lang.get(w("val")) if lang is not None else None)


def extract_docx(path: str | Path, *, max_bytes: int | None = None) -> Extracted:
    """The document as Markdown with its places, metadata, images and notes."""
    path = Path(path)
    try:
        import docx
        from docx.opc.exceptions import PackageNotFoundError
    except ImportError as exc:
        raise ExtraMissing(f"reading {path.name} needs the docx extra: "
                           "pip install 'chunker-tree[docx]'", "docx") from exc
    open_zip(path, kind="docx", label="Word document", required=BODY_PART,
             max_bytes=max_bytes).close()
    try:
        document = docx.Document(str(path))
        conv = _Doc(document, path)
        conv.body()
        conv.notes_section()
    except ReaderError:
        raise
    except (PackageNotFoundError, *DAMAGED) as exc:
        raise damaged(path, kind="docx", label="Word document", exc=exc) from exc
    return conv.out.build(_metadata(document), conv.warnings)


class DocxReader(OoxmlReader):
    id = "docx"
    label = "Word document"
    extra = "docx"
    member = BODY_PART
    suffixes = (".docx", ".docm", ".doc")
    module = "docx"
    doing = "reading Word documents"

    def extract(self, path: Path, max_bytes: int | None) -> Extracted:
        return extract_docx(path, max_bytes=max_bytes)

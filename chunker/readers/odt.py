"""OpenDocument text (ODT) read with lxml from the package's `content.xml` and `meta.xml`.

odfpy was measured against this (see docs/how-to/formats.md): it loads the whole document into
its own pure-Python element tree, several times slower than lxml, and its API gives no more than
the XML does, so the reader walks the XML itself. Headings are `text:h` with their
`text:outline-level` (and paragraphs whose style has a `default-outline-level`); lists nest by
`text:list`, bullet or number by the list style's level; notes (`text:note`) become `[^n]` with
the notes at the end; `table:covered-table-cell` (a merged cell) is an empty cell, or in the
header row its label repeated.

A place's `part` is `content.xml`; its `paragraph` is the block's 0-based index in document order
(headings, paragraphs, list items' paragraphs and tables each count one); a note's is the
index of the paragraph that cites it.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

from chunker.readers.base import ReadSettings, Reader, missing_modules
from chunker.readers.model import Extracted, ExtraMissing, ReaderError
from chunker.readers.odt_styles import Styles, odt_metadata, q
from chunker.readers.office import (
    DAMAGED, MarkdownBuilder, check_container, damaged, emphasis, escape_block, fence,
    gfm_table, heading, inline_code, linked, open_zip,
)
from chunker.readers.sniffing import zip_mimetype

MIME = "application/vnd.oasis.opendocument.text"
PART = "content.xml"
_SPACE = re.compile(r"[ \t\r\n]+")


class _Odt:
    def __init__(self, z: zipfile.ZipFile, content, styles_root) -> None:
        self.z = z
        self.content = content
        self.styles = Styles(styles_root, content)
        self.out = MarkdownBuilder()
        self.index = 0
        self._code_at = 0
        self.lists = 0
        self.notes: list[tuple[str, int]] = []  # (text, citing paragraph), in citation order
        self.images = 0
        self._pending: list[dict] = []
        self._boxes: list[str] = []  # the text of floating frames anchored in the block being read

    # --- inline -------------------------------------------------------------------------
    def inline(self, el, *, plain: bool = False, flags=(False, False, False)) -> str:
        out: list[str] = []
        if el.text:
            out.append(self._fmt(el.text, flags, plain))
        for child in el:
            tag = child.tag
            if tag == q("text:span"):
                f = self.styles.text_flags(child.get(q("text:style-name")))
                out.append(self.inline(child, plain=plain, flags=tuple(a or b for a, b in zip(flags, f))))
            elif tag == q("text:a"):
                inner, href = self.inline(child, plain=plain, flags=flags), child.get(q("xlink:href"))
                out.append(linked(inner, href) if href and not plain else inner)
            elif tag == q("text:s"):
                out.append(" " * int(child.get(q("text:c"), "1")))
            elif tag == q("text:tab"):
                out.append("\t" if plain else " ")
            elif tag == q("text:line-break"):
                out.append("\n")
            elif tag == q("text:note"):
                body = child.find(q("text:note-body"))
                text = " ".join(self.inline(p) for p in body.iter(q("text:p"))) if body is not None else ""
                self.notes.append((" ".join(text.split()), self.index))
                out.append(f"[^{len(self.notes)}]")
            elif tag == q("draw:frame"):
                out.append(self._frame(child))
            elif tag in (q("text:bookmark-start"), q("text:bookmark-end"), q("text:soft-page-break"),
                         q("office:annotation"), q("office:annotation-end"), q("text:bookmark")):
                pass
            else:  # fields (page numbers, dates, references) and unknown inline wrappers: their text
                out.append(self.inline(child, plain=plain, flags=flags))
            if child.tail:
                out.append(self._fmt(child.tail, flags, plain))
        return "".join(out)

    @staticmethod
    def _fmt(text: str, flags, plain: bool) -> str:
        text = _SPACE.sub(" ", text)  # ODF collapses white space; text:s, text:tab keep theirs
        bold, italic, code = flags
        if plain or not text.strip():
            return text
        if code:
            return inline_code(text)
        return emphasis(text, "***" if bold and italic else "**" if bold else "*") if bold or italic else text

    def _frame(self, frame) -> str:
        """An image (`![alt](name)`), or a text frame: inline when anchored as a character, else
        a box beside the text whose paragraphs follow the block it is anchored in."""
        image = frame.find(q("draw:image"))
        title = frame.find(q("svg:title"))
        desc = frame.find(q("svg:desc"))
        alt = " ".join(((desc.text if desc is not None else None)
                        or (title.text if title is not None else None) or "").split())
        href = image.get(q("xlink:href")) if image is not None else None
        if not href or href not in self.z.namelist():
            text_box = frame.find(q("draw:text-box"))
            if text_box is None:
                return ""
            paras = [" ".join(self.inline(p).split()) for p in text_box.iter(q("text:p"), q("text:h"))]
            if frame.get(q("text:anchor-type")) == "as-char":
                return " ".join(t for t in paras if t)
            self._boxes += [t for t in paras if t]
            return ""
        self.images += 1
        ext = href.rsplit(".", 1)[-1].lower()
        name = f"image-{self.images}.{ext}"
        mime = {"jpg": "image/jpeg", "jpeg": "image/jpeg", "svg": "image/svg+xml"}.get(ext, f"image/{ext}")
        self._pending.append(dict(name=name, data=self.z.read(href), mime=mime, alt=alt or None))
        return f"![{alt}]({name})"

    # --- blocks -------------------------------------------------------------------------
    def blocks(self, parent, depth: int = 0, list_style: str | None = None) -> None:
        code: list[str] = []
        code_style = None
        for el in parent:
            tag = el.tag
            style = el.get(q("text:style-name"))
            if tag == q("text:p") and self.styles.is_code(style) and depth == 0:
                if code and style != code_style:  # a new automatic style: a new code block
                    self._code(code)
                code_style = style
                if not code:
                    self._code_at = self.index
                code.append(self.inline(el, plain=True))
                self.index += 1
                continue
            self._code(code)
            if tag == q("text:h"):
                self._heading(el)
            elif tag == q("text:p"):
                self._paragraph(el, style)
            elif tag == q("text:list"):
                self._list(el, depth, el.get(q("text:style-name")) or list_style)
            elif tag == q("table:table"):
                self.out.add(self._table(el), part=PART, paragraph=self.index)
                self.index += 1
            elif tag == q("text:section"):
                self.blocks(el, depth, list_style)
            # a table of contents and the other indexes (text:*-index, text:bibliography) are
            # generated from the headings and marks: read once, where they are, not twice
            self._flush_boxes()
        self._code(code)

    def _heading(self, el) -> None:
        """A `text:h` (its outline level) or a paragraph whose style gives one."""
        level = el.get(q("text:outline-level")) if el.tag == q("text:h") else None
        level = int(level) if level and level.isdigit() else (
            self.styles.outline_level(el.get(q("text:style-name"))) or 1)
        self.out.add(heading(level, self.inline(el, plain=True)), part=PART, paragraph=self.index)
        self.index += 1

    def _code(self, code: list[str]) -> None:
        while code and not code[-1].strip():  # empty code paragraphs around a block: no code
            code.pop()
        while code and not code[0].strip():
            code.pop(0)
            self._code_at += 1
        if code:
            self.out.add(fence("\n".join(code)), part=PART, paragraph=self._code_at)
            code.clear()

    def _paragraph(self, el, style) -> None:
        if self.styles.outline_level(style):
            self._heading(el)
            return
        text = self.inline(el).strip()
        self._flush_images()
        self.out.add(escape_block(text), part=PART, paragraph=self.index)
        self.index += 1

    def _flush_boxes(self) -> None:
        for text in self._boxes:
            self.out.add(escape_block(text), part=PART, paragraph=self.index - 1)
        self._boxes.clear()

    def _flush_images(self) -> None:
        for image in self._pending:
            self.out.image(**image)
        self._pending.clear()

    def _list(self, lst, depth: int, list_style: str | None, group: int | None = None) -> None:
        if group is None:  # a top-level list: its items, nested ones too, are one tight list
            self.lists += 1
            group = self.lists
        number = 0
        numbered = self.styles.numbered(list_style, depth + 1)
        for item in lst:
            if item.tag not in (q("text:list-item"), q("text:list-header")):
                continue
            number += 1
            marker = f"{number}. " if numbered else "- "
            first = True
            for child in item:
                if child.tag == q("text:list"):
                    self._list(child, depth + 1, child.get(q("text:style-name")) or list_style, group)
                elif child.tag == q("text:h") or (child.tag == q("text:p") and self.styles.outline_level(
                        child.get(q("text:style-name")))):
                    self._heading(child)  # outline numbering wraps headings in lists: still headings
                elif child.tag == q("text:p"):
                    text = " ".join(self.inline(child).split("\n")).strip()
                    self._flush_images()
                    prefix = "    " * depth + (marker if first else " " * len(marker))
                    self.out.add(prefix + text, group=group, part=PART, paragraph=self.index)
                    self.index += 1
                    first = False

    def _table(self, tbl) -> str:
        rows: list[list[str]] = []
        for row in tbl.iter(q("table:table-row")):
            if next(row.iterancestors(q("table:table"))) is not tbl:
                continue  # a nested table's row: its text is in the outer cell
            cells: list[str] = []
            for cell in row:
                repeat = min(int(cell.get(q("table:number-columns-repeated")) or 1), 64)
                if cell.tag == q("table:covered-table-cell"):
                    # covered by a merge: in the first (header) row, the label of the columns
                    # it heads, as the other readers write a merged header
                    cells += [cells[-1] if not rows and cells else ""] * repeat
                elif cell.tag == q("table:table-cell"):
                    text = " ".join(self.inline(p) for p in cell.iter(q("text:p"), q("text:h")))
                    cells += [text] * repeat
            while cells and not cells[-1].strip() and len(cells) > 1:
                cells.pop()  # spreadsheet-style trailing empty columns
            rows.append(cells)
        return gfm_table(rows)

    def notes_section(self) -> None:
        for i, (text, paragraph) in enumerate(self.notes, 1):
            self.out.add(f"[^{i}]: {text}", part=PART, paragraph=paragraph)


def _refuse_encrypted(z: zipfile.ZipFile, path: Path) -> None:
    """ODF encrypts members inside the zip; its manifest then lists their `encryption-data`."""
    if "META-INF/manifest.xml" in z.namelist() and b"encryption-data" in z.read("META-INF/manifest.xml"):
        raise ReaderError(f"{path} is a password-protected OpenDocument text: save it without a "
                          "password and read that copy", reason="encrypted-odt")


def extract_odt(path: str | Path, *, max_bytes: int | None = None) -> Extracted:
    path = Path(path)
    try:
        import lxml.etree as etree
    except ImportError as exc:
        raise ExtraMissing(f"reading {path.name} needs the odt extra: "
                           "pip install 'chunker-tree[odt]'", "odt") from exc
    z = open_zip(path, kind="odt", label="OpenDocument text", required=PART, max_bytes=max_bytes)
    with z:
        try:
            _refuse_encrypted(z, path)
            content = etree.fromstring(z.read(PART))
            styles = etree.fromstring(z.read("styles.xml")) if "styles.xml" in z.namelist() else None
            conv = _Odt(z, content, styles)
            body = content.find(f"{q('office:body')}/{q('office:text')}")
            if body is None:
                raise ReaderError(f"{path} is no text document (its body has no office:text)",
                                  reason="broken-odt")
            conv.blocks(body)
            conv.notes_section()
            metadata = odt_metadata(z, etree)
        except ReaderError:
            raise
        except DAMAGED as exc:
            raise damaged(path, kind="odt", label="OpenDocument text", exc=exc) from exc
    return conv.out.build(metadata)


class OdtReader(Reader):
    id = "odt"
    label = "OpenDocument text"
    extra = "odt"

    def sniff(self, head: bytes, path: Path) -> bool:
        mime = zip_mimetype(head)
        return mime is not None and mime.startswith(MIME)

    def available(self) -> str | None:
        return missing_modules(["lxml"], self.extra, "reading OpenDocument text")

    def check(self, data: bytes, path: Path, settings: ReadSettings) -> None:
        with check_container(data, path, kind="odt", label="OpenDocument text", required=PART) as z:
            _refuse_encrypted(z, path)

    def read(self, path: Path, settings: ReadSettings) -> Extracted:
        result = extract_odt(path, max_bytes=settings.max_bytes)
        if not result.markdown.strip():
            raise ReaderError(f"{path} has no text", reason="empty")
        return result

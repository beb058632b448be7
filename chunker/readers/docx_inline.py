"""A DOCX paragraph's runs as Markdown: emphasis, code, links (`w:hyperlink`, and the HYPERLINK
fields LibreOffice and older Word files write), note references, images, and the text boxes
anchored in it (`chunker/readers/docx.py` uses this).

Fields: a complex field (`w:fldChar` begin, `w:instrText`, separate, result, end) may span runs
and paragraphs; its instruction is never text, its result is. A floating text box (`wp:anchor`,
or VML) is a shape beside the text, not words of the sentence it is anchored in: its
paragraphs are kept apart (`Inline.boxes`) and the reader writes them after the paragraph.
"""

from __future__ import annotations

import re

from chunker.readers.docx_styles import on, val, w
from chunker.readers.office import emphasis, inline_code, linked

R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
A = "http://schemas.openxmlformats.org/drawingml/2006/main"
WP = "http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"
MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
MONOSPACE = frozenset({"courier new", "courier", "consolas", "menlo", "monaco", "lucida console",
                       "source code pro", "dejavu sans mono", "liberation mono", "cascadia code"})
_HYPERLINK = re.compile(r'^\s*HYPERLINK\b(?:\s+"([^"]*)"|\s+([^\s\\"]+))?(?:.*?\\l\s+"([^"]*)")?',
                        re.IGNORECASE | re.DOTALL)
_RAW = (False, False, False, None, True)  # flags of text written as it is (a note reference)


def field_link(instruction: str) -> str | None:
    """The target of a HYPERLINK field (`HYPERLINK "url" \\l "anchor"`), else None."""
    m = _HYPERLINK.match(instruction)
    if not m:
        return None
    url, anchor = m.group(1) or m.group(2) or "", m.group(3)
    return (url + (f"#{anchor}" if anchor else "")) or None


class Inline:
    """What the runs of one document need across paragraphs: its styles, its note labels, its
    image names, the complex fields open, and the text boxes the current paragraph anchors."""

    def __init__(self, styles, notes: dict, on_image) -> None:
        self.styles = styles
        self.notes = notes  # (kind, id) -> label, in reference order
        self.on_image = on_image  # (drawing, part) -> Markdown of the image
        self.fields: list[list] = []  # [instruction, in its result?] of each open field
        self.boxes: list[str] = []  # the floating text boxes' text, paragraph by paragraph

    def text(self, p, part, *, plain: bool = False) -> str:
        pieces: list[tuple[str, tuple]] = []  # (text, (bold, italic, code, link, raw))
        self._runs(p, part, pieces, None)
        if plain:
            return "".join(t for t, _ in pieces)
        out, i = [], 0
        while i < len(pieces):  # a link's runs (emphasis, code inside) as one Markdown link
            j, link = i, pieces[i][1][3]
            while j < len(pieces) and pieces[j][1][3] == link and not pieces[j][1][4]:
                j += 1
            if j == i:  # a raw piece (a note reference)
                out.append(pieces[i][0])
                i += 1
                continue
            inner = self._styled([(t, f[:3]) for t, f in pieces[i:j]])
            out.append(linked(inner, link) if link else inner)
            i = j
        return "".join(out)

    def _styled(self, pieces: list[tuple[str, tuple]]) -> str:
        out, i = [], 0
        while i < len(pieces):
            j, flags = i, pieces[i][1]
            while j < len(pieces) and pieces[j][1] == flags:
                j += 1
            out.append(self._format("".join(t for t, _ in pieces[i:j]), flags))
            i = j
        return "".join(out)

    def peek(self, p, part) -> str:
        """A paragraph's plain text without moving the field state (a caption looked ahead at)."""
        fields, boxes = [list(f) for f in self.fields], list(self.boxes)
        try:
            return self.text(p, part, plain=True)
        finally:
            self.fields, self.boxes = fields, boxes

    @staticmethod
    def _format(text: str, flags: tuple) -> str:
        bold, italic, code = flags
        if not text.strip():
            return text
        if code:
            return inline_code(text)
        return emphasis(text, "***" if bold and italic else "**" if bold else "*") if bold or italic else text

    def _field_link(self) -> str | None:
        for instruction, in_result in reversed(self.fields):
            if in_result and (target := field_link(instruction)):
                return target
        return None

    def _runs(self, el, part, pieces, link) -> None:
        for child in el:
            tag = child.tag
            if tag == w("r"):
                self._run(child, part, pieces, link)
            elif tag == w("hyperlink"):
                rid = child.get(f"{{{R}}}id")
                target = part.rels[rid].target_ref if rid in part.rels else None
                anchor = child.get(w("anchor"))
                self._runs(child, part, pieces, target or (f"#{anchor}" if anchor else None))
            elif tag == w("fldSimple"):
                self._runs(child, part, pieces, link or field_link(child.get(w("instr")) or ""))
            elif tag in (w("ins"), w("moveTo"), w("smartTag"), w("customXml"),
                         w("sdt"), w("sdtContent")):  # their runs are the text; w:del is not
                self._runs(child, part, pieces, link)
            elif tag == f"{{{MC}}}AlternateContent":  # the first choice only, not its fallback
                choice = child.find(f"{{{MC}}}Choice")
                if choice is not None:
                    self._runs(choice, part, pieces, link)

    def _run(self, r, part, pieces, link) -> None:
        rpr = r.find(w("rPr"))
        bold, italic, code = self.styles.run_flags(val(rpr, "rStyle"))
        bold, italic = (on(rpr, "b") if val(rpr, "b") else bold), \
            (on(rpr, "i") if val(rpr, "i") else italic)
        fonts = rpr.find(w("rFonts")) if rpr is not None else None
        if fonts is not None and (fonts.get(w("ascii")) or "").lower() in MONOSPACE:
            code = True
        flags = (bold, italic, code, link or self._field_link(), False)
        for child in r:
            tag = child.tag
            if tag == w("t"):
                pieces.append((child.text or "", flags))
            elif tag == w("fldChar"):
                kind = child.get(w("fldCharType"))
                if kind == "begin":
                    self.fields.append(["", False])
                elif kind == "separate" and self.fields:
                    self.fields[-1][1] = True
                elif kind == "end" and self.fields:
                    self.fields.pop()
                flags = (bold, italic, code, link or self._field_link(), False)
            elif tag == w("instrText") and self.fields and not self.fields[-1][1]:
                self.fields[-1][0] += child.text or ""
            elif tag == w("tab"):
                pieces.append(("\t" if code else " ", flags))
            elif tag in (w("br"), w("cr")) and child.get(w("type")) not in ("page", "column"):
                pieces.append(("\n", flags))
            elif tag == w("noBreakHyphen"):
                pieces.append(("-", flags))
            elif tag in (w("footnoteReference"), w("endnoteReference")):
                kind = "footnote" if tag == w("footnoteReference") else "endnote"
                label = self.notes.setdefault((kind, child.get(w("id"))), str(len(self.notes) + 1))
                pieces.append((f"[^{label}]", _RAW))
            elif tag in (w("drawing"), w("pict"), f"{{{MC}}}AlternateContent"):
                self._drawing(child, part, pieces)

    def _drawing(self, el, part, pieces) -> None:
        """A picture (`![alt](name)`), or a text box: inline ones in the text, floating ones
        (`wp:anchor`, VML) kept apart for the reader to write after the paragraph."""
        if el.tag == f"{{{MC}}}AlternateContent":
            el = el.find(f"{{{MC}}}Choice")
            if el is None:
                return
        boxes = list(el.iter(w("txbxContent")))
        if boxes:
            floating = el.tag == w("pict") or next(el.iter(f"{{{WP}}}anchor"), None) is not None
            for box in boxes[:1] if el.tag == w("pict") else boxes:
                saved, self.boxes = self.boxes, []
                paras = [" ".join(self.text(p, part).split()) for p in box.iter(w("p"))]
                inner, self.boxes = self.boxes, saved
                paras = [t for t in paras + inner if t]
                if floating:
                    self.boxes += paras
                elif paras:
                    pieces.append((f" {' '.join(paras)} ", _RAW))
            return
        if el.tag == w("drawing"):
            pieces.append((self.on_image(el, part), _RAW))

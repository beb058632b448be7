"""Writing an HTML or XHTML element tree as Markdown blocks: headings with their levels, GFM
pipe tables (header row, colspan and rowspan), fenced code with its language, nested lists,
quotes, links and images; each block knows the ids it holds and the nearest id before it, so
that a reader can say where every character of its Markdown came from (`assemble`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from chunker.readers.model import Place

HEADINGS = {f"h{n}": n for n in range(1, 7)}
BLOCKS = {"p", "div", "section", "article", "main", "header", "pre", "ul", "ol", "dl", "table",
          "blockquote", "figure", "hr", "address", "details", "summary", "center", "hgroup",
          "figcaption", "caption", "dt", "dd", "li", "fieldset", "body", "html", *HEADINGS}
GENERIC_CODE_CLASSES = {"sourcecode", "numbersource", "highlight", "hljs", "code", "source",
                        "literal-block", "prettyprint", "chroma", "block", "notranslate",
                        "nohighlight", "no-highlight", "line-numbers", "shiki", "wrap"}


@dataclass
class Block:
    """One Markdown block of a page (a paragraph, heading, list, table, code block...)."""

    text: str
    anchor: str | None
    ids: list[str]
    """Every id that starts at or inside this block (for a table of contents' fragments)."""
    level: int = 0
    """Heading level 1-6; 0 for a block that is not a heading."""
    title: str = ""
    elements: list = field(default_factory=list, repr=False)
    source: bool = True
    """False for a heading a table of contents added (it is no block of the file)."""


def text_of(el) -> str:
    return " ".join("".join(el.itertext()).split())


def _fence(code: str, mark: str = "`", least: int = 3) -> str:
    runs = [len(r) for r in re.findall(re.escape(mark) + "+", code)]
    return mark * max(least, max(runs, default=0) + 1)


def _inline_code(text: str) -> str:
    tick = "`" * (max((len(r) for r in re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{tick}{pad}{text}{pad}{tick}"


_LINE_START = re.compile(r"^(\s*)([#>+*-]|(\d+)([.)]))(?=\s|$)", re.M)
_BR = "\x00"


def _escape_marker(m: re.Match) -> str:
    """A paragraph line that would read as a heading, quote or list item: `\\#`, `2024\\.`."""
    if m.group(3):
        return f"{m.group(1)}{m.group(3)}\\{m.group(4)}"
    return f"{m.group(1)}\\{m.group(2)}"


def _clean(text: str) -> str:
    """Collapse a run of inline text as a browser does; keep the line breaks of `<br>`."""
    text = re.sub(r"[ \t\r\n\f\v]+", " ", text)
    return re.sub(r" ?\x00 ?", "\n", text).strip()


class Writer:
    """Walks one page (or chapter) and writes its blocks; `image_name` maps an `img` src to the
    name the Markdown shows (an EPUB's image records)."""

    def __init__(self, image_name: Callable[[str], str] | None = None) -> None:
        self.blocks: list[Block] = []
        self.image_name = image_name or (lambda src: src)
        self._pending: list[str] = []
        self._anchor: str | None = None
        self._in_heading = False  # a heading's links are kept as their text

    # --- blocks -------------------------------------------------------------------------
    def walk(self, el) -> list[Block]:
        self._container(el)
        return self.blocks

    def _emit(self, text: str, elements: list, level: int = 0, title: str = "") -> None:
        ids = list(self._pending)
        for node in elements:
            if isinstance(node, str):
                continue
            ids += [i for e in node.iter() if isinstance(e.tag, str) and (i := e.get("id"))]
        self._pending = []
        if not text.strip():
            self._pending = ids  # an empty block's ids belong to the next one
            return
        if ids:
            self._anchor = ids[0]
        self.blocks.append(Block(text, self._anchor, ids, level, title, elements))

    def _container(self, el) -> None:
        if el.get("id"):
            self._pending.append(el.get("id"))
        run: list = [el.text] if el.text else []
        for child in el:
            if not isinstance(child.tag, str):
                pass
            elif child.tag in BLOCKS:
                self._flush(run)
                run = []
                self._block(child)
            else:
                run.append(child)
            if child.tail:
                run.append(child.tail)
        self._flush(run)

    def _flush(self, run: list) -> None:
        text = _clean("".join(self._inline(p) for p in run))
        if text:
            self._emit(_LINE_START.sub(_escape_marker, text), run)
        else:
            self._emit("", run)

    def _block(self, el) -> None:
        tag = el.tag
        if tag in HEADINGS:
            self._in_heading = True
            title = _clean(self._inner(el)).replace("\n", " ")
            self._in_heading = False
            self._emit(f"{'#' * HEADINGS[tag]} {title}" if title else "", [el],
                       HEADINGS[tag], text_of(el))
        elif tag == "pre":
            self._emit(self._pre(el), [el])
        elif tag in ("ul", "ol"):
            self._emit("\n".join(self._list(el)), [el])
        elif tag == "table" and not _layout_table(el):
            self._emit(self._table(el), [el])
        elif tag in ("table", "thead", "tbody", "tfoot", "tr"):  # a layout table: its cells
            for row in el:
                if isinstance(row.tag, str):
                    self._block(row) if row.tag in ("thead", "tbody", "tfoot", "tr") else self._container(row)
        elif tag == "hr":
            self._emit("---", [el])
        elif tag == "blockquote":
            inner = "\n\n".join(b.text for b in Writer(self.image_name).walk(el))
            self._emit("\n".join(f"> {line}".rstrip() for line in inner.split("\n")), [el])
        else:
            self._container(el)

    def _pre(self, el) -> str:
        for br in list(el.iter("br")):  # some sites break a code block's lines with <br>
            br.tail = "\n" + (br.tail or "")
        code = "".join(el.itertext()).strip("\n")
        if not code.strip():
            return ""
        fence = _fence(code)
        return f"{fence}{_language(el)}\n{code}\n{fence}"

    def _list(self, el) -> list[str]:
        lines: list[str] = []
        number = int(el.get("start") or 1) if (el.get("start") or "1").isdigit() else 1
        for li in el:
            if not isinstance(li.tag, str) or li.tag != "li":
                continue
            marker = f"{number}." if el.tag == "ol" else "-"
            number += 1
            parts = [b.text for b in Writer(self.image_name).walk(li)] or [""]
            body = "\n".join(parts).split("\n")
            pad = " " * (len(marker) + 1)
            lines.append(f"{marker} {body[0]}".rstrip())
            lines += [f"{pad}{line}" if line else "" for line in body[1:]]
        return lines

    def _table(self, el) -> str:
        rows = [tr for tr in el.iter("tr") if next(tr.iterancestors("table")) is el]
        grid: list[list[str]] = []
        spans: dict[int, tuple[int, str]] = {}  # column -> (rows still covered, text)
        header = False
        for r, tr in enumerate(rows):
            row: list[str] = []
            cells = [c for c in tr if isinstance(c.tag, str) and c.tag in ("td", "th")]
            heading = (all(c.tag == "th" for c in cells)
                       or any(a.tag == "thead" for a in tr.iterancestors()))
            if r == 0:
                header = heading
            for cell in cells:
                while len(row) in spans:
                    self._spanned(row, spans)
                text = _clean(self._inner(cell, block_gap=True)).replace("\n", " ")
                text = text.replace("|", "\\|")
                for extra in range(_int(cell.get("colspan"))):
                    if _int(cell.get("rowspan")) > 1:
                        spans[len(row)] = (_int(cell.get("rowspan")) - 1, "")
                    # a header's merged label over every column it heads (Markdown has no
                    # colspan: an empty cell beside it would read as a column without one)
                    row.append(text if extra == 0 or heading else "")
            while len(row) in spans:
                self._spanned(row, spans)
            grid.append(row)
        if not grid:
            return ""
        width = max(len(row) for row in grid)
        grid = [row + [""] * (width - len(row)) for row in grid]
        head, body = (grid[0], grid[1:]) if header else ([""] * width, grid)
        lines = [head, ["---"] * width, *body]
        caption = next((text_of(c) for c in el if getattr(c, "tag", "") == "caption"), "")
        table = "\n".join("| " + " | ".join(row) + " |" for row in lines)
        return f"{caption}\n\n{table}" if caption else table

    @staticmethod
    def _spanned(row: list[str], spans: dict) -> None:
        left, text = spans.pop(len(row))
        if left > 1:
            spans[len(row)] = (left - 1, text)
        row.append(text)

    # --- inline -------------------------------------------------------------------------
    def _inner(self, el, block_gap: bool = False) -> str:
        out = [el.text or ""]
        for child in el:
            piece = self._inline(child)
            if block_gap and getattr(child, "tag", None) in BLOCKS:
                piece = f" {piece} "
            out.append(piece)
            out.append(child.tail or "")
        return "".join(out)

    def _inline(self, node) -> str:
        if isinstance(node, str):
            return node
        if not isinstance(node.tag, str):
            return ""
        tag = node.tag
        if tag == "br":
            return _BR
        if tag == "img":
            alt = _clean(node.get("alt") or "").replace("]", "\\]")
            return f"![{alt}]({self.image_name(node.get('src') or '')})" if node.get("src") else alt
        if tag in ("code", "kbd", "samp", "tt") and not any(
                isinstance(c.tag, str) and c.tag in ("a", "img") for c in node.iterdescendants()):
            text = _clean("".join(node.itertext()))
            return _inline_code(text) if text else ""
        if tag in ("sup", "sub"):
            text = _clean(self._inner(node))
            return f"{'^' if tag == 'sup' else '~'}({text})" if text else ""
        if tag == "math":
            return node.get("alttext") or text_of(node)
        inner = self._inner(node, block_gap=True)
        marks = {"em": "*", "i": "*", "cite": "*", "dfn": "*", "var": "*",
                 "strong": "**", "b": "**"}
        if tag in marks or (tag == "a" and node.get("href")):
            core = inner.strip(" \t\r\n")
            if not core.replace(_BR, ""):
                return inner
            lead = " " if inner[:1].isspace() else ""
            trail = " " if inner[-1:].isspace() else ""
            if tag == "a":
                href = node.get("href").strip().replace(" ", "%20").replace(")", "%29")
                if not re.search(r"\w", core.replace(_BR, "")):
                    return ""  # a permalink glyph (¶, #, §) is no text of the page
                if href.lower().startswith("javascript:") or self._in_heading:
                    return inner
                core = f"[{core}]({href})"
            else:
                core = f"{marks[tag]}{core}{marks[tag]}"
            return f"{lead}{core}{trail}"
        return inner


def _language(pre) -> str:
    """A code block's language: `language-x`/`lang-x` on it, its `<code>` or a wrapper
    (highlight.js, Prism, MkDocs), Sphinx's `highlight-x` wrapper, pandoc's `sourceCode x`, or
    a `<pre>`'s one bare class (pandoc's `<pre class="console">`)."""
    nodes = [pre, *pre.iter("code")]
    wrappers = [a for _, a in zip(range(2), pre.iterancestors())]
    for node in nodes + wrappers:
        for cls in (node.get("class") or "").split():
            if cls.startswith(("language-", "lang-")) and len(cls.split("-", 1)[1]) > 0:
                return cls.split("-", 1)[1]
            if node in wrappers and cls.startswith("highlight-") and cls != "highlight-default":
                return cls.split("-", 1)[1]
    for node in nodes:
        classes = (node.get("class") or "").split()
        if len(classes) == 2 and classes[0] == "sourceCode":
            return classes[1]
        if len(classes) == 1 and classes[0].lower() not in GENERIC_CODE_CLASSES:
            return classes[0]
    return ""


def _layout_table(el) -> bool:
    """A table used to lay out a page, not to hold data: its cells are read as blocks."""
    if (el.get("role") or "").lower() in ("presentation", "none") or next(el.iterdescendants("table"), None) is not None:
        return True
    rows = [tr for tr in el.iter("tr")]
    return bool(rows) and all(len([c for c in tr if getattr(c, "tag", "") in ("td", "th")]) <= 1 for tr in rows)


def _int(value: str | None) -> int:
    return int(value) if value and value.strip().isdigit() and int(value) > 0 else 1


def assemble(blocks: list[Block], part: str | None) -> tuple[str, tuple[Place, ...]]:
    """Join blocks with blank lines; one place per block (its separator included)."""
    texts = [b.text for b in blocks]
    places, pos = [], 0
    for i, (block, text) in enumerate(zip(blocks, texts)):
        end = pos + len(text) + (2 if i < len(blocks) - 1 else 1)
        places.append(Place(pos, end, part=part, anchor=block.anchor, paragraph=i))
        pos = end
    return ("\n\n".join(texts) + "\n" if texts else ""), tuple(places)

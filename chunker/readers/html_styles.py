"""Structure a page states only in its styles. LibreOffice's EPUB export writes every heading as
`<p class="para3"><span class="span6">Title</span></p>` with the size and weight in its
stylesheet, and code as paragraphs in a monospace font; conversions by other tools (calibre's,
a word processor's "save as HTML") do the same. On a page without any `h1`-`h6`, this reads the
page's stylesheets (simple selectors: `tag`, `.class`, `tag.class`, and `style` attributes) and
rewrites the tree before it is walked:

- a short paragraph (at most `HEADING_MAX_WORDS`, not ending as a sentence) set wholly in one
  font larger than the body text's, or in bold at the body's size or more, becomes a heading;
  its level is its font's rank among those fonts, largest first (bold before regular);
- consecutive paragraphs set wholly in a monospace font become one code block (`<pre>`);
- a span in a monospace, italic or bold font inside other text becomes `<code>`, `<em>`,
  `<strong>`.

A page with any heading element is left as it is: its author's structure wins.
"""

from __future__ import annotations

import re
from collections import Counter

HEADING_MAX_WORDS = 15
LARGER = 1.15
"""A font this many times the body's size (or more) marks a heading even without bold."""
BODY_PT = 12.0  # a browser's medium
_KEYWORDS = {"xx-small": 7.0, "x-small": 7.5, "small": 10.0, "medium": 12.0, "large": 13.5,
             "x-large": 18.0, "xx-large": 24.0, "xxx-large": 36.0}
_MONO = re.compile(r"mono|courier|consolas|menlo|monaco|source code|code", re.IGNORECASE)
_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
_SIMPLE = re.compile(r"^([a-z][a-z0-9]*)?((?:\.[\w-]+)*)$", re.IGNORECASE)
_LEAF_BLOCKS = {"p", "div"}
HEADINGS = {f"h{n}" for n in range(1, 7)}


def stylesheets(root, load=None) -> list[str]:
    """The page's CSS: its `<style>` elements and, through `load(href)` (text or None), the
    stylesheets it links, in document order. Read before the page is pruned."""
    out = []
    for el in root.iter("style", "link"):
        if el.tag == "style":
            out.append("".join(el.itertext()))
        elif load is not None and "stylesheet" in (el.get("rel") or "").lower() and el.get("href"):
            css = load(el.get("href"))
            if css:
                out.append(css)
    return out


def rules(stylesheets: list[str]) -> dict[str, dict[str, str]]:
    """Simple selector (`p`, `.c`, `p.c`, `.a.b`) -> its declarations, later rules winning."""
    out: dict[str, dict[str, str]] = {}
    for css in stylesheets:
        css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
        css = re.sub(r"@media[^{]*\{((?:[^{}]*\{[^{}]*\})*)[^{}]*\}", "", css)  # print/screen variants
        for selectors, body in _RULE.findall(css):
            decls = _declarations(body)
            for sel in selectors.split(","):
                sel = sel.strip().lower()
                if _SIMPLE.match(sel):
                    out.setdefault(sel, {}).update(decls)
    return out


def _declarations(body: str) -> dict[str, str]:
    decls = {}
    for part in body.split(";"):
        name, _, value = part.partition(":")
        if value.strip():
            decls[name.strip().lower()] = value.strip().lower()
    return decls


class _Fonts:
    """Each element's font (size in points, bold, italic, monospace), inherited as CSS does."""

    def __init__(self, sheet: dict[str, dict[str, str]]) -> None:
        self.sheet = sheet
        self.cache: dict = {}

    def own(self, el) -> dict[str, str]:
        tag, classes = el.tag.lower(), (el.get("class") or "").lower().split()
        decls: dict[str, str] = {}
        for sel in (tag, *(f".{c}" for c in classes), *(f"{tag}.{c}" for c in classes),
                    "." + ".".join(classes) if len(classes) > 1 else ""):
            decls.update(self.sheet.get(sel, {}))
        decls.update(_declarations(el.get("style") or ""))
        return decls

    def of(self, el) -> tuple[float, bool, bool, bool]:
        if el in self.cache:
            return self.cache[el]
        parent = el.getparent()
        size, bold, italic, mono = self.of(parent) if parent is not None else (BODY_PT, False, False, False)
        d = self.own(el)
        tag = el.tag.lower()
        bold = bold or tag in ("b", "strong", "th")
        italic = italic or tag in ("i", "em", "cite")
        mono = mono or tag in ("code", "tt", "kbd", "samp", "pre")
        size = _size(d.get("font-size"), size)
        if "font-weight" in d:
            w = d["font-weight"]
            bold = w in ("bold", "bolder") or (w.isdigit() and int(w) >= 600)
        if "font-style" in d:
            italic = d["font-style"] in ("italic", "oblique")
        if "font-family" in d:
            mono = bool(_MONO.search(d["font-family"]))
        self.cache[el] = (size, bold, italic, mono)
        return self.cache[el]


def _size(value: str | None, inherited: float) -> float:
    if not value:
        return inherited
    if value in _KEYWORDS:
        return _KEYWORDS[value]
    if value in ("smaller", "larger"):
        return inherited / 1.2 if value == "smaller" else inherited * 1.2
    m = re.match(r"([\d.]+)\s*(pt|px|em|rem|%)?", value)
    if not m:
        return inherited
    n, unit = float(m.group(1)), m.group(2) or "px"
    return {"pt": n, "px": n * 0.75, "em": n * inherited, "rem": n * BODY_PT,
            "%": n / 100 * inherited}[unit]


def _runs(block, fonts: _Fonts) -> list[tuple[str, tuple]]:
    """(text, font) of each piece of the block's text, in order."""
    out = []
    for el in block.iter():
        if not isinstance(el.tag, str):
            continue
        if el.text and el.text.strip():
            out.append((el.text, fonts.of(el)))
        if el is not block and el.tail and el.tail.strip():
            out.append((el.tail, fonts.of(el.getparent())))
    return out


def infer_structure(root, stylesheets: list[str]) -> bool:
    """Rewrite a heading-less page's styled paragraphs as headings and code; True if it did."""
    if any(isinstance(el.tag, str) and el.tag.lower() in HEADINGS for el in root.iter()):
        return False
    fonts = _Fonts(rules(stylesheets))
    blocks = [el for el in root.iter() if isinstance(el.tag, str) and el.tag.lower() in _LEAF_BLOCKS
              and not any(isinstance(c.tag, str) and c.tag.lower() in _LEAF_BLOCKS | {"table", "ul", "ol"}
                          for c in el.iterdescendants())]
    runs = {b: _runs(b, fonts) for b in blocks}
    weight: Counter = Counter()
    for pieces in runs.values():
        for text, (size, _, _, mono) in pieces:
            if not mono:
                weight[round(size, 1)] += len(text.strip())
    if not weight:
        return False
    body = weight.most_common(1)[0][0]
    headings: dict = {}
    code = set()
    for block, pieces in runs.items():
        text = " ".join("".join(t for t, _ in pieces).split())
        faces = {(round(size, 1), bold) for _, (size, bold, _, _) in pieces}
        monos = {mono for _, (_, _, _, mono) in pieces}
        if not text or len(faces) != 1:  # a heading may quote code: size and weight decide
            continue
        size, bold = next(iter(faces))
        if monos == {True}:
            if next(block.iterancestors("td", "th", "li"), None) is None:  # a cell's is inline code
                code.add(block)
        elif (len(text.split()) <= HEADING_MAX_WORDS and not text.endswith((".", ",", ";", ":"))
              and (size >= body * LARGER or bold and size >= body)):
            headings[block] = (size, bold)
    ranks = sorted(set(headings.values()), key=lambda f: (-f[0], not f[1]))
    for block, font in headings.items():
        block.tag = f"h{min(6, ranks.index(font) + 1)}"
    _code_blocks(code)
    _inline(root, fonts, set(headings) | code)
    return bool(headings or code)


def _code_blocks(code: set) -> None:
    """Runs of consecutive monospace paragraphs -> one `<pre>` each, its lines their texts."""
    from lxml import etree

    for block in [b for b in code if b.getprevious() not in code]:
        lines, el, last = [], block, block
        while el is not None and el in code:
            lines.append("".join(el.itertext()).rstrip("\n"))
            last, el = el, el.getnext()
        pre = etree.Element("pre")
        pre.text = "\n".join(lines)
        pre.tail = last.tail
        parent = block.getparent()
        parent.insert(parent.index(block), pre)
        for item in [block, *block.itersiblings()]:
            parent.remove(item)
            if item is last:
                break


def _inline(root, fonts: _Fonts, done: set) -> None:
    """Spans whose font differs from their block's: `<code>`, `<em>` or `<strong>`."""
    for span in [el for el in root.iter("span")]:
        block = next((a for a in span.iterancestors() if a.tag in _LEAF_BLOCKS | HEADINGS | {"td", "li"}), None)
        if block is None or block in done or block.tag in HEADINGS:
            continue
        size, bold, italic, mono = fonts.of(span)
        _, b_bold, b_italic, b_mono = fonts.of(block)
        if mono and not b_mono:
            span.tag = "code"
        elif italic and not b_italic:
            span.tag = "em"
        elif bold and not b_bold:
            span.tag = "strong"

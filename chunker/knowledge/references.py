"""Explicit references ("see Section 3.2", "Table 4", "Chapter II", "Article 12", "Figure 2",
"Equation (3)", "footnote 3", "page 12", "the table below") resolved to the node that holds
their target, or listed with their span.

Targets are what the text itself numbers: a heading carrying a number (`## 3.2 Methods`,
`## Chapter 5: ...`, `## Appendix B: ...`, `Article 12`), a caption (`Table 4:`, `Figure 2.`,
`<span class="caption">Table 3-1: ...`, `<Listing number="8-11"`), an equation's `\\tag{3}` or
trailing `(3)`, a footnote's `[^3]:`, a PDF leaf's pages. A reference resolves inside its own
file first, then to the one file of the corpus that holds the number; two files holding it is
ambiguous, and nothing is resolved by guessing. "above"/"below" resolve only to the nearest
numbered item of that kind (for a table, also the next pipe table), before or after, within
`KnowledgeSettings.nearby_chars`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from chunker.knowledge.documents import DocText, Documents

KINDS = {
    "section": "section", "sections": "section", "sec": "section", "§": "section", "§§": "section",
    "chapter": "chapter", "chapters": "chapter", "chap": "chapter", "ch": "chapter",
    "article": "article", "articles": "article", "art": "article",
    "appendix": "appendix", "table": "table", "tables": "table", "tab": "table",
    "figure": "figure", "figures": "figure", "fig": "figure", "figs": "figure",
    "equation": "equation", "equations": "equation", "eq": "equation", "eqn": "equation",
    "listing": "listing", "listings": "listing", "footnote": "footnote", "note": "footnote",
    "page": "page", "pages": "page", "p": "page", "pp": "page",
}
NUMBER = r"(?:\d+(?:[.\-]\d+)*[a-z]?|[IVXLC]+\b|[A-Z](?:[.\-]\d+)*\b)"
REF = re.compile(
    r"(?<![\w#])(?P<word>Sections?|Sec\.|§§?|Chapters?|Chap\.|Ch\.|Articles?|Art\.|Appendix|Tables?"
    r"|Tab\.|Figures?|Figs?\.|Equations?|Eqn?\.|Listings?|[Ff]ootnote|[Pp]ages?|pp?\.|"
    r"section|chapter|article|appendix|table|figure|equation|listing)"
    rf"\s?(?P<paren>\()?(?P<num>{NUMBER})(?(paren)\))(?![\w-])")
NEARBY = re.compile(r"\b(?:the|this|that)\s+(?P<word>table|figure|listing|equation)\s+"
                    r"(?P<dir>above|below)|\b(?:the\s+)?(?P<dir2>following|preceding|previous)\s+"
                    r"(?P<word2>table|figure|listing|equation)\b", re.I)
NUMBERED_HEADING = re.compile(
    rf"^(?:(?P<word>Chapter|Section|Article|Appendix|Part|Annex)\s+)?(?P<num>{NUMBER})"
    r"(?:[.:)]|\s|$)", re.I)
CAPTION = re.compile(
    r"^[ \t>]*(?:<[^>\n]*>|\*\*|\*|_)*\s*(?P<word>Table|Figure|Fig\.|Listing|Exhibit)\s+"
    rf"(?P<num>{NUMBER})\s*(?:[:.\u2014\u2013|-]|\*\*|</)", re.M | re.I)
LISTING_TAG = re.compile(r"<Listing\b[^>]*\bnumber=\"(?P<num>[^\"]+)\"", re.I)
EQ_TAG = re.compile(r"\\tag\{(?P<num>[^}]+)\}|^\s*\$\$.*\((?P<num2>\d+(?:\.\d+)*)\)\s*$", re.M)
FOOTNOTE_DEF = re.compile(r"^\[\^(?P<num>[^\]\s]+)\]:", re.M)
FOOTNOTE_REF = re.compile(r"\[\^(?P<num>[^\]\s]+)\](?!:)")
PIPE_TABLE = re.compile(r"^[ \t]*\|[^\n]*\|[ \t]*\n[ \t]*\|[ \t:|-]*-[ \t:|-]*\|[ \t]*$", re.M)
"""A Markdown pipe table's header and delimiter rows: "the following table" may point at one
that has no caption (it is the next table, not a numbered one: it never answers "Table 4")."""
ARTICLE_LINE = re.compile(r"^\s*(?:\*\*)?Article\s+(?P<num>\d+[a-z]?)\b", re.M)


@dataclass(frozen=True)
class Target:
    kind: str
    number: str
    offset: int
    node: str
    end: int  # the end of the target's own line: a reference inside it is its label


@dataclass(frozen=True)
class Reference:
    kind: str
    number: str | None
    start: int
    end: int
    text: str
    direction: str | None = None  # above / below, for "the table below"


def _norm(number: str) -> str:
    return number.strip("().").casefold() or "\x00"  # no number never equals a number


class Targets:
    """Every numbered item of every file."""

    def __init__(self, docs: Documents):
        self.docs = docs
        self.by_doc: dict[str | None, list[Target]] = {d.source: self._of(d) for d in docs}

    def _of(self, doc: DocText) -> list[Target]:
        out: list[Target] = []
        text = doc.text

        def add(kind: str, number: str, offset: int, node: str | None = None) -> None:
            if doc.code.in_code(offset) and kind not in ("equation",):
                return
            line_end = text.find("\n", offset)
            out.append(Target(kind, _norm(number), offset, node or doc.leaf_at(offset).id,
                              len(text) if line_end < 0 else line_end))

        levels = sorted({h.level for h in doc.headings})
        for h in doc.headings:
            m = NUMBERED_HEADING.match(h.text)
            if not m:
                continue
            node = doc.heading_node(h).id
            word = (m.group("word") or "").casefold()
            kinds = {"chapter": ["chapter"], "section": ["section"], "article": ["article"],
                     "appendix": ["appendix"], "annex": ["appendix"], "part": ["chapter"]}.get(word)
            if kinds is None:  # a bare number: a section; a chapter at the top heading level
                kinds = ["section"] + (["chapter"] if h.level == levels[0] and "." not in m.group("num") else [])
            for kind in kinds:
                add(kind, m.group("num"), h.start, node)
        for m in CAPTION.finditer(text):
            kind = KINDS.get(m.group("word").casefold().rstrip("."), "figure")
            add("figure" if m.group("word").casefold() == "exhibit" else kind, m.group("num"), m.start("word"))
        for m in LISTING_TAG.finditer(text):
            add("listing", m.group("num"), m.start())
        for m in EQ_TAG.finditer(text):
            add("equation", m.group("num") or m.group("num2"), m.start())
        for m in FOOTNOTE_DEF.finditer(text):
            add("footnote", m.group("num"), m.start())
        for m in ARTICLE_LINE.finditer(text):
            add("article", m.group("num"), m.start())
        for m in PIPE_TABLE.finditer(text):
            add("table", "", m.start())  # no number: reached by "the table below" only
        return out

    def lookup(self, kind: str, number: str, source: str | None) -> tuple[Target | None, str]:
        """The target of `kind` `number`: in `source` first, then in the one file holding it."""
        want = _norm(number)
        if kind == "page":
            return self._page(want, source)
        own = [t for t in self.by_doc.get(source, []) if t.kind == kind and t.number == want]
        if own:
            return own[0], ""
        elsewhere = {s: ts for s, targets in self.by_doc.items() if s != source
                     and (ts := [t for t in targets if t.kind == kind and t.number == want])}
        if len(elsewhere) == 1:
            return next(iter(elsewhere.values()))[0], ""
        if elsewhere:
            return None, f"ambiguous: {len(elsewhere)} files hold {kind} {number}"
        return None, f"no {kind} {number} in the tree"

    def _page(self, number: str, source: str | None) -> tuple[Target | None, str]:
        doc = self.docs.get(source)
        if not number.isdigit() or doc is None:
            return None, f"no page {number}"
        page = int(number)
        for leaf in doc.leaves:
            if leaf.pages and leaf.pages[0] <= page <= leaf.pages[1]:
                return Target("page", number, leaf.span[0], leaf.id, leaf.span[0]), ""
        if not any(leaf.pages for leaf in doc.leaves):
            return None, "page numbers, but the file has no pages"
        return None, f"no page {number} in {source}"

    def nearby(self, kind: str, direction: str, source: str | None, at: int, reach: int) -> Target | None:
        items = [t for t in self.by_doc.get(source, []) if t.kind == kind]
        if direction == "below":
            after = [t for t in items if at < t.offset <= at + reach]
            return min(after, key=lambda t: t.offset) if after else None
        before = [t for t in items if at - reach <= t.offset < at]
        return max(before, key=lambda t: t.offset) if before else None

    def is_label(self, source: str | None, start: int) -> bool:
        """Whether `start` lies in a target's own heading or caption line ("Table 4: ...")."""
        return any(t.offset <= start < t.end and start - t.offset <= 8 for t in self.by_doc.get(source, []))


def find_references(doc: DocText) -> list[Reference]:
    """The explicit references of one file outside code, in order."""
    out: list[Reference] = []
    text = doc.text
    for m in REF.finditer(text):
        if doc.code.in_code(m.start(), m.end()):
            continue
        word = m.group("word").casefold().rstrip(".")
        kind = KINDS.get(word)
        if kind is None:
            continue
        number = m.group("num")
        if kind == "page" and not number.isdigit():
            continue
        if not number[0].isdigit() and m.group("word")[0].islower():
            continue  # "section I will ...": a letter or numeral needs a capitalised word
        out.append(Reference(kind, number, m.start(), m.end(), m.group()))
    for m in FOOTNOTE_REF.finditer(text):
        if not doc.code.in_code(m.start()):
            out.append(Reference("footnote", m.group("num"), m.start(), m.end(), m.group()))
    for m in NEARBY.finditer(text):
        if doc.code.in_code(m.start()):
            continue
        word = (m.group("word") or m.group("word2")).casefold()
        raw = (m.group("dir") or m.group("dir2")).casefold()
        direction = "below" if raw in ("below", "following") else "above"
        out.append(Reference(word, None, m.start(), m.end(), m.group(), direction))
    return sorted(out, key=lambda r: r.start)

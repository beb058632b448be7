"""Reading Markdown's links, code, headings and block ids out of text, with their offsets.

Pure text functions (nothing of the tree): the passes find links and references in the
leaves' original text (offsets into the file), and the Markdown output finds them again in the
rewritten bodies it displays. What lies in code (a fenced block, an indented block is not
told apart from prose here, an inline code span) is never a link nor a reference.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})[^\n]*$", re.M)
BACKTICKS = re.compile(r"`+")
WIKI = re.compile(r"(?P<embed>!?)\[\[(?P<target>[^\[\]\n|#^]*)(?P<anchor>#[^\[\]\n|]*)?"
                  r"(?:\|(?P<label>[^\[\]\n]*))?\]\]")
MDLINK = re.compile(r"(?P<embed>!?)\[(?P<label>(?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]"
                    r"\(\s*(?P<target><[^<>\n]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)"
                    r"(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)")
HEADING = re.compile(r"^ {0,3}(?P<marks>#{1,6})[ \t]+(?P<text>[^\n]*?)[ \t]*#*[ \t]*$", re.M)
CUSTOM_ID = re.compile(r"\s*\{\s*#(?P<id>[^\s}]+)[^}]*\}\s*$")
BLOCK_ID = re.compile(r"(?:^|\s)\^(?P<id>[A-Za-z0-9-]+)[ \t]*$", re.M)
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


@dataclass(frozen=True)
class Link:
    """A wiki-link or a Markdown link as written, at [start, end) of its text."""

    kind: str  # "wiki-link" or "markdown-link"
    start: int
    end: int
    target: str  # the note or path part ("" for the note itself)
    anchor: str | None  # a heading, or ^block-id; without the '#'
    label: str | None  # the alias, or the Markdown link's text
    embed: bool
    raw: str

    @property
    def external(self) -> bool:
        return self.kind == "markdown-link" and bool(SCHEME.match(self.target))

    def shown(self) -> str:
        """What a reader sees of it as plain text: the alias or link text, else the name."""
        if self.label:
            return self.label.strip()
        name = self.target.strip()
        if self.anchor:
            anchor = self.anchor.lstrip("^").replace("#", " > ")
            return f"{name} > {anchor}" if name else anchor
        return name


class CodeMap:
    """The code spans of one text (fenced blocks and inline code), for `in_code` tests."""

    def __init__(self, text: str):
        self.spans = code_spans(text)
        self._starts = [s for s, _ in self.spans]

    def in_code(self, start: int, end: int | None = None) -> bool:
        end = start + 1 if end is None else end
        i = bisect.bisect_right(self._starts, start) - 1
        for j in (i, i + 1):
            if 0 <= j < len(self.spans) and self.spans[j][0] < end and start < self.spans[j][1]:
                return True
        return False


def code_spans(text: str) -> list[tuple[int, int]]:
    """[start, end) of every fenced code block (an unclosed fence runs to the end, as
    CommonMark reads it) and every inline code span outside them, in order."""
    fenced: list[tuple[int, int]] = []
    pos = 0
    while (m := FENCE.search(text, pos)) is not None:
        char, size = m.group("fence")[0], len(m.group("fence"))
        close = re.compile(rf"^ {{0,3}}{re.escape(char)}{{{size},}}[ \t]*$", re.M)
        end_m = close.search(text, m.end() + 1) if m.end() < len(text) else None
        end = end_m.end() if end_m else len(text)
        fenced.append((m.start(), end))
        pos = end + 1
    out: list[tuple[int, int]] = []
    last = 0
    for start, end in fenced + [(len(text), len(text))]:
        out.extend(_inline_code(text, last, start))
        if start < end:
            out.append((start, end))
        last = end
    return out


def _inline_code(text: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """Inline code spans in text[lo:hi]: a run of n backticks up to the next run of exactly
    n (CommonMark); a run with no partner is literal."""
    runs = [(m.start() + lo, len(m.group())) for m in BACKTICKS.finditer(text[lo:hi])]
    out, i = [], 0
    while i < len(runs):
        start, n = runs[i]
        partner = next((j for j in range(i + 1, len(runs)) if runs[j][1] == n), None)
        if partner is None:
            i += 1
            continue
        out.append((start, runs[partner][0] + n))
        i = partner + 1
    return out


def find_links(text: str, code: CodeMap | None = None) -> list[Link]:
    """Every wiki-link and Markdown link of `text` outside code, in order."""
    code = code or CodeMap(text)
    found: list[Link] = []
    for m in WIKI.finditer(text):
        if code.in_code(m.start(), m.end()) or _escaped(text, m.start()):
            continue
        anchor = m.group("anchor")
        found.append(Link("wiki-link", m.start(), m.end(), m.group("target").strip(),
                          anchor[1:].strip() if anchor else None, m.group("label"),
                          bool(m.group("embed")), m.group()))
    taken = [(link.start, link.end) for link in found]
    for m in MDLINK.finditer(text):
        if code.in_code(m.start(), m.end()) or _escaped(text, m.start()):
            continue
        if any(s < m.end() and m.start() < e for s, e in taken):
            continue
        target = m.group("target").strip()
        if target.startswith("<") and target.endswith(">"):
            target = target[1:-1]
        path, _, anchor = target.partition("#")
        if SCHEME.match(target):
            path, anchor = target, ""
        found.append(Link("markdown-link", m.start(), m.end(), path, anchor or None,
                          m.group("label"), bool(m.group("embed")), m.group()))
    return sorted(found, key=lambda link: link.start)


def _escaped(text: str, at: int) -> bool:
    slashes = 0
    while at - slashes - 1 >= 0 and text[at - slashes - 1] == "\\":
        slashes += 1
    return slashes % 2 == 1


@dataclass(frozen=True)
class Heading:
    start: int  # the offset of the heading line
    level: int
    text: str  # without its marks and its `{ #id }`
    custom_id: str | None


def headings(text: str, code: CodeMap | None = None) -> list[Heading]:
    """The ATX headings of `text` outside code, in order."""
    code = code or CodeMap(text)
    out = []
    for m in HEADING.finditer(text):
        if code.in_code(m.start()):
            continue
        raw = m.group("text")
        cid = CUSTOM_ID.search(raw)
        title = raw[:cid.start()] if cid else raw
        out.append(Heading(m.start(), len(m.group("marks")), title.strip(), cid.group("id") if cid else None))
    return out


def block_ids(text: str, code: CodeMap | None = None) -> dict[str, int]:
    """Obsidian block ids (`^id` at a line's end) and the offset of the id."""
    code = code or CodeMap(text)
    return {m.group("id"): m.start("id") - 1 for m in BLOCK_ID.finditer(text) if not code.in_code(m.start("id"))}


def github_slug(title: str) -> str:
    """The anchor GitHub and mkdocs give a heading: lower case, punctuation dropped,
    spaces to hyphens."""
    plain = re.sub(r"[`*_~]|<[^>]+>", "", title).strip().lower()
    plain = re.sub(r"[^\w\- ]", "", plain)
    return plain.replace(" ", "-")


def plain_heading(title: str) -> str:
    """A heading's text as a wiki-link names it: inline markup dropped, spaces collapsed,
    case folded."""
    return " ".join(re.sub(r"[`*_~]|<[^>]+>", "", title).split()).casefold()

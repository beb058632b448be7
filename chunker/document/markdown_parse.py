"""markdown-it-py token stream -> headings, atomic units and prose blocks with exact offsets.

The Markdown grammar is markdown-it-py's (CommonMark, plus GFM tables, dollar math,
amsmath environments and YAML front matter from mdit-py-plugins); this module only maps
each block token's line range (`token.map`) to character offsets of the original text.
markdown-it normalizes CRLF and CR to LF before numbering lines, with the `NEWLINES_RE`
imported below, so splitting the original text with that same pattern gives the exact
start offset of every line it numbers, whatever the line endings.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from markdown_it.rules_core.normalize import NEWLINES_RE
from markdown_it.token import Token
from mdit_py_plugins.amsmath import amsmath_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

from chunker.document.readable import without_attributes

from .markdown_records import AtomicKind, AtomicUnit, Heading, Span

# A `$$` block may not hold a blank line (as in LaTeX, GitHub and KaTeX): an unclosed
# `$$` then ends at the next blank line instead of swallowing the rest of the document.
MATH_ALLOWS_BLANK_LINES = False

# Block tokens that are atomic units, by kind ("table_open" carries the table's map).
_ATOMIC_TOKENS: dict[str, AtomicKind] = {
    "fence": "code",
    "code_block": "code",
    "table_open": "table",
    "math_block": "math",
    "math_block_label": "math",
    "amsmath": "math",
}
# Inline children that may surround the images of a figure paragraph.
_FIGURE_WRAPPERS = {"link_open", "link_close", "softbreak", "hardbreak"}


@functools.lru_cache(maxsize=2)
def markdown_parser(front_matter: bool) -> MarkdownIt:
    """The configured parser; `front_matter=False` reads a leading `---` block as Markdown
    (used when that block is not a YAML mapping)."""
    md = (MarkdownIt("commonmark")
          .enable("table")
          .use(dollarmath_plugin, allow_blank_lines=MATH_ALLOWS_BLANK_LINES)
          .use(amsmath_plugin))
    if front_matter:
        md.use(front_matter_plugin)
    return md


class LineOffsets:
    """Character offset of the start of each line, as markdown-it numbers lines."""

    def __init__(self, text: str) -> None:
        self.length = len(text)
        self.starts = [0] + [m.end() for m in NEWLINES_RE.finditer(text)]

    def __call__(self, line: int) -> int:
        """Offset where `line` starts; a line past the last one starts at the end of the text."""
        return self.starts[line] if line < len(self.starts) else self.length

    def span(self, token: Token) -> tuple[int, int]:
        assert token.map is not None, f"{token.type} token without a line map"
        first, after = token.map
        return self(first), self(after)


def line_starts_within(text: str, start: int, end: int) -> list[int]:
    """Starts of the lines of text[start:end] (the first is `start`)."""
    return [start] + [m.end() for m in NEWLINES_RE.finditer(text, start, end) if m.end() < end]


@dataclass
class TokenWalk:
    """What one pass over the token stream finds."""

    headings: list[Heading] = field(default_factory=list)
    atomic_units: list[AtomicUnit] = field(default_factory=list)
    prose_blocks: list[Span] = field(default_factory=list)
    front_matter: tuple[int, int, str] | None = None
    """(start, end, YAML source) of a front matter token."""


def walk_tokens(text: str, tokens: list[Token]) -> TokenWalk:
    """Classify the block tokens of `text`'s parse, in text order."""
    lines = LineOffsets(text)
    found = TokenWalk()
    for i, token in enumerate(tokens):
        kind = _ATOMIC_TOKENS.get(token.type)
        if kind is not None:
            start, end = lines.span(token)
            if token.type == "amsmath":
                # mdit-py-plugins 0.7 maps an environment to [first line, closing line),
                # leaving out its `\end{...}` line; its content holds every line.
                end = lines(token.map[0] + token.content.count("\n") + 1)
            found.atomic_units.append(AtomicUnit(kind=kind, start=start, end=end))
        elif token.type == "front_matter":
            start, end = lines.span(token)
            found.front_matter = (start, end, token.content)
        elif token.type == "heading_open":
            start, end = lines.span(token)
            inline = tokens[i + 1]
            if token.level == 0:
                found.headings.append(Heading(
                    start=start, end=end, level=int(token.tag[1]),
                    title=without_attributes(plain_text(inline.children or [])),
                    style="atx" if token.markup.startswith("#") else "setext"))
            else:  # quoted or in a list: content, not document structure
                found.prose_blocks.append(Span(start=start, end=end))
        elif token.type == "paragraph_open":
            start, end = lines.span(token)
            if is_figure(tokens[i + 1].children or []):
                found.atomic_units.append(AtomicUnit(kind="figure", start=start, end=end))
            else:
                found.prose_blocks.append(Span(start=start, end=end))
        elif token.type == "html_block":
            start, end = lines.span(token)
            found.prose_blocks.append(Span(start=start, end=end))
    return found


def is_figure(children: list[Token]) -> bool:
    """True when an inline run is only images, possibly linked, separated by whitespace."""
    images = 0
    for child in children:
        if child.type == "image":
            images += 1
        elif child.type == "text" and not child.content.strip():
            continue
        elif child.type not in _FIGURE_WRAPPERS:
            return False
    return images > 0


def plain_text(children: list[Token]) -> str:
    """The text of an inline run without markup: text and code content, math with its
    dollars, image alt text; whitespace collapsed."""
    parts: list[str] = []
    for child in children:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("math_inline", "math_inline_double"):
            # keep the dollars: "Costs $5 and $10" parses as inline math, but is a title
            parts.append(child.markup + child.content + child.markup)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(plain_text(child.children or []))
    return " ".join("".join(parts).split())

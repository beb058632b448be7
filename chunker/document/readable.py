"""What a person reads of a Markdown text: its words, without its markup.

Summaries, titles, slugs, link labels and the boundary signal read this, never the markup:
front matter, HTML tags and comments (and the whole of `<style>`/`<script>`), attribute lists
(`{ #id }`), include directives (`{* ... *}`, `{{#include ...}}`, `--8<--`), admonition and
container markers (`/// tip`, `!!! note`, `:::`), link targets and image paths, heading,
list, quote and emphasis markers, code fences and table rules. The original text keeps every
byte: leaves, rewrites and the lossless invariant are untouched.

`readable_copy` masks markup with spaces and keeps every newline, so the copy has the text's
length and lines: an offset into it is an offset into the text, and the sentence ends found
on the text index it unchanged (the signal embeds `sentence_texts(readable_copy(text), ends)`).
"""

from __future__ import annotations

import re
from bisect import bisect_right

_FRONT_MATTER = re.compile(r"\A(?:\ufeff)?---[ \t]*\r?\n.*?\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S)
_ATTRIBUTES = re.compile(r"\{:?[ \t]*[#.][^{}\n]*\}")  # attribute lists { #id .class }
_BLOCK_HEAD = [  # masked with what they hold
    re.compile(r"<!--.*?(?:-->|\Z)", re.S),
    re.compile(r"<(style|script)\b[^>]*>.*?(?:</\1\s*>|\Z)", re.S | re.I),
    re.compile(r"\{\*.*?\*\}", re.S),                      # fastapi/mkdocs includes {* file.py hl[3] *}
    re.compile(r"\{\{#[a-z_]+[^}]*\}\}", re.I),             # mdBook {{#include ...}}, {{#rustdoc_include ...}}
    re.compile(r"\{%.*?%\}", re.S),                      # Jinja / Liquid statements
    re.compile(r"\{\{.*?\}\}", re.S),                    # Jinja / Liquid expressions
    re.compile(r"^[ \t]*--8<--.*$", re.M),                 # pymdownx snippets
    re.compile(r"^[ \t]*(?:///|!!!|\?\?\?\+?|:::+).*$", re.M),  # admonition / container markers
]
_BLOCK_TAIL = [
    re.compile(r"^[ \t]*\[[^\]\n]+\]:[ \t]*\S+.*$", re.M),  # link reference definitions
    re.compile(r"^[ \t]*(?:`{3,}|~{3,}).*$", re.M),        # code fence lines
    re.compile(r"^[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)*\|?[ \t]*$", re.M),  # table rules
    re.compile(r"^[ \t]*(?:[-*_][ \t]*){3,}$", re.M),      # thematic breaks
]
_FENCED = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", re.M | re.S)
_BLOCKS = _BLOCK_HEAD + _BLOCK_TAIL
"""Markup that stands apart from the sentences: a block or a line of its own."""
_WHOLE = _BLOCK_HEAD + [_ATTRIBUTES] + _BLOCK_TAIL
_TAGS = [
    re.compile(r"</?[A-Za-z][A-Za-z0-9:-]*(?:\s[^<>]*)?/?>"),  # HTML tags (their text stays)
    re.compile(r"<(?:https?|mailto|ftp):[^<>\s]*>"),       # autolinks
]
"""Masked outside code spans only: `Vec<T>` and `Option<String>` are code, not tags."""
_HEADING_LINE = re.compile(r"^[ \t]{0,3}#{1,6}(?:[ \t].*)?$", re.M)
_IMAGE = re.compile(r"!\[([^\]\n]*)\]\([^)\n]*\)")        # keep the alt text
_LINK = re.compile(r"(?<!!)\[([^\]\n]+)\]\((?:[^()\n]|\([^()\n]*\))*\)")  # keep the link text
_REF_LINK = re.compile(r"\[([^\]\n]+)\]\[[^\]\n]*\]")
_WIKI = re.compile(r"!?\[\[([^\]|\n]+?)(?:\|([^\]\n]+))?\]\]")  # keep the alias, else the name
_LINE_MARKERS = re.compile(r"^([ \t]*)((?:>[ \t]?)+|#{1,6}(?=[ \t]|$)|[-*+](?=[ \t]))", re.M)
_EMPHASIS = re.compile(r"(?<![\w*\\])(\*\*|__|\*|_|~~)(?=\S)(.+?)(?<=\S)\1(?![\w*])")
_BACKTICKS = re.compile(r"(?<!`)(`+)(?=[^`\s])([^`\n]*?[^`\s])\1(?!`)")  # `` quote '' (Brown corpus) is no code
_STAND_IN, _TICK = "\ue000", "\ue001"
"""Holds a code span's characters while inline markup is masked and a backtick, both private-use
characters that are no space, so emphasis around code still pairs)."""
_PIPE = re.compile(r"(?<!\\)\|")


def _blank(match: re.Match) -> str:
    """The match as spaces, newlines kept."""
    return re.sub(r"[^\n]", " ", match.group(0))


def _keep(group: int | tuple[int, ...]):
    """A replacement that masks the match but keeps one group (the first that matched)."""
    groups = (group,) if isinstance(group, int) else group

    def replace(match: re.Match) -> str:
        for g in groups:
            if match.group(g) is not None:
                start, end = match.span(g)
                break
        else:
            return _blank(match)
        out = list(_blank(match))
        base = match.start()
        out[start - base:end - base] = match.string[start:end]
        return "".join(out)
    return replace


def readable_copy(text: str, *, headings: bool = True, code: bool = True) -> str:
    """`text` with its markup masked by spaces: same length, same newlines. `headings=False`
    masks heading lines whole: a summary drawn from the copy then picks the passage's own
    sentences, not its heading (the node's title already), which reads as a sentence once
    its `#` is gone but is none. `code=False` masks fenced code blocks whole: their lines
    are no sentences, though a splitter finds some (`__init__.py  # makes "routers" a
    package` ends at `__init__.`), and a summary must not quote them."""
    copy = _FRONT_MATTER.sub(_blank, text, count=1)
    if not headings:
        copy = _HEADING_LINE.sub(_blank, copy)
    if not code:
        copy = _FENCED.sub(_blank, copy)
    for pattern in _WHOLE:
        copy = pattern.sub(_blank, copy)
    spans = [m.span(2) for m in _BACKTICKS.finditer(copy)]
    for pattern in _TAGS:
        copy = pattern.sub(lambda m: m.group(0) if _in_code(m, spans) else _blank(m), copy)
    copy = _LINE_MARKERS.sub(lambda m: m.group(1) + " " * len(m.group(2)), copy)
    # a code span's content is read as it is (`__init__`, `**kwargs`): only its backticks go.
    # Its content is held out of the inline rules by a stand-in, so `**use `x`**` still loses
    # its asterisks, then put back.
    code = [False] * len(copy)
    work = list(copy)
    for m in _BACKTICKS.finditer(copy):
        for i in range(m.start(1), m.end(1)):
            work[i] = _TICK
        for i in range(m.start(2), m.end(2)):
            code[i], work[i] = True, _STAND_IN
        for i in range(m.end(2), m.end()):
            work[i] = _TICK
    done = _inline("".join(work))
    copy = "".join(copy[i] if code[i] and done[i] == _STAND_IN else done[i] for i in range(len(copy)))
    copy = copy.replace(_TICK, " ")
    assert len(copy) == len(text)
    return copy


def _in_code(match: re.Match, spans: list[tuple[int, int]]) -> bool:
    """Whether the match lies inside one of the code spans' contents (`spans`: in order, apart)."""
    k = bisect_right(spans, (match.start(), len(match.string))) - 1
    return k >= 0 and spans[k][0] <= match.start() and match.end() <= spans[k][1]


def sentence_markup(text: str) -> str:
    """`text` with only the markup that stands apart from its sentences masked (front
    matter, heading lines, comments, includes, directives, fences, table rules), the
    markup inside a sentence kept (links, code spans, tags such as `<dfn title=...>`,
    emphasis), and a fenced code block's lines shown as backticks (code, not prose): same
    length as `readable_copy(text, headings=False)`, so a sentence found in the copy shows
    here, at the same offsets, the markup it is built around. Only judged, never shown."""
    copy = _HEADING_LINE.sub(_blank, _FRONT_MATTER.sub(_blank, text, count=1))
    fenced = [m.span() for m in _FENCED.finditer(copy)]
    for pattern in _BLOCKS:
        copy = pattern.sub(_blank, copy)
    for a, b in fenced:  # a fenced block's lines are code, not sentences: shown as backticks
        copy = copy[:a] + re.sub(r"[^\n]", "`", text[a:b]) + copy[b:]
    return copy


def _inline(copy: str) -> str:
    """Inline markup outside code spans: images, links, emphasis, table pipes."""
    copy = _IMAGE.sub(_keep(1), copy)
    copy = _WIKI.sub(_keep((2, 1)), copy)
    copy = _LINK.sub(_keep(1), copy)
    copy = _REF_LINK.sub(_keep(1), copy)
    for _ in range(2):  # **bold _and italic_** nests once
        copy = _EMPHASIS.sub(_keep(2), copy)
    return _PIPE.sub(" ", copy)


def without_attributes(title: str) -> str:
    """A heading's plain title without its attribute list (`FastAPI { #fastapi }`)."""
    return " ".join(_ATTRIBUTES.sub(" ", title).split())


_SPACE_BEFORE = re.compile(r"\s+(?=[,.;:!?)\]}])")
_SPACE_AFTER = re.compile(r"(?<=[(\[{])\s+")


def tidy(line: str) -> str:
    """One line drawn from a readable copy, without the gaps its masked markers left before
    punctuation (`*path operations*,` reads `path operations ,` in the copy)."""
    return _SPACE_AFTER.sub("", _SPACE_BEFORE.sub("", " ".join(line.split())))


def readable(text: str) -> str:
    """The readable words of `text` on one line."""
    return tidy(readable_copy(text))


def plain_line(text: str | None) -> str:
    """A model's one-line answer (a summary) as people read it: whitespace collapsed, and the
    markup a model copies from the passage it was shown (`## Heading`, `**bold**`, a link's
    target, a code span's backticks) gone, its words kept."""
    return readable(" ".join((text or "").split()))

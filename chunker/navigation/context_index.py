"""Contextual indexing: every searchable unit indexed with what the tree knows about it.

Anthropic's contextual retrieval pays an LLM call per chunk to write a line saying where the
chunk sits in its document; the tree already holds that line's ingredients. A *unit* is what
collapsed search ranks and the navigator may read:

- a **piece** of a leaf's original text (`pieces`: a window of about `piece_tokens`, cut at a
  sentence or line end, overlapping its neighbours by half), indexed as the context fields below followed by the piece itself;
- a **block** (or a corpus's document or folder node), indexed by its title, heading path and
  own summary and synthesis; reading one means reading its summary (zooming out).

The context fields (`settings.CONTEXT_FIELDS`, chosen by `NavigatorSettings.context_fields`):

- `title`: the document's title (a corpus document's, or the tree's root title);
- `path`: the heading chain of the leaf (Markdown), else the titles of its titled ancestors;
- `ancestors`: the summaries of the blocks above the leaf, nearest first, cut at
  `context_tokens` (the nearest say most about the passage; the root says little);
- `summary`: the leaf's own one-to-two-sentence summary;
- `rewritten`: the slice of the leaf's self-sufficient rewrite that corresponds to the piece
  (the rewrite keeps the original's order, so a piece gets the same share of the rewrite at
  the same place, snapped to spaces): names in place of pronouns, beside the words the source used.

For an embedding model the context before a piece is cut to `context_tokens` so that the piece
still fits the model's input (all-MiniLM-L6-v2 reads 256 word pieces); BM25 reads all of it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from chunker.document.tokens import encoding
from chunker.navigation.pieces import aligned_slice, piece_spans, windows
from chunker.navigation.settings import CONTEXT_FIELDS, check_fields
from chunker.navigation.tree import Tree

@dataclass(frozen=True)
class Unit:
    """One thing collapsed search ranks: a piece of a leaf, or a block's summary."""

    id: str
    """`<node id>#<piece number>` for a piece, the node id for a block."""
    node: str
    kind: str
    """piece | summary"""
    span: tuple[int, int] | None
    """A piece's characters in its file (within its leaf's span); None for a summary."""
    offset: tuple[int, int] | None
    """The same characters within the leaf's original text."""
    halves: tuple[int, int] | None = None
    """A piece's first and last half-piece of its leaf (`pieces.windows`): consecutive or
    overlapping pieces read together merge by them."""


_ATTRIBUTES = re.compile(r"\s*\{\s*[#.][^{}]*\}\s*$")
"""A heading's trailing attribute list (`## Setup { #setup }`, Pandoc and MkDocs): an anchor
for links, not words a reader says."""


def _line(text: str | None) -> str:
    return " ".join((text or "").split())


def heading_text(text: str | None) -> str:
    """A heading as a reader names it: one line, without a trailing `{ #anchor }`."""
    return _ATTRIBUTES.sub("", _line(text))


def document_title(tree: Tree, node_id: str) -> str:
    """The title of the document a node belongs to (a corpus document's, or the root's)."""
    for nid in reversed(tree.ancestors(node_id)):
        n = tree.node(nid)
        if n.kind == "document" and n.title:
            return heading_text(n.title)
    root = tree.node(tree.root_id)
    if not tree.is_corpus:
        return heading_text(root.title or (tree.hierarchy.meta.source or ""))
    return ""


def heading_path(tree: Tree, node_id: str) -> list[str]:
    """The leaf's heading chain (Markdown), else the titles of the titled blocks above it."""
    n = tree.node(node_id)
    if n.header_path:
        return [heading_text(h) for h in n.header_path if heading_text(h)]
    return [heading_text(tree.node(a).title) for a in tree.ancestors(node_id)[:-1]
            if tree.node(a).title and tree.node(a).kind in ("block", "document")]


def ancestor_summaries(tree: Tree, node_id: str, context_tokens: int) -> list[str]:
    """Summaries of the blocks above the node, nearest first, within `context_tokens`."""
    enc = encoding()
    out, used = [], 0
    for nid in reversed(tree.ancestors(node_id)[:-1]):
        text = _line(tree.node(nid).summary)
        cost = len(enc.encode_ordinary(text))
        if not text or used + cost > context_tokens:
            break
        out.append(text)
        used += cost
    return out


def summary_as_written(summary: str, original: str) -> str:
    """A leaf's summary in its source's own words, for search only.

    An extracted summary is sentences of the leaf's readable copy (`chunker.document.readable`:
    markup masked, same length as the original); a person reads them so, but the source
    writes them with their markup, whose words a question may use: a tooltip's definition
    (`<dfn title="cleanup code">`), a link's target, a heading's `{ #id }`. Each stretch of
    the summary found in the copy is replaced by the original's characters at the same
    offsets. A summary the copy does not hold (a model wrote it) is returned as it is."""
    if not summary or not original:
        return summary
    from chunker.document.readable import readable_copy

    copy = readable_copy(original, headings=False)
    where = [i for i, c in enumerate(copy) if not c.isspace()]
    flat = "".join(copy[i] for i in where)  # the copy's characters, spaces aside
    want = "".join(summary.split())
    out, i = [], 0
    while i < len(want):
        lo, hi = 0, len(want) - i  # the longest stretch from i the copy holds (binary search:
        while lo < hi:             # every head of a stretch it holds, it holds too)
            mid = (lo + hi + 1) // 2
            if flat.find(want[i:i + mid]) >= 0:
                lo = mid
            else:
                hi = mid - 1
        if lo < 8:  # no real stretch: the summary is not drawn from this leaf
            return summary
        at = flat.find(want[i:i + lo])
        out.append(original[where[at]:where[at + lo - 1] + 1])
        i += lo
    return " ".join(" ".join(part.split()) for part in out)


def context_lines(tree: Tree, node_id: str, fields: tuple[str, ...], context_tokens: int) -> list[str]:
    """The context fields of a node (everything but `rewritten`, which is per piece)."""
    n = tree.node(node_id)
    lines: list[str] = []
    if "title" in fields and (title := document_title(tree, node_id)):
        lines.append(title)
    if "path" in fields and (path := heading_path(tree, node_id)):
        lines.append(" > ".join(path))
    if "ancestors" in fields:
        lines.extend(ancestor_summaries(tree, node_id, context_tokens))
    if "summary" in fields and n.level == 0 and _line(n.summary):
        lines.append(summary_as_written(_line(n.summary), n.original or ""))
    return lines


def clip(text: str, tokens: int) -> str:
    """The first `tokens` tokens of `text`."""
    enc = encoding()
    ids = enc.encode_ordinary(text)
    return text if len(ids) <= tokens else enc.decode(ids[:tokens])


def build_units(tree: Tree, fields: tuple[str, ...], piece_tokens: int, context_tokens: int,
                allowed: set[str] | None = None) -> tuple[list[Unit], dict[str, str], dict[str, str],
                                                          dict[str, list[tuple[int, int]]]]:
    """Every unit of the tree (of `allowed` nodes only, when given), with two texts each:
    the full contextual text (for BM25) and a short one that fits a sentence-embedding model
    (context cut to `context_tokens`, then the piece); and each leaf's half-pieces."""
    fields = check_fields(fields)
    units: list[Unit] = []
    long_texts: dict[str, str] = {}
    short_texts: dict[str, str] = {}
    halves_of: dict[str, list[tuple[int, int]]] = {}
    for n in tree.hierarchy.in_order():
        if allowed is not None and n.id not in allowed:
            continue
        if n.children:  # a block, document or folder: its title, path and summary
            head = [t for t in (_line(n.title),) if t]
            if "path" in fields and n.kind == "block":
                head += [" > ".join(heading_path(tree, n.id))] if heading_path(tree, n.id) else []
            text = "\n".join(head + [_line(n.summary), n.rewritten or ""])
            units.append(Unit(n.id, n.id, "summary", None, None))
            long_texts[n.id] = text
            short_texts[n.id] = text
            continue
        original = n.original or ""
        halves = halves_of[n.id] = piece_spans(original, max(1, piece_tokens // 2))
        context = context_lines(tree, n.id, fields, context_tokens)
        prefix = "\n".join(context)
        short_prefix = clip(prefix, context_tokens) if prefix else ""
        base = n.span[0] if n.span else 0
        for number, (first, last) in enumerate(windows(halves)):
            uid = f"{n.id}#{number}"
            a, b = halves[first][0], halves[last][1]
            piece = original[a:b]
            extra = ""
            if "rewritten" in fields and n.rewritten:
                extra = aligned_slice(n.rewritten, first, last, len(halves))
            units.append(Unit(uid, n.id, "piece", (base + a, base + b), (a, b), (first, last)))
            long_texts[uid] = "\n".join(t for t in (prefix, piece, extra) if t)
            short_texts[uid] = "\n".join(t for t in (short_prefix, piece) if t)
            if extra:  # the rewrite's slice embedded on its own: a second vector for the piece
                short_texts[f"{uid}~"] = "\n".join(t for t in (short_prefix, extra) if t)
    return units, long_texts, short_texts, halves_of


def contextual_leaf_text(tree: Tree, leaf_id: str, fields: tuple[str, ...], context_tokens: int,
                         view: str = "both") -> str:
    """A whole leaf as contextual indexing writes it: its context lines, then its original
    (`view` "source"), its rewrite when `rewritten` is a field ("tree": the context lines with
    the summary and the rewrite, not the original), or both ("both", the default: what a flat
    index over contextual leaves reads)."""
    n = tree.node(leaf_id)
    fields = check_fields(fields)
    lines = context_lines(tree, leaf_id, fields, context_tokens)
    if view in ("source", "both"):
        lines.append(n.original or "")
    if view in ("tree", "both") and "rewritten" in fields and n.rewritten:
        lines.append(n.rewritten)
    return "\n".join(t for t in lines if t)

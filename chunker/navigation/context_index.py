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
- `ancestors`: the summaries of the blocks above the leaf, nearest first, within
  `context_tokens` (the nearest say most about the passage; the root says little); the first
  that does not fit whole ends them, never dropped: whole for BM25, cut at a word end for the
  embedding model;
- `summary`: the leaf's own one-to-two-sentence summary (an extracted one in its source's words,
  `as_written.summary_as_written`);
- `glosses`: what the leaf's HTML tags hold for a reader outside their content (a tooltip's
  definition, an abbreviation's expansion, an image's description; `as_written.glosses`):
  the readable copy keeps them out of every summary, the search reads them here;
- `rewritten`: the slice of the leaf's self-sufficient rewrite that corresponds to the piece
  (the rewrite keeps the original's order, so a piece gets the same share of the rewrite at
  the same place, snapped to spaces): names in place of pronouns, beside the words the source used.

For an embedding model the context before a piece is cut to `context_tokens` so that the piece
still fits the model's input (all-MiniLM-L6-v2 reads 256 word pieces), with the ancestors'
summaries last, so that the cut takes them before the leaf's own summary; BM25 reads all of it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from chunker.document.tokens import encoding
from chunker.navigation.as_written import glosses, summary_as_written
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


def ancestor_summaries(tree: Tree, node_id: str, context_tokens: int, cut: bool = True) -> list[str]:
    """Summaries of the blocks above the node, nearest first, within `context_tokens`: the
    first that does not fit whole ends the list, cut to what is left at a word end (`cut`,
    for an embedding model's input) or whole (BM25, which has no input limit). Dropping it
    instead left a leaf under a long section summary with no context at all (730 of
    fastapi-docs' 1,280 leaves), its section's words lost to the search because of how long
    the summary ran."""
    enc = encoding()
    out, used = [], 0
    for nid in reversed(tree.ancestors(node_id)[:-1]):
        text = _line(tree.node(nid).summary)
        if not text:
            break
        ids = enc.encode_ordinary(text)
        if used + len(ids) > context_tokens:
            if not cut:
                out.append(text)
                break
            head = enc.decode(ids[:context_tokens - used])
            if not text.startswith(head + " "):  # the cut fell inside a word: drop that word
                head = head.rsplit(" ", 1)[0] if " " in head else ""
            if head.strip():
                out.append(head.strip())
            break
        out.append(text)
        used += len(ids)
    return out


def _own_lines(tree: Tree, node_id: str, fields: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """A node's context lines but its ancestors': those before them (title, path) and after."""
    n = tree.node(node_id)
    before: list[str] = []
    after: list[str] = []
    if "title" in fields and (title := document_title(tree, node_id)):
        before.append(title)
    if "path" in fields and (path := heading_path(tree, node_id)):
        before.append(" > ".join(path))
    if "summary" in fields and n.level == 0 and _line(n.summary):
        after.append(summary_as_written(_line(n.summary), n.original or ""))
    if "glosses" in fields and n.level == 0 and (gloss := glosses(n.original or "")):
        after.append(gloss)
    return before, after


def context_lines(tree: Tree, node_id: str, fields: tuple[str, ...], context_tokens: int,
                  embedded: bool = False) -> list[str]:
    """The context fields of a node (everything but `rewritten`, which is per piece), in the
    fields' order, as BM25 reads them. `embedded`: as an embedding model reads them, the
    ancestors' summaries cut (`ancestor_summaries`) and after the node's own lines (the
    embedded prefix is cut at `context_tokens`, and what is cut should be the least specific:
    a section's summary, not the leaf's own summary)."""
    before, after = _own_lines(tree, node_id, fields)
    return _joined(tree, node_id, fields, context_tokens, before, after, embedded)


def _joined(tree: Tree, node_id: str, fields: tuple[str, ...], context_tokens: int,
            before: list[str], after: list[str], embedded: bool) -> list[str]:
    if "ancestors" not in fields:
        return before + after
    above = ancestor_summaries(tree, node_id, context_tokens, cut=embedded)
    return before + after + above if embedded else before + above + after


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
        before, after = _own_lines(tree, n.id, fields)
        prefix = "\n".join(_joined(tree, n.id, fields, context_tokens, before, after, False))
        short = "\n".join(_joined(tree, n.id, fields, context_tokens, before, after, True))
        short_prefix = clip(short, context_tokens) if short else ""
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

"""Linked Markdown: index.md plus one file per node, Obsidian-ready.

Links are wiki-links labelled with the target's summary: `[[content/L0/slug|summary]]`.
Labels cannot break a link: `|` becomes `∣` (U+2223), square brackets become
parentheses and newlines become spaces. Model-written body text has `[[`/`]]` escaped,
and the original text sits in a code fence, so neither can add links. Frontmatter is YAML written by a YAML
library, so any summary text still parses.
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

import yaml

from chunker.output.hierarchy import Hierarchy, TreeNode

if TYPE_CHECKING:
    from chunker.knowledge.display import Display

LABEL_MAX = 200


def label(text: str) -> str:
    text = " ".join((text or "").split())
    text = text.replace("|", "\u2223").replace("[", "(").replace("]", ")")
    if len(text) > LABEL_MAX:
        text = text[:LABEL_MAX - 1].rstrip() + "\u2026"
    return text or "(no summary)"


def body_text(text: str) -> str:
    """Model-written prose for a page body: `[[` and `]]` are backslash-escaped so that
    text can never create a wiki-link of its own."""
    return text.replace("[[", "\\[\\[").replace("]]", "\\]\\]")


def link(node: TreeNode, titled: bool = False) -> str:
    """A wiki-link labelled with the target's summary; in a corpus (`titled`), a folder's or a
    document's label starts with its title, so a reader sees which file or folder it is."""
    text = node.summary
    if titled and node.kind in ("folder", "document") and node.title:
        text = f"{node.title}: {node.summary}"
    return f"[[{node.filename[:-3]}|{label(text)}]]"


def frontmatter(data: dict) -> str:
    body = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=10**9)
    return f"---\n{body}---\n"


def fenced(text: str) -> str:
    """A code fence longer than any backtick run in `text` (CommonMark), so the text is verbatim."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}\n"


def render_node(node: TreeNode, h: Hierarchy, nodes: dict[str, TreeNode],
                siblings: dict[str, tuple[TreeNode | None, TreeNode | None]],
                display: Display | None = None) -> str:
    """One node's file; with `display` (the knowledge passes' view of the tree), its body's
    links point at the tree's node files, and Terms and See also lines follow the body."""
    meta = {
        "id": node.id, "level": node.level, "kind": node.kind, "source": node.source,
        "parent": node.parent, "children": node.children,
        "span": list(node.span) if node.span is not None else None, "tokens": node.token_count,
        "forced_split": node.forced_split, "boundary": node.boundary, "summary": node.summary,
    }
    if node.pages is not None:  # PDF documents only: text documents' files stay as they were
        meta["pages"] = list(node.pages)
    if node.scanned_pages:
        meta["scanned_pages"] = node.scanned_pages
    if node.location is not None:  # formats with locations: where it lies, beside `pages`
        for key, value in node.location.model_dump(mode="json").items():
            if key != "pages":
                meta[key] = value
    for key in ("title", "content", "header_path", "tags"):  # Markdown documents, corpora
        if getattr(node, key) is not None:
            meta[key] = getattr(node, key)
    titled = h.meta.corpus is not None
    up = (link(nodes[node.parent], titled) if node.parent
          else f"[[index|{'Corpus' if titled else 'Document'} overview]]")
    heading = f"{label(node.title)}: {label(node.summary)}" if node.title else label(node.summary)
    lines = [frontmatter(meta), f"# {heading}\n", f"Up: {up}"]
    prev, nxt = siblings.get(node.id, (None, None))
    if prev:
        lines.append(f"Previous: {link(prev, titled)}")
    if nxt:
        lines.append(f"Next: {link(nxt, titled)}")
    body = node.rewritten.strip()
    lines += ["", display.body(node, body) if display else body_text(body), ""]
    if display:
        extra = display.lines(node)
        lines += [*extra, ""] if extra else []
    if node.children:
        lines.append("## Contents\n")
        lines += [f"- {link(nodes[c], titled)}{pages_note(nodes[c])}" for c in node.children]
        lines.append("")
    if node.records:
        lines += records_section(node, h)
    if node.original is not None:
        lines += ["## Original text\n", fenced(node.original)]
    return "\n".join(lines).rstrip("\n") + "\n"


def records_section(node: TreeNode, h: Hierarchy) -> list[str]:
    """The node's tables (each a link to its CSV file), equations and figures, one line each."""
    lines = ["## Structured content\n"]
    folder = node.filename.rpartition("/")[0]
    for table in h.tables:
        if table.id in node.records:
            name = label(table.caption or table.id)
            if table.csv:
                rel = table.csv[len(folder) + 1:] if table.csv.startswith(folder + "/") else table.csv
                lines.append(f"- {table.id}: {name} ([CSV]({rel}), {len(table.rows)} rows)")
            else:
                lines.append(f"- {table.id}: {name}")
    for eq in h.equations:
        if eq.id in node.records:
            lines.append(f"- {eq.id}" + (f" ({label(eq.label)})" if eq.label else "")
                         + (f": variables {', '.join(label(v.symbol) for v in eq.variables)}" if eq.variables else ""))
    for fig in h.figures:
        if fig.id in node.records:
            lines.append(f"- {fig.id}: {label(fig.caption or fig.alt or fig.id)}")
            if fig.media:  # the image in OUT/media/, relative to this file
                lines.append(f"  ![{label(fig.alt or fig.caption or fig.id)}]({posixpath.relpath(fig.media, folder)})")
            if fig.description:
                lines.append(f"  Description (vision model): {label(fig.description)}")
    return lines + [""]


def render_index(h: Hierarchy, nodes: dict[str, TreeNode], title: str) -> str:
    root = nodes[h.root]
    titled = h.meta.corpus is not None
    meta = {"title": title, "root": root.id, "doc_id": h.meta.doc_id, "model": h.meta.model,
            "leaves": sum(1 for n in h.nodes if n.level == 0), "levels": root.level + 1}
    if titled:
        meta["documents"] = len(h.meta.corpus.documents)
    lines = [frontmatter(meta), f"# {label(title)}\n", "## Overview\n", body_text(root.summary.strip()), "",
             f"Root: {link(root, titled)}", ""]
    if root.children:
        lines.append("## Sections\n")
        lines += [f"- {link(nodes[c], titled)}{pages_note(nodes[c])}" for c in root.children]
    if h.terms:  # every term page is reachable from the index
        lines += ["", "## Terms\n"]
        lines += [f"- [[terms/{t.id}|{label(t.name)}]]" for t in h.terms]
    return "\n".join(lines).rstrip("\n") + "\n"


def pages_note(node: TreeNode) -> str:
    """` (pages 3-5)` after a link in index.md (` (slides 2-4)` for a deck); nothing for text."""
    if node.pages is None:
        slides = node.location.slides if node.location is not None else None
        if slides is None:
            return ""
        return f" (slide {slides[0]})" if slides[0] == slides[1] else f" (slides {slides[0]}\u2013{slides[1]})"
    first, last = node.pages
    return f" (page {first})" if first == last else f" (pages {first}\u2013{last})"


def sibling_map(h: Hierarchy) -> dict[str, tuple[TreeNode | None, TreeNode | None]]:
    """Previous and next of each node: inside a document, the nodes of its level in text
    order; folders and documents, their neighbours under the same parent."""
    rows: dict[tuple, list[TreeNode]] = {}
    for n in h.in_order():
        if n.kind in ("folder", "document"):
            key: tuple = ("parent", n.parent)
        else:
            key = ("level", n.source, n.level)
        rows.setdefault(key, []).append(n)
    out = {}
    for row in rows.values():
        for i, n in enumerate(row):
            out[n.id] = (row[i - 1] if i else None, row[i + 1] if i + 1 < len(row) else None)
    return out

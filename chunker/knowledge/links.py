"""Resolving a note's links to the tree's nodes: a `[[wiki-link]]` (with `|alias`, `#heading`,
`#^block-id`) or a Markdown link `[x](other.md#anchor)` names a file of the tree, and
through its anchor a heading's section or the leaf holding a block id.

Names resolve as Obsidian resolves them, without guessing: a path (relative to the corpus
root, or for a Markdown link to the linking file's folder), else a file name; a file name
shared by several files resolves to the one in the linking file's folder, else to none
(listed as ambiguous). External URLs and links to files that are not documents (images,
PDFs, assets) are neither resolved nor listed: they stay as they are.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from urllib.parse import unquote

from chunker.knowledge.documents import DocText, Documents
from chunker.knowledge.syntax import Link, github_slug

DOCUMENT_SUFFIXES = ("", ".md", ".markdown", ".mdx", ".txt", ".html", ".htm")
"""A link target with one of these suffixes names a document: it resolves to a node of the
tree or, when the tree has no such file, it is listed and shown as plain text."""


@dataclass(frozen=True)
class Resolution:
    node: str | None  # the target node's id; None: unresolved
    reason: str = ""  # why not, when unresolved
    document: str | None = None  # the file it resolved to


SKIP = Resolution(None, "skip")
"""Not a link to a document (external, an image, an asset): left as it is, not listed."""


class LinkResolver:
    def __init__(self, docs: Documents):
        self.docs = docs
        self.by_path: dict[str, str] = {}
        self.by_name: dict[str, list[str]] = {}
        for source in docs.docs:
            if source is None:
                continue
            stem = _stem(source).casefold()
            self.by_path[stem] = source
            self.by_name.setdefault(posixpath.basename(stem), []).append(source)

    def resolve(self, link: Link, source: str | None) -> Resolution:
        if link.external:
            return SKIP
        target = unquote(link.target.strip()) if link.kind == "markdown-link" else link.target.strip()
        if not target:  # the note itself: [[#Heading]], [x](#anchor)
            if link.anchor is None:
                return SKIP
            doc = self.docs.get(source)
            return self._anchored(doc, link) if doc else Resolution(None, "no such file")
        suffix = posixpath.splitext(target)[1].casefold()
        if suffix not in DOCUMENT_SUFFIXES and re.fullmatch(r"\.[a-z0-9]{1,5}", suffix):
            return SKIP  # an image, a PDF, an asset: not a note ("v1.2 notes" is a note)
        found = (self._by_relative(target, source) if link.kind == "markdown-link"
                 else self._by_wiki_name(target, source))
        if isinstance(found, Resolution):
            return found
        doc = self.docs.get(found)
        if link.anchor is None:
            return Resolution(doc.node.id, document=found)
        return self._anchored(doc, link)

    def _by_relative(self, target: str, source: str | None) -> str | Resolution:
        base = posixpath.dirname(source or "")
        if target.startswith("/"):
            path = posixpath.normpath(target.lstrip("/"))
        else:
            path = posixpath.normpath(posixpath.join(base, target))
        if path.endswith("/") or target.endswith("/"):
            path = posixpath.join(path, "index")
        key = _stem(path).casefold()
        if key in self.by_path:
            return self.by_path[key]
        index = posixpath.join(key, "index")
        if index in self.by_path:
            return self.by_path[index]
        return Resolution(None, "no such file")

    def _by_wiki_name(self, target: str, source: str | None) -> str | Resolution:
        key = _stem(target).casefold().strip("/")
        if key in self.by_path:  # a path from the root
            return self.by_path[key]
        here = posixpath.dirname(source or "")
        relative = posixpath.normpath(posixpath.join(here, key)) if here else key
        if relative in self.by_path:
            return self.by_path[relative]
        if "/" in key:  # a partial path: the files whose path ends with it
            hits = [s for p, s in self.by_path.items() if p.endswith("/" + key)]
        else:
            hits = self.by_name.get(key, [])
        if len(hits) == 1:
            return hits[0]
        if not hits:
            return Resolution(None, "no such note")
        near = [s for s in hits if posixpath.dirname(s).casefold() == here.casefold()]
        if len(near) == 1:
            return near[0]
        return Resolution(None, f"ambiguous: {len(hits)} notes are called {target!r}")

    def _anchored(self, doc: DocText, link: Link) -> Resolution:
        anchor = link.anchor or ""
        if anchor.startswith("^"):
            at = doc.blocks.get(anchor[1:])
            if at is None:
                return Resolution(None, f"no block ^{anchor[1:]} in {doc.source}")
            return Resolution(doc.leaf_at(at).id, document=doc.source)
        if link.kind == "markdown-link":
            want = unquote(anchor).casefold()
            heading = next((h for h in doc.headings if (h.custom_id or "").casefold() == want
                            or github_slug(h.text) == want), None)
        else:
            heading = doc.find_heading(anchor)
        if heading is None:
            return Resolution(None, f"no heading {anchor!r} in {doc.source}")
        return Resolution(doc.heading_node(heading).id, document=doc.source)


def _stem(path: str) -> str:
    root, ext = posixpath.splitext(path)
    return root if ext.casefold() in DOCUMENT_SUFFIXES else path

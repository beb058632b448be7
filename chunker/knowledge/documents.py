"""The finished tree's files as the knowledge passes read them: each file's text (its leaves'
originals joined: the lossless invariant makes it the source), its code, headings and block
ids, and the node that holds a given offset.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from functools import cached_property

from chunker.knowledge.syntax import CodeMap, Heading, block_ids, headings, plain_heading
from chunker.output.hierarchy import Hierarchy, TreeNode


@dataclass
class DocText:
    """One file of the tree."""

    source: str | None
    node: TreeNode  # the document node
    leaves: list[TreeNode]
    nodes: list[TreeNode] = field(default_factory=list)  # every node of the file
    text: str = ""

    def __post_init__(self):
        self.text = "".join(leaf.original or "" for leaf in self.leaves)
        self._starts = [leaf.span[0] for leaf in self.leaves]

    @cached_property
    def code(self) -> CodeMap:
        return CodeMap(self.text)

    @cached_property
    def headings(self) -> list[Heading]:
        return headings(self.text, self.code)

    @cached_property
    def blocks(self) -> dict[str, int]:
        return block_ids(self.text, self.code)

    def leaf_at(self, offset: int) -> TreeNode:
        i = max(0, bisect.bisect_right(self._starts, offset) - 1)
        return self.leaves[i]

    def heading_node(self, heading: Heading) -> TreeNode:
        """The node that holds a heading's section: the highest node of the file titled by
        it and starting at it, else the leaf holding the heading line."""
        want = plain_heading(heading.text)
        titled = [n for n in self.nodes if n.span and n.span[0] == heading.start and n.title
                  and plain_heading(n.title) == want]
        if titled:
            return max(titled, key=lambda n: n.level)
        return self.leaf_at(heading.start)

    def find_heading(self, anchor: str) -> Heading | None:
        """A wiki-link's `#Heading` (the last of `#A#B`, case and markup folded)."""
        want = plain_heading(anchor.split("#")[-1])
        return next((h for h in self.headings if plain_heading(h.text) == want), None)


class Documents:
    """Every file of one tree, by its source path."""

    def __init__(self, h: Hierarchy):
        self.h = h
        self.nodes = h.by_id()
        self.is_corpus = h.meta.corpus is not None
        by_source: dict[str | None, list[TreeNode]] = {}
        for n in h.in_order():
            if n.kind != "folder":
                by_source.setdefault(n.source, []).append(n)
        self.docs: dict[str | None, DocText] = {}
        for source, nodes in by_source.items():
            doc = next((n for n in nodes if n.kind == "document"), nodes[0])
            leaves = [n for n in nodes if not n.children]
            self.docs[source] = DocText(source, doc, leaves, nodes)

    def __iter__(self):
        return iter(self.docs.values())

    def get(self, source: str | None) -> DocText | None:
        return self.docs.get(source)

"""hierarchy.json: the canonical tree, as pydantic models, and its invariants.

`Hierarchy.model_json_schema()` is exported to `output/hierarchy.schema.json`
(regenerate with `python -m chunker.output.hierarchy`).
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, Field, model_serializer

SCHEMA_VERSION = 2


class TreeNode(BaseModel):
    id: str = Field(description="L<level>-<index>, e.g. L0-00003")
    level: int = Field(description="0 for leaves, 1+ for summary blocks")
    parent: str | None = Field(description="id of the parent; None for the root")
    children: list[str] = Field(default_factory=list, description="child ids in document order")
    span: tuple[int, int] = Field(description="[start, end) character offsets in the source")
    original: str | None = Field(default=None, description="the source text (leaves only)")
    rewritten: str = Field(description="self-sufficient rewrite (leaves) or synthesis (blocks)")
    summary: str
    slug: str
    filename: str = Field(description="path of the node's Markdown file, relative to OUT")
    token_count: int = Field(description="tokens of the original (leaves) or context (blocks)")
    forced_split: bool = False
    boundary: str | None = Field(default=None, description="how the leaf's end was chosen")
    pages: tuple[int, int] | None = Field(
        default=None, description="PDF documents: first and last 1-based page of the node's text")
    scanned_pages: list[int] | None = Field(
        default=None, description="PDF leaves: scanned pages (no text layer) the leaf holds")

    kind: str | None = Field(
        default=None, description="Markdown leaves: prose, table, code, math, figure or mixed")
    header_path: list[str] | None = Field(
        default=None, description="Markdown documents: the heading chain, outermost first (a "
                                  "block's is its children's common prefix)")
    title: str | None = Field(
        default=None, description="Markdown blocks that are exactly one heading's section: its title")

    @model_serializer(mode="wrap")
    def _omit_pdf_fields(self, handler):
        # Text documents have no pages: their hierarchy.json stays as it was, byte for byte.
        data = handler(self)
        for key in ("pages", "scanned_pages", "kind", "header_path", "title"):
            if data.get(key) is None:
                data.pop(key, None)
        return data


class RunMeta(BaseModel):
    tool_version: str
    model: str
    doc_id: str
    source: str | None = None
    source_chars: int
    config: dict
    stats: dict[str, int]
    started_at: str | None = None
    finished_at: str | None = None
    front_matter: dict | None = Field(
        default=None, description="Markdown documents: the YAML front matter's mapping")

    @model_serializer(mode="wrap")
    def _omit_front_matter(self, handler):
        # documents without front matter: hierarchy.json stays as it was, byte for byte
        data = handler(self)
        if data.get("front_matter") is None:
            data.pop("front_matter", None)
        return data


class Hierarchy(BaseModel):
    schema_version: int = SCHEMA_VERSION
    root: str
    nodes: list[TreeNode]
    meta: RunMeta

    def by_id(self) -> dict[str, TreeNode]:
        return {n.id: n for n in self.nodes}

    def leaves(self) -> list[TreeNode]:
        return sorted((n for n in self.nodes if n.level == 0), key=lambda n: n.span[0])


class TreeInvariantError(AssertionError):
    """The tree is not lossless or not a proper tree: the run must fail loudly."""


def check_lossless(leaves: list[TreeNode], text: str) -> None:
    pos = 0
    for leaf in leaves:
        start, end = leaf.span
        if start != pos or end <= start:
            raise TreeInvariantError(f"leaf {leaf.id} spans [{start}, {end}) but the previous "
                                     f"leaf ended at {pos}: gap or overlap")
        if leaf.original != text[start:end]:
            raise TreeInvariantError(f"leaf {leaf.id}'s original differs from the source text")
        pos = end
    if pos != len(text):
        raise TreeInvariantError(f"leaves cover {pos} of {len(text)} characters")


def check_tree(h: Hierarchy) -> None:
    nodes = h.by_id()
    if h.root not in nodes or nodes[h.root].parent is not None:
        raise TreeInvariantError("the root is missing or has a parent")
    roots = [n.id for n in h.nodes if n.parent is None]
    if roots != [h.root]:
        raise TreeInvariantError(f"expected exactly one root, found {roots}")
    for node in h.nodes:
        if node.level > 0:
            if len(node.children) < 2:
                raise TreeInvariantError(f"block {node.id} has fewer than two children")
            spans = [nodes[c].span for c in node.children]
            if spans[0][0] != node.span[0] or spans[-1][1] != node.span[1] or any(
                    a[1] != b[0] for a, b in zip(spans, spans[1:])):
                raise TreeInvariantError(f"block {node.id}'s children do not tile its span")
            for c in node.children:
                if nodes[c].parent != node.id:
                    raise TreeInvariantError(f"{c} does not point back to its parent {node.id}")
    # every node reachable from the root
    seen, todo = set(), [h.root]
    while todo:
        nid = todo.pop()
        seen.add(nid)
        todo.extend(nodes[nid].children)
    if seen != set(nodes):
        raise TreeInvariantError(f"{len(set(nodes) - seen)} nodes are not reachable from the root")


SCHEMA_FILE = Path(__file__).with_name("hierarchy.schema.json")


def export_schema(path: Path = SCHEMA_FILE) -> None:
    path.write_text(json.dumps(Hierarchy.model_json_schema(), indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    export_schema()
    print(SCHEMA_FILE)

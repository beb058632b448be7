"""hierarchy.json: the canonical tree, as pydantic models, and its invariants.

`Hierarchy.model_json_schema()` is exported to `output/hierarchy.schema.json`
(regenerate with `python -m chunker.output.hierarchy`).
"""

from __future__ import annotations

import json
from pathlib import Path, PurePath
from typing import Literal

from pydantic import BaseModel, Field, model_serializer, model_validator

from chunker.output.checks import Check
from chunker.output.graph import Edge, Term, Unresolved
from chunker.structured.records import EquationRecord, FigureRecord, TableRecord

SCHEMA_VERSION = 6
"""3: every node has `kind` and `source`; the Markdown leaves' content type is `content`
(it was `kind` in 2); a folder node has no span. 4: `tables`, `equations`, `figures` and
`checks` (structured records, issue 32) and each leaf's `records`; a tree older than 4 opens
with none of them (they default to empty). 5: `terms`, typed `edges` and `unresolved` (the
knowledge passes, issue 33); an older tree opens with them empty. 6: a node of a file with
locations (pages, container parts, slides, paragraphs, OCR) says where it lies in it
(`location`, issue 31). Trees of every earlier version still open (`Hierarchy._from_older`)."""

NodeKind = Literal["folder", "document", "block", "leaf"]


class NodeLocation(BaseModel):
    """Where a node's text lies in its original file (`chunker/readers/location.py`): only
    what the format has is set."""

    pages: tuple[int, int] | None = Field(default=None, description="first and last 1-based page")
    parts: list[str] | None = Field(default=None, description=(
        "the container's files the text comes from, in order (an EPUB's chapter files)"))
    anchor: str | None = Field(default=None, description="the id nearest before the start, in its first part")
    slides: tuple[int, int] | None = Field(default=None, description="first and last 1-based slide")
    paragraphs: tuple[int, int] | None = Field(default=None, description=(
        "0-based: the first paragraph (in the first part) and the last (in the last part)"))
    ocr_confidence: float | None = Field(default=None, description=(
        "the lowest mean OCR confidence (0-100) of the stretches of the text OCR read"))

    @model_serializer(mode="wrap")
    def _omit_unset(self, handler):
        return {k: v for k, v in handler(self).items() if v is not None}


class TreeNode(BaseModel):
    id: str = Field(description="L<level>-<index>, e.g. L0-00003; in a corpus a document's nodes "
                                "are prefixed by the document's key (D1a2b3c4d.L0-00003) and "
                                "folders are F<hash> (the root: F-root)")
    level: int = Field(description="0 for leaves, 1+ above: a block is one above its highest child")
    kind: NodeKind = Field(default="block", description=(
        "folder: a folder or another group of documents (a table-of-contents section, a "
        "category); document: the node that holds one whole file (its root block, or its only "
        "leaf); block: a summary of consecutive passages of one file; leaf: one passage"))
    source: str | None = Field(default=None, description=(
        "the file the node's text comes from, relative to the corpus root (a single-document "
        "run: the file's name); None for folders"))
    parent: str | None = Field(description="id of the parent; None for the root")
    children: list[str] = Field(default_factory=list, description="child ids in document order")
    span: tuple[int, int] | None = Field(
        description="[start, end) character offsets in the node's own file (`source`); None for folders")
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
    location: NodeLocation | None = Field(default=None, description=(
        "where the node lies in its original file (formats with pages, parts, slides or "
        "paragraphs; not plain text or Markdown); `pages` repeats the node's own"))

    content: str | None = Field(
        default=None, description="Markdown leaves: prose, table, code, math, figure or mixed")
    header_path: list[str] | None = Field(
        default=None, description="Markdown documents: the heading chain, outermost first (a "
                                  "block's is its children's common prefix)")
    title: str | None = Field(
        default=None, description="Markdown nodes (leaves or blocks) that are exactly one heading's "
                                  "section: its title; folders and documents: their title")
    tags: list[str] | None = Field(default=None, description="documents: their front matter's tags")
    records: list[str] | None = Field(default=None, description=(
        "leaves holding structured content: the ids of the tables, equations and figures "
        "(`table-1`, ...) they hold, whole or in part (see `tables`, `equations`, `figures`)"))

    @model_serializer(mode="wrap")
    def _omit_pdf_fields(self, handler):
        # Text documents have no pages: their hierarchy.json stays as it was, byte for byte.
        data = handler(self)
        for key in ("pages", "scanned_pages", "location", "content", "header_path", "title", "tags", "records"):
            if data.get(key) is None:
                data.pop(key, None)
        return data


class CorpusDocument(BaseModel):
    """One file of a corpus run."""

    source: str = Field(description="path relative to the corpus root")
    doc_id: str
    sha256: str = Field(description="of the file's bytes (a PDF's, for a PDF)")
    chars: int = Field(description="characters of the text its leaves tile")
    kind: str = Field(description="text or pdf")
    node: str = Field(description="id of the document's node")
    title: str


class SkippedFile(BaseModel):
    source: str
    reason: str


class CorpusMeta(BaseModel):
    """What a corpus run read: its root, its files, the files it left out and why."""

    root: str = Field(description="the corpus root folder, as given")
    documents: list[CorpusDocument]
    skipped: list[SkippedFile] = Field(default_factory=list)
    toc: str | None = Field(default=None, description="the table of contents file that shaped the tree")


class UpdateRecord(BaseModel):
    """One `chunker update` that brought the tree up to date with its changed source."""

    at: str = Field(description="when it finished (UTC, ISO 8601)")
    source_sha256: str = Field(description="the source it brought the tree to: the file's hash, "
                                           "or a corpus's hash over its files' paths and hashes")
    reused: dict[str, int] = Field(description="nodes taken as they were, by kind (leaves, blocks, "
                                               "documents, folders)")
    redone: dict[str, int] = Field(description="nodes written again (their text or children changed)")
    added: dict[str, int] = Field(default_factory=dict, description="nodes that are new")
    removed: dict[str, int] = Field(default_factory=dict, description="nodes that went")
    calls: int = Field(description="LLM calls the update made")
    stale: dict[str, list[str]] = Field(default_factory=dict, description=(
        "what the changed settings or prompts made stale (boundaries, leaf_text, blocks), and why"))


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
    corpus: CorpusMeta | None = Field(default=None, description="corpus runs: the files")
    signature: dict | None = Field(default=None, description=(
        "hashes of the settings and prompts that shaped the tree's boundaries, leaf texts and "
        "blocks (`chunker/update/signature.py`): what an update compares"))
    updates: list[UpdateRecord] | None = Field(default=None, description=(
        "every `chunker update` since the tree was first built, oldest first"))

    @model_serializer(mode="wrap")
    def _omit_front_matter(self, handler):
        # documents without front matter: hierarchy.json stays as it was, byte for byte
        data = handler(self)
        for key in ("front_matter", "corpus", "signature", "updates"):
            if data.get(key) is None:
                data.pop(key, None)
        return data


def _schema_2_to_3(data: dict) -> dict:
    """Schema 2 (one document): its Markdown leaves' `kind` is their `content`, each node's
    kind follows from its place, its source is the document's file name."""
    source = PurePath((data.get("meta") or {}).get("source") or "").name or None
    nodes = []
    for node in data.get("nodes", []):
        node = dict(node)
        if "kind" in node:
            node["content"] = node.pop("kind")
        node["kind"] = ("document" if node.get("id") == data.get("root")
                        else "leaf" if node.get("level") == 0 else "block")
        node.setdefault("source", source)
        nodes.append(node)
    return {**data, "schema_version": 3, "nodes": nodes}


class Hierarchy(BaseModel):
    schema_version: int = SCHEMA_VERSION
    root: str
    nodes: list[TreeNode]
    meta: RunMeta
    tables: list[TableRecord] = Field(default_factory=list, description=(
        "the document's tables as records (columns, rows, cells with their numbers, caption, "
        "the leaves holding each: `parts`); trees older than the records have none"))
    equations: list[EquationRecord] = Field(default_factory=list)
    figures: list[FigureRecord] = Field(default_factory=list)
    checks: list[Check] = Field(default_factory=list, description=(
        "findings of the data checks (a total that does not add up, one quantity with two "
        "values), each with every location it involves; never corrected"))

    terms: list[Term] = Field(default_factory=list, description=(
        "the term registry over the whole tree (knowledge passes, at write time)"))
    edges: list[Edge] = Field(default_factory=list, description=(
        "typed edges: defines and mentions (node to term), refers_to and links_to (node to node)"))
    unresolved: list[Unresolved] = Field(default_factory=list, description=(
        "references and links whose target the tree does not hold, with their spans"))

    @model_serializer(mode="wrap")
    def _omit_empty_records(self, handler):
        # a document without tables, equations, figures or findings: no empty lists written
        data = handler(self)
        for key in ("tables", "equations", "figures", "checks"):
            if not data.get(key):
                data.pop(key, None)
        return data

    @model_validator(mode="before")
    @classmethod
    def _from_older(cls, data):
        """A tree of an earlier schema still opens, as today's: schemas 3-5 lack locations (a
        PDF's nodes get theirs from their pages), schema 2 also `kind` and `source`; records,
        terms and edges a schema lacks default to empty."""
        if not isinstance(data, dict) or data.get("schema_version", SCHEMA_VERSION) not in range(2, SCHEMA_VERSION):
            return data
        if data["schema_version"] == 2:
            data = _schema_2_to_3(data)
        nodes = [({**n, "location": {"pages": n["pages"]}} if n.get("pages") and not n.get("location") else n)
                 for n in data.get("nodes", [])]
        return {**data, "schema_version": SCHEMA_VERSION, "nodes": nodes}

    def by_id(self) -> dict[str, TreeNode]:
        return {n.id: n for n in self.nodes}

    def in_order(self) -> list[TreeNode]:
        """Every node, depth first from the root, children in order: reading order."""
        nodes, out, todo = self.by_id(), [], [self.root]
        while todo:
            node = nodes[todo.pop()]
            out.append(node)
            todo.extend(reversed(node.children))
        return out

    def leaves(self, source: str | None = None) -> list[TreeNode]:
        """The leaves in reading order (in one file, by offset); only `source`'s when given."""
        return [n for n in self.in_order() if not n.children and n.kind != "folder"
                and (source is None or n.source == source)]

    def leaves_by_source(self) -> dict[str, list[TreeNode]]:
        """Each file's leaves in reading order, files in reading order: one walk of the tree."""
        out: dict[str, list[TreeNode]] = {}
        for n in self.in_order():
            if n.kind == "document":
                out.setdefault(n.source, [])
            if not n.children and n.kind != "folder":
                out.setdefault(n.source, []).append(n)
        return out

    def sources(self) -> list[str]:
        """The files the tree holds, in reading order."""
        return list(dict.fromkeys(n.source for n in self.in_order() if n.kind == "document"))


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
        if node.kind == "folder" and not node.children:
            raise TreeInvariantError(f"folder {node.id} holds no document")
        if node.children:
            if len(node.children) < 2:
                raise TreeInvariantError(f"{node.kind} {node.id} has fewer than two children")
            kids = [nodes[c] for c in node.children]
            if any(k.level >= node.level for k in kids):
                raise TreeInvariantError(f"{node.id} is not above all its children")
            if node.kind == "folder":
                if any(k.kind not in ("folder", "document") for k in kids):
                    raise TreeInvariantError(f"folder {node.id} holds a part of a document")
                for c in node.children:
                    if nodes[c].parent != node.id:
                        raise TreeInvariantError(f"{c} does not point back to its parent {node.id}")
                continue
            if any(k.source != node.source or k.kind in ("folder", "document") for k in kids):
                raise TreeInvariantError(f"block {node.id} holds nodes of another document")
            spans = [k.span for k in kids]
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

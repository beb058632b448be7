"""Assemble the Hierarchy from the store's records, then check its invariants."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from chunker.grounding import grounded_slug
from chunker.output.hierarchy import Hierarchy, NodeLocation, RunMeta, TreeNode, check_lossless, check_tree
from chunker.chunking.peel import block_structure, document_structure
from chunker.output.slugs import SlugAllocator, sanitize
from chunker.state.records import NodeRecord
from chunker.state.store import RunStore, node_id
from chunker.structured.extract import run_records, with_parts
from chunker.structured.records import StructuredRecords


def attach_records(nodes: list[TreeNode], records: StructuredRecords) -> tuple[list[TreeNode], StructuredRecords]:
    """The records with the leaves that hold them, each leaf with the ids of its records, and
    each table's CSV file beside its first part's node file (`content/L0/<slug>.table-1.csv`)."""
    if records.empty():
        return nodes, records
    leaves = [n for n in nodes if not n.children and n.span is not None]
    records = with_parts(records, [(n.id, n.span) for n in leaves])
    files = {n.id: n.filename for n in leaves}
    records = records.model_copy(update={"tables": [
        t.model_copy(update={"csv": files[t.parts[0]][:-3] + f".{t.id}.csv"}) if t.parts else t
        for t in records.tables]})
    held: dict[str, list[str]] = {}
    for r in [*records.tables, *records.equations, *records.figures]:
        for part in r.parts:
            held.setdefault(part, []).append(r.id)
    return [n.model_copy(update={"records": held[n.id]}) if n.id in held else n for n in nodes], records


def assemble(rs: RunStore, leaf_count: int, block_counts: list[int], root_id: str, meta: RunMeta,
             slug_max_length: int = 60, taken: dict[str, set[str]] | None = None,
             source_name: str | None = None, locate: "Locate | None" = None) -> Hierarchy:
    """The checked tree; `taken` holds file stems per folder that slugs must avoid;
    `source_name` is what every node's `source` says (the document's file name); `locate`
    maps a span to where it lies in the original file (None: a text with no locations)."""
    records = [rs.get_node(node_id(0, i)) for i in range(leaf_count)]
    for level, count in enumerate(block_counts):
        if level > 0:
            records.extend(rs.get_node(node_id(level, i)) for i in range(count))
    return assemble_records(rs, records, root_id, meta, slug_max_length, taken, source_name, locate=locate)


def assemble_records(rs: RunStore, records: list[NodeRecord], root_id: str, meta: RunMeta,
                     slug_max_length: int = 60, taken: dict[str, set[str]] | None = None,
                     source_name: str | None = None, names: Mapping[str, str] | None = None,
                     locate: "Locate | None" = None) -> Hierarchy:
    """The checked tree over `records` (leaves in order, then blocks, children before
    parents). `names`: an update's old file names by node id: a copied node keeps its
    own, a node written again keeps it while its words still describe it. `locate`: as
    for `assemble`."""
    names = names or {}
    parents = {c: r.id for r in records for c in r.children}
    parsed = document_structure(rs)  # Markdown: blocks' heading paths, sections' titles
    structure = parsed[0] if parsed else None
    headed = block_structure(records, parsed[1] if parsed else None)
    if structure is not None and structure.front_matter is not None:
        meta = meta.model_copy(update={"front_matter": structure.front_matter.metadata})
    slugs = SlugAllocator(slug_max_length, taken)
    kept = _kept_stems(records, names, slugs)
    nodes = []
    pages: dict[str, tuple[int, int] | None] = {}  # a block spans its children's pages
    for r in records:
        kids = [pages[c] for c in r.children if pages.get(c)]
        pages[r.id] = r.pages or ((kids[0][0], kids[-1][1]) if kids else None)
        folder = f"content/L{r.level}"
        stem = kept.get(r.id) or _stem(r, names.get(r.id), folder, slugs, slug_max_length)
        kind = "document" if r.id == root_id else ("leaf" if r.is_leaf else "block")
        nodes.append(TreeNode(
            id=r.id, level=r.level, kind=kind, source=source_name,
            parent=parents.get(r.id), children=list(r.children),
            span=r.span, original=r.original if r.is_leaf else None,
            rewritten=r.rewritten, summary=r.summary, slug=stem, filename=f"{folder}/{stem}.md",
            token_count=r.tokens, forced_split=r.forced_split, boundary=r.boundary,
            pages=pages[r.id], scanned_pages=r.scanned_pages, content=r.kind,
            location=_location(locate, r.span),
            header_path=headed[r.id][0] if r.id in headed else r.header_path,
            title=headed[r.id][1] if r.id in headed else r.title,
        ))
    nodes, records = attach_records(nodes, run_records(rs))
    hierarchy = Hierarchy(root=root_id, nodes=nodes, meta=meta, tables=records.tables,
                          equations=records.equations, figures=records.figures, checks=records.checks)
    check_lossless(hierarchy.leaves(), rs.text())
    check_tree(hierarchy)
    return hierarchy


Locate = Callable[[tuple[int, int]], dict | None]
"""A span of the run's text -> its location in the original (`Location.as_dict()`), or None."""


def _location(locate: Locate | None, span: tuple[int, int] | None) -> NodeLocation | None:
    found = locate(span) if locate is not None and span is not None else None
    return NodeLocation.model_validate(found) if found else None


def _kept_stems(records: list[NodeRecord], names: Mapping[str, str], slugs: SlugAllocator) -> dict[str, str]:
    """Copied nodes first: each keeps its old file, where it still belongs (same level)."""
    kept = {}
    for r in records:
        old = names.get(r.id)
        if r.reused and old:
            folder, stem = _split(old)
            if folder == f"content/L{r.level}" and slugs.reserve(folder, stem):
                kept[r.id] = stem
    return kept


def _stem(r: NodeRecord, old: str | None, folder: str, slugs: SlugAllocator, max_length: int) -> str:
    text = r.original or r.rewritten
    if old:  # written again: the old name while it is free and the node's own words hold it
        old_folder, stem = _split(old)
        words = stem.replace("-", " ")
        if (old_folder == folder and grounded_slug(words, text, summary=r.summary) == stem
                and slugs.reserve(folder, stem)):
            return stem
    # the model's slug only when its words are the node's own; else key phrases
    words = grounded_slug(r.slug_hint, text, summary=r.summary)
    return slugs.allocate(folder, sanitize(words, r.id, max_length=max_length))


def _split(filename: str) -> tuple[str, str]:
    folder, _, name = filename.rpartition("/")
    return folder, name.removesuffix(".md")

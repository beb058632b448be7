"""Assemble the Hierarchy from the store's records, then check its invariants."""

from __future__ import annotations

from langgraph.store.base import BaseStore

from chunker.output.hierarchy import Hierarchy, RunMeta, TreeNode, check_lossless, check_tree
from chunker.output.slugs import SlugAllocator, sanitize
from chunker.state.store import doc_ns, get_node, node_id


def assemble(store: BaseStore, doc_id: str, leaf_count: int, block_counts: list[int],
             root_id: str, meta: RunMeta, slug_max_length: int = 60) -> Hierarchy:
    records = [get_node(store, doc_id, node_id(0, i)) for i in range(leaf_count)]
    for level, count in enumerate(block_counts):
        if level > 0:
            records.extend(get_node(store, doc_id, node_id(level, i)) for i in range(count))
    parents = {c: r["id"] for r in records for c in r.get("children", [])}
    slugs = SlugAllocator(slug_max_length)
    nodes = []
    for r in records:
        folder = f"content/L{r['level']}"
        stem = slugs.allocate(folder, sanitize(r.get("slug_hint"), r.get("summary"), r["id"],
                                               max_length=slug_max_length))
        nodes.append(TreeNode(
            id=r["id"], level=r["level"], parent=parents.get(r["id"]),
            children=list(r.get("children", [])), span=tuple(r["span"]),
            original=r.get("original") if r["level"] == 0 else None,
            context=r["context"], summary=r["summary"], slug=stem,
            filename=f"{folder}/{stem}.md",
            token_count=r.get("tokens", r.get("context_tokens", 0)),
            forced_split=bool(r.get("forced_split")), boundary=r.get("boundary"),
        ))
    hierarchy = Hierarchy(root=root_id, nodes=nodes, meta=meta)
    text = store.get(doc_ns(doc_id), "text").value["text"]
    check_lossless(hierarchy.leaves(), text)
    check_tree(hierarchy)
    return hierarchy

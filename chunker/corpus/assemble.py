"""One hierarchy over the corpus: every document's own tree under the upper nodes.

Ids: a document's nodes keep their own ids behind the document's key
(`D1a2b3c4d.L0-00003`), folders are `F<hash of their plan key>`: both stay the same when
other files come and go. Files: each node's Markdown file sits beside the folder that holds
its children's files, so OUT mirrors the tree (and, for a corpus shaped by its folders, the
source folders): `content/tutorial.md` with `content/tutorial/security.md`, and inside
a document `content/tutorial/first-steps.md` with `content/tutorial/first-steps/L0/*.md`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePosixPath

from chunker.corpus.model import DocInfo
from chunker.corpus.upper import UpperNode
from chunker.output.hierarchy import (Hierarchy, RunMeta, TreeInvariantError, TreeNode, check_lossless,
                                      check_tree)
from chunker.output.slugs import SlugAllocator, sanitize


def document_nodes(tree: Hierarchy, rel: str, key: str, info: DocInfo) -> list[TreeNode]:
    """The document's nodes under corpus ids, each naming its file; its root is the
    document node, titled as the document calls itself."""
    def cid(local: str | None) -> str | None:
        return None if local is None else f"{key}.{local}"

    out = []
    for n in tree.in_order():
        update = {"id": cid(n.id), "parent": cid(n.parent), "children": [cid(c) for c in n.children],
                  "source": rel}
        if n.id == tree.root:
            update.update(kind="document", title=info.title, tags=list(info.tags) or None)
        out.append(n.model_copy(update=update))
    return out


def upper_nodes(nodes: list[UpperNode]) -> list[TreeNode]:
    return [TreeNode(id=u.id, level=u.level, kind="folder", source=None, parent=None,
                     children=list(u.children), span=None, original=None, rewritten=u.rewritten,
                     summary=u.summary, slug="", filename="", token_count=u.rewritten_tokens,
                     title=u.title) for u in nodes]


def corpus_hierarchy(root_id: str, parts: list[TreeNode], meta: RunMeta, texts: Mapping[str, str], *,
                     corpus_name: str, names: Mapping[str, str], slug_max_length: int = 60,
                     taken: dict[str, set[str]] | None = None) -> Hierarchy:
    """The checked tree. `names`: a folder node's source folder name, by id (its file's
    name); `texts`: each file's text, for the lossless check per file."""
    by_id = {n.id: n for n in parts}
    parents = {c: n.id for n in parts for c in n.children}
    placed = _layout(root_id, by_id, corpus_name, names, slug_max_length, taken)
    nodes = [n.model_copy(update={"parent": parents.get(n.id), **placed[n.id]})
             for n in _in_order(root_id, by_id)]
    h = Hierarchy(root=root_id, nodes=nodes, meta=meta)
    check_tree(h)
    per_file = h.leaves_by_source()  # one walk: a corpus of thousands of files stays linear
    for source, leaves in per_file.items():
        check_lossless(leaves, texts[source])
    if set(per_file) != set(texts):
        missing = sorted(set(texts) - set(per_file))
        raise TreeInvariantError(f"documents missing from the corpus tree: {missing[:5]}")
    return h


def _in_order(root_id: str, by_id: dict[str, TreeNode]) -> list[TreeNode]:
    out, todo = [], [root_id]
    while todo:
        node = by_id[todo.pop()]
        out.append(node)
        todo.extend(reversed(node.children))
    return out


def _layout(root_id: str, by_id: dict[str, TreeNode], corpus_name: str, names: Mapping[str, str],
            max_length: int, taken: dict[str, set[str]] | None) -> dict[str, dict]:
    slugs = SlugAllocator(max_length, taken)
    placed: dict[str, dict] = {}

    def name_of(node: TreeNode) -> str:
        if node.kind == "document":
            return PurePosixPath(node.source or "").stem or node.title or node.id
        return names.get(node.id) or node.title or node.id

    def place_node(node: TreeNode, folder: str, stem_hint: str) -> None:
        stem = slugs.allocate(folder, sanitize(stem_hint, node.title, node.id, max_length=max_length))
        placed[node.id] = {"slug": stem, "filename": f"{folder}/{stem}.md"}
        inner = f"{folder}/{stem}"
        for c in node.children:
            child = by_id[c]
            if child.kind in ("folder", "document"):
                place_node(child, inner, name_of(child))
            else:
                place_inner(child, inner)

    def place_inner(node: TreeNode, doc_folder: str) -> None:
        folder = f"{doc_folder}/L{node.level}"
        stem = slugs.allocate(folder, node.slug)
        placed[node.id] = {"slug": stem, "filename": f"{folder}/{stem}.md"}
        for c in node.children:
            place_inner(by_id[c], doc_folder)

    root = by_id[root_id]
    place_node(root, "content", corpus_name if root.kind == "folder" else name_of(root))
    return placed

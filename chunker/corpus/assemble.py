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
        if n.records:  # its tables, equations and figures, under their corpus ids
            update["records"] = [cid(r) for r in n.records]
        if n.id == tree.root:
            update.update(kind="document", title=info.title, tags=list(info.tags) or None)
        out.append(n.model_copy(update=update))
    return out


def document_records(h: Hierarchy, trees: Mapping[str, Hierarchy], keys: Mapping[str, str]) -> Hierarchy:
    """The corpus tree with every document's records (tables, equations, figures) and their
    checks, as its own tree has them, under corpus ids (`D1a2b3c4d.table-1`, parts the corpus
    ids of its leaves); each table's CSV beside its first part's file where the corpus puts it,
    each check's locations naming their file. The knowledge checks are the corpus's own
    (`annotate` redoes them over all files), so a document's are left out."""
    from chunker.knowledge.passes import KNOWLEDGE_KINDS  # noqa: PLC0415

    files = {n.id: n.filename for n in h.nodes}
    found: dict[str, list] = {"tables": [], "equations": [], "figures": [], "checks": []}
    for rel, tree in trees.items():
        key = keys[rel]

        def moved(record, key=key):
            return record.model_copy(update={"id": f"{key}.{record.id}", "parts": [f"{key}.{p}" for p in record.parts]})

        for table in tree.tables:
            t = moved(table)
            found["tables"].append(t.model_copy(update={
                "csv": files[t.parts[0]][:-3] + f".{table.id}.csv" if t.parts and t.parts[0] in files else None}))
        found["equations"] += [moved(e) for e in tree.equations]
        found["figures"] += [moved(f) for f in tree.figures]
        found["checks"] += [c.model_copy(update={"locations": [
            loc.model_copy(update={"node": f"{key}.{loc.node}" if loc.node else None, "source": rel})
            for loc in c.locations]}) for c in tree.checks if c.kind not in KNOWLEDGE_KINDS]
    return h.model_copy(update=found)


def upper_nodes(nodes: list[UpperNode]) -> list[TreeNode]:
    return [TreeNode(id=u.id, level=u.level, kind="folder", source=None, parent=None,
                     children=list(u.children), span=None, original=None, rewritten=u.rewritten,
                     summary=u.summary, slug="", filename="", token_count=u.rewritten_tokens,
                     title=u.title) for u in nodes]


def corpus_hierarchy(root_id: str, parts: list[TreeNode], meta: RunMeta, texts: Mapping[str, str], *,
                     corpus_name: str, names: Mapping[str, str], slug_max_length: int = 60,
                     taken: dict[str, set[str]] | None = None,
                     old_files: Mapping[str, str] | None = None) -> Hierarchy:
    """The checked tree. `names`: a folder node's source folder name, by id (its file's
    name); `texts`: each file's text, for the lossless check per file; `old_files`: an
    update's old file names by node id, kept wherever the node still sits in that folder."""
    by_id = {n.id: n for n in parts}
    parents = {c: n.id for n in parts for c in n.children}
    placed = _layout(root_id, by_id, corpus_name, names, slug_max_length, taken, old_files or {})
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
            max_length: int, taken: dict[str, set[str]] | None, old_files: Mapping[str, str]
            ) -> dict[str, dict]:
    slugs = SlugAllocator(max_length, taken)
    placed: dict[str, dict] = {}

    def name_of(node: TreeNode) -> str:
        if node.kind == "document":
            return PurePosixPath(node.source or "").stem or node.title or node.id
        return names.get(node.id) or node.title or node.id

    def stems(items: list[tuple[TreeNode, str, str]]) -> list[str]:
        """Stems for (node, folder, hint) in order: first every node that keeps its old file
        in the same folder, then the others, so no new node takes a kept name."""
        out: dict[int, str] = {}
        for i, (node, folder, _) in enumerate(items):
            old = old_files.get(node.id)
            if old:
                old_folder, _, name = old.rpartition("/")
                stem = name.removesuffix(".md")
                if old_folder == folder and slugs.reserve(folder, stem):
                    out[i] = stem
        for i, (node, folder, hint) in enumerate(items):
            if i not in out:
                out[i] = slugs.allocate(folder, hint)
        return [out[i] for i in range(len(items))]

    def place(node: TreeNode, folder: str, stem: str) -> None:
        placed[node.id] = {"slug": stem, "filename": f"{folder}/{stem}.md"}
        inner = f"{folder}/{stem}"
        upper = [by_id[c] for c in node.children if by_id[c].kind in ("folder", "document")]
        hints = [(c, inner, sanitize(name_of(c), c.title, c.id, max_length=max_length)) for c in upper]
        for child, child_stem in zip(upper, stems(hints)):
            place(child, inner, child_stem)
        inside: list[TreeNode] = []
        todo = [by_id[c] for c in reversed(node.children) if by_id[c].kind not in ("folder", "document")]
        while todo:  # a document's blocks and leaves, in order, each in its level's folder
            n = todo.pop()
            inside.append(n)
            todo.extend(by_id[c] for c in reversed(n.children))
        items = [(n, f"{inner}/L{n.level}", n.slug) for n in inside]
        for n, n_stem in zip(inside, stems(items)):
            placed[n.id] = {"slug": n_stem, "filename": f"{inner}/L{n.level}/{n_stem}.md"}

    root = by_id[root_id]
    hint = sanitize(corpus_name if root.kind == "folder" else name_of(root), root.title, root.id,
                    max_length=max_length)
    place(root, "content", stems([(root, "content", hint)])[0])
    return placed

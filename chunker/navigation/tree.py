"""Read-only access to a finished run's tree (`OUT/hierarchy.json`).

The views a reader needs to walk down from the root: the overview, a node with its
children's summaries, a leaf's original text, a node's parent and neighbours, and a
search over summaries and rewritten texts. Nothing here writes to the tree; the only
file ever written is the optional embedding cache under `OUT/.chunker/navigation/`.

A corpus tree (`meta.corpus` set: folders of files) opens the same way; its views also
name each node's kind, file, span and title, and its search can be kept to a path prefix.
A single-document tree's views are exactly what they were before corpora existed.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from pydantic import ValidationError

from chunker.document.tokens import count_tokens
from chunker.navigation.errors import NavigationError, NotARun, UnknownNode
from chunker.navigation.knowledge import outgoing
from chunker.navigation.scope import normalise_prefix, nodes_under
from chunker.navigation.search import BM25, BM25_SPECS, TextIndex, batch_relative, build_index, top_k
from chunker.navigation.views import (Neighbourhood, NodeRef, NodeView, Passage, SearchHit,
                                      SearchResults)
from chunker.output.hierarchy import Hierarchy, TreeNode

HIERARCHY = "hierarchy.json"


class Tree:
    """One finished tree, opened read-only."""

    def __init__(self, hierarchy: Hierarchy, path: Path | None = None):
        self.hierarchy = hierarchy
        self.path = path
        self.nodes: dict[str, TreeNode] = hierarchy.by_id()
        self.root_id = hierarchy.root
        self.is_corpus = hierarchy.meta.corpus is not None
        """Folders of files: views name kinds, files and spans (single documents: ids only)."""
        self._indexes: dict[tuple, TextIndex] = {}
        self._document_ids: dict[str, list[str]] = {}
        self._order: dict[str, int] | None = None

    # -- nodes ------------------------------------------------------------------------
    def node(self, node_id: str) -> TreeNode:
        try:
            return self.nodes[node_id]
        except KeyError:
            if self.is_corpus:
                raise UnknownNode(f"unknown node id {node_id!r}: this corpus tree's ids look like "
                                  f"{self.root_id} (its root folder), {self._example('folder')} "
                                  f"(a folder) and {self._example('leaf')} (a document's "
                                  f"node); start from overview") from None
            raise UnknownNode(f"unknown node id {node_id!r}: this tree's ids run from "
                              f"L0-00000 up to its root {self.root_id}") from None

    def _example(self, kind: str) -> str:
        """A real id of a `folder` or of a `leaf` (a document's passage), for messages."""
        for n in self.hierarchy.in_order():
            passage = not n.children and n.kind != "folder"
            if n.id != self.root_id and (n.kind == "folder" if kind == "folder" else passage):
                return n.id
        return "F…" if kind == "folder" else "D….L0-00000"

    def ref(self, node_id: str) -> NodeRef:
        n = self.node(node_id)
        ref = NodeRef(id=n.id, level=n.level, summary=_line(n.summary), is_leaf=n.level == 0)
        if self.is_corpus:
            ref.kind, ref.source, ref.span, ref.title = n.kind, n.source, n.span, n.title
        return ref

    def is_leaf(self, node_id: str) -> bool:
        return not self.node(node_id).children

    def leaf_ids(self) -> list[str]:
        return [n.id for n in self.hierarchy.leaves()]

    def ancestors(self, node_id: str) -> list[str]:
        """From the root down to `node_id`, both included."""
        chain = [node_id]
        while (parent := self.node(chain[-1]).parent) is not None:
            chain.append(parent)
        return chain[::-1]

    def descendants(self, node_id: str) -> list[str]:
        out, todo = [], [node_id]
        while todo:
            nid = todo.pop()
            out.append(nid)
            todo.extend(self.node(nid).children)
        return out

    def search_text(self, node_id: str, titled: bool = True) -> str:
        """What search and the embedding fallback compare a question with (`titled`: in a
        corpus, folders and documents with their titles in front)."""
        n = self.node(node_id)
        if titled and self.is_corpus and n.kind in ("folder", "document") and n.title:
            # what a reader chooses folders and documents by: their title, then their summary
            return f"{_line(n.title)}\n{_line(n.summary)}\n{n.rewritten}"
        return f"{_line(n.summary)}\n{n.rewritten}"

    # -- the reader's views -----------------------------------------------------------
    def overview(self) -> NodeView:
        """The root: the whole document's summary and its top-level sections."""
        return self.open_node(self.root_id)

    def open_node(self, node_id: str) -> NodeView:
        n = self.node(node_id)
        view = NodeView(id=n.id, level=n.level, parent=n.parent, summary=_line(n.summary),
                        rewritten=n.rewritten, children=[self.ref(c) for c in n.children],
                        is_leaf=not n.children, tokens=0,
                        references=[self.ref(r) for r in outgoing(self, n.id)])
        if self.is_corpus:
            view.kind, view.source, view.span, view.title = n.kind, n.source, n.span, n.title
        view.location = _location(n)
        view.tokens = count_tokens(view.render())
        return view

    def read_original(self, node_id: str) -> Passage:
        n = self.node(node_id)
        if n.children or n.original is None or n.span is None:
            what = n.kind if self.is_corpus else "block"
            raise NavigationError(f"{node_id} is a {what} of {len(n.children)} children, not a "
                                  f"leaf: open it with open_node and descend to a leaf")
        passage = Passage(id=n.id, span=n.span, original=n.original, tokens=0,
                          source=n.source if self.is_corpus else None, location=_location(n))
        passage.tokens = count_tokens(passage.render())
        return passage

    def zoom_out(self, node_id: str) -> Neighbourhood:
        n = self.node(node_id)
        siblings = self.node(n.parent).children if n.parent else [n.id]
        i = siblings.index(n.id)
        hood = Neighbourhood(
            id=n.id, parent=self.ref(n.parent) if n.parent else None,
            previous=self.ref(siblings[i - 1]) if i > 0 else None,
            next=self.ref(siblings[i + 1]) if i + 1 < len(siblings) else None, tokens=0)
        hood.tokens = count_tokens(hood.render())
        return hood

    def search(self, query: str, k: int, *, embeddings: str, piece_tokens: int,
               cache: bool = True, prefix: str | None = None) -> SearchResults:
        """The k nodes (any level) whose summary and rewritten text best match `query`;
        with `prefix`, only nodes of the files whose path starts with it (and folders all
        of whose files do). A prefix no file has raises NavigationError."""
        if k < 1:
            raise NavigationError("k must be at least 1")
        prefix = normalise_prefix(prefix)
        allowed = nodes_under(self.hierarchy, prefix) if prefix is not None else None
        index = self.index(embeddings, piece_tokens, cache)
        scores = index.scores(query)
        if allowed is not None:
            scores = {nid: s for nid, s in scores.items() if nid in allowed}
        hits = [SearchHit(node=self.ref(i), score=s) for i, s in top_k(scores, k)]
        results = SearchResults(query=query, method=index.method, hits=hits, tokens=0,
                                prefix=prefix)
        results.tokens = count_tokens(results.render())
        return results

    def index(self, embeddings: str, piece_tokens: int, cache: bool = True,
              source: str | None = None) -> TextIndex:
        """The search index over every node, built once per tree and provider; with `source`,
        over that one file's nodes when the method's scores depend on what is indexed with
        them (`batch_relative`: BM25, lexical), else the whole tree's (scores restricted by
        the caller)."""
        scoped = source if source is not None and batch_relative(embeddings) else None
        key = (BM25 if embeddings in BM25_SPECS else embeddings, piece_tokens, scoped)  # one BM25 index
        if key not in self._indexes:
            cache_dir = self.path / ".chunker" / "navigation" if cache and self.path else None
            ids = self.nodes if key[2] is None else self.document_node_ids(key[2])
            # one file's own index: its document node as the file alone would show it
            texts = {nid: self.search_text(nid, titled=scoped is None) for nid in ids}
            self._indexes[key] = build_index(texts, embeddings, piece_tokens=piece_tokens,
                                             cache_dir=cache_dir)
        return self._indexes[key]

    def cached_index(self, key: tuple):
        """An index built earlier for this tree under `key` (None: not built yet)."""
        return self._indexes.get(key)

    def cache_index(self, key: tuple, index):
        """Keep an index for the tree's lifetime (one per process and tree file)."""
        self._indexes[key] = index
        return index

    def reading_order(self) -> dict[str, int]:
        """Each node's position in reading order (depth first from the root)."""
        if self._order is None:
            self._order = {n.id: i for i, n in enumerate(self.hierarchy.in_order())}
        return self._order

    def document_node_ids(self, source: str) -> list[str]:
        """Every node of one file, the document node included, in the order its own tree
        lists them (leaves, then each level's blocks): ties rank as in the file alone."""
        if source not in self._document_ids:  # every choice inside the file asks: once per tree
            self._document_ids[source] = sorted(
                (nid for nid, n in self.nodes.items() if n.source == source and n.kind != "folder"),
                key=lambda nid: (self.nodes[nid].level, nid))
        return self._document_ids[source]

    def scope_of(self, children: list[str]) -> str | None:
        """The file whose nodes these children are, when they lie inside one document of a
        corpus (a choice inside that document); None at the folders (the whole tree)."""
        if not self.is_corpus:
            return None
        kids = [self.node(c) for c in children]
        sources = {k.source for k in kids}
        if len(sources) == 1 and all(k.kind in ("block", "leaf") for k in kids):
            return sources.pop()
        return None


def open_tree(path: str | Path) -> Tree:
    """Open OUT (or OUT/hierarchy.json) of a finished run; raises NotARun otherwise."""
    p = Path(path).expanduser().resolve()
    file = p if p.name == HIERARCHY and p.is_file() else p / HIERARCHY
    if not file.is_file():
        raise NotARun(f"{p} holds no finished chunker run (no {HIERARCHY}); "
                      f"make one with `chunker run DOC --output-dir {path}`")
    stat = file.stat()
    return _open_cached(str(file), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=16)
def _open_cached(file: str, mtime_ns: int, size: int) -> Tree:
    try:
        hierarchy = Hierarchy.model_validate(json.loads(Path(file).read_text(encoding="utf-8")))
    except (OSError, ValueError, ValidationError) as exc:
        first = " ".join(str(exc).split())[:200]
        raise NotARun(f"{file} is not a readable chunker tree: {first}") from None
    if hierarchy.root not in hierarchy.by_id():
        raise NotARun(f"{file} names a root {hierarchy.root!r} that it does not hold")
    return Tree(hierarchy, Path(file).parent)


def _line(text: str) -> str:
    return " ".join((text or "").split())


def _location(n: TreeNode) -> dict | None:
    """The node's location in its original file, as hierarchy.json keeps it (None for text)."""
    return n.location.model_dump(mode="json") if n.location is not None else None

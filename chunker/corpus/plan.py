"""The corpus's upper levels, from the signals its authors left, most trusted first.

A table of contents gives sections and reading order; without one (or for the files it
leaves out) the folder hierarchy does, ordered by file-name conventions (index first,
numbers and ISO dates in natural order). Front-matter categories then regroup documents
across that structure (author metadata beats folder placement), and a long flat list of
documents is split by shared name prefixes. Groups still too big are left to a later
LLM step. Pure and deterministic: the same input gives the same plan, keys included.
"""

from __future__ import annotations

import posixpath
from collections import deque
from collections.abc import Iterator, Mapping, Sequence

from .model import DocInfo, PlanNode
from .names import index_rank, name_prefix as _name_prefix, order_key as _order_key
from .signals import Toc, TocEntry, doc_info, is_index, readable_name

FILE_NAME_GROUPS_ABOVE = 8
"""A node is split by name prefixes only when it has more document children than this."""

Child = PlanNode | str


def build_plan(rels: Sequence[str], infos: Mapping[str, DocInfo], toc: Toc | None, *,
               corpus_title: str, min_group_size: int = 2) -> tuple[PlanNode, dict[str, int]]:
    """The root PlanNode over `rels` and counters of which signal shaped it."""
    if min_group_size < 2:
        raise ValueError(f"min_group_size must be at least 2, not {min_group_size}")
    docs = list(dict.fromkeys(rels))
    info = {rel: infos.get(rel) or doc_info(rel, None) for rel in docs}
    stats = {"signals.toc_files": 0, "signals.toc_missing": 0}
    for source in ("front_matter", "heading", "file_name"):
        stats[f"signals.title_{source}"] = sum(i.title_source == source for i in info.values())
    plan = _Planner(docs, info)
    root = PlanNode(key="", title=corpus_title, signal="root")
    if toc is not None:
        placed: set[str] = set()
        root.children = plan.toc_children(toc.entries, "toc:", placed)
        plan.fixed.add(root.key)
        missing = [rel for rel in docs if rel not in placed]
        plan.place_missing(root, missing)
        stats["signals.toc_files"], stats["signals.toc_missing"] = len(placed), len(missing)
    else:
        root.children = plan.folder_children("", docs)
    stats["signals.conflicts"] = plan.category_overlay(root, min_group_size)
    # collapsed before the name groups too: a node emptied by the overlay, or a folder
    # holding one document, should not keep its parent from counting as a flat list
    root.children = _collapsed(root.children)
    plan.file_name_groups(root, min_group_size)  # groups of >= 2, never all: still collapsed
    if len(root.children) == 1 and isinstance(root.children[0], PlanNode):
        root.children = root.children[0].children
    signals = {"folder": "folders", "toc": "toc_sections", "category": "category_groups",
               "file_name": "file_name_groups"}
    for signal, name in signals.items():
        stats[f"signals.{name}"] = sum(n.signal == signal for n in _nodes(root))
    return root, dict(sorted(stats.items()))


def toc_section_agreement(toc: Toc, plan: PlanNode) -> tuple[int, int]:
    """(toc sections whose documents are exactly one plan node's, toc sections counted):
    a section counts when at least two of its documents are in the plan."""
    in_plan = set(plan.documents())
    node_sets = {frozenset(node.documents()) for node in _nodes(plan)}
    agree = total = 0
    for section in _sections(toc.entries):
        docs = frozenset(rel for rel in _entry_docs(section) if rel in in_plan)
        if len(docs) >= 2:
            total += 1
            agree += docs in node_sets
    return agree, total


class _Planner:
    """Builds and reshapes the tree; remembers which nodes keep the order the toc gave."""

    def __init__(self, docs: list[str], info: dict[str, DocInfo]) -> None:
        self.docs, self.info = docs, info
        self.fixed: set[str] = set()
        self.folder_index: dict[str, str] = {}
        for rel in sorted((r for r in docs if is_index(r)), key=index_rank):
            self.folder_index.setdefault(posixpath.dirname(rel), rel)

    def _index_title(self, rel: str | None) -> str | None:
        """The title of an index document, when it says more than its file name."""
        if rel is None or self.info[rel].title_source == "file_name":
            return None
        return self.info[rel].title

    # -- table of contents ---------------------------------------------------------------

    def toc_children(self, entries: list[TocEntry], prefix: str, placed: set[str]) -> list[Child]:
        """Toc entries as children, in toc order; a document is placed once, where first listed."""
        out: list[Child] = []
        for position, entry in enumerate(entries, 1):
            key = f"{prefix}{position}"
            own = entry.rel if entry.rel in self.info and entry.rel not in placed else None
            if own is not None:
                placed.add(own)
            children = ([own] if own else []) + self.toc_children(entry.children, f"{key}.", placed)
            if not entry.children:
                out.extend(children)
            elif children:
                node = PlanNode(key=key, title="", signal="toc", children=children)
                node.title = entry.title or self._section_title(own, node.documents())
                self.fixed.add(key)
                out.append(node)
        return out

    def _section_title(self, own: str | None, docs: list[str]) -> str:
        """An untitled section: its own document's title, its leading index document's,
        its documents' common folder made readable, or its first document's title."""
        if own is not None:
            return self.info[own].title
        first = docs[0]
        title = self._index_title(first) if is_index(first) else None
        folder = posixpath.commonpath([posixpath.dirname(rel) for rel in docs])
        if title is None and folder:
            title = readable_name(posixpath.basename(folder), is_file=False)
        return title or self.info[first].title

    def place_missing(self, root: PlanNode, missing: list[str]) -> None:
        """Files the toc leaves out go, by folder, to the end of the shallowest node whose
        documents share that folder (or the nearest such ancestor folder, under folder nodes)."""
        homes: dict[str, PlanNode] = {}
        queue = deque([root])
        while queue:  # breadth first: the shallowest node wins a folder
            node = queue.popleft()
            if docs := node.documents():
                homes.setdefault(posixpath.commonpath([posixpath.dirname(d) for d in docs]), node)
            queue.extend(c for c in node.children if isinstance(c, PlanNode))
        homes.setdefault("", root)
        by_home: dict[str, list[str]] = {}
        for rel in missing:
            folder = posixpath.dirname(rel)
            while folder not in homes:
                folder = posixpath.dirname(folder)
            by_home.setdefault(folder, []).append(rel)
        for folder in sorted(by_home):
            homes[folder].children.extend(self.folder_children(folder, by_home[folder]))

    # -- folders and names ---------------------------------------------------------------

    def folder_children(self, folder: str, rels: list[str]) -> list[Child]:
        """The documents of `folder` and a node per subfolder, in file-name order."""
        children: list[Child] = []
        below: dict[str, list[str]] = {}
        for rel in rels:
            rest = rel[len(folder) + 1:] if folder else rel
            if "/" in rest:
                below.setdefault(posixpath.join(folder, rest.split("/", 1)[0]), []).append(rel)
            else:
                children.append(rel)
        for path, inside in below.items():
            title = (self._index_title(self.folder_index.get(path))
                     or readable_name(posixpath.basename(path), is_file=False))
            children.append(PlanNode(key=f"dir:{path}", title=title, signal="folder",
                                     children=self.folder_children(path, inside)))
        return sorted(children, key=_order_key)

    def file_name_groups(self, node: PlanNode, min_size: int) -> None:
        """Runs of documents sharing a name prefix become nodes, in a long flat node the toc
        did not order."""
        for child in node.children:
            if isinstance(child, PlanNode):
                self.file_name_groups(child, min_size)
        docs = [c for c in node.children if isinstance(c, str)]
        if (node.key in self.fixed or len(docs) <= FILE_NAME_GROUPS_ABOVE
                or len(docs) < len(node.children)):
            return
        prefixes = [_name_prefix(rel) for rel in docs]
        out: list[Child] = []
        seen: dict[str, int] = {}
        start = 0
        while start < len(docs):
            end = start
            while end < len(docs) and prefixes[end][0] == prefixes[start][0]:
                end += 1
            run: list[Child] = list(docs[start:end])
            if min_size <= len(run) < len(docs):
                prefix, shown = prefixes[start]
                seen[prefix] = seen.get(prefix, 0) + 1
                suffix = f"#{seen[prefix]}" if seen[prefix] > 1 else ""
                out.append(PlanNode(key=f"prefix:{prefix}@{_anchor(node)}{suffix}",
                                    title=shown, signal="file_name", children=run))
            else:
                out.extend(run)
            start = end
        node.children = out

    # -- categories ----------------------------------------------------------------------

    def category_overlay(self, root: PlanNode, min_size: int) -> int:
        """Documents sharing a front-matter category become one node under their lowest
        common ancestor, where the first of them was; returns how many were pulled out of
        another parent (a folder or section that disagreed with their author)."""
        parent: dict[tuple[str, str], PlanNode] = {}
        count: dict[str, int] = {}
        self._index_tree(root, parent, count)
        members: dict[str, list[str]] = {}
        for rel in root.documents():
            if category := self.info[rel].category:
                members.setdefault(category, []).append(rel)
        conflicts = 0
        for category, rels in members.items():
            if len(rels) < min_size:
                continue
            paths = [_path(("d", rel), parent) for rel in rels]
            depth = 0  # of the common ancestors: paths[0][depth - 1] is the lowest
            while all(len(p) > depth and p[depth] is paths[0][depth] for p in paths):
                depth += 1
            lca = paths[0][depth - 1]
            if count[lca.key] == len(rels):  # already exactly one node's documents
                continue
            # the group takes the place of the first document, or of the node holding it
            anchor: Child = paths[0][depth] if depth < len(paths[0]) else rels[0]
            at = next(i for i, c in enumerate(lca.children)
                      if (c is anchor if isinstance(c, PlanNode) else c == anchor))
            group = PlanNode(key=f"cat:{category}@{_anchor(lca)}", title=category,
                             signal="category", children=list(rels))
            for rel, path in zip(rels, paths):
                old = path[-1]
                old.children.remove(rel)
                conflicts += old is not lca
                for node in path[depth:]:
                    count[node.key] -= 1
                parent[("d", rel)] = group
            lca.children.insert(at, group)
            parent[("n", group.key)], count[group.key] = lca, len(rels)
            if lca.key in self.fixed:
                self.fixed.add(group.key)
        return conflicts

    def _index_tree(self, node: PlanNode, parent: dict[tuple[str, str], PlanNode],
                    count: dict[str, int]) -> int:
        total = 0
        for child in node.children:
            if isinstance(child, PlanNode):
                parent[("n", child.key)] = node
                total += self._index_tree(child, parent, count)
            else:
                parent[("d", child)] = node
                total += 1
        count[node.key] = total
        return total


def _path(item: tuple[str, str], parent: dict[tuple[str, str], PlanNode]) -> list[PlanNode]:
    """The nodes from the root down to the item's parent."""
    path: list[PlanNode] = []
    while item in parent:
        node = parent[item]
        path.append(node)
        item = ("n", node.key)
    return path[::-1]


def _anchor(node: PlanNode) -> str:
    """A node's key as a key suffix: a folder by its path ('tutorial'), others as they are."""
    return node.key[4:] if node.key.startswith("dir:") else node.key


def _collapsed(children: list[Child]) -> list[Child]:
    """Children with empty nodes dropped and each one-child node replaced by its child."""
    out: list[Child] = []
    for child in children:
        if isinstance(child, PlanNode):
            child.children = _collapsed(child.children)
            if len(child.children) == 1:
                out.append(child.children[0])
                continue
            if not child.children:
                continue
        out.append(child)
    return out


def _nodes(node: PlanNode) -> Iterator[PlanNode]:
    yield node
    for child in node.children:
        if isinstance(child, PlanNode):
            yield from _nodes(child)


def _sections(entries: list[TocEntry]) -> Iterator[TocEntry]:
    for entry in entries:
        if entry.children:
            yield entry
            yield from _sections(entry.children)


def _entry_docs(entry: TocEntry) -> Iterator[str]:
    if entry.rel is not None:
        yield entry.rel
    for child in entry.children:
        yield from _entry_docs(child)

"""What the site shows of a finished run: the tree (opened with the `Hierarchy` loader, so
older schema versions work), its records that other passes add when present (checks,
tables, terms, edges, read from the raw JSON since the model may not know them), the run's
own facts (`OUT/.chunker/run.json`) and what fell back where. The call log names the graph's
steps, not the tree's nodes, so a node's fallbacks are read from the node: a boundary whose
outcome is `fallback`, and (in a run that counted rewrite fallbacks) a leaf whose text is
its original's words.

One `SiteTree` per export: nothing here is a module global.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from chunker.output.hierarchy import Hierarchy, TreeNode
from chunker.runs.record import CorpusRun, DocumentRun
from chunker.runs.rundir import RunDir, RunDirError

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


RECORD_KEYS = frozenset({"tables", "equations", "figures", "checks", "terms", "edges", "unresolved"})
"""Top-level lists of records the pages show from the raw JSON."""


class SiteInputError(ValueError):
    """OUT holds no finished tree the site can show: one line for the user."""


def page_name(node_id: str) -> str:
    """The node's page, relative to the site's `n/` folder: its id, made safe for any file
    system and URL (ids are `L1-00002`, `D1a2b3c4d.L0-00003`, `F-root`, all safe already)."""
    return _UNSAFE.sub("_", node_id) + ".html"


@dataclass
class SiteTree:
    out: Path
    h: Hierarchy
    raw: dict
    run: DocumentRun | CorpusRun | None
    """The run's record (None: a tree copied without its .chunker/)."""
    order: list[TreeNode]                      # reading order, root first
    index: dict[str, int]                      # node id -> position in `order`
    parent_chain: dict[str, list[str]]         # node id -> ids from the root down to its parent
    depth: dict[str, int]
    size: dict[str, int]                       # tokens of the leaves under a node (>= 1)
    title: str = ""

    @property
    def nodes(self) -> dict[str, TreeNode]:
        return self.h.by_id()

    def label(self, node: TreeNode) -> str:
        """A node's name in lists: its title, else (the root) the site's title, else its slug
        made readable."""
        if node.title:
            return node.title
        if node.parent is None and self.title:
            return self.title
        return node.slug.replace("-", " ") or node.id

    def outcome(self, node: TreeNode) -> str:
        """What happened at a node, worst first, for the picture's colours."""
        if self.failed_checks(node.id):
            return "check"
        if self.fell_back(node):
            return "fallback"
        if node.forced_split:
            return "forced"
        return "ok"

    def fell_back(self, node: TreeNode) -> list[str]:
        """The steps whose model output was replaced at this node."""
        out = ["boundary"] if node.boundary == "fallback" else []
        if (node.original is not None and self.h.meta.stats.get("fallback.rewrite")
                and node.rewritten.strip() == node.original.strip()):
            out.append("rewrite")
        return out

    def failed_checks(self, node_id: str) -> list[dict]:
        return self._checks_at.get(node_id, [])

    @cached_property
    def _checks_at(self) -> dict[str, list[dict]]:
        """Failed checks (severity error, or any finding without one) by the nodes they involve."""
        out: dict[str, list[dict]] = {}
        for c in self.checks():
            for nid in {loc.get("node") for loc in c.get("locations") or [] if isinstance(loc, dict)}:
                out.setdefault(nid, []).append(c)
        return out

    def checks(self) -> list[dict]:
        return [c for c in (self.raw.get("checks") or []) if isinstance(c, dict)]


def load_site_tree(out: Path) -> SiteTree:
    """OUT's finished tree, or SiteInputError naming what is missing."""
    out = Path(out)
    path = out / "hierarchy.json"
    if not out.is_dir():
        raise SiteInputError(f"{out} is not a directory")
    if not path.exists():
        raise SiteInputError(f"{out} holds no finished tree (no hierarchy.json): run `chunker run` first")
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        # the records are rendered from the raw JSON, leniently: a shape this version does not
        # know must not stop the site, so the tree's model is checked without them
        h = Hierarchy.model_validate({k: v for k, v in raw.items() if k not in RECORD_KEYS})
    except (OSError, ValueError) as exc:
        raise SiteInputError(f"{path} is unreadable: {' '.join(str(exc).split())[:200]}") from None
    run = None
    try:
        run = RunDir(out).read_record()
    except RunDirError:
        pass  # a tree copied without its .chunker/: the site shows what hierarchy.json holds
    order = h.in_order()
    nodes = h.by_id()
    parent_chain: dict[str, list[str]] = {h.root: []}
    depth = {h.root: 0}
    for n in order:  # parents come before children in reading order
        for c in n.children:
            parent_chain[c] = parent_chain[n.id] + [n.id]
            depth[c] = depth[n.id] + 1
    size: dict[str, int] = {}
    for n in reversed(order):  # children before parents
        size[n.id] = (sum(size[c] for c in n.children) if n.children
                      else max(1, n.token_count))
    root = nodes[h.root]
    title = root.title or (Path(h.meta.source).name if h.meta.source else "") or root.slug
    if h.meta.corpus is not None and not root.title:
        title = Path(h.meta.corpus.root).name or title
    return SiteTree(out=out, h=h, raw=raw, run=run, order=order,
                    index={n.id: i for i, n in enumerate(order)}, parent_chain=parent_chain,
                    depth=depth, size=size, title=title)

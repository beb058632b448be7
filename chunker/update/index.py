"""The reuse index: what an update may take from the tree it brings up to date.

Built once before the document's update runs (by `chunker/update/document.py`), from the old
tree of one document, the new text and what the changed settings make stale; kept in the
store under `("update", reuse_key)` and read by the update's nodes through `reuse_index`.

Every old leaf is listed with its old span and, when its whole original text lies inside
one unchanged stretch of the new text (`diff.equal_ranges`), its new span. Such a leaf is
*reusable*: the cursor arriving at its new start copies it with its rewrite, summary and
slug (no call), or, when only the leaf texts' inputs changed (a rewrite prompt, the model),
keeps its boundary and rewrites it again. Blocks are listed with their children, for the
patch (`chunker/update/patch.py`) and for the summaries a new passage is shown above it.

Modes, from what is stale (`chunker/update/signature.py`):
- `patch`: the tree's shape stays; new passages replace the changed ones in place, and only
  the blocks above a change are synthesised again;
- `rebuild`: the blocks' inputs changed (say `max_group_size`): leaves are reused, and the
  levels above are grouped again as in a fresh run.
A change to what shapes boundaries reuses nothing: the update is a fresh run of the text.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Literal

from langgraph.store.base import BaseStore

from chunker.output.hierarchy import TreeNode
from chunker.update.diff import Equal, equal_ranges, new_span, old_position

Mode = Literal["patch", "rebuild"]
NAMESPACE = "update"
_ID = re.compile(r"^L(\d+)-(\d+)$")


def build_index(nodes: list[TreeNode], root: str, new_text: str, *, mode: Mode,
                leaf_text_stale: bool, may_split: bool, source_sha256: str,
                stale: dict[str, list[str]] | None = None, updates: list[dict] | None = None) -> dict:
    """The index as stored (plain JSON): `nodes` are one document's, in any order;
    `source_sha256`, `stale` and `updates` (the old tree's) go into the update's record."""
    by_id = {n.id: n for n in nodes}
    order = leaf_order(root, by_id)
    old_text = "".join(by_id[i].original or "" for i in order)
    ranges = equal_ranges(old_text, new_text)
    leaves, pos = [], 0
    for nid in order:
        n = by_id[nid]
        start, end = pos, pos + len(n.original or "")
        pos = end
        mapped = new_span(ranges, start, end)
        leaves.append({
            "id": n.id, "old": [start, end], "new": list(mapped) if mapped else None,
            "rewritten": n.rewritten, "summary": n.summary, "slug": n.slug, "filename": n.filename,
            "boundary": n.boundary, "forced": n.forced_split, "content": n.content,
            "header_path": n.header_path, "pages": list(n.pages) if n.pages else None,
            "scanned": n.scanned_pages, "title": n.title,
        })
    blocks = [{"id": n.id, "level": n.level, "children": list(n.children), "old": list(n.span or (0, 0)),
               "rewritten": n.rewritten, "summary": n.summary, "slug": n.slug, "filename": n.filename,
               "title": n.title, "header_path": n.header_path}
              for n in nodes if n.children]
    top: dict[int, int] = {}
    for n in nodes:
        m = _ID.match(n.id)
        if m:
            level, index = int(m.group(1)), int(m.group(2))
            top[level] = max(top.get(level, -1), index)
    return {"version": 1, "mode": mode, "source_sha256": source_sha256, "stale": stale or {},
            "updates": updates or [], "leaf_text_stale": leaf_text_stale, "may_split": may_split,
            "root": root, "leaves": leaves, "blocks": blocks,
            "ranges": [[r.old_start, r.new_start, r.length] for r in ranges],
            "top_index": {str(k): v for k, v in top.items()}}


def leaf_order(root: str, by_id: dict[str, TreeNode]) -> list[str]:
    """The ids of the leaves under `root`, in text order."""
    out, todo = [], [root]
    while todo:
        node = by_id[todo.pop()]
        if node.children:
            todo.extend(reversed(node.children))
        else:
            out.append(node.id)
    return out


def put_index(store: BaseStore, reuse_key: str, index: dict) -> None:
    store.put((NAMESPACE, reuse_key), "index", index, index=False)


@dataclass
class ReuseIndex:
    """The stored index with the lookups the update's nodes make."""

    raw: dict

    def __post_init__(self) -> None:
        self.mode: Mode = self.raw["mode"]
        self.leaf_text_stale: bool = self.raw["leaf_text_stale"]
        self.leaves: list[dict] = self.raw["leaves"]
        self.ranges = [Equal(*r) for r in self.raw["ranges"]]
        self.by_start = {leaf["new"][0]: i for i, leaf in enumerate(self.leaves) if leaf["new"]}
        self.starts = sorted(self.by_start)
        self.leaf_index = {leaf["id"]: i for i, leaf in enumerate(self.leaves)}
        self.blocks = {b["id"]: b for b in self.raw["blocks"]}
        self.parent = {c: b["id"] for b in self.raw["blocks"] for c in b["children"]}
        self._block_ends: dict[int, list[tuple[int, str]]] = {}
        for b in self.raw["blocks"]:
            self._block_ends.setdefault(b["level"], []).append((b["old"][1], b["id"]))
        for ends in self._block_ends.values():
            ends.sort()

    def names(self) -> dict[str, str]:
        """Old file names by node id."""
        return {n["id"]: n["filename"] for n in (*self.leaves, *self.raw["blocks"]) if n.get("filename")}

    @property
    def patch(self) -> bool:
        return self.mode == "patch"

    def at(self, pos: int) -> dict | None:
        """The reusable old leaf whose passage starts at `pos` in the new text."""
        i = self.by_start.get(pos)
        return None if i is None else self.leaves[i]

    def starts_after(self, lo: int, hi: int) -> list[int]:
        """Starts of reusable old passages in [lo, hi], in order: where a new passage may end
        and rejoin the old boundaries."""
        i = bisect.bisect_left(self.starts, lo)
        j = bisect.bisect_right(self.starts, hi)
        return self.starts[i:j]

    def old_position(self, new_pos: int) -> int:
        return old_position(self.ranges, new_pos)

    def predecessor(self, leaf_id: str) -> str | None:
        i = self.leaf_index[leaf_id]
        return self.leaves[i - 1]["id"] if i > 0 else None

    def latest_ids(self, new_pos: int) -> list[str | None]:
        """`latest_blocks` as the ids of their records in the update's store (`old:<id>`,
        seeded by load_document)."""
        return [f"old:{b}" if b else None for b in self.latest_blocks(new_pos)]

    def latest_blocks(self, new_pos: int) -> list[str | None]:
        """Per level, the last old block that ends before `new_pos` (None at level 0 and
        where none does): the summaries above a new passage, as a fresh run shows them."""
        old = self.old_position(new_pos)
        top = max(self._block_ends, default=0)
        latest: list[str | None] = [None] * (top + 1)
        for level, ends in self._block_ends.items():
            i = bisect.bisect_right(ends, (old, "\uffff"))
            if i:
                latest[level] = ends[i - 1][1]
        return latest


def reuse_index(store: BaseStore, reuse_key: str, memo) -> ReuseIndex:
    """The run's index, read and indexed once per run (`RunMemo`)."""
    def load() -> ReuseIndex:
        item = store.get((NAMESPACE, reuse_key), "index")
        if item is None:
            raise LookupError(f"the update's reuse index {reuse_key} is not in the store")
        return ReuseIndex(item.value)
    return memo.get(("reuse-index", reuse_key), load)

"""The patch: an updated document's leaves put in the old tree's place, and which blocks
must be synthesised again.

The old tree's shape is kept. Each new passage takes the place of the old passages it
replaces, under their parents:
- a reused leaf stays where it was, under the same id;
- the new passages between two reused leaves replace the old ones between them: each goes
  under the parent of the old passage its start maps to (`ReuseIndex.old_position`), and
  the first one to replace an old passage takes that passage's id (a paragraph edited
  inside one leaf keeps the leaf's id, so links to it by id still work);
- a passage inserted where nothing was replaced joins its predecessor's parent (or its
  successor's, at the very start).
A block is reused only when its ordered children are its old ones, all reused; every other
block (everything on the path from a change to the root) is synthesised again. A block left
empty goes, one left with a single child gives way to it (no single-child wrappers, as in
a fresh run), and one that grew past both `max_group_size` and its old size is split into
even consecutive groups, the first keeping its id (a flat tree, one block over all its
leaves, is never split). A root split gets a new root above the parts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from chunker.aggregation.groups import even_groups
from chunker.update.index import ReuseIndex

Status = Literal["reused", "redone", "new"]


@dataclass(frozen=True)
class NewLeaf:
    """A leaf of the update, as the leaf phase wrote it."""

    record: str
    """Its record's id in the update's store (`L0-00012`)."""
    start: int
    origin: str | None
    reused: bool


@dataclass
class PNode:
    id: str
    level: int
    status: Status
    children: list[str] = field(default_factory=list)
    record: str | None = None
    """Leaves: the update's record; blocks: None."""
    old: str | None = None
    """Blocks: the old block whose place (and, when reused, text) it takes."""


@dataclass
class Patched:
    nodes: dict[str, PNode]
    root: str
    todo: list[str]
    """Blocks to synthesise, children before parents."""
    stats: dict[str, int]

    def post_order(self) -> list[str]:
        out: list[str] = []

        def walk(nid: str) -> None:
            for c in self.nodes[nid].children:
                walk(c)
            out.append(nid)
        walk(self.root)
        return out


class _Ids:
    """Fresh ids past the old tree's highest index at each level: never an old node's."""

    def __init__(self, top: dict[str, int]):
        self.top = {int(k): v for k, v in top.items()}

    def new(self, level: int) -> str:
        self.top[level] = self.top.get(level, -1) + 1
        return f"L{level}-{self.top[level]:05d}"


def patch(index: ReuseIndex, leaves: list[NewLeaf], max_group_size: int) -> Patched:
    ids = _Ids(index.raw["top_index"])
    old_order = [leaf["id"] for leaf in index.leaves]
    position = {nid: i for i, nid in enumerate(old_order)}
    attached: dict[str, dict[str, list[PNode]]] = {nid: {"before": [], "self": [], "in": [], "after": []}
                                                  for nid in old_order}
    nodes: dict[str, PNode] = {}
    next_origin = [None] * len(leaves)
    upcoming = None
    for i in range(len(leaves) - 1, -1, -1):
        next_origin[i] = upcoming
        if leaves[i].origin:
            upcoming = position[leaves[i].origin]
    previous = None  # old position of the last leaf with an origin
    for i, leaf in enumerate(leaves):
        if leaf.origin:
            node = PNode(leaf.origin, 0, "reused" if leaf.reused else "redone", record=leaf.record)
            attached[leaf.origin]["self"].append(node)
            previous = position[leaf.origin]
            continue
        lo = 0 if previous is None else previous + 1
        hi = len(old_order) if next_origin[i] is None else next_origin[i]
        node = PNode("", 0, "new", record=leaf.record)
        if lo < hi:  # it replaces old passages: under the one its start maps to
            target = _covering(index, old_order, lo, hi, index.old_position(leaf.start))
            replaced = attached[target]["in"]
            if not replaced:
                node.id, node.status = target, "redone"
            replaced.append(node)
        elif previous is not None:
            attached[old_order[previous]]["after"].append(node)
        else:
            attached[old_order[hi]]["before"].append(node)
    for slots in attached.values():
        for slot in slots.values():
            for node in slot:
                node.id = node.id or ids.new(0)
                nodes[node.id] = node

    blocks = index.blocks
    max_keep = index.raw["may_split"]

    def build(old_id: str) -> list[str]:
        if old_id not in blocks:
            slots = attached[old_id]
            return [n.id for s in ("before", "in", "self", "after") for n in slots[s]]
        old = blocks[old_id]
        kids = [k for c in old["children"] for k in build(c)]
        if not kids:
            return []
        if len(kids) == 1 and len(old["children"]) > 1:
            return kids
        changed = kids != old["children"] or any(nodes[k].status != "reused" for k in kids)
        level = 1 + max(nodes[k].level for k in kids)
        if changed and max_keep and len(kids) > max(max_group_size, len(old["children"])):
            parts = even_groups(kids, max_group_size, 1)
            out = []
            for j, part in enumerate(parts):
                nid = old_id if j == 0 else ids.new(level)
                nodes[nid] = PNode(nid, 1 + max(nodes[k].level for k in part),
                                   "redone" if j == 0 else "new", list(part), old=old_id if j == 0 else None)
                out.append(nid)
            return out
        nodes[old_id] = PNode(old_id, level, "redone" if changed else "reused", kids, old=old_id)
        return [old_id]

    top = build(index.raw["root"])
    if len(top) == 1:
        root = top[0]
    else:
        level = 1 + max(nodes[k].level for k in top)
        root = ids.new(level)
        nodes[root] = PNode(root, level, "new", top)
    result = Patched(nodes=nodes, root=root, todo=[], stats={})
    kept = result.post_order()
    result.nodes = {nid: nodes[nid] for nid in kept}
    result.todo = [nid for nid in kept if nodes[nid].children and nodes[nid].status != "reused"]
    result.stats = _stats(index, result)
    return result


def _covering(index: ReuseIndex, old_order: list[str], lo: int, hi: int, old_pos: int) -> str:
    """The old passage among old_order[lo:hi] holding `old_pos` (the nearest at either end)."""
    for i in range(lo, hi):
        if index.leaves[i]["old"][1] > old_pos:
            return old_order[i]
    return old_order[hi - 1]


def _stats(index: ReuseIndex, result: Patched) -> dict[str, int]:
    stats: dict[str, int] = {}
    for node in result.nodes.values():
        kind = "blocks" if node.children else "leaves"
        key = f"update.{kind}.{node.status}"
        stats[key] = stats.get(key, 0) + 1
    kept = set(result.nodes)
    stats["update.leaves.removed"] = sum(1 for leaf in index.leaves if leaf["id"] not in kept)
    stats["update.blocks.removed"] = sum(1 for b in index.blocks if b not in kept)
    return {k: v for k, v in stats.items() if v}

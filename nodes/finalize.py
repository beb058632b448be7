"""finalize_tree: at the end of the document, aggregate what is pending into one root.

Level by level from the bottom: a level with one pending item promotes it upward as
is (no single-child wrapper); a level with several is grouped like any sweep; the
single item left at the top level is the root. A one-chunk document's root is its leaf.

group_all: the flat strategy (no sweeps on the way) puts all its leaves in one block, the
root, without a grouping call; the graph routes a flat run's last leaf here.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from chunker.config.settings import ChunkerSettings
from chunker.nodes.aggregate import fresh_grouping
from chunker.state.schema import ChunkerState


def finalize_tree(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    pending = [list(items) for items in state["pending"]]
    top = max(level for level, items in enumerate(pending) if items)
    for level in range(top + 1):
        items = pending[level]
        if not items:
            continue
        if level == top and len(items) == 1:
            return {"finalizing": True, "pending": pending, "root_id": items[0][0],
                    "agg_level": None}
        if len(items) == 1:
            pending[level + 1].append(items[0])
            pending[level] = []
            continue
        return {"finalizing": True, "pending": pending, "agg_level": level, **fresh_grouping()}
    raise AssertionError("finalize_tree found nothing pending")  # unreachable: top has items


def group_all(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    """One block over every pending leaf (the flat strategy's whole tree above the leaves)."""
    pending = [list(items) for items in state["pending"]]
    leaves, pending[0] = pending[0], []
    return {"finalizing": True, "pending": pending, "agg_level": 0, **fresh_grouping(),
            "groups_todo": [[nid for nid, _ in leaves]], "stats": {"group.flat": 1}}

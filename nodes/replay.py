"""replay_leaf: under `background.context: source`, the levels are built after the leaves,
by the sweeps `written` would make.

`written` sweeps the levels while the cursor reads: after each leaf, check_aggregation
asks whether a level crosses its thresholds (peel: which of its items a sweep may group,
given where the cursor stands). Under `source` the leaves are written first; then this
node feeds them to the same check one at a time, in leaf order, with the cursor at each
leaf's end as it stood then, so the same rules make the same decisions whatever order
the leaves were written in, and the tree's shape never depends on timing.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from chunker.config.settings import ChunkerSettings
from chunker.nodes.common import run_store
from chunker.state.schema import ChunkerState
from chunker.state.store import node_id


def replay_leaf(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    index = state["replayed"]
    record = run_store(state, runtime).get_node(node_id(0, index))
    pending = [list(level) for level in state["pending"]]
    pending[0].append([record.id, record.summary_tokens])
    return {"cursor": record.span[1], "replayed": index + 1, "pending": pending}

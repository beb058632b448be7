"""record_cut: under `background.context: source`, a decided leaf is recorded, not written.

The cursor phase cuts the leaves in order, as under `written` (each boundary call decides
where the next window starts, so those stay serial), but a cut leaf is neither rewritten
nor summarised here: its span, outcome and forced flag go to the store (`LeafCut`), the
state keeps the counters, and the cursor moves on. Once it reaches the end every leaf is
written at once (`nodes/write_leaf.py`).
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from chunker.config.settings import ChunkerSettings
from chunker.nodes.common import progress, run_store
from chunker.state.records import LeafCut
from chunker.state.schema import ChunkerState


def record_cut(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    index, end = state["leaf_count"], state["chunk_end"]
    LeafCut(index=index, span=(state["cursor"], end), outcome=state.get("chunk_outcome"),
            forced=bool(state.get("forced")), origin=state.get("rejoin_origin"),
            ).save(run_store(state, runtime))
    progress(runtime, state, end, index + 1)
    return {"cursor": end, "window_end": None, "chunk_end": None, "leaf_count": index + 1,
            "rejoin_origin": None}

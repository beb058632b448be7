"""embed_document: the boundary signal, computed once per document.

Every sentence is embedded (batched, each finished batch kept in the run's store, so a
crash mid-way loses at most one batch) and every sentence gap gets a TextTiling depth
score (`chunker.chunking.candidates.run_depths`). The depths live in the store, never in
the graph state. Only a boundary policy that reads the signal routes through this node.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from chunker.chunking.candidates import run_depths
from chunker.config.settings import ChunkerSettings
from chunker.nodes.common import emit, run_store
from chunker.state.schema import ChunkerState


def embed_document(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    cfg = runtime.context
    depths = run_depths(run_store(state, runtime), cfg, state["doc_id"])
    emit(runtime, {"event": "progress", "cursor": 0, "total": state["doc_chars"], "leaves": 0})
    return {"stats": {"embeddings.sentences": len(depths) + 1}}

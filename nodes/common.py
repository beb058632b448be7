"""Helpers shared by the nodes: the run's store, progress events, text.

A node reads its settings straight from `runtime.context` (a `RunContext`: the run's
`ChunkerSettings`, validated and resolved before the graph runs, and its resources)."""

from __future__ import annotations

from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore

from chunker.config.settings import ChunkerSettings
from chunker.document.units import Units
from chunker.state.schema import ChunkerState
from chunker.state.run import resources_of
from chunker.state.store import RunStore


def store_of(runtime: Runtime[ChunkerSettings]) -> BaseStore:
    """The graph's store; a graph embedded in a parent compiled without one gets the
    invocation's in-memory store."""
    return runtime.store if runtime.store is not None else resources_of(runtime.context).fallback_store()


def run_store(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> RunStore:
    """This run's namespaced view of the store, with the run's memo of derived values, scoped
    to the region the state reads (or the levels joined above the regions)."""
    return run_store_for(runtime, state["run_key"], state.get("region"), bool(state.get("joined")))


def run_store_for(runtime: Runtime[ChunkerSettings], run_key: str, region: int | None = None,
                  joined: bool = False) -> RunStore:
    run = resources_of(runtime.context)
    return RunStore(store_of(runtime), run_key, run.memo(run_key), out_dir=run.out_dir,
                    calls_dir=run.calls_dir, writes_tree=run.writes_tree, slots=run.slots,
                    region=region, joined=joined)


def units_of(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> Units:
    return run_store(state, runtime).units(state["doc_id"])


def progress(runtime: Runtime[ChunkerSettings], state: ChunkerState, cursor: int, leaves: int) -> None:
    """The progress event: where the cursor stands and the leaves it cut (a region's
    cursor: its own, with the region's index, `chunker/cli/progress.py` adds them up)."""
    event = {"event": "progress", "cursor": cursor, "total": state["doc_chars"], "leaves": leaves}
    if state.get("region") is not None:
        event["region"] = state["region"]
    emit(runtime, event)


def emit(runtime: Runtime[ChunkerSettings], event: dict) -> None:
    """A custom stream event (progress bar); a no-op when nobody listens."""
    runtime.stream_writer(event)

"""Payloads in the LangGraph store, under deterministic keys namespaced by run.

Every key lives under `("chunker", run_key, ...)`: `run_key` is drawn once per run by
load_document and kept in the graph state, so two runs that share one store (two
threads under `langgraph dev`, two chunker subgraphs of one parent) never see each
other's records, even on the same text with different settings. Inside a run, node
ids come from counters in the state (`L0-00001`, `L1-00001`, ...), so a node re-run
after a resume overwrites its own record instead of adding a duplicate.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from langgraph.store.base import BaseStore

from chunker.document.units import Units
from chunker.state.records import NodeRecord
from chunker.state.run import RunMemo
from chunker.state.slots import CallSlots


def node_id(level: int, index: int) -> str:
    return f"L{level}-{index:05d}"


@dataclass(frozen=True)
class RunStore:
    """One run's view of a shared store, with the run's memo of derived values and the
    folder it writes to (`RunResources.out_dir`; None: nothing is written)."""

    store: BaseStore
    run_key: str
    memo: RunMemo = field(default_factory=RunMemo, compare=False, repr=False)
    out_dir: str | None = field(default=None, compare=False)
    calls_dir: str | None = field(default=None, compare=False)
    """Where the call log lies (`RunResources.calls_dir`, else `out_dir`)."""
    writes_tree: bool = field(default=True, compare=False)
    slots: CallSlots | None = field(default=None, compare=False, repr=False)
    """The run's cap on LLM calls in flight (`RunResources.slots`); None: no cap."""

    def ns(self, *parts: str) -> tuple[str, ...]:
        return ("chunker", self.run_key, *parts)

    # -- the document -------------------------------------------------------------
    def put_text(self, doc_id: str, text: str) -> None:
        self.store.put(self.ns("doc"), "text", {"text": text, "doc_id": doc_id}, index=False)

    def text(self) -> str:
        item = self.store.get(self.ns("doc"), "text")
        if item is None:
            raise LookupError(f"run {self.run_key} has no document in the store")
        return item.value["text"]

    def units(self, doc_id: str) -> Units:
        """The document and its sentence boundaries, segmented once per run (a book takes
        seconds, and every window step needs it)."""
        return self.memo.get(("units", doc_id), lambda: Units.of(self.text()))

    # -- tree nodes ---------------------------------------------------------------
    def put_node(self, record: NodeRecord) -> None:
        self.store.put(self.ns("nodes"), record.id, record.model_dump(mode="json"), index=False)

    def find_node(self, nid: str) -> NodeRecord | None:
        item = self.store.get(self.ns("nodes"), nid)
        return None if item is None else NodeRecord.model_validate(item.value)

    def get_node(self, nid: str) -> NodeRecord:
        record = self.find_node(nid)
        if record is None:
            raise LookupError(f"node {nid} of run {self.run_key} is not in the store")
        return record

    # -- small per-run values (LLM answers kept across a crash, caches) -----------
    def put_value(self, kind: str, key: str, value: dict) -> None:
        self.store.put(self.ns(kind), key, value, index=False)

    def get_value(self, kind: str, key: str) -> dict | None:
        item = self.store.get(self.ns(kind), key)
        return None if item is None else item.value


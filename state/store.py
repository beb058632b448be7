"""Payloads in the LangGraph store, under deterministic keys namespaced by run.

Every key lives under `("chunker", run_key, ...)`: `run_key` is drawn once per run by
load_document and kept in the graph state, so two runs that share one store (two
threads under `langgraph dev`, two chunker subgraphs of one parent) never see each
other's records, even on the same text with different settings. Inside a run, node
ids come from counters in the state (`L0-00001`, `L1-00001`, ...), so a node re-run
after a resume overwrites its own record instead of adding a duplicate.

A document read in regions (`graph/regions.py`) counts its nodes per region: each region's
nodes and its per-leaf values live in a scope of their own (`("chunker", run_key, "region",
"0003", ...)`), the levels above the regions in `joined`, and the final tree, numbered in
document order, where a run read in one cursor keeps it. The document's own values (its
text, structure, signal, the model's answers) stay shared by every scope.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from langgraph.store.base import BaseStore, GetOp, PutOp

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
    region: int | None = None
    """The region whose nodes this view reads and writes (None: the document's)."""
    joined: bool = False
    """The view of the levels built above the regions (their nodes joined, not yet numbered)."""

    def ns(self, *parts: str) -> tuple[str, ...]:
        return ("chunker", self.run_key, *parts)

    def local(self, *parts: str) -> tuple[str, ...]:
        """A namespace of this view's scope: its region's, the joined levels', or the document's."""
        if self.region is not None:
            return self.ns("region", f"{self.region:04d}", *parts)
        return self.ns("joined", *parts) if self.joined else self.ns(*parts)

    def scoped(self, region: int | None = None, joined: bool = False) -> "RunStore":
        """The same run's view of another scope."""
        return dataclasses.replace(self, region=region, joined=joined)

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
    def _nodes(self, nid: str) -> tuple[str, ...]:
        # an update's old blocks (`old:<id>`, seeded once per run) are the document's
        return self.ns("nodes") if nid.startswith("old:") else self.local("nodes")

    def put_node(self, record: NodeRecord) -> None:
        self.store.put(self._nodes(record.id), record.id, record.model_dump(mode="json"), index=False)

    def put_nodes(self, records: list[NodeRecord]) -> None:
        """Many records in one batch (one transaction of a database store, not one each)."""
        self.store.batch([PutOp(self._nodes(r.id), r.id, r.model_dump(mode="json"), index=False)
                          for r in records])

    def get_nodes(self, ids: list[str]) -> list[NodeRecord]:
        """Many records in one batch; every one must be there."""
        items = self.store.batch([GetOp(self._nodes(nid), nid) for nid in ids])
        missing = [nid for nid, item in zip(ids, items) if item is None]
        if missing:
            raise LookupError(f"nodes {missing[:3]} of run {self.run_key} are not in the store")
        return [NodeRecord.model_validate(item.value) for item in items]

    def find_node(self, nid: str) -> NodeRecord | None:
        item = self.store.get(self._nodes(nid), nid)
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

    # -- values of this view's scope (a region's leaf cuts, counted from its own first leaf)
    def put_local(self, kind: str, key: str, value: dict) -> None:
        self.store.put(self.local(kind), key, value, index=False)

    def get_local(self, kind: str, key: str) -> dict | None:
        item = self.store.get(self.local(kind), key)
        return None if item is None else item.value


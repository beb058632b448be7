"""Payloads in the LangGraph store, under deterministic keys.

Namespace `("chunker", doc_id, "doc")` holds the document text; `("chunker", doc_id,
"nodes")` holds one record per tree node, keyed by its id (`L0-00001`, `L1-00001`, ...).
Ids come from counters in the state, so a node re-run after a resume overwrites its
own record instead of adding a duplicate.
"""

from __future__ import annotations

from typing import Any

from langgraph.store.base import BaseStore

from chunker.document.units import Units


def node_id(level: int, index: int) -> str:
    return f"L{level}-{index:05d}"


def doc_ns(doc_id: str) -> tuple[str, ...]:
    return ("chunker", doc_id, "doc")


def nodes_ns(doc_id: str) -> tuple[str, ...]:
    return ("chunker", doc_id, "nodes")


def put_text(store: BaseStore, doc_id: str, text: str) -> None:
    store.put(doc_ns(doc_id), "text", {"text": text}, index=False)


def get_units(store: BaseStore, doc_id: str) -> Units:
    """The document and its sentence boundaries, cached per process.

    Segmenting a book takes seconds and every window step needs it. `doc_id` is a
    hash of the text, so a cached entry can never be stale.
    """
    units = _UNITS.get(doc_id)
    if units is None:
        item = store.get(doc_ns(doc_id), "text")
        if item is None:
            raise LookupError(f"document {doc_id} is not in the store")
        units = Units.of(item.value["text"])
        if len(_UNITS) >= 4:
            _UNITS.pop(next(iter(_UNITS)))
        _UNITS[doc_id] = units
    return units


_UNITS: dict[str, Units] = {}


def put_node(store: BaseStore, doc_id: str, record: dict[str, Any]) -> None:
    store.put(nodes_ns(doc_id), record["id"], record, index=False)


def get_node(store: BaseStore, doc_id: str, nid: str) -> dict[str, Any]:
    item = store.get(nodes_ns(doc_id), nid)
    if item is None:
        raise LookupError(f"node {nid} of document {doc_id} is not in the store")
    return item.value


def find_node(store: BaseStore, doc_id: str, nid: str) -> dict[str, Any] | None:
    item = store.get(nodes_ns(doc_id), nid)
    return None if item is None else item.value

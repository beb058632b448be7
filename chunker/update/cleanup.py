"""Dropping what a finished update leaves behind in the store, so it does not grow with
every update: the old run's records (its text, nodes and signal, now superseded by the
updated tree), the old corpus generation's records, and the reuse indexes. Through the
`BaseStore` interface only, so any LangGraph store (SQLite today) is cleaned the same way.
"""

from __future__ import annotations

from langgraph.store.base import BaseStore, PutOp

_BATCH = 500
"""Records read and deleted per store round trip."""


def drop_namespaces(store: BaseStore, prefix: tuple[str, ...]) -> int:
    """Delete every record under `prefix` (and the namespaces below it); returns how many."""
    dropped = 0
    for ns in store.list_namespaces(prefix=prefix, limit=1_000_000):
        while True:
            items = store.search(ns, limit=_BATCH)
            if not items:
                break
            store.batch([PutOp(namespace=tuple(item.namespace), key=item.key, value=None) for item in items])
            dropped += len(items)
    return dropped

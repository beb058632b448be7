"""A corpus run's records in the LangGraph store, beside its documents' own.

Everything lives under `("corpus", corpus_key, kind)`: each finished document's tree
(`documents`), each upper node's synthesis (`upper`) and grouping (`groups`), and the
call memo of the upper levels' LLM calls (`llm_repairs`). A resume finds what is done and
redoes only the rest; the documents' own records stay in their runs' namespaces.
"""

from __future__ import annotations

from dataclasses import dataclass

from langgraph.store.base import BaseStore


@dataclass(frozen=True)
class CorpusStore:
    store: BaseStore
    corpus_key: str

    def ns(self, kind: str) -> tuple[str, ...]:
        return ("corpus", self.corpus_key, kind)

    def put_value(self, kind: str, key: str, value: dict) -> None:
        self.store.put(self.ns(kind), key, value, index=False)

    def get_value(self, kind: str, key: str) -> dict | None:
        item = self.store.get(self.ns(kind), key)
        return None if item is None else item.value

    # -- finished documents ---------------------------------------------------------
    def put_document(self, key: str, record: dict) -> None:
        self.put_value("documents", key, record)

    def document(self, key: str) -> dict | None:
        return self.get_value("documents", key)

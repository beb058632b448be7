"""Context injection: what every LLM call is told about the rest of the document.

Items are considered in strict priority order:
  1. the immediate predecessor's context,
  2. the latest summary of each higher level built so far (highest level first),
  3. earlier chunks' summaries, walking backwards.
Each item carries a precomputed token count. An item that does not fit the remaining
budget is skipped whole and the next one is tried; nothing is ever cut mid-item.

Selected items are then *rendered* in the order that keeps the prompt prefix stable
between consecutive calls, so that local servers reuse their KV cache: slow-changing
items first (level summaries, highest level first), then earlier chunks oldest first,
then the predecessor, which changes with every chunk. All calls about one chunk
(completeness, retry, rewrite, summarize) get the identical context block.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator

from langgraph.store.base import BaseStore

from chunker.state.store import find_node, node_id

MAX_EARLIER_LOOKUPS = 24
"""How far back the walk over earlier chunks goes, so prompts never grow with the document."""

_RANK = {"level": 0, "earlier": 1, "predecessor": 2}


@dataclass(frozen=True)
class ContextItem:
    kind: str  # "predecessor" | "level" | "earlier"
    id: str
    text: str
    tokens: int
    level: int = 0
    position: int = 0  # document order of the node, for rendering


class ContextBuilder:
    """Select items under a hard token budget, then render them prefix-stably."""

    def __init__(self, budget_tokens: int, order: str = "stable"):
        self.budget = max(0, int(budget_tokens))
        self.stable = order == "stable"

    def select(self, candidates: Iterable[ContextItem]) -> list[ContextItem]:
        left = self.budget
        chosen: list[ContextItem] = []
        for item in candidates:
            if item.tokens <= left and item.text:
                chosen.append(item)
                left -= item.tokens
            if left <= 0:
                break
        return chosen

    @staticmethod
    def order(items: Iterable[ContextItem]) -> list[ContextItem]:
        return sorted(items, key=lambda it: (_RANK[it.kind], -it.level if it.kind == "level" else 0,
                                             it.position))

    def render(self, items: Iterable[ContextItem]) -> str:
        ordered = self.order(items) if self.stable else list(items)
        if not ordered:
            return "<document_context>\n(this is the start of the document)\n</document_context>"
        parts = ["<document_context>"]
        for it in ordered:
            if it.kind == "level":
                parts.append(f"[overview, level {it.level}] {it.text}")
            elif it.kind == "earlier":
                parts.append(f"[earlier passage] {it.text}")
            else:
                parts.append(f"[previous passage]\n{it.text}")
        parts.append("</document_context>")
        return "\n".join(parts)

    def build(self, candidates: Iterable[ContextItem]) -> str:
        return self.render(self.select(candidates))


def leaf_candidates(store: BaseStore, doc_id: str, leaf_count: int,
                    latest: list[str | None]) -> Iterator[ContextItem]:
    """Candidates for a call about the next leaf (index `leaf_count`), in priority order."""
    if leaf_count > 0:
        prev = find_node(store, doc_id, node_id(0, leaf_count - 1))
        if prev:
            yield ContextItem("predecessor", prev["id"], prev["context"], prev["context_tokens"],
                              position=leaf_count - 1)
    yield from level_candidates(store, doc_id, latest, above=0)
    for back in range(2, min(leaf_count, MAX_EARLIER_LOOKUPS + 1) + 1):
        rec = find_node(store, doc_id, node_id(0, leaf_count - back))
        if rec:
            yield ContextItem("earlier", rec["id"], rec["summary"], rec["summary_tokens"],
                              position=leaf_count - back)


def level_candidates(store: BaseStore, doc_id: str, latest: list[str | None],
                     above: int) -> Iterator[ContextItem]:
    """The latest block of each level above `above`, highest level first."""
    for level in range(len(latest) - 1, above, -1):
        nid = latest[level]
        rec = find_node(store, doc_id, nid) if nid else None
        if rec:
            yield ContextItem("level", rec["id"], rec["summary"], rec["summary_tokens"], level=level)


def block_candidates(store: BaseStore, doc_id: str, level: int,
                     latest: list[str | None]) -> Iterator[ContextItem]:
    """Candidates for grouping or synthesising at `level` (new blocks go to level+1):
    the preceding block at level+1 as predecessor, then the levels above it."""
    target = level + 1
    if target < len(latest) and latest[target]:
        rec = find_node(store, doc_id, latest[target])
        if rec:
            yield ContextItem("predecessor", rec["id"], rec["summary"], rec["summary_tokens"],
                              position=0)
    yield from level_candidates(store, doc_id, latest, above=target)

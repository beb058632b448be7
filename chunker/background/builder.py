"""Background injection: what an LLM call is told about the rest of the document.

`BackgroundBuilder` selects whole items under a hard token budget and renders them.
The budget counts what is *rendered* (each item's label line and the wrapper tags),
not just the items' texts, so the cap holds for the prompt the model really sees.
Items come in priority order (see `background/policy.py` for what each task is
offered); one that does not fit is skipped whole and the next is tried.

The chosen items are *rendered* in the order that keeps the prompt prefix stable
between consecutive calls, so that local servers reuse their KV cache: slow-changing
items first (a document read in regions: its outline, the same for every call of a region;
then level summaries, highest level first), then earlier passages oldest first, then the
predecessor, which changes with every chunk.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Literal

from chunker.document.tokens import count_tokens

ItemKind = Literal["outline", "predecessor", "level", "earlier"]
START_MARKER = "(this is the start of the document)"
_OPEN, _CLOSE = "<background>", "</background>"
_RANK = {"outline": -1, "level": 0, "earlier": 1, "predecessor": 2}
_WRAPPER_TOKENS = count_tokens(f"{_OPEN}\n\n{_CLOSE}")


@dataclass(frozen=True)
class BackgroundItem:
    kind: ItemKind
    id: str
    text: str
    tokens: int
    """Tokens of `text` alone (precomputed); the rendered cost adds the label."""
    level: int = 0
    position: int = 0
    """Document order of the node, for rendering."""
    label: str = ""
    """Overrides the default label (e.g. "previous passage, summary")."""


def render_item(item: BackgroundItem) -> str:
    if item.kind == "outline":
        return f"[{item.label or 'outline'}]\n{item.text}"
    if item.kind == "level":
        return f"[overview, level {item.level}] {item.text}"
    if item.kind == "earlier":
        return f"[earlier passage] {item.text}"
    return f"[{item.label or 'previous passage'}]\n{item.text}"


class BackgroundBuilder:
    """Select items under a hard token budget, then render them prefix-stably."""

    def __init__(self, budget_tokens: int, order: str = "stable"):
        self.budget = max(0, int(budget_tokens))
        self.stable = order == "stable"

    def select(self, offered: Iterable[BackgroundItem]) -> list[BackgroundItem]:
        """Whole items of `offered`, in its (priority) order, while the rendered block stays
        within the budget (measured on the rendering itself, so labels, newlines and tags count)."""
        chosen: list[BackgroundItem] = []
        used = _WRAPPER_TOKENS
        for item in offered:
            if not item.text or used + item.tokens > self.budget:
                continue  # cannot fit even before its label: skip without rendering
            cost = count_tokens(render_item(item) + "\n")  # with the newline that joins it
            if used + cost <= self.budget:
                chosen.append(item)
                used += cost
        # Token merges across the joins make the sum an estimate: check the real rendering
        # and drop the lowest-priority items while it is over (rare, one token or two).
        while chosen and count_tokens(self.render(chosen)) > self.budget:
            chosen.pop()
        return chosen

    @staticmethod
    def order(items: Iterable[BackgroundItem]) -> list[BackgroundItem]:
        return sorted(items, key=lambda it: (_RANK[it.kind], -it.level if it.kind == "level" else 0,
                                             it.position))

    def render(self, items: Iterable[BackgroundItem], *, at_start: bool = False) -> str:
        """The background block; the start marker only for a call at the document's start,
        nothing at all when no item was chosen later on."""
        ordered = self.order(items) if self.stable else list(items)
        if not ordered:
            return f"{_OPEN}\n{START_MARKER}\n{_CLOSE}" if at_start else ""
        return "\n".join([_OPEN, *(render_item(it) for it in ordered), _CLOSE])

    def build(self, offered: Iterable[BackgroundItem], *, at_start: bool = False) -> str:
        return self.render(self.select(offered), at_start=at_start)

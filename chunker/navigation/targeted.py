"""Targeted answers: questions that go straight to a record (a table's row, a term's
definition) before any prose is ranked.

Each route is one class behind `TargetedRoute`; `ROUTES` lists them in the order they are tried
(a question that names both a table's labels and a defined term tries the table first). The
default navigator asks `answer_targeted` first and falls back to the collapsed search when no
route answers; its result says which path it took.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from pydantic import BaseModel, Field


class TargetedAnswer(BaseModel):
    path: str = Field(description="which route answered: table-lookup, definition, ...")
    text: str = Field(description="what the reader is shown, within the budget")
    nodes: list[str] = Field(default_factory=list, description="the ids of the nodes it comes from")
    tokens: int = 0


class TargetedRoute(Protocol):
    name: str

    def answer(self, tree, question: str, budget: int) -> TargetedAnswer | None:
        """The record-backed answer to `question` within `budget` tokens, or None when the
        question is not one this route serves."""


ROUTES: list[Callable[[], TargetedRoute]] = []
"""Factories of the routes, in the order they are tried (each route module appends its own
entry here, in the order: tables, definitions)."""


def answer_targeted(tree, question: str, budget: int) -> TargetedAnswer | None:
    for make in ROUTES:
        got = make().answer(tree, question, budget)
        if got is not None:
            return got
    return None

"""Run the navigator graph on one question and return a typed result with its cost.

It lives beside the graph it runs: `chunker.navigation` (the tree, search, scoring, the
tools) is what the navigator's nodes use, and never imports a graph."""

from __future__ import annotations

import functools
import time
from typing import Callable

from pydantic import BaseModel, Field

from chunker.graph.navigator import build_navigator
from chunker.navigation.errors import NavigationError
from chunker.navigation.settings import NavigatorSettings
from chunker.navigation.scope import nodes_under, normalise_prefix
from chunker.navigation.tree import open_tree

RECURSION_LIMIT = 100_000
"""Graph steps allowed per walk: each leaf read costs about depth + 2 steps, and the
budget, not the step count, is what should end a walk."""


class NavigationResult(BaseModel):
    """One question's walk: the answer and what it cost (what `chunker ask --json` prints)."""

    question: str
    answer: str
    path: list[str]
    leaves: list[str]
    passages: list[dict] = Field(default_factory=list, description=(
        "everything read: ReadPassage records (id, kind, text, where, path, span, source, "
        "score, tokens)"))
    tokens_read: int
    status: str
    route: str = Field(default="collapsed", description=(
        "which path answered: a targeted route (table-lookup, definition, ...), collapsed "
        "(the search) or descend"))
    llm_calls: int = 0
    llm_tokens: int = Field(default=0, description="prompt plus completion tokens")
    prompt_tokens: int = Field(default=0, description="prompt tokens alone")
    fallbacks: int = Field(default=0, description="model answers replaced by embeddings")
    seconds: float = 0.0


@functools.lru_cache(maxsize=1)
def _graph():
    return build_navigator()  # compiled once per process; every walk is its own invocation


def ask(tree_dir: str, question: str, settings: NavigatorSettings,
        on_step: Callable[[dict], None] | None = None,
        start_node: str | None = None, prefix: str | None = None) -> NavigationResult:
    """Find what `question` needs in the tree in `tree_dir` (below `start_node`, in the files
    under `prefix`, when given); raises NavigationError on bad input, before the graph runs."""
    tree = open_tree(tree_dir)  # a folder without a finished run fails here
    if start_node is not None:
        tree.node(start_node)  # UnknownNode
    if not question.strip():
        raise NavigationError("the question is empty")
    if prefix is not None and normalise_prefix(prefix) is not None:
        nodes_under(tree.hierarchy, normalise_prefix(prefix))  # NavigationError: no such files
    started = time.perf_counter()
    final: dict = {}
    graph_input = {"question": question, "tree_dir": str(tree_dir), "start_node": start_node,
                   "prefix": prefix}
    for mode, chunk in _graph().stream(graph_input,
                                       context=settings, stream_mode=["custom", "values"],
                                       config={"recursion_limit": RECURSION_LIMIT}):
        if mode == "custom" and on_step is not None:
            on_step(chunk)
        elif mode == "values":
            final = chunk
    stats = final.get("stats") or {}
    return NavigationResult(
        question=final.get("question", question), answer=final.get("answer", ""),
        path=final.get("path", []), leaves=final.get("leaves", []),
        passages=final.get("passages", []),
        tokens_read=final.get("tokens_read", 0), status=final.get("status", ""),
        route=final.get("route") or "collapsed",
        llm_calls=stats.get("calls.total", 0),
        llm_tokens=stats.get("tokens.prompt", 0) + stats.get("tokens.completion", 0),
        prompt_tokens=stats.get("tokens.prompt", 0),
        fallbacks=stats.get("fallbacks.choose", 0) + stats.get("fallbacks.judge", 0),
        seconds=round(time.perf_counter() - started, 3))

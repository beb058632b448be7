"""The navigator's typed state: the question, where the walk is, and what it has read.

The tree itself is not in the state (it can be megabytes): nodes open it by path,
read-only and cached per process, so checkpoints stay a few kilobytes per step.
"""

from __future__ import annotations

from typing import Annotated, TypedDict

from chunker.state.schema import add_counts


class Branch(TypedDict):
    """A branch not taken yet, kept on the frontier for backtracking."""

    id: str
    score: float
    """Embedding (or BM25) similarity to the question: best_first pops the highest."""
    seq: int
    """Order of discovery: depth_first pops the latest; ties in score go to the earliest."""


class NavigatorInput(TypedDict, total=False):
    question: str
    tree_dir: str
    """OUT of a finished run (or its hierarchy.json), on the machine that runs the graph."""
    start_node: str | None
    """Start the walk at this node instead of the root (scope a question to one section)."""
    prefix: str | None
    """Corpus trees: search and read only the files whose path starts with this."""


class NavigatorOutput(TypedDict, total=False):
    question: str
    answer: str
    """The model's answer; without one, the best-matching passage the walk opened."""
    path: list[str]
    """Every node the walk stood on, in order (a backtrack jumps to another branch)."""
    leaves: list[str]
    """The leaves whose original text it read (whole, or pieces of them)."""
    passages: list[dict]
    """Everything it read, as `chunker.navigation.views.ReadPassage` records: in document
    order for a collapsed search, in reading order for a walk."""
    tokens_read: int
    """Children's summaries shown at each choice plus the originals of the leaves read."""
    status: str
    """read (a collapsed search read its passages) | answered | max_leaves |
    budget_exhausted | exhausted (every branch tried, or nothing matched)."""
    stats: Annotated[dict[str, int], add_counts]
    """LLM calls and tokens, choices made by embeddings, fallbacks."""
    route: str
    """Which path answered: a targeted route's name (definition, table-lookup, ...), else
    collapsed (the search) or descend (the walk)."""


class NavigatorState(NavigatorInput, NavigatorOutput, total=False):
    current: str
    frontier: list[Branch]
    shown: list[str]
    """Blocks whose children's summaries were already counted in tokens_read."""
    leaf_scores: dict[str, float]
    seq: int

"""Settings of read-only navigation: one typed object, the navigator graph's `context_schema`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


CONTEXT_FIELDS = ("title", "path", "ancestors", "summary", "glosses", "rewritten")
"""Every field a piece can be indexed with besides its own text, in the order they are written
(`chunker.navigation.context_index` says what each holds)."""


def check_fields(fields: tuple[str, ...]) -> tuple[str, ...]:
    """The fields in their canonical order; ValueError naming any unknown one."""
    unknown = [f for f in fields if f not in CONTEXT_FIELDS]
    if unknown:
        raise ValueError(f"unknown context field(s) {', '.join(unknown)}: choose from "
                         f"{', '.join(CONTEXT_FIELDS)}")
    return tuple(f for f in CONTEXT_FIELDS if f in fields)


@dataclass(frozen=True)
class NavigatorSettings:
    """How the navigator walks a tree (LangGraph runtime context) and how search ranks."""

    mode: Literal["collapsed", "descend"] = "collapsed"
    """`collapsed` (default): rank every unit of the tree at once (pieces of leaves with their
    context, blocks' summaries) and read the best within the budget, in document order
    (`chunker.navigation.collapsed`); with a model, the model starts from the collapsed
    search's best branches (`branches`) instead of the root. `descend`: walk down from the
    root, choosing a child at every level (the navigator before issue 21)."""
    model: str | None = None
    """Chat model that chooses children and judges leaves (`local`, `ollama:NAME`,
    `scripted`...). `None` walks by embedding similarity alone (no LLM call at all)."""
    embeddings: str = "local"
    """Search method, for the `search` tool and for choosing when there is no model or the
    model's answer cannot be used: an embeddings provider (`local`: all-MiniLM-L6-v2,
    `lexical`, `ollama:NAME`) or `bm25` (BM25 from rank-bm25, no embedding model; `none` is
    its older spelling and still accepted)."""
    budget_tokens: int = 2000
    """Hard cap on what the walk reads: children's summaries at each choice plus the leaves'
    original texts. A step that would exceed it is not taken and the walk ends."""
    max_leaves: int = 2
    """Open at most this many leaves. Without a model nothing can judge a passage, so the
    walk opens exactly this many (best first) when the budget allows."""
    child_scoring: Literal["node", "subtree", "hybrid"] = "hybrid"
    """How a walk without a model ranks children (with a model: the order of the branches
    kept for backtracking and of the fallback). `node`: the child's own summary and
    rewritten text by embedding similarity (it sees what a reader sees); `subtree`: the
    best embedding similarity of any node below the child (RAPTOR's collapsed view guiding
    the walk); `hybrid`: that collapsed view over the reciprocal-rank fusion of each node's
    BM25 and embedding ranks (see `chunker.navigation.scoring`). Default `hybrid`: the best
    measured on Emma's 30 questions (bench/results/navigation/navigation.md)."""
    rrf_k: int = 10
    """Reciprocal-rank fusion constant of `hybrid`: a node ranked r by one method adds
    1 / (rrf_k + r); larger flattens the advantage of the very first ranks. Cormack et al.
    (2009) use 60; on Emma 10 found 17/30 passages against 15/30 for 60 (and for 200)."""
    backtrack: Literal["depth_first", "best_first"] = "best_first"
    """After a leaf that did not answer: `depth_first` goes to the next-best sibling branch
    of the deepest choice (MemWalker); `best_first` to the best-scored branch not yet taken
    anywhere in the tree."""
    piece_tokens: int = 200
    """Texts longer than this are embedded in pieces and scored by their best piece
    (sentence-embedding models drop what is past their input limit)."""
    context_fields: tuple[str, ...] = CONTEXT_FIELDS
    """What each piece of a leaf is indexed with besides its own text (contextual indexing,
    `chunker.navigation.context_index.CONTEXT_FIELDS`); the ablation in
    bench/results/navigation/ measures each one."""
    context_tokens: int = 48
    """Cap on the context put before a piece for the embeddings provider (the ancestors'
    summaries are cut here too), so that context and piece fit a sentence-embedding model's
    input; BM25 gets the whole context."""
    leaf_share: float = 0.5
    """Read a matching leaf whole when it takes at most this share of the budget still left;
    a longer one is read by its matching pieces. A large budget thus reads its best passages
    whole, in context, and a small one (or the end of any budget) several places."""
    zoom_hits: int = 3
    """Zoom out: read a section's summary when this many of the `zoom_window` best pieces lie
    under it (0: never read a summary)."""
    zoom_share: float = 0.1
    """Zoomed-out summaries may take at most this share of the budget (the rest is for
    passages): a small budget reads passages only."""
    zoom_window: int = 8
    """How many of the best units `zoom_hits` and a block's own rank are counted among."""
    scan_after_full: int = 25
    """Once a unit does not fit the budget, look this many more units down the ranking for
    smaller ones before stopping."""
    branches: int = 5
    """With a model in `collapsed` mode: how many of the collapsed search's best branches (the
    sections holding the best pieces) the model chooses among first."""
    search_k: int = 5
    """Hits returned by the `search` tool when the caller does not say."""
    answer_max_tokens: int = 200
    """Cap on the model's answer (in-process models; servers stop on their own)."""
    calls_dir: str | None = None
    """Log every LLM call to `calls_dir/.chunker/calls.sqlite` (None: not logged)."""
    cache_embeddings: bool = True
    """Keep node embeddings in `OUT/.chunker/navigation/` so the next question is instant
    (a folder that cannot be written just means no cache)."""
    temperature: float = 0.0
    """Sampling temperature of the model; 0 makes walks repeatable."""
    llm_timeout_s: float = 300.0
    """Seconds before one LLM request is abandoned."""

    def __post_init__(self) -> None:
        if self.budget_tokens < 1:
            raise ValueError("budget_tokens must be at least 1")
        if self.max_leaves < 1:
            raise ValueError("max_leaves must be at least 1")
        if self.piece_tokens < 8:
            raise ValueError("piece_tokens must be at least 8")
        if self.child_scoring not in ("node", "subtree", "hybrid"):
            raise ValueError("child_scoring must be node, subtree or hybrid")
        if self.rrf_k < 1:
            raise ValueError("rrf_k must be at least 1")
        if self.mode not in ("collapsed", "descend"):
            raise ValueError("mode must be collapsed or descend")
        object.__setattr__(self, "context_fields", check_fields(tuple(self.context_fields)))
        if self.context_tokens < 0 or self.zoom_hits < 0 or self.branches < 1:
            raise ValueError("context_tokens and zoom_hits must be at least 0, branches at least 1")
        if not 0.0 <= self.leaf_share <= 1.0 or not 0.0 <= self.zoom_share <= 1.0:
            raise ValueError("leaf_share and zoom_share must be between 0 and 1")
        if self.zoom_window < 1 or self.scan_after_full < 0:
            raise ValueError("zoom_window must be at least 1, scan_after_full at least 0")
        if self.backtrack not in ("depth_first", "best_first"):
            raise ValueError("backtrack must be depth_first or best_first")

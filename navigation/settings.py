"""Settings of read-only navigation: one typed object, the navigator graph's `context_schema`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class NavigatorSettings:
    """How the navigator walks a tree (LangGraph runtime context) and how search ranks."""

    model: str | None = None
    """Chat model that chooses children and judges leaves (`local`, `ollama:NAME`,
    `scripted`...). `None` walks by embedding similarity alone (no LLM call at all)."""
    embeddings: str = "local"
    """Embeddings provider for search and for choosing when there is no model or the model's
    answer cannot be used: `local` (all-MiniLM-L6-v2), `lexical`, `ollama:NAME`, or `none`
    (BM25 from rank-bm25)."""
    budget_tokens: int = 2000
    """Hard cap on what the walk reads: children's summaries at each choice plus the leaves'
    original texts. A step that would exceed it is not taken and the walk ends."""
    max_leaves: int = 2
    """Open at most this many leaves. Without a model nothing can judge a passage, so the
    walk opens exactly this many (best first) when the budget allows."""
    child_scoring: Literal["node", "subtree"] = "node"
    """How embeddings rank children: `node` by the child's own summary and rewritten text
    (a true walk: it sees what a reader sees); `subtree` by the best-matching node anywhere
    below the child (RAPTOR's collapsed view; a walk guided by a global search)."""
    backtrack: Literal["depth_first", "best_first"] = "best_first"
    """After a leaf that did not answer: `depth_first` goes to the next-best sibling branch
    of the deepest choice (MemWalker); `best_first` to the best-scored branch not yet taken
    anywhere in the tree."""
    piece_tokens: int = 200
    """Texts longer than this are embedded in pieces and scored by their best piece
    (sentence-embedding models drop what is past their input limit)."""
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
        if self.child_scoring not in ("node", "subtree"):
            raise ValueError("child_scoring must be node or subtree")
        if self.backtrack not in ("depth_first", "best_first"):
            raise ValueError("backtrack must be depth_first or best_first")

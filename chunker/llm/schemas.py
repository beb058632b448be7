"""Structured answers, one pydantic model per LLM task."""

from __future__ import annotations

from pydantic import BaseModel, Field


class Completeness(BaseModel):
    """Whether the window ends a thought, and where the next topic begins."""

    complete: bool
    boundary_phrase: str | None = Field(default=None, max_length=300)


class CandidateBoundary(BaseModel):
    """Whether the window ends a thought, and which numbered cut starts the next topic."""

    complete: bool
    boundary: int | None = Field(default=None, ge=1, le=9)


class Rewrite(BaseModel):
    """A self-sufficient rewrite of one chunk."""

    rewritten: str


class RewriteWithSummary(BaseModel):
    """A self-sufficient rewrite with its summary and slug (combined mode)."""

    rewritten: str
    summary: str
    slug: str = Field(max_length=120)


class Summary(BaseModel):
    """A short summary and a filename stem."""

    summary: str
    slug: str = Field(max_length=120)


class Grouping(BaseModel):
    """Contiguous groups of pending items, by index."""

    groups: list[list[int]]


class Synthesis(BaseModel):
    """A block one level up, synthesised from its children: its text, summary and slug."""

    rewritten: str
    summary: str
    slug: str = Field(max_length=120)


class ProposedTerm(BaseModel):
    """One term a passage defines, and its definition copied from the passage."""

    term: str = Field(max_length=120)
    # no max_length: llama.cpp refuses a grammar that repeats a 2,000-character string inside
    # a list ("number of rules ... exceeds sane defaults"); the grounding bounds its length
    # (knowledge.propose_max_definition_chars)
    definition: str


class TermProposals(BaseModel):
    """The terms the passages define (none is an answer too)."""

    terms: list[ProposedTerm] = Field(default_factory=list)


class FigureDescription(BaseModel):
    """What a figure's image shows, from the vision model (grounded against its caption)."""

    description: str


SCHEMAS = {
    "completeness": Completeness,
    "boundary_retry": Completeness,
    "completeness_candidates": CandidateBoundary,
    "boundary_retry_candidates": CandidateBoundary,
    "rewrite": Rewrite,
    "rewrite_summarize": RewriteWithSummary,
    "summarize": Summary,
    "group": Grouping,
    "synthesize": Synthesis,
    "propose_terms": TermProposals,
    "describe_figure": FigureDescription,
}


class NavigateChoice(BaseModel):
    """The navigator's pick among a node's children (1-based number)."""

    choice: int


class NavigateAnswer(BaseModel):
    """Whether a leaf answers the navigator's question, and the answer."""

    found: bool
    answer: str = ""
    """Capped by the call's token limit (`answer_max_tokens`), not by the schema: a 2000-character
    limit becomes a grammar llama.cpp cannot compile, and decoding then runs unconstrained."""


SCHEMAS["navigate_choose"] = NavigateChoice
SCHEMAS["navigate_answer"] = NavigateAnswer

"""Structured answers, one pydantic model per LLM task."""

from __future__ import annotations

from pydantic import BaseModel, Field


class Completeness(BaseModel):
    """Whether the window ends a thought, and where the next topic begins."""

    complete: bool
    boundary_phrase: str | None = Field(default=None, max_length=300)


class Rewrite(BaseModel):
    """A self-sufficient rewrite of one chunk."""

    context: str


class RewriteWithSummary(BaseModel):
    """A self-sufficient rewrite with its summary and slug (combined mode)."""

    context: str
    summary: str
    slug: str = Field(max_length=120)


class Summary(BaseModel):
    """A short summary and a filename stem."""

    summary: str
    slug: str = Field(max_length=120)


class Grouping(BaseModel):
    """Contiguous groups of pending items, by index."""

    groups: list[list[int]]


class Block(BaseModel):
    """A synthesised summary block one level up."""

    context: str
    summary: str
    slug: str = Field(max_length=120)


SCHEMAS = {
    "completeness": Completeness,
    "boundary_retry": Completeness,
    "rewrite": Rewrite,
    "rewrite_summarize": RewriteWithSummary,
    "summarize": Summary,
    "group": Grouping,
    "synthesize": Block,
}

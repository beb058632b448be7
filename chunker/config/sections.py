"""The sections of a run's settings, one frozen model per concern.

`ChunkerSettings` (config/settings.py) holds one of each. A section validates its own
fields and the rules among them; rules that join two sections live on `ChunkerSettings`.
The grounding section is `chunker.grounding.policy.GroundingPolicy` itself. Fields that
the model's profile sizes (`config/profiles.py`) have no default here: `ChunkerSettings`
fills them from the profile before the sections are built, so every section is complete.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from chunker.embeddings.settings import CANDIDATE_COUNT, CONTRAST_SHARE, EMBED_BATCH_SIZE, OWN_COUNT_STD_FACTOR

SplitUnit = Literal["sentence", "paragraph", "word", "page"]
BoundaryMode = Literal["candidates", "phrase"]
CandidateCutoff = Literal["contrast", "peak_std"]
StructureMode = Literal["auto", "markdown", "none"]
Strategy = Literal["auto", "flat", "peel", "full"]
BackgroundOrder = Literal["stable", "priority"]
BackgroundContext = Literal["written", "source"]
Reading = Literal["regions", "one_cursor"]
ModelTask = Literal["boundary", "rewrite", "summary", "group", "synthesis", "terms"]
TREE_TASKS: tuple[ModelTask, ...] = ("boundary", "rewrite", "summary", "group", "synthesis")
"""The tasks that build the tree, in the order a leaf and a block meet them (round 2's five:
what an old run.json's `extractive_summaries` is read against)."""
MODEL_TASKS: tuple[ModelTask, ...] = (*TREE_TASKS, "terms")
"""Every task a run may ask of the model: the tree's, then the knowledge passes' `terms`."""

# frozen: settings are hashable and shared by every node of a run; attribute docstrings
# become the fields' descriptions (the served graph's context schema shows them)
SECTION_CONFIG = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True,
                            protected_namespaces=())


class LLMSettings(BaseModel):
    """Which model answers, and how it is called."""

    model_config = SECTION_CONFIG

    model: str
    """Provider string: `ollama:NAME` (or a bare Ollama name such as `qwen3:8b`),
    `local` (embedded SmolLM2), `llamacpp:/path/model.gguf`, any LangChain
    `provider:model` (`openai:NAME`, through `init_chat_model`), or `scripted[:opts]`
    (the deterministic test model, only when asked for by name). Required."""
    model_window: int
    """The model's context window (Ollama `num_ctx`)."""
    temperature: float = 0.0
    """Sampling temperature; 0 makes runs repeatable."""
    max_attempts: int = 4
    """Attempts per LLM node on transient errors (connection refused, timeout, 5xx), with
    exponential backoff and jitter. Applied when the graph is built (`build_graph`)."""
    retry_initial_s: float = 1.0
    """First backoff interval between those attempts (doubles each time, with jitter)."""
    timeout_s: float = 300.0
    """Seconds before one LLM request is abandoned as a transient failure."""
    max_concurrency: int | None = Field(None, ge=1)
    """LLM calls in flight at once, over the whole run (the documents of a corpus, a document's
    regions, and within a region what `background.context: source` lets run at once). None: the backend's
    default (`chunker.llm.registry.default_concurrency`): 1 in-process, 1 for Ollama unless
    `OLLAMA_NUM_PARALLEL` says more, 8 for an OpenAI-compatible server. It changes when calls
    run, never what they answer: a tree is the same at every concurrency."""
    tasks_per_slot: int | None = Field(None, ge=1)
    """Documents of a corpus, or regions of a document, read at once for each call slot
    (`max_concurrency`). Between two calls a task does chunker's own work (grounding, the
    store, its checkpoints); another task's call keeps the slot busy meanwhile, where with one
    task a slot the server would wait. The calls in flight stay capped at `max_concurrency`.
    None: the backend's (`chunker.llm.registry.default_tasks_per_slot`): 2 for a served model,
    1 for a model in this process, which shares the machine's cores with that work. Like
    `max_concurrency`, it changes when calls run, never what they answer."""
    vision_model: str | None = None
    """A model that accepts images (an Ollama multimodal model such as `ollama:qwen2.5vl`, or the
    main model when it does). It describes each figure's image (`describe_figure`: the
    description is kept only when the figure's caption, alt text and citing sentences support
    it), and where the source has pages (a PDF, a scan) it receives the PNGs of the pages a
    chunk spans in the rewrite call, to transcribe tables, charts and scanned pages. None: text
    only, and no figure has a description."""
    combine_rewrite_and_summary: bool
    """Ask for the summary and slug in the rewrite call (one LLM call per leaf fewer;
    summarize_chunk then only validates them). Profile default: on for medium and large
    models, off for the tiny one (one task per call suits a 135M model better)."""
    model_tasks: tuple[ModelTask, ...]
    """The tasks the model is asked; every other one is done without it, and counted as
    `extracted.<task>`: `boundary` (the signal's deepest cut in the window, or the last sentence
    end without a signal), `rewrite` (the original text), `summary` and `synthesis` (LexRank
    extracts), `group` (the signal's deepest summary dips), `terms` (the term registry's patterns
    alone: asked, the model also proposes terms and definitions over the finished tree's leaves,
    kept only when the term occurs in the leaf and the definition is a span of it; see
    chunker/knowledge/proposals.py). Profile default: the tree's five for every profile, `terms`
    too for the medium and large ones; none for the tiny profile, whose model measurably got
    none of them through the checks (see config/profiles.py). The old `extractive_summaries:
    true` means all but summary and synthesis (and terms)."""

    def asks(self, task: ModelTask) -> bool:
        """Whether `task` goes to the model (else it is done without it: see `model_tasks`)."""
        return task in self.model_tasks


class ChunkingSettings(BaseModel):
    """How windows grow and where leaves are cut."""

    model_config = SECTION_CONFIG

    min_chunk_tokens: int = Field(ge=1)
    """A window grows until it holds at least this many tokens before the LLM judges it."""
    max_chunk_tokens: int
    """Safety valve: a window this large is force-split at its last sentence boundary."""
    max_expansion_attempts: int = Field(8, ge=1)
    """Safety valve: after this many expansions without a complete thought, force a split."""
    split_unit: SplitUnit = "sentence"
    """The unit by which a window grows: sentence, paragraph, word, or page (PDFs only, their
    default: a window grows by whole pages; the cut may still fall at a sentence inside one)."""
    expand_step: int = Field(1, ge=1)
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
    flat_window_share: float = Field(0.4, ge=0, le=1)
    """`strategy=auto` picks `flat` for a structured document of at most this share of the
    model's window: the root's synthesis, which shows children's full texts up to half the
    window, then sees every leaf's rewrite (a little longer than its original) at once."""
    candidate_count: int = Field(CANDIDATE_COUNT, ge=1, le=9)
    """How many numbered candidate gaps the LLM is offered per window."""
    candidate_cutoff: CandidateCutoff = "contrast"
    """Which local maxima of depth may be offered as cuts. `contrast`: those deeper than
    `candidate_depth_share` x the depth of a cut between unrelated blocks of this document
    (twice its curve's shoulders minus its floor, see `chunker.embeddings.adaptive`), on blocks
    as long as its similarity half-life; a curve with no cosine scale (the `lexical` rank
    curve) uses `peak_std`. `peak_std`: those above the document's mean - `candidate_peak_std`
    x std of its maxima (issue 10's rule, chosen on Choi 3-5; it offers nearly every dip of a
    long topic)."""
    candidate_depth_share: float = Field(CONTRAST_SHARE, gt=0, le=1)
    """`contrast`: the share of a full cut's depth a peak must reach (0.5: the midpoint)."""
    candidate_peak_std: float = OWN_COUNT_STD_FACTOR
    """`peak_std`: a sentence gap is a candidate cut when its depth is a local maximum above
    the document's mean - `candidate_peak_std` x std of its maxima (the rule that chose its
    own segment count best on Choi 3-5: Pk 0.061 with MiniLM, 0.167 lexical)."""

    @model_validator(mode="after")
    def _max_holds_min(self) -> "ChunkingSettings":
        if self.max_chunk_tokens < self.min_chunk_tokens:
            raise ValueError("max_chunk_tokens must be at least min_chunk_tokens")
        return self


class EmbeddingSettings(BaseModel):
    """The boundary signal's embeddings."""

    model_config = SECTION_CONFIG

    provider: str
    """Boundary signal provider: `local` (all-MiniLM-L6-v2 in-process), `lexical` (term
    vectors, no model), `ollama:NAME` (e.g. `ollama:all-minilm`), or `none`. Profile
    default `auto`: `local` when installed, else `lexical`."""
    batch_size: int = Field(EMBED_BATCH_SIZE, ge=1)
    """Sentences per embedding request, and per stored batch (a crash loses at most one)."""


class BackgroundSettings(BaseModel):
    """What earlier context the prompts carry."""

    model_config = SECTION_CONFIG

    budget_tokens: int
    """Hard cap, in rendered tokens, on the background injected into completeness,
    summary, grouping and synthesis calls (level summaries, the previous passage's
    summary, earlier summaries)."""
    rewrite_share: float = Field(0.25, gt=0, lt=1)
    """The rewrite call's background cap as a share of `model_window`: it must hold the
    whole text right before the chunk (a chunk of up to `max_chunk_tokens`)."""
    order: BackgroundOrder = "stable"
    """How chosen background items are laid out: `stable` (slow-changing items first, so
    consecutive prompts share a long prefix for KV-cache reuse) or `priority` (the
    predecessor first; only for measuring what the stable order saves)."""
    context: BackgroundContext = "written"
    """What a call is shown of the document before it. `written`: what the run wrote
    before it (the predecessor's rewrite, the summaries so far), so a document's calls run
    one after another. `source`: only the source before it (the predecessor's original
    text), so a document's leaves are rewritten and summarised, and a level's blocks
    synthesised, in parallel (up to `llm.max_concurrency`), at the cost of that context."""


class RegionSettings(BaseModel):
    """How a document is divided into regions read at once, and the outline every call sees
    (chunker/chunking/regions.py, chunker/background/outline.py)."""

    model_config = SECTION_CONFIG

    reading: Reading = "regions"
    """`regions`: the document is divided into regions that are read independently, at once
    (up to `llm.max_concurrency`): its top-level sections where it has headings, stretches
    cut at the embedding signal's deepest dips where it has none; every call is shown the
    document's outline. A document that is one region runs as `one_cursor`. `one_cursor`:
    one cursor reads the whole document in order, every call waiting on the one before (the
    trees of every version before regions; an old run.json or tree without this setting
    resumes and updates so)."""
    min_tokens: int = Field(3000, ge=1)
    """A region holds at least this many tokens: smaller top-level sections are merged with
    the ones after them, and the signal's dips are cut at only while each stretch keeps this
    many. 3,000 tokens are two to five leaves at every profile's sizes, so a region's own
    passages still give most calls their background."""
    max_tokens: int = Field(12000, ge=1)
    """A section larger than this is split at its subsections (where it has them) into
    regions of their own; the levels above them still make the section's node."""
    outline_share: float = Field(0.5, ge=0, le=1)
    """The share of `background.budget_tokens` the outline may take in a call's background:
    the rest stays for what the call's own region wrote (its level summaries, the passage
    before). The outline is one item under the same hard budget."""
    summary_chars: int = Field(160, ge=20)
    """The longest extractive summary of a region in the outline (about one sentence)."""
    summary_sentences: int = Field(24, ge=2)
    """The most sentences of a region that its summary is ranked among (spread evenly over
    the region): LexRank's cost grows with the square of its sentences, and a chapter of a
    book has hundreds (48 took 1.4 s of Emma's CPU before any call could start, 24 a quarter)."""

    @model_validator(mode="after")
    def _sizes(self) -> "RegionSettings":
        if self.max_tokens < self.min_tokens:
            raise ValueError("region_max_tokens must be at least region_min_tokens")
        return self


class AggregationSettings(BaseModel):
    """When leaves are grouped into blocks, and how blocks are written."""

    model_config = SECTION_CONFIG

    summary_aggregation_threshold: int
    """Aggregate a level once its pending summaries hold this many tokens in total..."""
    summary_count_threshold: int
    """...or once this many summaries are pending, whichever comes first."""
    synthesize_full_text_levels: int = 1
    """Blocks up to this level are synthesised from their children's full rewritten
    texts; higher blocks from their children's summaries (smaller prompts)."""
    min_group_size: int = Field(2, ge=2)
    """Hard floor on group size: no block ever has a single child."""
    max_group_size: int = 5
    """Soft cap on group size when the model groups (plain text, and a corpus's folders):
    exceeded once, the grouping is re-prompted, then accepted."""
    fanout_min: int = Field(4, ge=2)
    """The fewest children the section tree aims for in a block it makes itself (an
    intermediate block of a section with more than `fanout_max` children). A section with
    fewer children of its own keeps them (2 or 3): the outline, not this, decides."""
    fanout_max: int = Field(12, ge=2)
    """The most children the section tree aims for: a section (the document included) with
    more children gets intermediate blocks within it, sized so that they and the section
    fall in `fanout_min`..`fanout_max`. 4-12: a list a reader (a person scanning a table of
    contents, a model choosing a branch) takes in at once, 7 +/- 5, so that a tree of N
    leaves is about log_8 N levels deep rather than log_3 N (fewer choices to get wrong)."""

    @model_validator(mode="after")
    def _group_sizes(self) -> "AggregationSettings":
        if self.max_group_size < self.min_group_size:
            raise ValueError("max_group_size must be at least min_group_size")
        if self.fanout_min < self.min_group_size or self.fanout_max < self.fanout_min:
            raise ValueError("need min_group_size <= fanout_min <= fanout_max")
        if self.summary_count_threshold < self.min_group_size:
            raise ValueError("summary_count_threshold must be at least min_group_size")
        return self


class PdfSettings(BaseModel):
    """A PDF run's pages and images."""

    model_config = SECTION_CONFIG

    dpi: int = Field(150, ge=36)
    """Resolution of the page images sent to the vision model (150 DPI: 1275x1650 px a letter
    page, small print still legible; about 0.14 s a page to render)."""
    max_images: int = Field(4, ge=1)
    """The most page images one rewrite call receives (the chunk's first pages); bounds the
    vision tokens of a chunk that spans many pages."""
    figure_min_px: int = Field(64, ge=1)
    """An image embedded in a PDF page smaller than this (pixels) on either side is not taken
    as a figure (bullets, rules, icons); the figures' images go into `OUT/media/`."""


class InputSettings(BaseModel):
    """How a document given by path is read."""

    model_config = SECTION_CONFIG

    encoding: str = "utf-8"
    """Text encoding of a document given by path (UTF-8 by default; a UTF-8 BOM is dropped)."""
    max_bytes: int = 200 * 1024 * 1024
    """Documents larger than this are refused before any work starts."""
    source: str | None = None
    """The original file this run's text was extracted from (set by `chunker run` on every
    format but plain text and Markdown, never by hand; `pdf_source` before): its places lie in
    `OUT/.chunker/places.json`, beside the extracted `OUT/source.md` that the graph reads;
    nodes record their locations and a vision model sees its page images."""


class OutputSettings(BaseModel):
    """What the tree's files and the graph's output hold."""

    model_config = SECTION_CONFIG

    return_tree: bool | None = None
    """Put the whole tree in the graph output. None (the default): only when the run has no
    folder to write it to (served or embedded; `RunResources.out_dir` is None)."""
    summary_max_chars: int = 400
    """A longer summary is cut at a sentence or word boundary (the model was told 1-2 sentences)."""
    slug_max_length: int = 60
    """Filename stems are capped at this many characters."""

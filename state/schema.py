"""The graph's typed state: small and bounded, whatever the document's length.

Only the cursor, window bounds, counters, ids and stats live here. Payloads (the
document text, chunk and block texts) live in the LangGraph store, because the
SQLite checkpointer rewrites every channel in every checkpoint.
"""

from __future__ import annotations

from typing import Annotated, TypedDict


def add_counts(left: dict[str, int] | None, right: dict[str, int] | None) -> dict[str, int]:
    """Reducer for `stats`: nodes return increments, which are added up."""
    merged = dict(left or {})
    for key, value in (right or {}).items():
        merged[key] = merged.get(key, 0) + value
    return merged


class ChunkerInput(TypedDict, total=False):
    """What a caller passes: raw text, or a path to a UTF-8 text file."""

    text: str | None
    path: str | None
    reuse_key: str | None
    """An update: where the store holds the reuse index of the tree being brought up to
    date (`chunker/update/index.py`); unchanged passages are copied from it, not redone."""


class ChunkerOutput(TypedDict, total=False):
    """What a run returns."""

    doc_id: str
    root_id: str | None
    leaf_count: int
    stats: dict[str, int]
    tree: dict | None
    """The whole hierarchy (as in hierarchy.json), when the context asks for it."""


class StepState(TypedDict, total=False):
    """The state less its counters: what a subgraph (`graph/`) is given. A subgraph that
    were given `stats` would hand back the parent's counts with its own added, and the
    reducer would add the parent's twice; it starts from none and hands back its own."""

    # input (the text is moved to the store by load_document, then cleared)
    text: str | None
    path: str | None
    # document
    run_key: str
    """Namespaces this run's store records (drawn once by load_document)."""
    doc_id: str
    doc_chars: int
    strategy: str
    """flat | peel | full, chosen once by load_document (see `chunker.chunking.strategy`); the
    structure itself is in the store."""
    # phase 1: the window [cursor, window_end) and the chunk being decided
    cursor: int
    window_end: int
    min_end: int
    """Where the window first reached min_chunk_tokens: a boundary must lie past it."""
    shown_end: int
    """End of the text shown to the LLM (window plus lookahead)."""
    window_tokens: int
    expansions: int
    complete: bool | None
    phrase: str | None
    """The model's boundary phrase (phrase mode)."""
    boundary_number: int | None
    """The model's answered cut number (candidates mode)."""
    boundary_attempt: int
    boundary_status: str | None
    """match | accept | expand | miss, set by validate_boundary for routing."""
    chunk_end: int | None
    section_end: int | None
    """Set by expand_window when the window holds the rest of a Markdown section and offers
    no cut: that section's end, where end_at_section ends the leaf without a call."""
    chunk_outcome: str | None
    forced: bool
    leaf_count: int
    # phase 2: per level, pending [id, summary_tokens] pairs and the latest block id
    pending: list[list[list]]
    latest: list[str | None]
    block_counts: list[int]
    agg_level: int | None
    proposed: list[list[int]] | None
    group_dips: list[float] | None
    """Similarity dips between the level's consecutive summaries (at most
    summary_count_threshold values): hints for the LLM, cuts for the fallback."""
    group_nudge: str
    hard_failures: int
    soft_reprompted: bool
    group_status: str | None
    """ok | retry | fallback, set by validate_groups for routing."""
    groups_todo: list[list[str]]
    finalizing: bool
    root_id: str | None
    # an update (`reuse_key` given): see chunker/update/
    reuse_key: str | None
    rejoin_end: int | None
    """Where the leaf being read ends without a choice: an old boundary the cursor rejoins,
    or the old end of a passage whose text stayed but must be rewritten again."""
    rejoin_origin: str | None
    """In the second case, the old leaf's id: the passage rewritten again keeps it."""
    patch_todo: list[str]
    """Blocks of the patched tree still to synthesise, bottom up (one per step)."""
    # background.context: source (see chunker/background/policy.py)
    replayed: int
    """After the leaves were written: how many of them the levels' sweeps were fed so far,
    in leaf order, as the cursor would have fed them (`nodes/replay.py`)."""
    # a document read in regions (graph/regions.py)
    regions: int | None
    """How many regions the document is read in (`plan_regions`); None or 1: one cursor."""
    region: int | None
    """The region this state reads (its index in the plan), from its start to `text_end`;
    None: the whole document. A region's nodes are counted from its own first leaf, in a
    scope of the store of their own (`RunStore.region`)."""
    text_end: int | None
    """Where this cursor's text ends: its region's end; None: the document's (`doc_chars`)."""
    joined: bool
    """The regions' nodes are joined and the levels above them are being built (in the
    store's `joined` scope, numbered in document order at the end: `number_nodes`)."""
    tree: dict | None


class ChunkerState(StepState, total=False):
    # bookkeeping
    stats: Annotated[dict[str, int], add_counts]


def reading_end(state: StepState) -> int:
    """Where the cursor of `state` stops: its region's end, or the document's."""
    end = state.get("text_end")
    return state["doc_chars"] if end is None else end


def read(state: StepState) -> bool:
    """The cursor of `state` has read its text (its region's, or the document's)."""
    return state["cursor"] >= reading_end(state)


def in_region(state: StepState) -> bool:
    """`state` reads one region of a document read in regions: the levels above its nodes,
    and an update's patch, are made once the regions are joined, never inside one."""
    return state.get("region") is not None


class LeafJob(TypedDict):
    """What one `write_leaf` task is sent (`background.context: source`): which leaf of which
    run (and region). Its cut (span, outcome) is in the store (`LeafCut`)."""

    run_key: str
    doc_id: str
    leaf: int
    region: int | None


class GroupJob(TypedDict):
    """What one `synthesize_group` task is sent: a group of a sweep, the id it is written
    under (its place in the sweep, never its completion order), and what it may be shown."""

    run_key: str
    region: int | None
    """The region whose sweep it is (None: the document's, or the levels above the regions)."""
    joined: bool
    level: int
    """The new block's level."""
    index: int
    """The new block's number on its level (`node_id(level, index)`)."""
    group: list[str]
    sibling: list[str] | None
    """The preceding group of the same sweep (None for the first): its children's summaries
    stand in for its synthesis, not written yet."""
    latest: list[str | None]
    """The latest block of each level when the sweep began."""

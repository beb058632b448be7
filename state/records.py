"""Typed store records: what the store holds for each tree node, each cut leaf and the document.

Records are written whole by the node that creates them and read back as models, so a
missing field is a bug that fails loudly instead of a silent `.get` default.
"""

from __future__ import annotations

from typing import ClassVar, Protocol

from pydantic import BaseModel, Field


class NodeRecord(BaseModel):
    """One tree node's payload: a leaf (level 0) or a block (level 1+)."""

    id: str
    level: int
    index: int
    span: tuple[int, int]
    """[start, end) character offsets in the source."""
    rewritten: str
    """The self-sufficient text: a leaf's rewrite, a block's synthesis."""
    rewritten_tokens: int
    summary: str = ""
    summary_tokens: int = 0
    summary_hint: str = ""
    """The model's summary as answered in the rewrite call (combined mode), kept apart from
    `summary` so that re-running summarize_chunk after a crash sees the same input."""
    slug_hint: str = ""
    """The model's slug suggestion; sanitised (and grounded) when the tree is assembled."""
    original: str | None = None
    """The exact source text (leaves only)."""
    tokens: int = 0
    """Tokens of the original (leaves) or of the rewritten text (blocks)."""
    forced_split: bool = False
    boundary: str | None = None
    """How a leaf's end was chosen (match, retry_match, fallback, forced_sentence, ...)."""
    rewrite_kept: bool = True
    """False when the model's rewrite was rejected and the original stands in for it."""
    summary_kept: bool = True
    """False when the model's summary was rejected and an extractive one stands in."""
    call_id: int | None = None
    """The call log's id of the answer that wrote this node (rewrite or synthesis)."""
    children: list[str] = Field(default_factory=list)
    kind: str | None = None
    """Markdown leaves: prose, table, code, math, figure or mixed; None for plain text."""
    header_path: list[str] | None = None
    """Markdown leaves: the heading chain from the outermost down; None for plain text."""
    title: str | None = None
    """A block that is exactly one heading's section: that heading's title."""
    pages: tuple[int, int] | None = None
    """PDF runs: the first and last 1-based page the node's text lies on; None for text."""
    scanned_pages: list[int] | None = None
    """PDF leaves holding scanned pages (no text layer): their numbers, a flag for readers."""
    origin: str | None = None
    """An update's leaves: the id, in the tree being updated, of the leaf whose passage this
    is (same text in the same place); None for a new passage (`chunker/update/`)."""
    reused: bool = False
    """An update's leaf copied from the old tree as it was (no call); False when written now."""

    @property
    def is_leaf(self) -> bool:
        return self.level == 0

    def background_text(self) -> tuple[str, int]:
        """What a later call is shown of this node as "the text before it": the rewritten
        text, or the original when the rewrite was not kept or the original is shorter."""
        if self.original is not None and (not self.rewrite_kept or self.tokens < self.rewritten_tokens):
            return self.original, self.tokens
        return self.rewritten, self.rewritten_tokens


class ValueStore(Protocol):
    """Where small per-run values live (the run's `RunStore`): the document's (`*_value`),
    and those of the view's scope, a region's or the document's (`*_local`)."""

    def get_value(self, kind: str, key: str) -> dict | None: ...

    def put_value(self, kind: str, key: str, value: dict) -> None: ...

    def get_local(self, kind: str, key: str) -> dict | None: ...

    def put_local(self, kind: str, key: str, value: dict) -> None: ...


class LeafCut(BaseModel):
    """A leaf as the cursor cut it, before it is written (`background.context: source`).

    Under `source` the cursor only decides where leaves end; their rewrites and summaries
    are written after it reached the end, all at once. What the cut decided is kept here,
    one record per leaf, so that the state holds counters only and a later call can show
    the source before its leaf (`span`) without waiting for any model output."""

    KIND: ClassVar[str] = "leaf_cuts"

    index: int
    span: tuple[int, int]
    outcome: str | None = None
    """How the leaf's end was chosen (`NodeRecord.boundary`)."""
    forced: bool = False
    origin: str | None = None
    """An update's old passage this leaf is (`NodeRecord.origin`)."""
    reused: bool = False
    """Copied by an update as it was: already written, nothing to write."""

    @staticmethod
    def key(index: int) -> str:
        return f"{index:05d}"

    @classmethod
    def load(cls, values: ValueStore, index: int) -> "LeafCut | None":
        raw = values.get_local(cls.KIND, cls.key(index))
        return None if raw is None else cls.model_validate(raw)

    def save(self, values: ValueStore) -> None:
        values.put_local(self.KIND, self.key(self.index), self.model_dump(mode="json"))


class Region(BaseModel):
    """One region of a document read in regions (`chunker/chunking/regions.py`), as the
    outline shows it (`chunker/background/outline.py`)."""

    index: int
    span: tuple[int, int]
    """[start, end) character offsets in the source."""
    titles: list[str] = Field(default_factory=list)
    """The headings of the sections it holds, its top-level ones first; none without headings."""
    summary: str = ""
    """A short extractive summary of its text (no model call)."""


class RegionPlan(BaseModel):
    """A document's regions, planned once before any of them is read; the outline is made
    from them. Stored with the document's values; a run read in one cursor has none."""

    KIND: ClassVar[str] = "regions"

    by: str
    """What divided the document: `sections` (its headings) or `dips` (the signal's)."""
    regions: list[Region]

    def at(self, pos: int) -> int:
        """The index of the region holding `pos` (the end of the text: the last region's)."""
        for region in self.regions:
            if pos < region.span[1]:
                return region.index
        return self.regions[-1].index

    @classmethod
    def load(cls, values: ValueStore) -> "RegionPlan | None":
        raw = values.get_value(cls.KIND, "plan")
        return None if raw is None else cls.model_validate(raw)

    def save(self, values: ValueStore) -> None:
        values.put_value(self.KIND, "plan", self.model_dump(mode="json"))


class RegionResult(BaseModel):
    """What a region hands up when its cursor reached its end (`nodes/regions.py`): its counts
    and the nodes left for the levels above it, in its own ids (its scope's)."""

    KIND: ClassVar[str] = "region_result"

    leaf_count: int
    block_counts: list[int]
    items: list[list]
    """`[id, summary_tokens]` of every node not grouped inside the region, in document order."""

    @classmethod
    def load(cls, values: ValueStore) -> "RegionResult | None":
        raw = values.get_local(cls.KIND, "result")
        return None if raw is None else cls.model_validate(raw)

    def save(self, values: ValueStore) -> None:
        values.put_local(self.KIND, "result", self.model_dump(mode="json"))

"""OUT/.chunker/run.json: the run's record, as pydantic models (read and written by `RunDir`).

A record is one of two kinds, told apart by `kind`:
- `DocumentRun`: one document, on one thread of the checkpointer (`chunker run FILE`);
- `CorpusRun`: a folder (or several paths), its documents each on their own thread
  (`chunker run FOLDER`); an update builds the next *generation* of a corpus, a `CorpusRun`
  of its own kept under `update.corpus` until it replaces the record.
While `chunker update` runs, the record keeps the finished tree's description at its top
level (the old tree stays valid) and the update's under `update` (`DocumentUpdate`,
`CorpusUpdate`); when the update is done, it becomes the record.

Every earlier shape still reads (`_from_older`): a record without `kind` is a document's
(rounds 1-3 wrote none, and `eval --keep-runs` wrote one of only `status`, `model`,
`wall_s` and `stats`); round 3's `pdf`/`pdf_sha256` are `original`/`original_sha256`;
round 1's setting names (`context_budget_tokens`, `context_order`, `context_window`) are
today's; keys a round added later take their defaults (round 1 recorded no
`source_sha256`, the first corpora no `toc_sha256`, `include` or `exclude`). A key this
version does not know is dropped. The settings stay as recorded (`config`, flat): an old
name in them is read by the settings (`config/keys.py`, `LEGACY_KEYS`).
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, TypeAdapter

from chunker import __version__

if TYPE_CHECKING:  # the settings import the embeddings' settings: read when asked for
    from chunker.config.settings import ChunkerSettings

Status = Literal["running", "finished", "failed"]
"""`failed`: a corpus whose every document failed on the workers (no tree was written)."""

ROUND_1_NAMES = {"context_budget_tokens": "background_budget_tokens", "context_order": "background_order",
                 "context_window": "model_window"}
"""Round 1's setting names, renamed in round 2 (without a legacy name then: its runs resumed
with the defaults); read as today's, so such a record resumes with the values it ran with."""

ROUND_3_KEYS = {"pdf": "original", "pdf_sha256": "original_sha256"}
"""Round 3's names of an extracted run's original file (a PDF was the only one)."""


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class _Record(BaseModel):
    model_config = ConfigDict(extra="ignore")


class DocumentUpdateEntry(_Record):
    """One finished update of a document run."""

    at: str
    source_sha256: str
    mode: str
    """`patch` (the tree's shape patched above the changes) or `fresh` (rebuilt)."""
    wall_s: float = 0.0


class DocumentUpdate(_Record):
    """A document's update while it runs: its own thread, and what the tree becomes."""

    status: Status = "running"
    thread_id: str
    source: str
    source_sha256: str
    model: str
    config: dict[str, Any]
    mode: str
    reuse_key: str | None = None
    """The store key of the old tree's reuse index (None: nothing to reuse)."""
    started_at: str | None = None
    extra: dict[str, str] = Field(default_factory=dict)
    """What the record takes besides once the update is done (an extraction's original)."""


class DocumentRun(_Record):
    """run.json of one document."""

    kind: Literal["document"] = "document"
    status: Status = "running"
    source: str
    """The text the graph reads: the document, or for an extracted format OUT/source.md."""
    source_sha256: str | None = None
    """sha256 of `source`'s text (a resume refuses another text); round 1 recorded none."""
    source_kind: str | None = None
    """An extracted run: the reader's id (`pdf`, `docx`, ...)."""
    original: str | None = None
    """An extracted run: the file the text was extracted from."""
    original_sha256: str | None = None
    model: str
    config: dict[str, Any]
    """Every setting, flat, as the run resolved them."""
    thread_id: str
    store: str | None = None
    """The database of the checkpoints, store and call log, without its password (None: OUT)."""
    tool_version: str = __version__
    started_at: str | None = None
    finished_at: str | None = None
    wall_s: float = 0.0
    stats: dict[str, int | float] = Field(default_factory=dict)
    update: DocumentUpdate | None = None
    """An update started and not finished."""
    updates: list[DocumentUpdateEntry] = Field(default_factory=list)

    @property
    def log_key(self) -> str:
        """The name of its call log in a database (`RunDir.calls_target`): its thread's."""
        return self.thread_id

    @property
    def extracted(self) -> bool:
        """Whether the tree is built on an extraction of `original` (OUT/source.md)."""
        return self.original is not None

    def to_settings(self) -> ChunkerSettings:
        """The run's settings, as recorded."""
        return settings_of(self.config)

    def with_concurrency(self, limit: int) -> dict:
        """The changes that make the run keep up to `limit` calls in flight: a setting of how
        fast, not of what, so the tree stays the same."""
        return {"config": {**self.config, "max_concurrency": limit}}


class Unit(_Record):
    """A document of a corpus as its unit of work: which file, under which key (its thread
    and namespace in the store)."""

    model_config = ConfigDict(frozen=True)

    rel: str
    """Its path under the corpus's root (posix)."""
    key: str
    path: Path
    kind: str = "text"
    """Its reader's id."""
    sha256: str
    """sha256 of the file's bytes, as found."""
    size: int
    reuse: Literal["copy", "update"] | None = None
    """An update: `copy` (unchanged or only moved: its old tree is taken as it is), `update`
    (edited: its old tree is brought up to date), None (a new file)."""

    def thread_id(self, corpus_key: str) -> str:
        return f"{corpus_key}:{self.key}"


class SkippedEntry(_Record):
    rel: str
    reason: str


class CorpusUpdateEntry(_Record):
    """One finished update of a corpus."""

    at: str
    previous: str
    """The corpus key of the generation it replaced."""
    changes: dict[str, Any] | None = None


class CorpusRun(_Record):
    """run.json of a corpus, or of the generation an update builds (`CorpusUpdate.corpus`)."""

    kind: Literal["corpus"] = "corpus"
    status: Status = "running"
    root: str
    paths: list[str] = Field(default_factory=list)
    """The paths the corpus was given (walked again by an update)."""
    model: str
    config: dict[str, Any]
    settings: dict[str, Any] = Field(default_factory=dict)
    """The settings as given (not resolved): each document's own are made from them."""
    corpus_key: str
    toc: str | None = None
    """The table of contents the folders follow (its path under the root), if any."""
    toc_sha256: str | None = None
    include: list[str] = Field(default_factory=list)
    exclude: list[str] = Field(default_factory=list)
    documents: list[Unit] = Field(default_factory=list)
    skipped: list[SkippedEntry] = Field(default_factory=list)
    store: str | None = None
    tool_version: str = __version__
    started_at: str | None = None
    finished_at: str | None = None
    wall_s: float = 0.0
    stats: dict[str, int | float] = Field(default_factory=dict)
    update: CorpusUpdate | None = None
    """An update started and not finished."""
    updates: list[CorpusUpdateEntry] = Field(default_factory=list)
    # an update's generation: what changed since the tree it replaces
    stale: dict[str, list[str]] = Field(default_factory=dict)
    """What shaped the old tree and changed, with the reasons (`update.signature.stale`)."""
    deleted: int = 0
    """How many of the old tree's documents this generation no longer holds."""
    deleted_nodes: dict[str, int] = Field(default_factory=dict)
    changes: dict[str, Any] | None = None
    """The update's plan (`CorpusPlan.as_dict`)."""

    @property
    def log_key(self) -> str:
        """The name of its call log in a database (`RunDir.calls_target`): the corpus's."""
        return self.corpus_key

    def to_settings(self) -> ChunkerSettings:
        """The corpus's settings, from those given (each document's add its reader's:
        `document_settings`)."""
        from chunker.config.settings import ChunkerSettings

        return ChunkerSettings(model=self.model, **self.settings)

    def with_concurrency(self, limit: int) -> dict:
        return {"config": {**self.config, "max_concurrency": limit},
                "settings": {**self.settings, "max_concurrency": limit}}


class CorpusUpdate(_Record):
    """A corpus's update while it runs: the generation it builds, beside the tree it replaces."""

    status: Status = "running"
    previous: str
    """The corpus key of the tree being updated (its records are reused)."""
    corpus: CorpusRun
    updates: list[dict[str, Any]] = Field(default_factory=list)
    """hierarchy.json's record of the earlier updates (`UpdateRecord`s, validated with the
    tree; this one's is added when it is done)."""
    started_at: str | None = None


def _from_older(data: Any) -> Any:
    """A record of any earlier shape as today's (see the module's docstring)."""
    if not isinstance(data, dict):
        return data
    data = dict(data)
    data.setdefault("kind", "document")
    if data["kind"] == "document" and "thread_id" not in data:
        # `eval --keep-runs` wrote a tree made in memory with only its status, model, wall
        # time and stats (no source file, no thread)
        data = {"source": "", "thread_id": "", "config": {}, **data}
    if data["kind"] == "document":
        for old, new in ROUND_3_KEYS.items():
            if old in data:
                data.setdefault(new, data.pop(old))
        update = data.get("update")
        if isinstance(update, dict):
            extra = dict(update.get("extra") or {})
            for old, new in ROUND_3_KEYS.items():
                if old in extra:
                    extra.setdefault(new, extra.pop(old))
            data["update"] = {**update, "extra": extra, "config": _config(update.get("config"))}
    data["config"] = _config(data.get("config"))
    return data


def _config(config: Any) -> Any:
    if not isinstance(config, dict):
        return config
    return {ROUND_1_NAMES.get(k, k): v for k, v in config.items()
            if not (k in ROUND_1_NAMES and ROUND_1_NAMES[k] in config)}


RunRecord = Annotated[Union[DocumentRun, CorpusRun], Field(discriminator="kind"), BeforeValidator(_from_older)]
RECORD = TypeAdapter(RunRecord)
CorpusRun.model_rebuild()


def settings_of(config: dict[str, Any]) -> ChunkerSettings:
    """The settings a record's `config` holds (flat, as every version wrote them). A setting
    this version no longer has is dropped, as it always was; a legacy name still means what
    it meant."""
    from chunker.config.keys import FLAT_KEYS, LEGACY_KEYS, SECTION_NAMES
    from chunker.config.settings import ChunkerSettings

    known = {*FLAT_KEYS, *LEGACY_KEYS, *SECTION_NAMES}
    return ChunkerSettings(**{k: v for k, v in config.items() if k in known})


def parse(data: bytes | str) -> DocumentRun | CorpusRun:
    """A record from run.json's bytes (ValueError when they are not one)."""
    return RECORD.validate_json(data)


def dump(record: DocumentRun | CorpusRun) -> dict:
    """The record as run.json holds it: unset optional parts left out."""
    return record.model_dump(mode="json", exclude_none=True)

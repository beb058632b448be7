"""OUT/.chunker/run.json: the run's record, as pydantic models (read and written by `RunDir`).

A record is one of two kinds, told apart by `kind`:
- `DocumentRun`: one document, on one thread of the checkpointer (`chunker run FILE`);
- `CorpusRun`: a folder (or several paths), its documents each on their own thread
  (`chunker run FOLDER`); an update builds the next *generation* of a corpus, a `CorpusRun`
  of its own kept under `update.corpus` until it replaces the record.
While `chunker update` runs, the record keeps the finished tree's description at its top
level (the old tree stays valid) and the update's under `update` (`DocumentUpdate`,
`CorpusUpdate`); when the update is done, it becomes the record.

Every earlier shape still reads (`older_records.py`: no `kind` in rounds 1-3, round 1's setting
names, round 3's `pdf`/`pdf_sha256`; keys added later take their defaults here). A key this
version does not know is dropped. The settings stay as recorded (`config`, flat): a legacy
name in them is read by the settings (`config/keys.py`, `LEGACY_KEYS`).
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, TypeAdapter, model_validator

from chunker import __version__
from chunker.runs.older_records import from_older

if TYPE_CHECKING:  # the settings import the embeddings' settings: read when asked for
    from chunker.config.settings import ChunkerSettings

Status = Literal["running", "finished", "failed"]


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class _Record(BaseModel):
    # a key this version does not know is dropped; the docstrings are the reference's
    model_config = ConfigDict(extra="ignore", use_attribute_docstrings=True)


class DocumentUpdateEntry(_Record):
    """One finished update of a document run."""

    at: str
    """When it finished (UTC, ISO 8601)."""
    source_sha256: str
    """sha256 of the text it brought the tree to."""
    mode: str
    """`patch` (the tree's shape patched above the changes) or `fresh` (rebuilt)."""
    wall_s: float = 0.0
    """Its seconds of work."""


class DocumentUpdate(_Record):
    """A document's update while it runs: its own thread, and what the tree becomes."""

    status: Status = "running"
    thread_id: str
    """Its own thread of the checkpointer."""
    source: str
    """The text it reads (for an extracted format, the new OUT/source.md)."""
    source_sha256: str
    model: str
    config: dict[str, Any]
    """The settings it brings the tree to, flat."""
    mode: str
    """`patch` or `fresh`, as planned."""
    reuse_key: str | None = None
    """The store key of the old tree's reuse index (None: nothing to reuse)."""
    started_at: str | None = None
    """When it started (UTC, ISO 8601)."""
    extra: dict[str, str] = Field(default_factory=dict)
    """What the record takes besides once the update is done (an extraction's original)."""


class _Run(_Record):
    """What every run's record holds."""

    status: Status = "running"
    """`running` until the tree is written (hierarchy.json last), then `finished`; `failed`: a
    corpus whose every document failed on the workers (no tree)."""
    model: str
    """The model the tree was made with (`config` holds it too)."""
    config: dict[str, Any]
    """Every setting, flat, as the run resolved them."""
    store: str | None = None
    """The database of the checkpoints, store and call log, without its password (None: OUT)."""
    tool_version: str = __version__
    started_at: str | None = None
    """When the run started (UTC, ISO 8601)."""
    finished_at: str | None = None
    wall_s: float = 0.0
    """Seconds of work, over every process that worked on it (resumes and updates added)."""
    stats: dict[str, int | float] = Field(default_factory=dict)
    """The run's counters (as hierarchy.json's `meta.stats`), once finished."""


class DocumentRun(_Run):
    """run.json of one document."""

    kind: Literal["document"] = "document"
    """One document (a record without `kind` is one: rounds 1-3 wrote none)."""
    source: str
    """The text the graph reads: the document, or for an extracted format OUT/source.md."""
    source_sha256: str | None = None
    """sha256 of `source`'s text (a resume refuses another text); round 1 recorded none."""
    source_kind: str | None = None
    """An extracted run: the reader's id (`pdf`, `docx`, ...)."""
    original: str | None = None
    """An extracted run: the file the text was extracted from."""
    original_sha256: str | None = None
    """sha256 of the original file's bytes (a resume with `--source` checks it)."""
    thread_id: str
    """The checkpointer's thread of the run (an update's, once it is done)."""
    update: DocumentUpdate | None = None
    """An update started and not finished."""
    updates: list[DocumentUpdateEntry] = Field(default_factory=list)
    """The finished updates, in order."""

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
    """`D` and hex digits of `rel`'s hash: its thread (`corpus_key:key`) and its nodes' id prefix."""
    path: Path
    """Where it was found."""
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
    """A file the corpus goes on without."""

    rel: str
    reason: str
    """Why, as one line (`unreadable: ...`, `changed: ...`, `failed: ...`)."""


class CorpusUpdateEntry(_Record):
    """One finished update of a corpus."""

    at: str
    """When it finished (UTC, ISO 8601)."""
    previous: str
    """The corpus key of the generation it replaced."""
    changes: dict[str, Any] | None = None
    """What it found changed (`CorpusRun.changes`)."""


class CorpusRun(_Run):
    """run.json of a corpus, or of the generation an update builds (`CorpusUpdate.corpus`)."""

    kind: Literal["corpus"] = "corpus"
    root: str
    """The folder the documents' paths are relative to."""
    paths: list[str] = Field(default_factory=list)
    """The paths the corpus was given (walked again by an update)."""
    settings: dict[str, Any] = Field(default_factory=dict)
    """The settings as given (not resolved): each document's own are made from them."""
    corpus_key: str
    """This generation's key: its namespace in the store, its threads' prefix, its call log's name."""
    toc: str | None = None
    """The table of contents the folders follow (its path under the root), if any."""
    toc_sha256: str | None = None
    """sha256 of the table of contents, as found (an update re-plans when it changes)."""
    include: list[str] = Field(default_factory=list)
    """`--include` globs."""
    exclude: list[str] = Field(default_factory=list)
    """`--exclude` globs."""
    documents: list[Unit] = Field(default_factory=list)
    """The documents found, in reading order, each under its key."""
    skipped: list[SkippedEntry] = Field(default_factory=list)
    """The files left out: by discovery, then documents that could not be read as found."""
    update: CorpusUpdate | None = None
    """An update started and not finished."""
    updates: list[CorpusUpdateEntry] = Field(default_factory=list)
    """The finished updates, in order."""
    # an update's generation: what changed since the tree it replaces
    stale: dict[str, list[str]] = Field(default_factory=dict)
    """What shaped the old tree and changed, with the reasons (`update.signature.stale`)."""
    deleted: int = 0
    """How many of the old tree's documents this generation no longer holds."""
    deleted_nodes: dict[str, int] = Field(default_factory=dict)
    """The leaves and blocks of the documents this generation no longer holds."""
    changes: dict[str, Any] | None = None
    """The update's plan (`CorpusPlan.as_dict`)."""

    @property
    def log_key(self) -> str:
        """The name of its call log in a database (`RunDir.calls_target`): the corpus's."""
        return self.corpus_key

    @model_validator(mode="after")
    def _read_as_recorded(self) -> "CorpusRun":
        """A corpus whose `config` names no `reading` was read in one cursor (a version before
        regions): its documents go on so, resumed or updated (`as_recorded`)."""
        if self.config and "reading" not in self.config and "reading" not in self.settings:
            self.settings = {**self.settings, "reading": "one_cursor"}
        return self

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
    """The generation it builds."""
    updates: list[dict[str, Any]] = Field(default_factory=list)
    """hierarchy.json's record of the earlier updates (`UpdateRecord`s, validated with the
    tree; this one's is added when it is done)."""
    started_at: str | None = None
    """When it started (UTC, ISO 8601)."""


RunRecord = Annotated[Union[DocumentRun, CorpusRun], Field(discriminator="kind"), BeforeValidator(from_older)]
RECORD = TypeAdapter(RunRecord)
CorpusRun.model_rebuild()


def settings_of(config: dict[str, Any]) -> ChunkerSettings:
    """The settings a record's `config` holds (flat, as every version wrote them). A setting
    this version no longer has is dropped, as it always was; a legacy name still means what
    it meant."""
    from chunker.config.keys import FLAT_KEYS, LEGACY_KEYS, SECTION_NAMES
    from chunker.config.settings import ChunkerSettings

    from chunker.config.settings import as_recorded

    known = {*FLAT_KEYS, *LEGACY_KEYS, *SECTION_NAMES}
    # a setting it did not have yet means what that version did: no `reading`, one cursor
    return ChunkerSettings(**{k: v for k, v in as_recorded(config).items() if k in known})


def parse(data: bytes | str) -> DocumentRun | CorpusRun:
    """A record from run.json's bytes (ValueError when they are not one)."""
    return RECORD.validate_json(data)


def json_schema() -> dict:
    """run.json's JSON Schema (the reference page's, generated)."""
    return RECORD.json_schema()


def dump(record: DocumentRun | CorpusRun) -> dict:
    """The record as run.json holds it: unset optional parts left out."""
    return record.model_dump(mode="json", exclude_none=True)

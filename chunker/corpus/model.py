"""Plain records of a corpus: its files, the files it skipped, and the planned upper tree."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

FileKind = str
"""The id of the reader that reads the file (`text`, `pdf`, ...: `chunker/readers/registry.py`)."""


@dataclass(frozen=True)
class SourceFile:
    """A document of the corpus, as found by `discover`."""

    rel: str
    """Its path relative to the corpus root, POSIX separators ('tutorial/first-steps.md')."""
    path: Path
    """Its absolute path (symlinks resolved only for loop detection, not here)."""
    kind: FileKind
    """By content: the id of the first reader whose `sniff` claims the file."""
    size: int
    """Bytes when discovered."""
    sha256: str
    """Of the raw bytes when discovered: a file that changes later is noticed."""


@dataclass(frozen=True)
class Skipped:
    """A path the corpus leaves out, and why (one line, for the stats table and --json)."""

    rel: str
    reason: str
    """A short stable code first, then detail: 'binary: contains NUL bytes', 'empty',
    'invalid-utf8: byte 17', 'unreadable: Permission denied', 'encrypted-pdf', 'symlink-loop',
    'vanished', 'changed', 'too-large: ... bytes', 'needs-extra:pdf', 'broken-zip', or the
    `ReaderError.reason` of the file's reader ('broken-docx: ...')."""

    @property
    def code(self) -> str:
        return self.reason.split(":", 1)[0]


@dataclass
class Discovery:
    """What a walk over the given paths found, in a stable order (sorted by `rel`)."""

    root: Path
    """The corpus root: the folder given, or the deepest common folder of several paths."""
    files: list[SourceFile] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)


@dataclass(frozen=True)
class DocInfo:
    """What a document says about itself (`signals.doc_info`)."""

    rel: str
    title: str
    """Front matter `title`, else the first heading, else the file name made readable."""
    title_source: Literal["front_matter", "heading", "file_name"]
    tags: tuple[str, ...] = ()
    category: str | None = None
    """Front matter `topic` or `category` (the first present), as written."""


@dataclass
class PlanNode:
    """One node above the documents: a folder, a table-of-contents section, a category or a
    file-name group. Children are PlanNodes or document `rel`s, in reading order."""

    key: str
    """Stable and unique in the plan: 'dir:tutorial/security', 'toc:2.3', 'cat:guides@tutorial',
    'prefix:2023-01@notes', '' for the root."""
    title: str
    signal: Literal["root", "folder", "toc", "category", "file_name", "llm"]
    children: list["PlanNode | str"] = field(default_factory=list)

    def documents(self) -> list[str]:
        """Every document rel under this node, in order."""
        out: list[str] = []
        for child in self.children:
            out.extend(child.documents() if isinstance(child, PlanNode) else [child])
        return out

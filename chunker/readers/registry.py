"""Which reader reads a file: the built-in formats, in sniff order, then plugins.

Built-ins are `"module:attribute"` strings, imported the first time a file is sniffed (so
`chunker --help` imports none of them); the attribute is a `Reader` subclass (built once, with
no arguments) or a ready instance. Plugins are the entry points of the group `chunker.readers`
(see `chunker/readers/base.py`), sniffed after every built-in but plain text, in name order. A
new built-in format is one module and one line in `BUILTINS`.
"""

from __future__ import annotations

import importlib
import threading
from importlib.metadata import entry_points
from pathlib import Path

from chunker.readers.base import HEAD_BYTES, Reader
from chunker.readers.model import ReaderError
from chunker.readers.sniffing import is_zip

GROUP = "chunker.readers"

BUILTINS: dict[str, str] = {
    # Sniff order: the first reader whose `sniff` says yes reads the file. One line a format.
    "pdf": "chunker.readers.pdf:PdfReader",
    "epub": "chunker.readers.epub:EpubReader",
    "odt": "chunker.readers.odt:OdtReader",
    "docx": "chunker.readers.docx:DocxReader",
    "pptx": "chunker.readers.pptx:PptxReader",
    "html": "chunker.readers.html:HtmlReader",
    "image": "chunker.readers.image:ImageReader",
    "markdown": "chunker.readers.text:MarkdownReader",
}
FALLBACK = ("text", "chunker.readers.text:TextReader")
"""Plain text: what no other reader claims (its `read` refuses binary files), sniffed last,
after the plugins."""


class ReaderRegistry:
    """The readers of this process, built on first use (entry points listed once; `rediscover`)."""

    def __init__(self, builtins: dict[str, str] | None = None,
                 fallback: tuple[str, str] = FALLBACK, group: str = GROUP) -> None:
        self._specs = dict(BUILTINS if builtins is None else builtins)
        self._fallback = fallback
        self._group = group
        self._built: dict[str, Reader] = {}
        self._plugins: dict[str, object] | None = None
        self._lock = threading.Lock()

    def ids(self) -> list[str]:
        """Every reader's id, in sniff order."""
        return [*self._specs, *self._plugin_points(), self._fallback[0]]

    def get(self, reader_id: str) -> Reader:
        """The reader with this id (a run.json names it); KeyError when none has it."""
        with self._lock:
            if reader_id not in self._built:
                self._built[reader_id] = self._build(reader_id)
            return self._built[reader_id]

    def readers(self) -> list[Reader]:
        return [self.get(i) for i in self.ids()]

    def sniff(self, path: str | Path, head: bytes | None = None) -> Reader:
        """The reader of the file at `path` (its first bytes in `head`, read when not given).
        ReaderError when it is a zip that no reader claims (a truncated or unknown container:
        never plain text); OSError when it cannot be read."""
        p = Path(path)
        if head is None:
            with open(p, "rb") as f:
                head = f.read(HEAD_BYTES)
        *claimants, fallback = self.readers()
        for reader in claimants:
            if reader.sniff(head, p):
                return reader
        if is_zip(head):  # a container none of its formats claims: truncated, or unknown
            raise ReaderError(f"{p} is a damaged zip archive, or a container of no format chunker reads",
                              reason="broken-zip")
        return fallback

    def rediscover(self) -> None:
        """Forget the listed entry points and the plugins built from them (tests install one)."""
        with self._lock:
            for name in self._plugins or {}:
                self._built.pop(name, None)
            self._plugins = None

    def _plugin_points(self) -> dict[str, object]:
        if self._plugins is None:
            found = {ep.name: ep for ep in entry_points(group=self._group)}
            builtin = {*self._specs, self._fallback[0]}
            self._plugins = {name: found[name] for name in sorted(found) if name not in builtin}
        return self._plugins

    def _build(self, reader_id: str) -> Reader:
        if reader_id in self._specs or reader_id == self._fallback[0]:
            spec = self._specs.get(reader_id) or self._fallback[1]
            module, _, attribute = spec.partition(":")
            target = getattr(importlib.import_module(module), attribute)
        elif reader_id in self._plugin_points():
            target = self._plugin_points()[reader_id].load()
        else:
            raise KeyError(f"no reader {reader_id!r} (known: {', '.join(self.ids())})")
        reader = target() if isinstance(target, type) else target
        if not getattr(reader, "id", None):
            raise TypeError(f"reader {reader_id!r} ({target!r}) has no id")
        return reader


READERS = ReaderRegistry()
"""The process's readers (what runs, corpora and updates ask)."""


def sniff(path: str | Path, head: bytes | None = None) -> Reader:
    return READERS.sniff(path, head)


def reader(reader_id: str) -> Reader:
    return READERS.get(reader_id)

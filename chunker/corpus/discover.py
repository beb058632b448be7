"""Finding a corpus's documents: walk the given paths, leave out what the user asked to leave
out, and sniff every remaining file by its bytes (read once) into a `SourceFile` or a `Skipped`.

Two kinds of leaving out, on purpose: what the user excluded (hidden names, the output folder,
`.chunkerignore`, --include/--exclude) is silent, because it was asked for; a file that was
meant to be read but cannot be (binary, empty, encrypted, unreadable, a symlink loop, a format whose extra
is not installed) is a `Skipped` with a reason, because the user should hear about it.

Which format a file is, the registry of readers says (`chunker/readers/registry.py`): the
first reader whose `sniff` claims its bytes, then that reader's `available()` (its extra
installed) and its cheap `check` (a password, a truncated container).
"""

from __future__ import annotations

import codecs
import errno
import hashlib
import os
import stat
from collections.abc import Sequence
from pathlib import Path

import pathspec

from chunker.corpus.model import Discovery, SourceFile, Skipped
from chunker.document.loader import DEFAULT_MAX_BYTES
from chunker.readers.base import HEAD_BYTES, ReadSettings
from chunker.readers.model import ExtraMissing, ReaderError
from chunker.readers.registry import READERS, ReaderRegistry

IGNORE_FILE = ".chunkerignore"
# O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


class CorpusError(ValueError):
    """The paths or options given cannot make a corpus; the message is one line for the user."""


def discover(paths: Sequence[Path], *, out_dir: Path | None, include: Sequence[str] = (),
             exclude: Sequence[str] = (), encoding: str = "utf-8", max_bytes: int = DEFAULT_MAX_BYTES,
             readers: ReaderRegistry | None = None) -> Discovery:
    """Every file under `paths` that the corpus keeps, and every one it skips with a reason,
    both sorted by `rel`. A file given explicitly is always sniffed, whatever its name.
    `readers`: the registry that tells formats apart (the process's by default)."""
    given = _given(paths)
    root = corpus_root(given)
    _check_encoding(encoding)
    walk = _Walk(root, out_dir, include, exclude)
    for path in given:
        if path.is_dir():
            walk.folder(path)
        else:
            walk.add(_rel_of(path, root), path, via_link=os.path.realpath(path) != str(path))
    files: list[SourceFile] = []
    skipped = list(walk.skipped.values())
    for _, rel, path in sorted(walk.found.values(), key=lambda found: found[1]):
        got = check_file(path, rel, encoding=encoding, max_bytes=max_bytes, readers=readers)
        if isinstance(got, SourceFile):
            files.append(got)
        else:
            skipped.append(got)
    skipped.sort(key=lambda s: s.rel)
    return Discovery(root=root, files=files, skipped=skipped)


def corpus_root(paths: Sequence[Path]) -> Path:
    """The folder given, or the deepest folder holding all the paths (a lone file's parent)."""
    given = _given(paths)
    common = Path(os.path.commonpath(given))
    return common if common.is_dir() else common.parent


def check_file(path: Path, rel: str, *, encoding: str = "utf-8", max_bytes: int = DEFAULT_MAX_BYTES,
               readers: ReaderRegistry | None = None) -> SourceFile | Skipped:
    """Read the file once and tell by its bytes (never its name) which reader reads it, or
    why it is skipped; `sha256` and `size` are of exactly those bytes."""
    _check_encoding(encoding)
    try:
        data = _read_once(path, max_bytes)
    except FileNotFoundError:
        return Skipped(rel, "vanished: broken symlink" if os.path.islink(path) else "vanished")
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return Skipped(rel, "symlink-loop: the link never reaches a file")
        return Skipped(rel, f"unreadable: {exc.strerror or exc}")
    if isinstance(data, str):
        return Skipped(rel, data)
    try:
        reader = (readers or READERS).sniff(path, data[:HEAD_BYTES])
        missing = reader.available()
        if missing is not None:
            return Skipped(rel, ExtraMissing(missing, reader.extra or reader.id).skip)
        reader.check(data, Path(path), ReadSettings(encoding=encoding, max_bytes=max_bytes))
    except ReaderError as exc:
        return Skipped(rel, exc.skip)
    return SourceFile(rel=rel, path=Path(os.path.abspath(path)), kind=reader.id, size=len(data),
                      sha256=hashlib.sha256(data).hexdigest())


def _given(paths: Sequence[Path]) -> list[Path]:
    if not paths:
        raise CorpusError("no files or folders given")
    given = [Path(os.path.abspath(p)) for p in paths]
    for original, path in zip(paths, given):
        if not path.exists():  # follows links: a dangling link given is missing too
            raise CorpusError(f"no such file or folder: {original}")
    return given


def _check_encoding(encoding: str) -> None:
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise CorpusError(f"unknown encoding {encoding!r}") from None


def _read_once(path: Path, max_bytes: int) -> bytes | str:
    """The file's bytes, or a skip reason when it is no regular file or is over the limit
    (then it is not read at all). OSError (vanished, permission, a socket) goes to the caller."""
    with os.fdopen(os.open(path, _OPEN_FLAGS), "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):  # a FIFO or a device would never end, or block
            return "unreadable: not a regular file"
        if st.st_size > max_bytes:
            return f"too-large: {st.st_size} bytes, over --max-bytes {max_bytes}"
        data = f.read(max_bytes + 1)  # +1: a file that grew since fstat is still caught
    if len(data) > max_bytes:
        return f"too-large: over {max_bytes} bytes (--max-bytes)"
    return data


class _Walk:
    """The walk over given folders: the silent filters, loop detection, and the files found,
    one per real file (a file reached twice, through a link or two given paths, counts once)."""

    def __init__(self, root: Path, out_dir: Path | None, include: Sequence[str], exclude: Sequence[str]):
        self.root = root
        self.out_real = os.path.realpath(out_dir) if out_dir is not None else None
        self.include = pathspec.GitIgnoreSpec.from_lines(include) if include else None
        self.exclude = pathspec.GitIgnoreSpec.from_lines(exclude) if exclude else None
        self.found: dict[tuple[int, int], tuple[bool, str, Path]] = {}
        """(st_dev, st_ino) -> (reached through a link, rel, path); the least of them wins."""
        self.skipped: dict[str, Skipped] = {}

    def add(self, rel: str, path: Path, *, via_link: bool) -> None:
        """A file to sniff later, once per real file: the place not reached through a link is
        kept (it is where the file lives), then the least rel, so the choice does not depend
        on the walk's order."""
        try:
            st = path.stat()
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                self.skipped[rel] = Skipped(rel, "symlink-loop: the link never reaches a file")
            elif isinstance(exc, FileNotFoundError):
                self.skipped[rel] = Skipped(rel, "vanished: broken symlink" if path.is_symlink() else "vanished")
            else:
                self.skipped[rel] = Skipped(rel, f"unreadable: {exc.strerror or exc}")
            return
        key, candidate = (st.st_dev, st.st_ino), (via_link, rel, path)
        if key not in self.found or candidate[:2] < self.found[key][:2]:
            self.found[key] = candidate

    def folder(self, start: Path) -> None:
        """Walk one given folder (iteratively: deep trees do not hit the recursion limit)."""
        start_real = os.path.realpath(start)
        # OUT holding the given folder (`--out .` above the sources) leaves the sources in.
        out = self.out_real if self.out_real is not None and not _within(start_real, self.out_real) else None
        start_rel = _rel_of(start, self.root)
        stack = [(str(start), start_rel, start_real, frozenset({start_real}), self._layers_above(start),
                  start_real != str(start))]
        while stack:
            dir_path, dir_rel, dir_real, ancestors, layers, via_link = stack.pop()
            try:
                entries = list(os.scandir(dir_path))
            except OSError as exc:
                self.skipped[dir_rel or "."] = Skipped(
                    dir_rel or ".", "vanished" if isinstance(exc, FileNotFoundError)
                    else f"unreadable: {exc.strerror or exc}")
                continue
            if any(entry.name == IGNORE_FILE for entry in entries):
                layers = layers + (_read_layer(Path(dir_path), dir_rel),)
            for entry in entries:
                if entry.name.startswith("."):
                    continue
                rel = f"{dir_rel}/{entry.name}" if dir_rel else entry.name
                link = entry.is_symlink()
                try:
                    is_dir = entry.is_dir()
                except OSError:  # a link loop among files: `add` reports it
                    is_dir = False
                real = os.path.realpath(entry.path) if link else os.path.join(dir_real, entry.name)
                if (out is not None and _within(real, out)) or _ignored(layers, rel, is_dir):
                    continue
                if not is_dir:
                    if self._wanted(rel):
                        self.add(rel, Path(entry.path), via_link=via_link or link)
                elif real in ancestors:
                    self.skipped[rel] = Skipped(rel, "symlink-loop: it links back to a folder that holds it")
                else:
                    stack.append((entry.path, rel, real, ancestors | {real}, layers, via_link or link))

    def _wanted(self, rel: str) -> bool:
        if self.include is not None and not self.include.match_file(rel):
            return False
        return self.exclude is None or not self.exclude.match_file(rel)

    def _layers_above(self, start: Path) -> tuple[tuple[str, pathspec.GitIgnoreSpec], ...]:
        """The ignore files of the folders from the corpus root down to (not including) a given
        folder: like git, their patterns reach into it."""
        layers = []
        parts = start.relative_to(self.root).parts  # () for the root itself
        for depth in range(len(parts)):
            folder = self.root.joinpath(*parts[:depth])
            if (folder / IGNORE_FILE).is_file():
                layers.append(_read_layer(folder, "/".join(parts[:depth])))
        return tuple(layers)


def _read_layer(folder: Path, rel: str) -> tuple[str, pathspec.GitIgnoreSpec]:
    """A folder's ignore patterns with the prefix that makes a corpus rel relative to it."""
    path = folder / IGNORE_FILE
    try:
        # surrogateescape: patterns are matched against names decoded the same way.
        lines = path.read_text(encoding="utf-8-sig", errors="surrogateescape").splitlines()
    except OSError as exc:
        # Going on without it would take in files the user meant to keep out.
        raise CorpusError(f"cannot read {path}: {exc.strerror or exc}") from None
    return (f"{rel}/" if rel else "", pathspec.GitIgnoreSpec.from_lines(lines))


def _ignored(layers: tuple[tuple[str, pathspec.GitIgnoreSpec], ...], rel: str, is_dir: bool) -> bool:
    """Git's rule: the deepest ignore file with a matching pattern decides (its last match, so
    `!keep.md` re-includes); a folder is matched with a trailing slash so `drafts/` works."""
    path = f"{rel}/" if is_dir else rel
    for prefix, spec in reversed(layers):
        verdict = spec.check_file(path[len(prefix):]).include
        if verdict is not None:
            return verdict
    return False


def _rel_of(path: Path, root: Path) -> str:
    rel = path.relative_to(root).as_posix()
    return "" if rel == "." else rel


def _within(real: str, folder: str) -> bool:
    return real == folder or real.startswith(folder.rstrip(os.sep) + os.sep)

"""The run directory OUT: what it holds, whether a run there is finished, and its lock.

    OUT/index.md, OUT/content/, OUT/hierarchy.json   the tree (hierarchy.json last)
    OUT/.chunker/run.json                            the run's record (runs/record.py)
    OUT/.chunker/checkpoints.sqlite                  LangGraph checkpoints (resume)
    OUT/.chunker/store.sqlite                        chunk and block payloads
    OUT/.chunker/calls.sqlite                        every LLM call (inspect --calls)
    OUT/.chunker/lock                                held while a process works on OUT

With `--store postgresql://...` the checkpoints, the store and the call log live in that
database instead (run.json names it, without its password, as `store`); OUT keeps run.json,
the lock and the tree.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from chunker.output import manifest

if TYPE_CHECKING:  # the records import pydantic: `chunker --help` must start at once
    from chunker.runs.record import CorpusRun, DocumentRun

class RunDirError(RuntimeError):
    """OUT cannot be used as asked; the message is one line for the user."""


class RunDir:
    def __init__(self, path: str | Path, store_url: str | None = None):
        self.path = Path(path).resolve()
        self.meta_dir = self.path / ".chunker"
        self.meta_file = self.meta_dir / "run.json"
        self.store_url = store_url
        """The database that holds the run's checkpoints, store and call log; None: SQLite in OUT."""
        self._lock_fd: int | None = None

    def calls_target(self, name: str) -> str:
        """Where the run's LLM calls are logged: OUT's calls.sqlite, or the database's log
        `name` (one per run: many runs share a database)."""
        if self.store_url is None:
            return str(self.path)
        from chunker.llm.calllog import call_log_target

        return call_log_target(self.store_url, name)

    def check_store(self, record: DocumentRun | CorpusRun) -> None:
        """A run continues where its checkpoints are: the database it started on (passed
        again, since run.json never holds a password), or OUT's SQLite."""
        from chunker.persistence.store_url import redact

        recorded = record.store
        if recorded and self.store_url is None:
            raise RunDirError(f"{self.path} keeps its checkpoints in {recorded}: pass --store URL")
        if self.store_url is not None and not recorded:
            raise RunDirError(f"{self.path} keeps its checkpoints in {self.meta_dir}, not in a "
                              "database: leave out --store")
        if recorded and redact(self.store_url) != recorded:
            raise RunDirError(f"{self.path} was started on the store {recorded}, not "
                              f"{redact(self.store_url)}")

    # -- what is there ------------------------------------------------------------
    def status(self) -> str:
        """absent | empty | foreign | unfinished | finished"""
        if not self.path.exists():
            return "absent"
        if not self.path.is_dir():
            return "foreign"
        if not self.meta_file.exists():
            return "empty" if not any(self.path.iterdir()) else "foreign"
        if self.read_record().status == "finished" and (self.path / "hierarchy.json").exists():
            return "finished"
        return "unfinished"

    # -- the run's record (run.json): read and written here only -----------------------
    def read_record(self) -> DocumentRun | CorpusRun:
        """run.json as today's record, whatever version wrote it (`record._from_older`)."""
        from chunker.runs import record as records

        try:
            return records.parse(self.meta_file.read_bytes())
        except (OSError, ValueError) as exc:
            raise RunDirError(f"{self.meta_file} is unreadable: {' '.join(str(exc).split())[:300]}") from None

    def write_record(self, record: DocumentRun | CorpusRun) -> None:
        from chunker.runs import record as records

        self.meta_dir.mkdir(parents=True, exist_ok=True)
        tmp = self.meta_file.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(records.dump(record), indent=1, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp, self.meta_file)

    def update_record(self, **changes) -> DocumentRun | CorpusRun:
        """run.json with `changes` (fields of its record, validated), written; returns it."""
        record = changed(self.read_record(), **changes)
        self.write_record(record)
        return record

    @property
    def checkpoints(self) -> Path:
        return self.meta_dir / "checkpoints.sqlite"

    @property
    def store(self) -> Path:
        return self.meta_dir / "store.sqlite"

    # -- preparing a new run ------------------------------------------------------
    def prepare_new(self, force: bool, also: tuple[str, ...] = ()) -> None:
        """Make OUT ready for a new run. With `force`, chunker's own files (listed in the
        manifest and unchanged) are removed; any other file where the tree goes
        (`index.md`, `hierarchy.json`, an edited tree file, or one of `also`: the files the
        run writes beside the tree) stops the run, naming it."""
        status = self.status()
        if status == "foreign" and self.path.exists() and not self.path.is_dir():
            raise RunDirError(f"{self.path} exists and is not a directory")
        if status in ("unfinished", "finished", "foreign") and not force:
            hint = {
                "unfinished": "holds an unfinished run: continue it with `chunker resume "
                              f"{self.path}`, or pass --force to start over",
                "finished": "holds a finished run: pass --force to replace it",
                "foreign": "is not empty and was not created by chunker: pass --force to "
                           "write into it anyway (files chunker did not write are never touched)",
            }[status]
            raise RunDirError(f"{self.path} {hint}")
        if status in ("unfinished", "finished", "foreign"):
            self.acquire_lock()  # never clear a directory another process is working in
            files = manifest.read(self.path)
            targets = ("index.md", "hierarchy.json", *also)
            in_the_way = [rel for rel in (*targets, *sorted(files))
                          if manifest.in_the_way(self.path, rel, files)
                          and (rel in files or rel in targets)]
            if in_the_way:
                raise RunDirError(f"{self.path / in_the_way[0]} is in the way: chunker did not "
                                  "write it (or it was edited since); move it away and run again")
            for rel in sorted(files):
                if manifest.owned_unchanged(self.path, rel, files):
                    (self.path / rel).unlink()
            _prune_empty(self.path / "content")
            # a `.chunker/` without run.json ("foreign") may hold anything: only a known
            # run's own metadata is cleared
            if status != "foreign" and self.meta_dir.exists():
                for child in self.meta_dir.iterdir():
                    if child.name != "lock":  # manifest.json goes too: its files are gone
                        _remove(child)
        self.path.mkdir(parents=True, exist_ok=True)

    # -- one process at a time ----------------------------------------------------
    def acquire_lock(self) -> None:
        if self._lock_fd is not None:
            return
        self.meta_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.meta_dir / "lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise RunDirError(f"another chunker process is working on {self.path}; "
                              "wait for it to finish (or stop it) and try again") from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._lock_fd = fd

    def release_lock(self) -> None:
        if self._lock_fd is not None:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)
            self._lock_fd = None


def changed(record: DocumentRun | CorpusRun, **changes) -> DocumentRun | CorpusRun:
    """A validated copy of `record` with `changes` (values or records) applied."""
    return type(record).model_validate({**dict(record), **changes})


def _prune_empty(root: Path) -> None:
    """Remove folders left empty under `root` (chunker's level folders), deepest first."""
    if not root.is_dir() or root.is_symlink():
        return
    for dirpath, _, _ in sorted(os.walk(root), key=lambda w: -len(w[0])):
        path = Path(dirpath)
        if not any(path.iterdir()):
            path.rmdir()


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()

"""Work that holds the GIL for long, spread over processes: a long text's sentence
segmentation (`units.py`, pysbd: pure Python).

It runs before the first LLM call, on the one thread that has the text: threads would take
turns on the GIL, so only processes use a second core. (A PDF's layout model is not spread:
ONNX Runtime already uses every core for each page; 2 worker processes on 2 cores read the
four-lectures PDF in 23.5 s against 21.6 s in one.) Workers are spawned, never forked (a run
already holds threads: LangGraph's pool, SQLite connections), and get plain picklable jobs; results come back in job order, so
what the caller builds from them is what it would build serially, byte for byte.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import sys
import types
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

J = TypeVar("J")
R = TypeVar("R")
log = logging.getLogger("chunker")


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def idle_workers() -> int:
    """How many processes the work may take: this one's core and those idle now (the last
    minute's load average, this process counted in it). A worker on a busy core only takes
    turns with the work already there, and pays for its start (measured on 2 cores: Emma's
    sentences in 2 workers took 2.7 s against 3.8 s in one at load 1.8, but 7.6 s against 6.8 s
    at load 7.6)."""
    try:
        free = cores() - os.getloadavg()[0] + 1
    except OSError:  # no load average (Windows)
        return cores()
    return max(1, min(cores(), int(free)))


def map_in_processes(fn: Callable[[J], R], jobs: Sequence[J], workers: int | None = None) -> list[R]:
    """`[fn(job) for job in jobs]`, in up to `workers` spawned processes (default: the idle
    cores', `idle_workers`); serial with one worker or one job. `fn` must be a module-level function. A pool
    that cannot start (no semaphores in a sandbox) or breaks falls back to serial: the result
    is the same, only slower."""
    workers = min(len(jobs), workers or idle_workers())
    if workers <= 1:
        return [fn(job) for job in jobs]
    try:
        with _main_hidden(), ProcessPoolExecutor(max_workers=workers,
                                                 mp_context=multiprocessing.get_context("spawn")) as pool:
            return list(pool.map(fn, jobs))
    except (OSError, BrokenProcessPool) as exc:
        log.warning("process pool unavailable (%s); working serially", exc)
        return [fn(job) for job in jobs]


@contextmanager
def _main_hidden() -> Iterator[None]:
    """While the workers start, `__main__` is an empty module: a spawned worker imports the
    parent's main script first, which re-runs a script without a `__main__` guard (a user's
    own, calling the library); the workers need only `fn`'s module, which pickle imports."""
    main = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = main

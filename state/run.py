"""One run's per-process state: derived values computed once per run, safe across threads.

A run's payloads live in the LangGraph store; what is *derived* from them (the document's
sentence units, the embedding depths and peaks, the parsed Markdown structure) is costly to
rebuild at every step, so each run keeps it in its own `RunMemo`. Nothing here is a module
global: the memos hang off a `RunRegistry`, and each graph invocation has its own registry
(it lives in the invocation's context object: LangGraph builds one context per invocation
from a dict, and the CLI builds one settings object per run). Several runs in one process
(threads under `langgraph dev`, a parent agent running the subgraph twice, a corpus of
documents) therefore never evict or see each other's values, and one run's nodes running on
several threads compute each value once (a lock per key).

A memo holds only what can be rebuilt from the store: a resume in a fresh process, or with a
fresh registry, recomputes it lazily and gets the same values.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore

from chunker.state.slots import CallSlots

T = TypeVar("T")


class RunMemo:
    """Values derived from one run's stored payloads, each computed at most once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: dict[Hashable, Any] = {}
        self._key_locks: dict[Hashable, threading.Lock] = {}
        self.computed: Counter = Counter()
        """How many times each key was computed (1 unless a value was dropped): what the
        concurrency test reads to prove the depths are computed once per run."""

    def get(self, key: Hashable, compute: Callable[[], T]) -> T:
        with self._lock:
            if key in self._values:
                return self._values[key]
            key_lock = self._key_locks.setdefault(key, threading.Lock())
        with key_lock:  # other keys stay free while this one is computed
            with self._lock:
                if key in self._values:
                    return self._values[key]
            value = compute()
            with self._lock:
                self._values[key] = value
                self.computed[key] += 1
            return value

    def put(self, key: Hashable, value: Any) -> None:
        """Seed a value that was just computed elsewhere (e.g. the structure at load time)."""
        with self._lock:
            self._values[key] = value


class RunRegistry:
    """The memos of the runs of one invocation (usually one run), the store a graph
    compiled without one falls back to, and where the invocation writes its files."""

    def __init__(self, out_dir: str | None = None) -> None:
        self._lock = threading.Lock()
        self._memos: dict[str, RunMemo] = {}
        self._fallback_store: BaseStore | None = None
        self.out_dir = out_dir
        """The run's folder (the tree, the call log, a PDF's page map), set by whoever
        invokes the graph on one (`chunker.runs.runner.execute`). None when served or
        embedded: nothing is written, and the tree is returned in the graph's output.
        Where a run happens is no setting: it stays out of the settings and their hash."""
        self.calls_dir: str | None = None
        """Whose call log gets the calls, when not `out_dir`'s: a corpus's documents each
        have a folder of their own (a PDF's extracted text) but share the corpus's log."""
        self.writes_tree = True
        """Whether write_outputs writes the tree into `out_dir`. A corpus's document does
        not: its tree is returned, and the corpus writes one tree over all of them."""
        self.slots = CallSlots(1)
        """The cap on the run's LLM calls in flight (`llm.max_concurrency`), set by whoever
        invokes the graph; a corpus gives all its documents the same one."""

    def memo(self, run_key: str) -> RunMemo:
        with self._lock:
            memo = self._memos.get(run_key)
            if memo is None:
                memo = self._memos[run_key] = RunMemo()
            return memo

    def fallback_store(self) -> BaseStore:
        """An in-memory store for a graph embedded in a parent compiled without one: it lives
        as long as the invocation, like the rest of the run's state in that case."""
        with self._lock:
            if self._fallback_store is None:
                self._fallback_store = InMemoryStore()
            return self._fallback_store

    def __eq__(self, other: object) -> bool:
        # Held by the settings object but never part of what it says: two settings with the
        # same fields are equal whatever their runs have computed.
        return isinstance(other, RunRegistry)

    __hash__ = None  # type: ignore[assignment]


def runs_of(context: Any) -> RunRegistry:
    """The invocation's registry, held by its context (the run's `ChunkerSettings`)."""
    if context is None:  # invoked without settings: say what is missing, not a type
        raise ValueError("no model is set: give the chunker graph its settings as the context, "
                         "e.g. context={'model': 'ollama:qwen3:8b'}")
    registry = getattr(context, "run_registry", None)
    if registry is None:
        raise TypeError("the chunker graph's context must be a ChunkerSettings "
                        f"(got {type(context).__name__})")
    return registry()

"""One invocation's context: its settings and its resources (folder, call log, call slots, memos).

The graph's context (`runtime.context`) is a `RunContext`: the run's `ChunkerSettings`,
which is what every node reads, and the invocation's `RunResources`, given once when the
context is made. The settings themselves stay a pure value (frozen, equal by their
fields): they are recorded in run.json and hierarchy.json, compared by an update and
copied freely, so nothing that belongs to one invocation (a lock, a semaphore, a cache)
may hang off them. The context is the one object LangGraph hands every node and every
subgraph of one invocation, so it is where those resources live: a served graph gets a
fresh context per run (LangGraph builds it from the run's dict), a parent graph passes its
own, and the CLI makes one per thread it runs (`RunContext.of(settings, out_dir=...)`).

A run's payloads live in the LangGraph store; what is *derived* from them (the document's
sentence units, the embedding depths and peaks, the parsed Markdown structure) is costly to
rebuild at every step, so each run keeps it in its own `RunMemo`, one per run key of the
invocation. Nothing here is a module global, so several runs in one process (threads under
`langgraph dev`, a parent agent running the subgraph twice, a corpus of documents) never
evict or see each other's values, and one run's nodes running on several threads compute
each value once (a lock per key).

A memo holds only what can be rebuilt from the store: a resume in a fresh process, or with a
fresh context, recomputes it lazily and gets the same values.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore
from pydantic import PrivateAttr

from chunker.config.settings import ChunkerSettings
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


class RunResources:
    """What one invocation of the graph works with besides its settings: its folder, its call
    log, its cap on calls in flight, the memos of its runs, and the store a graph compiled
    without one falls back to. Given once, when the invocation's `RunContext` is made."""

    def __init__(self, *, out_dir: str | None = None, calls_dir: str | None = None,
                 writes_tree: bool = True, slots: CallSlots | None = None) -> None:
        self._lock = threading.Lock()
        self._memos: dict[str, RunMemo] = {}
        self._fallback_store: BaseStore | None = None
        self.out_dir = out_dir
        """The run's folder (the tree, the call log, a PDF's page map), given by whoever
        invokes the graph on one (`chunker.runs.runner.stream_thread`). None when served or
        embedded: nothing is written, and the tree is returned in the graph's output.
        Where a run happens is no setting: it stays out of the settings and their hash."""
        self.calls_dir = calls_dir or out_dir
        """Whose call log gets the calls: `out_dir`'s, unless another is given (a corpus's
        documents each have a folder of their own, a PDF's extracted text, but share the
        corpus's log, which may be a database's)."""
        self.writes_tree = writes_tree
        """Whether write_outputs writes the tree into `out_dir`. A corpus's document does
        not: its tree is returned, and the corpus writes one tree over all of them."""
        self.slots = slots if slots is not None else CallSlots(1)
        """The cap on the run's LLM calls in flight (`llm.max_concurrency`); a corpus gives
        all its documents the same one."""

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


class RunContext(ChunkerSettings):
    """The graph's context (LangGraph's `runtime.context`, the graph's `context_schema`): one
    invocation's settings, which is what the nodes read, and that invocation's resources
    (`resources_of`). The settings stay a pure value (`ChunkerSettings`: frozen, equal by
    their fields, safe to keep, compare and hash); a context is made per invocation, from a
    dict of settings (LangGraph does that for a served graph or a parent graph's dict),
    or with `RunContext.of(settings, out_dir=..., ...)` by whoever runs the graph on a folder."""

    _resources: RunResources = PrivateAttr(default_factory=RunResources)

    @classmethod
    def of(cls, settings: ChunkerSettings, *, out_dir: str | None = None, calls_dir: str | None = None,
           writes_tree: bool = True, slots: CallSlots | None = None) -> "RunContext":
        """A context for one invocation with `settings`, writing to `out_dir` (None: nowhere)."""
        ctx = cls(**settings.flat_dict())
        ctx._resources = RunResources(out_dir=out_dir, calls_dir=calls_dir, writes_tree=writes_tree,
                                      slots=slots)
        return ctx

    @property
    def resources(self) -> RunResources:
        return self._resources

    def __deepcopy__(self, memo: dict) -> "RunContext":
        # frozen, so a copy could only differ by its resources, whose locks cannot be copied
        # and which a copy of the invocation's context must share anyway
        return self


def resources_of(context: Any) -> RunResources:
    """The invocation's resources, held by its context (a `RunContext`)."""
    if context is None:  # invoked without settings: say what is missing, not a type
        raise ValueError("no model is set: give the chunker graph its settings as the context, "
                         "e.g. context={'model': 'ollama:qwen3:8b'}")
    if not isinstance(context, RunContext):
        raise TypeError("the chunker graph's context is a RunContext or a dict of settings "
                        f"(got {type(context).__name__}): pass RunContext(model=...), "
                        "RunContext.of(settings) or the settings as a dict")
    return context.resources

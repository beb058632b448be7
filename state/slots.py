"""The cap on LLM calls in flight over one run (`llm.max_concurrency`).

A run's calls come from several threads at once: LangGraph runs the tasks of one step in
parallel (the documents of a corpus, a level's blocks, a document's leaves under
`background.context: source`), each bounded by the invocation's `max_concurrency`. Those
bounds nest (documents x leaves), so the one number the user sets is enforced here, where a
call is made: each call holds a slot while the server works on it. One `CallSlots` per run,
shared by the run's documents (it is one of the run's `RunResources`, never a module global).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class CallSlots:
    """At most `limit` calls in flight; counts the most that were."""

    def __init__(self, limit: int = 1) -> None:
        self.limit = max(1, int(limit))
        self._slots = threading.BoundedSemaphore(self.limit)
        self._lock = threading.Lock()
        self.in_flight = 0
        self.max_in_flight = 0

    @contextmanager
    def held(self) -> Iterator[None]:
        with self._slots:
            with self._lock:
                self.in_flight += 1
                self.max_in_flight = max(self.max_in_flight, self.in_flight)
            try:
                yield
            finally:
                with self._lock:
                    self.in_flight -= 1

"""Boundary policies: how a window's end is chosen, one class per `boundary_mode`.

A policy owns everything that differs between modes: whether the run needs the embedding
signal, how a window grows until it offers a choice, what the completeness and retry
prompts show and ask, how an answer is validated into a cut, and where the fallback and
the safety valve cut. The nodes (`nodes/window.py`, `nodes/completeness.py`,
`nodes/boundary.py`) hold only what all modes share and delegate the rest; the policy is
chosen once per run from the settings (`boundary_policy`). A new mode is one new file
and one line in `POLICIES`.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass

from chunker.chunking.peel import Peel
from chunker.config.sections import ChunkingSettings
from chunker.config.settings import ChunkerSettings
from chunker.document.units import Units
from chunker.state.schema import ChunkerState
from chunker.state.store import RunStore


@dataclass(frozen=True)
class Question:
    """What a completeness or retry call shows the model."""

    task: str
    """The prompt (and answer schema) name: `completeness`, `boundary_retry`, or a mode's own."""
    window: str
    lookahead: str
    extra: dict[str, str]


@dataclass(frozen=True)
class Window:
    """The window being judged, as the policies see it."""

    state: ChunkerState
    rs: RunStore
    cfg: ChunkerSettings
    peel: Peel | None
    """The cursor's section (Markdown structure), or None for plain text."""

    @property
    def units(self) -> Units:
        return self.rs.units(self.state["doc_id"])


class BoundaryPolicy(ABC):
    """One way of choosing where a chunk ends."""

    name: str
    reads_signal: bool
    """Whether the run embeds the document first (the graph routes through embed_document)."""

    def grow_until_choice(self, w: Window, lo: int, end: int, tokens: int, stop: int,
                          step: Callable[[int], int], measure: Callable[[int], int]) -> tuple[int, int]:
        """Grow the window `end` (holding `tokens`) until it offers the model something to
        choose past `lo`; the default needs nothing more."""
        return end, tokens

    def nothing_to_choose(self, w: Window) -> bool:
        """Whether a window that holds the rest of its section offers no cut at all (then the
        section's rest is a leaf without a call)."""
        return False

    @abstractmethod
    def question(self, w: Window, task: str) -> Question:
        """The window, lookahead and extra prompt fields for `task` (completeness or retry)."""

    @abstractmethod
    def retry_hint(self, state: ChunkerState) -> dict[str, str]:
        """What the retry prompt says was wrong with the first answer."""

    @abstractmethod
    def answered_cut(self, w: Window, limit: int) -> tuple[int, str] | None:
        """For a "complete" answer: the cut and its outcome (`match` for the cut the model
        named, `end` when the window holds the rest up to `limit`, or the policy's own when the
        answer leaves the choice to it), or None for a miss."""

    def fallback_cut(self, w: Window) -> int | None:
        """After a second miss: the policy's own cut in the window, or None for the last
        sentence end."""
        return None

    def forced_cut(self, w: Window, cap: int) -> int | None:
        """The safety valve's cut under `cap`, or None for the last sentence end."""
        return None


@functools.cache
def _policies() -> dict[str, BoundaryPolicy]:
    # imported here: each policy module subclasses BoundaryPolicy from this one
    from chunker.chunking.candidates_policy import CandidatesPolicy
    from chunker.chunking.phrase_policy import PhrasePolicy
    return {p.name: p for p in (CandidatesPolicy(), PhrasePolicy())}


def boundary_policy(chunking: ChunkingSettings) -> BoundaryPolicy:
    """The run's policy, by `boundary_mode` (stateless: one instance serves every run)."""
    return _policies()[chunking.boundary_mode]

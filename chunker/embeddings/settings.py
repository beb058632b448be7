"""Named defaults of the embedding boundary signal (ChunkerSettings takes its defaults from them).

Each value was chosen on `../shared/corpus/choi-3-5`; `bench/boundary_signals.py` measures
them and `bench/results/boundaries/report.md` holds the figures.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

TILING_WINDOW = 2
"""Sentences on each side of a gap whose vectors are summed before the cosine (TextTiling's
block size). 2 gave the best Pk with MiniLM on Choi 3-5 (segments of 3-5 sentences): a wider
block straddles the next boundary."""

LEXICAL_WINDOW = 3
"""Block size for the `lexical` provider: term vectors are sparse, so a block of 3 sentences
shares enough words to compare (Pk 0.16 on Choi 3-5, against 0.20 at 2 and 4)."""


@dataclass(frozen=True)
class SignalSettings:
    """Which cohesion curve the depth scores are taken on, and its block size.

    `tiling`: cosine of summed vectors (TextTiling); `rank`: C99's local rank transform
    first (`chunker.embeddings.rank`), which calibrates noisy term-vector cosines.
    """

    method: Literal["tiling", "rank"] = "tiling"
    window: int = TILING_WINDOW


def signal_for(spec: str) -> SignalSettings:
    """The measured best curve per provider: rank transform for `lexical`, TextTiling otherwise."""
    if spec.strip() == "lexical":
        return SignalSettings(method="rank", window=LEXICAL_WINDOW)
    return SignalSettings()


EMBED_BATCH_SIZE = 64
"""Sentences per embedding call, and per stored record in the resumable cache: a crash loses
at most one batch of work, and one Ollama request stays well under its body limits."""

CANDIDATE_COUNT = 5
"""How many numbered candidate cuts the LLM is offered per window (LumberChunker-style)."""

OWN_COUNT_STD_FACTOR = 1.0
"""Without a known segment count, a gap is a boundary when it is a local maximum of depth and
its depth exceeds mean - OWN_COUNT_STD_FACTOR * std of the local maxima. Hearst (1997) used
mean - std/2 over all gaps; over peaks only (one cut per valley), 1.0 was best on Choi 3-5 for
both MiniLM and lexical (0.5 and 1.5 were worse for both; see the bench report)."""

LEXICAL_DIMENSIONS = 2048
"""Width of the hashed term space of the `lexical` provider. Terms are hashed into this many
buckets so that vectors from separate calls share one space; 2048 keeps collisions rare
within one document's window while a sentence costs 8 KB as float32 in memory."""

LOCAL_MODEL_BATCH = 32
"""Sentences per forward pass of the in-process MiniLM (sentence-transformers' batch)."""

DEFAULT_PROVIDER = "local"
"""The provider a profile uses when it names none (the lead decides per profile)."""

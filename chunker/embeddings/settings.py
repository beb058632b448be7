"""Named defaults of the embedding boundary signal (ChunkerSettings takes its defaults from them).

Each value was chosen on `../shared/corpus/choi-3-5`; `bench/boundary_signals.py` measures
them and `bench/results/boundaries/report.md` holds the figures.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

TILING_WINDOW = 2
"""Sentences on each side of a gap whose vectors are summed before the cosine (TextTiling's
block size) when a document is too short to measure its own (under 4 sentences), and the
block of any signal given a fixed window. 2 gave the best Pk with MiniLM on Choi 3-5
(segments of 3-5 sentences); longer topics want longer blocks, which the half-life gives."""

HALF_LIFE_MAX_DISTANCE = 32
"""The farthest sentence distance the similarity half-life looks at (`adaptive.half_life`):
a document whose neighbours stay alike that far gets blocks of 32 sentences, already more
than a 400-token leaf holds. It bounds the cost at 32 dot products a sentence."""

CONTRAST_SHARE = 0.5
"""A peak is a standout cut when its depth reaches this share of the depth a cut between
unrelated blocks would have (`adaptive.standout_cutoff`): the midpoint between no drop and a
full one, set by that reasoning and not fitted. 0.4 and 0.6 moved the signal's own Pk by at
most 0.011 on every topic-length set and on Choi 3-5 (bench/results/topic_lengths/report.md)."""

LEXICAL_WINDOW = 3
"""Block size for the `lexical` provider: term vectors are sparse, so a block of 3 sentences
shares enough words to compare (Pk 0.16 on Choi 3-5, against 0.20 at 2 and 4)."""


@dataclass(frozen=True)
class SignalSettings:
    """Which cohesion curve the depth scores are taken on, and its block size.

    The contrast cutoff (`candidate_cutoff = contrast`) needs a cosine curve: `rank` curves
    are ranks, so their candidates keep the `peak_std` rule.

    `tiling`: cosine of summed vectors (TextTiling); `rank`: C99's local rank transform
    first (`chunker.embeddings.rank`), which calibrates noisy term-vector cosines.
    """

    method: Literal["tiling", "rank"] = "tiling"
    window: int | None = None
    """Sentences per block; None: the document's similarity half-life (`adaptive.half_life`)
    for `tiling`, LEXICAL_WINDOW for `rank`."""


def signal_for(spec: str) -> SignalSettings:
    """The measured best curve per provider: rank transform for `lexical` with its fixed block
    of 3 (on the topic-length sets, the half-life block and contrast cut helped lexical's long
    topics and hurt its short ones: see the issue 22 note), TextTiling with the document's own
    block otherwise."""
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

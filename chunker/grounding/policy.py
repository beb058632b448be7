"""GroundingPolicy: every threshold of the grounding check, each a named, documented setting.

The names carry the `grounding_` prefix so they can be copied as they are into the run's
settings (`ChunkerSettings`). The support threshold was chosen from a labelled set of
faithful and unfaithful summaries (bench/grounding_calibrate.py, results in
bench/results/grounding/calibration.json).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GroundingPolicy:
    """Thresholds of `chunker.grounding.check`."""

    grounding_min_support: float = 0.65
    """Least share of the candidate's distinct content-word stems that occur among the
    evidence's stems. Chosen from data (bench/grounding_calibrate.py, 206 labelled cases
    on 13 corpus passages): hand-written faithful paraphrases score 0.70 to 1.00 and
    extractive ones 1.00, while summaries of another passage of the same document average
    0.36 and invented ones 0.46. At 0.65 the whole check keeps 97 % of the faithful
    summaries and 2 % of the others; 0.65 and 0.70 tie, and the lower one is kept (a lost
    faithful summary costs more than a weak one kept). Table:
    bench/results/grounding/calibration.json."""

    grounding_min_content_words: int = 2
    """Fewest distinct content words a candidate must have: fewer cannot say anything about
    the passage ("...", "Summary", "It is a story")."""

    grounding_min_word_chars: int = 3
    """Shortest word (in letters) counted as a content word; shorter ones are mostly
    function words and abbreviations that match anything."""

    grounding_max_unsupported_names: int = 0
    """Most names (capitalised words or runs of them) absent from the evidence that a
    candidate may carry. Zero: an invented name misleads the reader."""

    grounding_max_unsupported_numbers: int = 0
    """Most numbers, years or spelled-out numbers absent from the evidence that a
    candidate may carry. Zero: an invented figure misleads the reader."""

    grounding_first_person_tasks: tuple[str, ...] = ("rewrite",)
    """Tasks whose output may keep the evidence's own first person ("I", "we"): a leaf's
    rewrite keeps a memoir's voice. Elsewhere (summaries, block syntheses, the overview)
    first person is allowed only inside a sentence copied verbatim from the evidence."""

    grounding_advice_min_share: float = 0.5
    """Share of a task's outputs that fell back above which the run prints one line of
    advice (a larger model). "Most" of the outputs: more than half."""

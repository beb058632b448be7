"""GroundingPolicy: every threshold of the grounding check, each a named, documented setting.

The policy is the `grounding` section of the run's settings (`ChunkerSettings.grounding`);
its names keep the `grounding_` prefix, which is also how run.json and config files spell
them flat. The support threshold was chosen from a labelled set of faithful and unfaithful
summaries (bench/grounding_calibrate.py, results in bench/results/grounding/calibration.json).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class GroundingPolicy(BaseModel):
    """Thresholds of `chunker.grounding.check`, and the rewrite's recall floor."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    grounding_min_support: float = Field(0.65, ge=0, le=1)
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

    grounding_advice_min_share: float = Field(0.5, ge=0, le=1)
    """Share of a task's outputs that fell back above which the run prints one line of
    advice (a larger model). "Most" of the outputs: more than half."""

    rewrite_min_recall: float = Field(0.5, ge=0, le=1)
    """A rewrite must keep at least this share of the original's content words and
    numbers; otherwise the original itself becomes the context (facts are never lost)."""

"""One line of advice when most of a task's outputs fell back.

The stats table shows, per task, how many model outputs were kept and how many fell back;
when most fell back the model contributed little to that task, and the user should hear so
in one line: "rewrite: 10 of 10 fell back to the original text; the model is too small for
rewriting, try --model qwen3:8b".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from chunker.grounding.policy import GroundingPolicy

SUGGESTED_MODEL = "qwen3:8b"
"""The model the advice suggests: the README's recommended Ollama model."""


@dataclass(frozen=True)
class TaskCounts:
    """How many of a task's outputs were kept, how many fell back, and how many were made
    without asking the model (a task outside the run's `model_tasks`)."""

    kept: int
    fell_back: int
    extracted: int = 0

    @property
    def total(self) -> int:
        return self.kept + self.fell_back


@dataclass(frozen=True)
class Fallback:
    """What a task falls back to, and what the model failed at, for the advice line."""

    to: str
    activity: str


FALLBACKS: dict[str, Fallback] = {
    "boundary": Fallback("the signal's deepest cut", "choosing boundaries"),
    "rewrite": Fallback("the original text", "rewriting"),
    "summarize": Fallback("an extractive summary", "summarising"),
    "synthesize": Fallback("the children's summaries", "synthesising blocks"),
    "block_summary": Fallback("an extractive summary of the children's summaries", "summarising sections"),
    "overview": Fallback("an extractive overview", "summarising the document"),
    "group": Fallback("groups cut at the deepest dips between summaries", "grouping"),
    "slug": Fallback("key phrases of the text", "naming passages"),
}
"""The known tasks; any other task gets a generic line."""


def fallback_advice(counts: Mapping[str, TaskCounts], *, model: str | None = None,
                    policy: GroundingPolicy = GroundingPolicy()) -> list[str]:
    """One advice line per task where more than `grounding_advice_min_share` of the outputs
    fell back, in the order of `counts`. `model` is the run's model: when it already is the
    suggested one, the line suggests a larger model instead."""
    lines = []
    for task, c in counts.items():
        if c.total == 0 or c.fell_back / c.total <= policy.grounding_advice_min_share:
            continue
        known = FALLBACKS.get(task, Fallback("the fallback", task))
        suggestion = (f"try a model larger than {SUGGESTED_MODEL}" if model == SUGGESTED_MODEL
                      else f"try --model {SUGGESTED_MODEL}")
        lines.append(f"{task}: {c.fell_back} of {c.total} fell back to {known.to}; "
                     f"the model is too small for {known.activity}, {suggestion}")
    return lines


# A run's stats keys per task: task -> (keys counted as kept, as fell back, as extracted)
_OUTCOMES = {
    "boundary": (("boundary.match", "boundary.retry_match"), ("boundary.fallback", "boundary.deepest"),
                 "extracted.boundary"),
    "rewrite": (("kept.rewrite",), ("fallback.rewrite",), "extracted.rewrite"),
    "summarize": (("kept.summary",), ("fallback.summary",), "extracted.summary"),
    "group": (("kept.group",), ("group.fallback",), "extracted.group"),
    "synthesize": (("kept.synthesize",), ("fallback.synthesize",), "extracted.synthesis"),
    "block_summary": (("kept.block_summary",), ("fallback.block_summary",), "extracted.synthesis"),
}


def task_outcomes(stats: dict[str, int]) -> dict[str, TaskCounts]:
    """Per model task: how many outputs were kept, fell back, or were extracted."""
    return {task: TaskCounts(kept=sum(stats.get(k, 0) for k in kept),
                             fell_back=sum(stats.get(k, 0) for k in fell),
                             extracted=stats.get(extracted, 0))
            for task, (kept, fell, extracted) in _OUTCOMES.items()}


def extracted_note(counts: Mapping[str, TaskCounts]) -> str | None:
    """One line naming the tasks done without the model, when there are any (the profile
    asks its model only what it has been measured to answer)."""
    done = [f"{task} {c.extracted}" for task, c in counts.items() if c.extracted]
    if not done:
        return None
    return ("not asked of the model (its profile's model_tasks), done without it: "
            + ", ".join(done))

"""The grouping loop: ask the model for contiguous groups, judge its answer, ask again or
fall back. One loop for a document's sweeps and a corpus's flat folders.

    ask (the `group` prompt: the items' summaries, the dips as suggested breaks, a nudge)
    judge: a hard problem (`grouping_problem`)  -> ask again with the problem named, once;
                                                   the second time, fall back
           a group over `max_group_size`       -> ask once more to subdivide it; then take it
                                                   (the cap is soft)
           else                                -> the groups
    fall back: consecutive groups cut at the deepest dips (even groups without a signal)

`judge` is the loop's one rule. The document graph runs it one step per node
(`group_summaries` asks, `validate_groups` judges, `fallback_grouping` falls back), so that
each call is checkpointed and a kill costs at most the call in flight; its `Attempt` lives
in the graph's state (`hard_failures`, `soft_reprompted`, `group_nudge`). A caller outside a
graph (the corpus's upper levels) runs the same loop in `choose_groups`, and keeps each
answer itself (`ask` is its own: the corpus's store remembers every answer, so a resume
asks none again).

What differs is said by the caller, not by the rules: the corpus asks `must_split` when a
folder has more items than one group may hold (one group of all of them would leave the
folder as it was, where a document's sweep makes a block of it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from chunker import prompts
from chunker.aggregation.groups import break_hints, even_groups, grouping_problem
from chunker.config.sections import AggregationSettings
from chunker.embeddings import split_at_dips
from chunker.state.schema import add_counts

Status = Literal["ok", "retry", "fallback"]
HARD_TRIES = 2
"""Answers breaking a hard rule before the dips decide: the first, and one retry naming its problem."""

Groups = list[list[int]]
Ask = Callable[[str], tuple[Groups | None, dict[str, int]]]
"""One call: the prompt's answer (None when the model gave none) and the call's counts."""


@dataclass(frozen=True)
class Attempt:
    """Where one grouping stands: its hard failures so far, whether it was asked to subdivide
    an oversized group (once only), and the nudge the next prompt carries."""

    failures: int = 0
    resized: bool = False
    nudge: str = ""


@dataclass(frozen=True)
class Verdict:
    status: Status
    attempt: Attempt
    """The attempt as it stands after this answer (what the next prompt says)."""
    stats: dict[str, int] = field(default_factory=dict)


def grouping_prompt(lines: Sequence[str], dips: Sequence[float], agg: AggregationSettings,
                    nudge: str = "") -> str:
    """The `group` prompt over the items' one-line summaries, with the dips as suggested breaks."""
    n = len(lines)
    return prompts.render("group", items="\n".join(f"[{i}] {line}" for i, line in enumerate(lines)), count=n,
                          min_group_size=agg.min_group_size, max_group_size=agg.max_group_size,
                          hints=break_hints(list(dips), n, agg.max_group_size), nudge=nudge)


def judge(proposed: Groups | None, n: int, agg: AggregationSettings, attempt: Attempt, *,
          must_split: bool = False) -> Verdict:
    """The answer's fate: `ok`, `retry` (with the attempt's new nudge) or `fallback`."""
    problem = grouping_problem(proposed, n, agg.min_group_size)
    if problem is None and must_split and len(proposed) < 2:
        problem = "one group of everything does not organise them"
    if problem:
        failures = attempt.failures + 1
        return Verdict("fallback" if failures >= HARD_TRIES else "retry",
                       Attempt(failures, attempt.resized, f"\nYour previous grouping was invalid: {problem}."),
                       {"group.invalid": 1})
    if max(len(g) for g in proposed) > agg.max_group_size and not attempt.resized:
        return Verdict("retry", Attempt(attempt.failures, True,
                                        f"\nYour previous grouping had a group of more than "
                                        f"{agg.max_group_size} items: subdivide it."),
                       {"group.oversize": 1})
    # a grouping the model proposed (a trivial one is decided without a call)
    return Verdict("ok", attempt, {"kept.group": 1} if n >= 2 * agg.min_group_size else {})


def fallback_groups(n: int, dips: Sequence[float], agg: AggregationSettings) -> Groups:
    """Consecutive groups cut at the deepest dips; even-sized groups without a signal (no dips)."""
    if len(dips) == n - 1 and n > 1:
        return split_at_dips(n, list(dips), agg.min_group_size, agg.max_group_size)
    return even_groups(list(range(n)), agg.max_group_size, agg.min_group_size)


def fallback_stats(asked: bool) -> dict[str, int]:
    """A model not asked to group (`model_tasks`) did not fail: its grouping is extracted."""
    return {"group.fallback": 1} if asked else {"extracted.group": 1}


def choose_groups(lines: Sequence[str], dips: Sequence[float], agg: AggregationSettings, ask: Ask | None, *,
                  must_split: bool = False) -> tuple[Groups, dict[str, int]]:
    """The whole loop at once (for a caller outside the graph); `ask` None: the model is not
    asked to group, the dips decide."""
    n = len(lines)
    if ask is None:
        return fallback_groups(n, dips, agg), fallback_stats(False)
    attempt, stats = Attempt(), {}
    while True:
        proposed, counts = ask(grouping_prompt(lines, dips, agg, attempt.nudge))
        verdict = judge(proposed, n, agg, attempt, must_split=must_split)
        stats = add_counts(add_counts(stats, counts), verdict.stats)
        if verdict.status == "ok":
            return proposed, stats
        if verdict.status == "fallback":
            return fallback_groups(n, dips, agg), add_counts(stats, fallback_stats(True))
        attempt = verdict.attempt

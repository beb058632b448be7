"""check: is a piece of model prose supported by the text it describes?

One check for every piece of model prose that enters the tree (a leaf's summary, a block's
synthesis and summary, the document overview, a rewrite). The evidence is the node's own
source: a leaf's original, a block's children. The verdict says why a model text
was rejected, in short reason codes the run counts by task and logs with the call.

Support measure: the share of the model text's distinct content-word stems (Snowball stems
of words with at least `grounding_min_word_chars` letters that are not stop words) that
occur among the evidence's stems. Its threshold was chosen from a labelled set
(bench/grounding_calibrate.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from chunker.grounding.names import names, supported
from chunker.grounding.patterns import first_person, has_first_person, meta_talk, placeholders_and_markup
from chunker.grounding.policy import GroundingPolicy
from chunker.grounding.text import content_stems, normalised, numbers, stem, words, words_and_compounds


class Reason(StrEnum):
    """Why a model text was rejected (a `str`, so it logs and counts as its value)."""

    EMPTY = "empty"
    TOO_SHORT = "too_short"
    UNSUPPORTED_NAME = "unsupported_name"
    UNSUPPORTED_NUMBER = "unsupported_number"
    LOW_SUPPORT = "low_support"
    META_TALK = "meta_talk"
    FIRST_PERSON = "first_person"
    PLACEHOLDER = "placeholder"
    MARKUP = "markup"


@dataclass(frozen=True)
class Verdict:
    """The outcome of one check."""

    ok: bool
    task: str
    reasons: tuple[Reason, ...]
    """Every reason the model text fails, in a fixed order; empty when `ok`."""
    unsupported_names: tuple[str, ...]
    """Names as written in the model text that the evidence does not contain."""
    unsupported_numbers: tuple[str, ...]
    """Numbers (digits, years, spelled-out) as written in the model text, absent from the evidence."""
    support: float
    """Share of the model text's content-word stems found in the evidence (0 to 1)."""
    content_words: int
    """Distinct content-word stems in the model text (the ratio's denominator)."""
    fragments: tuple[str, ...]
    """Offending meta-talk, first-person, placeholder and markup fragments, for the call log."""


@dataclass(frozen=True)
class Evidence:
    """The evidence's features, computed once per distinct evidence text."""

    text: str
    """Normalised (lower-case, ASCII quotes, whitespace collapsed), for substring tests."""
    word_seq: str
    """Its words joined by single spaces, padded with a space at each end, for name phrases."""
    word_set: frozenset[str]
    stems: frozenset[str]
    numbers: frozenset[str]
    first_person: bool


@lru_cache(maxsize=256)
def evidence_of(joined: str) -> Evidence:
    seq, joined_compounds = words_and_compounds(joined)
    every = set(seq) | set(joined_compounds)
    return Evidence(text=normalised(joined), word_seq=f" {' '.join(seq)} ", word_set=frozenset(every),
                    stems=frozenset(stem(w) for w in every), numbers=frozenset(numbers(joined)),
                    first_person=has_first_person(joined))


def join_evidence(evidence: str | list[str]) -> str:
    """A list of evidence texts (a block's children) as one text, one paragraph each."""
    return evidence if isinstance(evidence, str) else "\n\n".join(evidence)


def check(text: str, evidence: str | list[str], *, task: str, policy: GroundingPolicy) -> Verdict:
    """Judge `text` (model prose for `task`) against `evidence` (the node's source)."""
    ev = evidence_of(join_evidence(evidence))
    reasons: list[Reason] = [] if words(text) else [Reason.EMPTY]
    stems = content_stems(text, policy.grounding_min_word_chars)
    support = len(stems & ev.stems) / len(stems) if stems else 0.0
    bad_names = tuple(dict.fromkeys(
        n.surface for n in names(text) if not supported(n, ev.word_seq, ev.word_set)))
    bad_numbers = tuple(surface for value, surface in numbers(text).items() if value not in ev.numbers)
    meta = meta_talk(text, ev.text)
    keep_voice = task in policy.grounding_first_person_tasks and ev.first_person
    selfish = first_person(text, ev.text, keep_voice=keep_voice)
    holes, markup = placeholders_and_markup(text, ev.text)

    if reasons == [Reason.EMPTY]:
        pass
    elif len(stems) < policy.grounding_min_content_words:
        reasons.append(Reason.TOO_SHORT)
    if len(bad_names) > policy.grounding_max_unsupported_names:
        reasons.append(Reason.UNSUPPORTED_NAME)
    if len(bad_numbers) > policy.grounding_max_unsupported_numbers:
        reasons.append(Reason.UNSUPPORTED_NUMBER)
    if stems and support < policy.grounding_min_support:
        reasons.append(Reason.LOW_SUPPORT)
    for reason, found in ((Reason.META_TALK, meta), (Reason.FIRST_PERSON, selfish),
                          (Reason.PLACEHOLDER, holes), (Reason.MARKUP, markup)):
        if found:
            reasons.append(reason)
    return Verdict(ok=not reasons, task=task, reasons=tuple(reasons), unsupported_names=bad_names,
                   unsupported_numbers=bad_numbers, support=round(support, 4), content_words=len(stems),
                   fragments=tuple(dict.fromkeys([*meta, *selfish, *holes, *markup])))

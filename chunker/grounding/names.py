"""Names in a model text: capitalised words that are not only sentence-initial, and runs of them.

A run of capitalised words ("Miss Taylor", "North Atlantic Treaty Organization", "Mr. Weston")
is one name and must occur as a phrase in the evidence. A capitalised stop word ("The", "It",
"When") ends a run and is never a name. A single capitalised word at a sentence start is a name
only when the text also capitalises it mid-sentence; otherwise it may be an ordinary word
("Returning home, ...") and the support ratio judges it instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from chunker.document.words import name_token_pattern
from chunker.grounding.text import STOP_WORDS, base, plain, variants, words

_TOKEN = name_token_pattern("'-")
_TITLES = frozenset(["mr", "mrs", "ms", "dr", "st", "jr", "sr", "prof", "rev", "gen", "col", "capt"])
_OPENERS = " \t\"'([*_\u201c\u2018"
_ENDERS = ".!?:;\u2026"
_NOT_NAMES = frozenset(["i", "i'm", "i've", "i'd", "i'll", "ok"])


@dataclass(frozen=True)
class Name:
    """A name found in the text: its surface form and its words, normalised
    (`chunker.grounding.text.words`: lower-case, possessive dropped, compounds split)."""

    surface: str
    words: tuple[str, ...]


_LOOKBACK = 64
"""Characters looked at before a word to tell whether it starts a sentence (bounded, so a
long text costs linear time)."""


def _sentence_initial(text: str, start: int) -> bool:
    """At the start, after a line break or a sentence end (a title like "Mr." is no end)."""
    before = text[max(0, start - _LOOKBACK):start].rstrip(_OPENERS)
    if not before or before.endswith(("\n", "\r")):
        return True
    if before[-1] not in _ENDERS:
        return False
    last = re.search(r"([^\W\d_]+)\.$", before)
    return not (last and last.group(1).lower() in _TITLES)


def names(text: str) -> list[Name]:
    """Names in `text` (see the module docstring), in order of appearance."""
    text = plain(text)
    tokens = [(m.start(), m.end(), m.group(0).rstrip("'-")) for m in _TOKEN.finditer(text)]
    runs: list[list[tuple[int, int, str]]] = []
    prev_end = None
    for start, end, word in tokens:
        capital = word[:1].isupper() and word.lower() not in _NOT_NAMES
        if not capital or base(word) in STOP_WORDS:
            prev_end = None
            continue
        gap = text[prev_end:start] if prev_end is not None else None
        joined = gap is not None and (gap.strip() == "" or (gap.strip() == "." and runs
                                      and runs[-1][-1][2].lower() in _TITLES))
        if joined and "\n" not in gap:
            runs[-1].append((start, end, word))
        else:
            runs.append([(start, end, word)])
        prev_end = end
    mid_capitals = {base(w) for s, _, w in tokens if w[:1].isupper() and not _sentence_initial(text, s)}
    out = []
    for run in runs:
        first_start = run[0][0]
        if len(run) == 1 and _sentence_initial(text, first_start) and base(run[0][2]) not in mid_capitals:
            continue
        surface = text[first_start:run[-1][1]]
        out.append(Name(surface=surface, words=tuple(words(surface))))
    return out


def supported(name: Name, evidence_text: str, evidence_words: set[str]) -> bool:
    """Whether the name occurs in the evidence: a one-word name as a word (plural and
    possessive variants allowed); a longer one as a phrase of whole words."""
    if len(name.words) == 1:
        return bool(variants(name.words[0]) & evidence_words)
    *head, last = name.words
    return any(f" {' '.join([*head, v])} " in evidence_text for v in variants(last))

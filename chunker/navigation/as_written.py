"""What the search reads of a leaf beside its text: its words as the source writes them.

An extracted summary (the embedded model's profile, and any summary a model wrote that failed
grounding) is made of sentences of the leaf's readable copy (`chunker.document.readable`: markup
masked, same length as the original). A person reads them so, and markup never reaches them.
But the source writes those sentences with their markup, and the markup holds words a question
may use: a tooltip's definition (`<dfn title="cleanup code">`), an abbreviation's expansion, a
link's target, a heading's `{ #id }`. Before the readable copy such words reached the summaries,
and so the search, by accident (a sentence the splitter cut inside a tooltip); now the search
reads them on purpose:

- `summary_as_written`: the summary with each stretch replaced by the leaf's original characters
  at the stretch's offsets (context field `summary`);
- `glosses`: the text an HTML element holds for its reader outside its content (`title`, `alt`,
  `aria-label`: a tooltip, an abbreviation's expansion, an image's description), which the
  readable copy masks with its tag: the source's own gloss of its terms (context field `glosses`).

Only the search reads these; what a person reads (summaries, titles, passages) is unchanged.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_right
from itertools import accumulate

MIN_STRETCH = 8
"""Characters (spaces aside) a stretch of a summary must share with the text it is mapped onto:
a summary with a shorter stretch was not drawn from that text (a model wrote it) and is kept
as it is."""

_GLOSS = re.compile(r"""<[A-Za-z][\w:-]*\s[^<>]*?\b(?:title|alt|aria-label)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
"""An HTML start tag's reader-facing attribute (the first per tag: the element's gloss)."""


def summary_as_written(summary: str, original: str) -> str:
    """`summary` in `original`'s own words: each longest stretch of the summary that the
    readable copy of `original` holds (spaces aside), ending at one of the summary's word ends
    so that no word is split between two places, replaced by the original's characters at the
    same offsets; stretches that meet in the copy are one. A summary not drawn from `original`
    (a stretch under `MIN_STRETCH` characters) is returned as it is."""
    if not summary or not original:
        return summary
    from chunker.document.readable import readable_copy

    copy = readable_copy(original, headings=False)
    where = [i for i, c in enumerate(copy) if not c.isspace()]
    flat = "".join(copy[i] for i in where)  # the copy's characters, spaces aside
    words = summary.split()
    want = "".join(words)
    word_ends = list(accumulate(len(w) for w in words))
    ranges: list[list[int]] = []  # [start, end) in `flat`
    i = 0
    while i < len(want):
        lo, hi = 0, len(want) - i  # the longest stretch from i the copy holds (binary search:
        while lo < hi:             # every head of a stretch it holds, it holds too)
            mid = (lo + hi + 1) // 2
            if flat.find(want[i:i + mid]) >= 0:
                lo = mid
            else:
                hi = mid - 1
        if lo < MIN_STRETCH:  # no real stretch: the summary is not drawn from this text
            return summary
        k = bisect_right(word_ends, i + lo) - 1
        end = word_ends[k] if k >= 0 and word_ends[k] - i >= MIN_STRETCH else i + lo
        stretch = want[i:end]
        at = ranges[-1][1] if ranges and flat.startswith(stretch, ranges[-1][1]) else flat.find(stretch)
        if ranges and at == ranges[-1][1]:  # it goes on where the last one stopped
            ranges[-1][1] = at + len(stretch)
        else:
            ranges.append([at, at + len(stretch)])
        i = end
    return " ".join(" ".join(original[where[a]:where[b - 1] + 1].split()) for a, b in ranges)


def glosses(text: str) -> str:
    """The reader-facing attribute values of `text`'s HTML tags (`title`, `alt`, `aria-label`),
    entities decoded, on one line, each once, in the order they first appear."""
    seen: dict[str, None] = {}
    for m in _GLOSS.finditer(text):
        value = " ".join(html.unescape(m.group(1) if m.group(1) is not None else m.group(2)).split())
        if value:
            seen.setdefault(value, None)
    return " ".join(seen)

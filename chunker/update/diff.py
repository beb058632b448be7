"""Map an old text to a new one: the stretches both share, so that nodes over them are reused.

`equal_ranges` works coarse to fine, so that a small edit in a long document costs little:
the common prefix and suffix are trimmed first (exact, linear: a single edit anywhere costs
nothing more), then `difflib.SequenceMatcher` aligns the middle's lines, and a block of lines
that changed is aligned again by words, then by characters, while it is small enough for that
to be quick. Every level trims its block's common prefix and suffix before aligning, so an edit
inside a line keeps the rest of the line, to the character.

Positions are character offsets into the Python strings (what node spans use).
"""

from __future__ import annotations

import bisect
import difflib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate


@dataclass(frozen=True)
class Equal:
    """`length` characters that are identical at `old_start` in the old text and `new_start`
    in the new one."""

    old_start: int
    new_start: int
    length: int

    @property
    def old_end(self) -> int:
        return self.old_start + self.length

    @property
    def new_end(self) -> int:
        return self.new_start + self.length


# Words, runs of whitespace, and any other character alone: the tokens join back to the text.
_WORDS = re.compile(r"\w+|\s+|[^\w\s]")

WORD_REFINE_MAX_CHARS = 20_000
"""A changed block of lines is aligned word by word when each side holds fewer characters than
this. SequenceMatcher's default autojunk (whitespace, "the", punctuation ignored as match
seeds) keeps this fast, though not linear: two 20,000-character blocks align in about 15 ms
when mostly alike and 0.1 s when unrelated; 200,000 characters take 1.3 s and 2.7 s. A larger
changed block keeps only its common prefix and suffix."""

CHAR_REFINE_MAX_CHARS = 2_000
"""A changed block of words is aligned character by character when each side holds fewer
characters than this. Characters need autojunk off (every letter is "popular"), which makes
SequenceMatcher quadratic: 2,000 characters take about 0.06 s, 10,000 about 1.6 s."""

MIN_REFINED_CHARS = 16
"""A stretch found only inside a changed block and shorter than this is a coincidence (" of the ",
", said Emma" in a rewritten sentence), not kept text: it is dropped, so `changed_chars` counts the
rewrite as changed. What extends a line-level match (the rest of an edited line) is kept."""


def _words(text: str) -> list[str]:
    return _WORDS.findall(text)


def _chars(text: str) -> list[str]:
    return list(text)


# The levels below lines: (tokeniser, largest block aligned at this level, autojunk).
_Level = tuple[Callable[[str], list[str]], int, bool]
_REFINE: tuple[_Level, ...] = ((_words, WORD_REFINE_MAX_CHARS, True),
                               (_chars, CHAR_REFINE_MAX_CHARS, False))


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _common_prefix(a: str, b: str, limit: int) -> int:
    """Length of the common prefix of a and b, at most `limit`. Binary search over slice
    comparisons (done in C): the slices halve, so the whole costs O(limit)."""
    lo, hi = 0, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: str, b: str, limit: int) -> int:
    """Length of the common suffix of a and b, at most `limit` (as `_common_prefix`)."""
    la, lb = len(a), len(b)
    lo, hi = 0, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[la - mid:la - lo] == b[lb - mid:lb - lo]:
            lo = mid
        else:
            hi = mid - 1
    return lo


class _Ranges:
    """The ranges found so far, in order. One that continues the last in both texts joins it,
    so the ranges are maximal whatever level found each piece. A range found only inside a
    changed block (`anchored` False: not joined to the common prefix or suffix, nor to a line
    that matched) and shorter than `MIN_REFINED_CHARS` is dropped at the end."""

    def __init__(self) -> None:
        self._items: list[list] = []  # [old_start, new_start, length, anchored]

    def add(self, old_start: int, new_start: int, length: int, anchored: bool) -> None:
        if length <= 0:
            return
        last = self._items[-1] if self._items else None
        if last is not None and last[0] + last[2] == old_start and last[1] + last[2] == new_start:
            last[2] += length
            last[3] = last[3] or anchored
        else:
            self._items.append([old_start, new_start, length, anchored])

    def kept(self) -> list[Equal]:
        return [Equal(o, n, length) for o, n, length, anchored in self._items
                if anchored or length >= MIN_REFINED_CHARS]


def _align(old: str, new: str, o0: int, n0: int, out: _Ranges, level: int) -> None:
    """Add the shared stretches of `old` (at `o0` in the old text) and `new` (at `n0`).

    Level -1 aligns the lines of what lies between the common prefix and suffix; each changed
    block goes one level finer (`_REFINE`: words, then characters) while it is small enough."""
    limit = min(len(old), len(new))
    head = _common_prefix(old, new, limit)
    tail = _common_suffix(old, new, limit - head)
    anchored = level < 1  # the text's own prefix and suffix, or those of a changed line block
    out.add(o0, n0, head, anchored)
    a, b = old[head:len(old) - tail], new[head:len(new) - tail]
    if a and b:
        if level < 0:
            _align_tokens(a, b, o0 + head, n0 + head, out, level, _lines, True)
        elif level < len(_REFINE):
            tokenise, max_chars, autojunk = _REFINE[level]
            if len(a) < max_chars and len(b) < max_chars:
                _align_tokens(a, b, o0 + head, n0 + head, out, level, tokenise, autojunk)
    out.add(o0 + len(old) - tail, n0 + len(new) - tail, tail, anchored)


def _align_tokens(a: str, b: str, o0: int, n0: int, out: _Ranges, level: int,
                  tokenise: Callable[[str], list[str]], autojunk: bool) -> None:
    ta, tb = tokenise(a), tokenise(b)
    # character offset of each token (and of the end)
    oa = [0, *accumulate(map(len, ta))]
    ob = [0, *accumulate(map(len, tb))]
    matcher = difflib.SequenceMatcher(None, ta, tb, autojunk=autojunk)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.add(o0 + oa[i1], n0 + ob[j1], oa[i2] - oa[i1], level < 0)
        elif tag == "replace":
            _align(a[oa[i1]:oa[i2]], b[ob[j1]:ob[j2]], o0 + oa[i1], n0 + ob[j1], out, level + 1)
        # insert / delete: one side is empty, nothing is shared


def equal_ranges(old: str, new: str) -> list[Equal]:
    """The maximal stretches identical in `old` and `new`, sorted, non-overlapping, and in the
    same order in both texts (monotone), as found line by line, then word by word and
    character by character inside changed blocks small enough (module docstring); a short
    coincidence inside a rewritten block is left out (`MIN_REFINED_CHARS`)."""
    out = _Ranges()
    _align(old, new, 0, 0, out, -1)
    return out.kept()


def new_span(ranges: Sequence[Equal], start: int, end: int) -> tuple[int, int] | None:
    """Where the old span [start, end) lies in the new text, if it lies wholly inside one
    equal range (its text is then unchanged); else None."""
    if start > end:
        raise ValueError(f"span [{start}, {end}) ends before it starts")
    i = bisect.bisect_right(ranges, start, key=lambda r: r.old_start) - 1
    if i < 0:
        return None
    r = ranges[i]
    if end > r.old_end:
        return None
    shift = r.new_start - r.old_start
    return start + shift, end + shift


def old_position(ranges: Sequence[Equal], new_pos: int) -> int:
    """An old-text position for a position of the new text: exact inside an equal range;
    inside a change, as far into the old text the change replaced as `new_pos` is into the
    new text that replaced it (clamped to that old text), so the new passages of a region
    that replaced several old ones are spread over them in order."""
    i = bisect.bisect_right(ranges, new_pos, key=lambda r: r.new_start) - 1
    r = ranges[i] if i >= 0 else None
    if r is not None and new_pos < r.new_end:
        return r.old_start + new_pos - r.new_start
    old_from, new_from = (r.old_end, r.new_end) if r is not None else (0, 0)
    nxt = ranges[i + 1] if i + 1 < len(ranges) else None
    old_to = nxt.old_start if nxt is not None else None
    pos = old_from + (new_pos - new_from)
    return pos if old_to is None else min(pos, max(old_from, old_to - 1) if old_to > old_from else old_from)


def changed_chars(ranges: Sequence[Equal], old_len: int, new_len: int) -> tuple[int, int]:
    """(characters of the old text removed, characters of the new text added): what the equal
    ranges do not cover."""
    kept = sum(r.length for r in ranges)
    return old_len - kept, new_len - kept

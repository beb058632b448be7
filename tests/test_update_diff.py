"""chunker.update.diff: the stretches an old and a new text share, found fast on a whole novel."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings, strategies as st

from chunker.update.diff import (MIN_REFINED_CHARS, WORD_REFINE_MAX_CHARS, Equal, changed_chars,
                                 equal_ranges, new_span, old_position)
from conftest import EMMA

EMMA = EMMA.read_text(encoding="utf-8")


def check_ranges(old: str, new: str, ranges: list[Equal]) -> None:
    """Identical, sorted, monotone in both texts, non-overlapping, and maximal: two ranges
    that touch in both texts would be one."""
    for r in ranges:
        assert r.length > 0
        assert old[r.old_start:r.old_end] == new[r.new_start:r.new_end]
    for a, b in zip(ranges, ranges[1:]):
        assert a.old_end <= b.old_start and a.new_end <= b.new_start
        assert not (a.old_end == b.old_start and a.new_end == b.new_start)


def timed(old: str, new: str) -> list[Equal]:
    start = time.perf_counter()
    ranges = equal_ranges(old, new)
    assert time.perf_counter() - start < 1.0
    check_ranges(old, new, ranges)
    return ranges


def paragraph_at(text: str, pos: int) -> tuple[int, int]:
    """The span of the first paragraph of at least 300 characters from `pos` on."""
    while True:
        start = text.index("\n\n", pos) + 2
        end = text.index("\n", start)
        if end - start >= 300:
            return start, end
        pos = end


def test_emma_one_paragraph_edited_in_the_middle():
    start, end = paragraph_at(EMMA, len(EMMA) // 2)
    new = EMMA[:start + 100] + "Harriet blushed!" + EMMA[start + 160:]
    ranges = timed(EMMA, new)
    assert ranges == [Equal(0, 0, start + 100), Equal(start + 160, start + 116, len(EMMA) - start - 160)]
    assert changed_chars(ranges, len(EMMA), len(new)) == (60, 16)
    # edited at two places: what lies between them in the paragraph is kept too
    new = new[:start + 116 + 100] + "!" + new[start + 116 + 101:]
    ranges = timed(EMMA, new)
    assert [r.old_start for r in ranges] == [0, start + 160, start + 261]
    assert changed_chars(ranges, len(EMMA), len(new)) == (61, 17)


def test_emma_a_sentence_added_at_the_start():
    added = "This copy was edited. "
    ranges = timed(EMMA, added + EMMA)
    assert ranges == [Equal(0, len(added), len(EMMA))]
    assert changed_chars(ranges, len(EMMA), len(added) + len(EMMA)) == (0, len(added))


def test_emma_three_edits_far_apart():
    new = EMMA
    for pos in (700_000, 450_000, 100_000):  # from the end, so earlier positions hold
        start, _ = paragraph_at(new, pos)
        new = new[:start + 10] + "[an editor's note]" + new[start + 15:]
    ranges = timed(EMMA, new)
    assert len(ranges) == 4
    removed, added = changed_chars(ranges, len(EMMA), len(new))
    assert removed <= 15 and added <= 3 * len("[an editor's note]")
    assert added - removed == 3 * (len("[an editor's note]") - 5)


def test_emma_a_rewritten_paragraph_keeps_the_rest():
    start, end = paragraph_at(EMMA, 300_000)
    new = EMMA[:start] + "Completely other words, unlike the old ones.\n" + EMMA[end + 1:]
    ranges = timed(EMMA, new)
    # the rewrite shares only coincidences (" the ") with the old paragraph: none is kept
    assert ranges[0].old_end <= start + 1 and ranges[-1].old_start >= end - 1
    assert all(r.length >= MIN_REFINED_CHARS for r in ranges)


def test_edits_inside_one_line_keep_the_rest_of_the_line():
    line = "Mr. Knightley, a sensible man about seven or eight-and-thirty, was a very old friend.\n"
    old = "Chapter one.\n\n" + line + "\nThe end.\n"
    edited = line.replace("sensible", "sober").replace("very old", "dear old")
    new = "Chapter one.\n\n" + edited + "\nThe end.\n"
    ranges = equal_ranges(old, new)
    check_ranges(old, new, ranges)
    # the text between the two edits is one stretch, kept
    between = " man about seven or eight-and-thirty, was a "
    at = old.index(between)
    assert new_span(ranges, at, at + len(between)) == (new.index(between), new.index(between) + len(between))
    # a spelling fixed in two words costs only the letters
    old = "The colour of the walls matched the honour of the house, as everybody said.\n"
    new = old.replace("colour", "color").replace("honour", "honor")
    assert changed_chars(equal_ranges(old, new), len(old), len(new)) == (2, 0)


def test_a_huge_line_stays_fast():
    line = EMMA[:200_000].replace("\n", " ")
    old = "Title\n" + line + "\nEnd\n"
    # one edit: the common prefix and suffix keep the rest of the line, exactly
    new = old[:100_000] + "Harriet blushed!" + old[100_010:]
    assert timed(old, new) == [Equal(0, 0, 100_000), Equal(100_010, 100_016, len(old) - 100_010)]
    # edited at both ends: too big to align word by word (WORD_REFINE_MAX_CHARS), so the line
    # counts as changed, but quickly
    new = "Title\n" + "Edited. " + line[50:-50] + " Edited.\nEnd\n"
    ranges = timed(old, new)
    assert changed_chars(ranges, len(old), len(new))[0] >= len(line) - 100 > WORD_REFINE_MAX_CHARS


def test_a_long_word_edited_twice_keeps_its_middle():
    # one token to the word level (a long identifier; a run of CJK text is the same): the
    # characters between the two edits are found by the character level
    word = "configure_the_interface_of_the_update_module_before_running_it"
    edited = word.replace("configure", "set").replace("running", "using")
    old, new = f"Call {word} first.\n", f"Call {edited} first.\n"
    ranges = equal_ranges(old, new)
    check_ranges(old, new, ranges)
    middle = "_the_interface_of_the_update_module_before_"
    at = old.index(middle)
    assert new_span(ranges, at, at + len(middle)) == (new.index(middle), new.index(middle) + len(middle))


def test_identical_empty_and_disjoint_texts():
    assert equal_ranges("same\ntext\n", "same\ntext\n") == [Equal(0, 0, 10)]
    assert changed_chars([Equal(0, 0, 10)], 10, 10) == (0, 0)
    assert equal_ranges("", "") == []
    assert equal_ranges("", "new") == []
    assert equal_ranges("abc", "xyz") == []
    assert changed_chars([], 3, 3) == (3, 3)


def test_new_span_only_inside_one_range():
    ranges = [Equal(0, 0, 10), Equal(15, 12, 20), Equal(40, 40, 5)]
    assert new_span(ranges, 2, 8) == (2, 8)
    assert new_span(ranges, 15, 35) == (12, 32)  # the whole range
    assert new_span(ranges, 20, 36) is None  # runs past its range
    assert new_span(ranges, 8, 20) is None  # across a change
    assert new_span(ranges, 11, 14) is None  # inside a change
    assert new_span(ranges, 50, 60) is None  # past the last range
    assert new_span([Equal(5, 0, 10)], 0, 3) is None  # before the first
    assert new_span([], 0, 3) is None
    with pytest.raises(ValueError):
        new_span(ranges, 5, 2)


def test_old_position():
    ranges = [Equal(0, 0, 10), Equal(15, 12, 20)]
    assert old_position(ranges, 4) == 4
    assert old_position(ranges, 20) == 23  # exact inside a range
    # inside a change (old [10, 15) replaced by new [10, 12)): as far into the old text
    assert old_position(ranges, 10) == 10
    assert old_position(ranges, 11) == 11
    assert old_position(ranges, 40) == 43  # past the last range: on into the old tail
    assert old_position([Equal(7, 5, 3)], 2) == 2  # before the first range
    assert old_position([Equal(7, 5, 3)], 4) == 4
    assert old_position([], 9) == 9
    # a long new text replacing a short old one stays inside the old one
    assert old_position([Equal(0, 0, 10), Equal(12, 40, 5)], 35) == 11


pieces = st.sampled_from(["Emma ", "said ", "the ", "\n", "\n\n", ". ", "é", "Mr. Knightley ",
                          "colour ", "x" * 50, "\r\n", "and "])
texts = st.lists(pieces, max_size=40).map("".join)
edits = st.lists(st.tuples(st.floats(0, 1), st.integers(0, 20), texts), max_size=4)


@settings(max_examples=150, deadline=None)
@given(texts, edits)
def test_any_edits_give_valid_ranges(old, changes):
    new = old
    for where, cut, inserted in changes:
        pos = int(where * len(new))
        new = new[:pos] + inserted + new[pos + cut:]
    ranges = equal_ranges(old, new)
    check_ranges(old, new, ranges)
    for r in ranges:  # every old position in a range maps to its new position, and back
        for pos in (r.old_start, r.old_end - 1):
            moved = r.new_start + pos - r.old_start
            assert new_span(ranges, pos, pos + 1) == (moved, moved + 1)
            assert old_position(ranges, moved) == pos
    removed, added = changed_chars(ranges, len(old), len(new))
    assert removed >= 0 and added >= 0 and added - removed == len(new) - len(old)

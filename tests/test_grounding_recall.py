"""Rewrite recall (`chunker.grounding.recall`): the share of a leaf's long terms and numbers
that its rewrite kept, below `rewrite_min_recall` the original stays the context."""

from __future__ import annotations

import pytest

from chunker.grounding.recall import recall, recall_terms

ORIGINAL = "Miss Taylor's wedding was on 3.5 acres in 1816; there were twelve guests."


def test_terms_are_long_runs_of_letters_or_digits_and_numbers_case_folded():
    # 4+ characters, stop words included ("there", "were"); "3.5" is a number; "on", "in" too short
    assert recall_terms(ORIGINAL) == {"miss", "taylor", "wedding", "3.5", "acres", "1816", "there",
                                      "were", "twelve", "guests"}
    # a short run of letters and digits leaves its number ("A1" -> "1", "v2.5" -> "2.5")
    assert recall_terms("Route A1 or B12 at v2.5, section 12,000.") == {"route", "1", "12", "2.5",
                                                                         "section", "12,000"}


def test_recall_is_the_share_of_the_originals_terms_kept():
    kept = "There were twelve guests at MISS TAYLOR's wedding in 1816, on 3.5 acres."
    assert recall(ORIGINAL, kept) == 1.0
    lost = "Miss Taylor married. There were guests."  # miss, taylor, there, were, guests: 5 of 10
    assert recall(ORIGINAL, lost) == pytest.approx(5 / 10)
    assert recall(ORIGINAL, "") == 0.0


def test_an_original_without_terms_is_fully_recalled():
    assert recall("Oh, no! It is I.", "") == 1.0

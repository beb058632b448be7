"""Every path through phase 1 in phrase mode (the LLM copies the next topic's first words),
on a real document, with the scripted model. Candidates mode has tests of its own."""

import logging
import re

from chunker.document.units import sentence_ends
from conftest import EMMA, assert_lossless, leaves, run_text, scripted

PHRASE = dict(boundary_mode="phrase")
SMALL = dict(min_chunk_tokens=120, max_chunk_tokens=600, background_budget_tokens=200, **PHRASE)


def test_complete_at_first_check(cinderella):
    out, _ = run_text(cinderella, scripted(), **SMALL)
    s = out["stats"]
    # the last leaf ends with the document: its window holds the rest, shorter than the
    # minimum, so there is nothing to ask
    assert s["calls.completeness"] + s["calls_saved.end"] == s["leaves"] == len(leaves(out["tree"]))
    assert s.get("boundary.end") == s["calls_saved.end"] == 1
    assert s["boundary.match"] + 1 == s["leaves"]  # every other leaf ends at the phrase it named
    assert {l["boundary"] for l in leaves(out["tree"])} == {"match", "end"}
    assert "calls.boundary_retry" not in s and "forced_splits" not in s
    assert_lossless(out["tree"], cinderella)


def test_incomplete_then_expand(cinderella):
    out, _ = run_text(cinderella, scripted(complete_after_chars=1200), **SMALL)
    s = out["stats"]
    assert s["boundary.incomplete"] > 0
    # forced leaves (expansions exhausted) end without a final "complete" answer, and so
    # does a last window that holds the rest of the text with nothing to choose
    assert s["calls.completeness"] == s["leaves"] - s.get("forced_splits", 0) - s.get("calls_saved.end", 0) \
        + s["boundary.incomplete"]
    assert all(len(l["original"]) >= 1000 for l in leaves(out["tree"])[:-1])
    assert_lossless(out["tree"], cinderella)


def test_miss_retry_match(cinderella):
    out, _ = run_text(cinderella, scripted(faults={"paraphrase": 1.0}), **SMALL)
    s = out["stats"]
    # every first answer misses, every retry matches; the last leaf ends with the document
    assert s["boundary.miss"] == s["calls.boundary_retry"] == s["boundary.retry_match"] == s["leaves"] - 1
    assert "boundary.fallback" not in s
    assert {l["boundary"] for l in leaves(out["tree"])} == {"retry_match", "end"}
    assert_lossless(out["tree"], cinderella)


def test_miss_twice_then_fallback(cinderella):
    out, _ = run_text(cinderella, scripted(faults={"paraphrase": 1.0, "paraphrase_retry": 1.0}), **SMALL)
    s = out["stats"]
    assert s["boundary.fallback"] >= s["leaves"] - 1
    assert s["boundary.miss"] == 2 * s["boundary.fallback"]
    assert_lossless(out["tree"], cinderella)


def test_absent_phrase_falls_back(cinderella):
    out, _ = run_text(cinderella, scripted(faults={"absent": 1.0}), **SMALL)
    assert out["stats"]["boundary.fallback"] >= 1
    assert_lossless(out["tree"], cinderella)


def test_forced_split_by_tokens(cinderella, caplog):
    with caplog.at_level(logging.WARNING, logger="chunker"):
        out, _ = run_text(cinderella, scripted(faults={"incomplete": 1.0}), min_chunk_tokens=100,
                          max_chunk_tokens=200, max_expansion_attempts=1000, background_budget_tokens=100,
                          **PHRASE)
    s = out["stats"]
    assert s["forced_splits"] >= len(cinderella) // 1200
    forced = [l for l in leaves(out["tree"]) if l["forced_split"]]
    assert forced and all(l["token_count"] <= 200 for l in forced)
    assert "forced split" in caplog.text
    assert_lossless(out["tree"], cinderella)


def test_forced_split_by_attempts(cinderella):
    out, _ = run_text(cinderella, scripted(faults={"incomplete": 1.0}), min_chunk_tokens=100,
                      max_chunk_tokens=5000, max_expansion_attempts=2, background_budget_tokens=100,
                      model_window=32768, **PHRASE)  # a window that can hold a 5000-token predecessor
    s = out["stats"]
    forced = [l for l in leaves(out["tree"]) if l["forced_split"]]
    assert s["forced_splits"] == len(forced) >= 3
    # a forced leaf was judged incomplete at its first window and after each of its
    # max_expansion_attempts expansions; the last leaf ends with the document
    assert s["leaves"] - s["forced_splits"] == 1
    assert 1 <= s["calls.completeness"] - 3 * s["forced_splits"] <= 3
    assert_lossless(out["tree"], cinderella)


def test_one_huge_sentence_splits_at_words():
    text = ("alpha beta gamma delta " * 600).strip()
    out, _ = run_text(text, scripted(), min_chunk_tokens=50, max_chunk_tokens=150, **PHRASE)
    ls = leaves(out["tree"])
    assert len(ls) > 10 and all(l["forced_split"] for l in ls[:-1])
    assert all(l["original"].endswith(" ") for l in ls[:-1])  # cut at word boundaries
    assert_lossless(out["tree"], text)


def test_one_giant_word_splits_under_the_cap():
    text = "x" * 50_000
    out, _ = run_text(text, scripted(), min_chunk_tokens=50, max_chunk_tokens=300, **PHRASE)
    assert all(l["token_count"] <= 300 for l in leaves(out["tree"]))
    assert_lossless(out["tree"], text)


_UNIT_END = {"paragraph": re.compile(r"\n[ \t]*\n\s*"), "word": re.compile(r"\S+\s*")}


def _unit_ends(text: str, unit: str) -> set[int]:
    """Every boundary of `unit` in `text` (found here, not by the code under test)."""
    if unit == "sentence":
        return set(sentence_ends(text))
    return {m.end() for m in _UNIT_END[unit].finditer(text)} | {len(text)}


def _cut_ends(text: str, unit: str) -> list[int]:
    """Where the leaves of a run with `split_unit=unit` end (forced splits aside)."""
    out, _ = run_text(text, scripted(), split_unit=unit, **SMALL)
    assert_lossless(out["tree"], text)
    return [leaf["span"][1] for leaf in leaves(out["tree"])[:-1] if not leaf["forced_split"]]


def test_paragraph_unit_cuts_only_at_paragraph_ends():
    text = EMMA.read_text(encoding="utf-8")[:30_000]
    paragraphs = _unit_ends(text, "paragraph")
    by_paragraph = _cut_ends(text, "paragraph")
    assert len(by_paragraph) >= 10 and set(by_paragraph) <= paragraphs
    # the sentence unit on the same text does cut inside paragraphs: the check can tell
    by_sentence = _cut_ends(text, "sentence")
    assert not set(by_sentence) <= paragraphs


def test_word_unit_cuts_at_word_ends_not_only_sentence_ends(cinderella):
    cuts = _cut_ends(cinderella, "word")
    sentences = _unit_ends(cinderella, "sentence")
    assert len(cuts) >= 10 and set(cuts) <= _unit_ends(cinderella, "word")
    assert sum(end in sentences for end in cuts) < len(cuts) / 2


def test_invalid_outputs_are_repaired_or_fall_back(cinderella):
    out, _ = run_text(cinderella, scripted(faults={"invalid_json": 0.5, "empty": 0.2}), **SMALL)
    s = out["stats"]
    assert s["invalid_outputs"] > 0 and s["repairs"] > 0
    tree = out["tree"]
    assert all(n["summary"] and n["rewritten"] for n in tree["nodes"])
    assert_lossless(tree, cinderella)


def test_unfaithful_rewrite_and_empty_summary_fall_back(cinderella):
    out, _ = run_text(cinderella, scripted(rewrite="The passage is rewritten to be concise.",
                                           summary="..."), **SMALL)
    s = out["stats"]
    assert s["rewrite.unfaithful"] == s["fallback.rewrite"] == s["leaves"]
    assert s["fallback.summary"] >= s["leaves"]
    for leaf in leaves(out["tree"]):
        assert leaf["rewritten"] == " ".join(leaf["original"].split())  # the facts are kept
        assert leaf["summary"] != "..." and len(leaf["summary"]) > 10
    assert_lossless(out["tree"], cinderella)

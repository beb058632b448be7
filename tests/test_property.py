"""Whatever the text and however the model misbehaves, the tree is lossless.

Every property runs in both boundary modes, with the faults that act in that mode
(`MODE_FAULTS`: a number cannot be misquoted, start inside a word or fall before the
minimum), and checks that each fault that changed an answer left its count in the stats.
"""

import pytest
from hypothesis import HealthCheck, currently_in_test_context, event, given, settings, strategies as st

from chunker.config.settings import ChunkerSettings
from chunker.document.tokens import count_tokens
from chunker.document.units import sentence_ends
from chunker.llm.registry import get_model
from chunker.testing.scripted import MODE_FAULTS
from conftest import assert_lossless, leaves, run_text, scripted

MODES = ("candidates", "phrase")
NAMED = ("match", "retry_match")  # a cut the model named (a phrase or a number), validated

pieces = st.one_of(
    st.text(min_size=1, max_size=40),  # any unicode, control chars included
    st.sampled_from(["\r\n", "\n\n", "\r", ". ", "? ", "\u200b", "\u05e9\u05dc\u05d5\u05dd ",
                     "e\u0301", "\U0001f600", "word ", "x" * 300, "Mr. Smith. "]),
)
texts = st.lists(pieces, min_size=1, max_size=60).map("".join).filter(lambda t: t.strip() and "\x00" not in t)


def fault_sets(mode: str):
    # `error` is a transient failure, retried by the graph's retry policy (test_crash_resume)
    return st.fixed_dictionaries({}, optional={
        k: st.sampled_from([0.3, 1.0]) for k in MODE_FAULTS[mode] if k != "error"})


def run(text: str, mode: str, faults: dict, seed: int, **cfg) -> tuple[dict, dict]:
    """A whole run; returns (final state, how many answers each fault changed)."""
    spec = scripted(faults=faults, seed=seed)
    out, _ = run_text(text, spec, boundary_mode=mode, **cfg)
    fired = get_model(ChunkerSettings(model=spec).llm).fired
    if currently_in_test_context():  # --hypothesis-show-statistics: how often faults acted
        event("faults acted: " + (" ".join(sorted(fired)) or "none"))
    return out, fired


def assert_faults_counted(stats: dict, fired: dict) -> None:
    """Each answer a fault changed reached validation and was counted as what it is."""
    n = lambda key: stats.get(key, 0)  # noqa: E731
    # an unoffered number, or a phrase nowhere in the text or not verbatim, is a miss
    assert n("boundary.miss") >= sum(fired.get(f, 0) for f in ("absent", "paraphrase", "paraphrase_retry"))
    # "not complete" grows the window, or ends the leaf with the document
    assert n("boundary.incomplete") + n("boundary.end") >= fired.get("incomplete", 0)
    assert n("invalid_outputs") >= fired.get("invalid_json", 0) + fired.get("empty", 0)
    assert n("group.invalid") >= fired.get("bad_groups", 0)


def assert_named_cuts_valid(text: str, tree: dict, mode: str, min_tokens: int) -> None:
    """A named cut never cuts a word, never lands before the minimum size, and in
    candidates mode lies at a sentence end (where every offered cut lies)."""
    ends = set(sentence_ends(text))
    for leaf in leaves(tree)[:-1]:
        if leaf["boundary"] in NAMED:
            end = leaf["span"][1]
            assert not (text[end - 1].isalnum() and text[end].isalnum()), leaf
            assert count_tokens(leaf["original"]) >= min_tokens - 1, leaf
            assert mode == "phrase" or end in ends, leaf


@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), text=texts, seed=st.integers(0, 5), unit=st.sampled_from(["sentence", "paragraph", "word"]))
def test_always_lossless(mode, data, text, seed, unit):
    faults = data.draw(fault_sets(mode), label="faults")
    out, fired = run(text, mode, faults, seed, min_chunk_tokens=5, max_chunk_tokens=40,
                     max_expansion_attempts=3, split_unit=unit, summary_count_threshold=3,
                     background_budget_tokens=30)
    assert_lossless(out["tree"], text)
    assert_named_cuts_valid(text, out["tree"], mode, 5)
    assert_faults_counted(out["stats"], fired)


words = st.lists(st.sampled_from(["alpha", "Beta", "gamma", "delta", "x1", "über", "naïve", "end."]),
                 min_size=1, max_size=12).map(" ".join)
# at least eight sentences: several windows, so that the faults get to act
prose = st.lists(words, min_size=8, max_size=40).map(lambda ws: " ".join(w + "." for w in ws))
# the boundary faults of each mode: a phrase inside a word or before the minimum; a
# number that was not offered
INVALID_BOUNDARIES = {"phrase": ["midword", "early"], "candidates": ["absent"]}


@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), text=prose, rate=st.sampled_from([0.5, 1.0]), seed=st.integers(0, 5))
def test_phrases_inside_a_word_or_before_the_minimum_never_cut_there(mode, data, text, rate, seed):
    """Nor do numbers that were not offered (candidates mode)."""
    fault = data.draw(st.sampled_from(INVALID_BOUNDARIES[mode]), label="fault")
    out, fired = run(text, mode, {fault: rate}, seed, min_chunk_tokens=8, max_chunk_tokens=60,
                     max_expansion_attempts=3, summary_count_threshold=3, background_budget_tokens=30)
    assert_lossless(out["tree"], text)
    for leaf in leaves(out["tree"])[:-1]:
        end = leaf["span"][1]
        assert not (text[end - 1].isalnum() and text[end].isalnum()), leaf
    assert_named_cuts_valid(text, out["tree"], mode, 8)
    assert_faults_counted(out["stats"], fired)
    # no vocabulary word starts with another's tail: a phrase that starts inside a word
    # occurs nowhere at a word start, so each one is a miss
    assert out["stats"].get("boundary.miss", 0) >= fired.get("midword", 0)


# Markdown-like input (issue 13): headings of both styles, fences holding heading-like lines,
# pipe tables (some larger than max_chunk_tokens), display math, figures, front matter.
_md_words = st.lists(st.sampled_from(["alpha", "Beta", "gamma", "delta.", "x1", "naïve", "end."]),
                     min_size=1, max_size=30).map(" ".join)
_md_blocks = st.one_of(
    st.builds(lambda lvl, w: "#" * lvl + " " + w + "\n", st.integers(1, 6), _md_words),
    st.builds(lambda w, c: w + "\n" + c * 3 + "\n", _md_words, st.sampled_from("=-")),
    _md_words.map(lambda w: w + "\n"),
    st.builds(lambda w: "```\n# not a heading\n" + w + "\n```\n", _md_words),
    st.builds(lambda rows: "| a | b |\n|---|---|\n" + "".join(f"| r{i} alpha beta | {i} |\n"
                                                              for i in range(rows)),
              st.integers(1, 30)),
    st.just("$$\nE = mc^2\n$$\n"),
    st.just("![a figure](fig.png)\n"),
    st.just("\n"),
)
md_texts = st.builds(lambda fm, blocks: fm + "\n".join(blocks),
                     st.sampled_from(["", "---\ntitle: T\n---\n"]),
                     st.lists(_md_blocks, min_size=1, max_size=25)).filter(lambda t: t.strip())


@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), text=md_texts, seed=st.integers(0, 5))
def test_markdown_is_lossless_and_never_cut_inside_a_unit_or_across_a_heading(mode, data, text, seed):
    from chunker.chunking.outline import outline_of
    from chunker.document.structure import parse_structure, safe_cut, table_row_cuts

    max_tokens = 40
    faults = data.draw(fault_sets(mode), label="faults")
    out, fired = run(text, mode, faults, seed, structure="markdown", strategy="peel", min_chunk_tokens=5,
                     max_chunk_tokens=max_tokens, max_expansion_attempts=3, summary_count_threshold=3,
                     background_budget_tokens=30)
    assert_lossless(out["tree"], text)
    assert_faults_counted(out["stats"], fired)
    structure = parse_structure(text)
    big_table_rows = {cut for u in structure.atomic_units
                      if u.kind == "table" and count_tokens(text[u.start:u.end]) > max_tokens
                      for cut in table_row_cuts((u.start, u.end), text)}
    joins = outline_of(structure, text).joins  # a heading without text runs into its subsection
    for leaf in leaves(out["tree"]):
        start, end = leaf["span"]
        assert safe_cut(end, structure) or end in big_table_rows, leaf
        assert not any(start < h.start < end and h.start not in joins for h in structure.headings), leaf


# Each fault, alone, on a real text: it changes answers in every mode where it means
# something, and leaves the count that shows it (the properties above hold whether or
# not a drawn fault happened to act; these runs make sure each one does).
CONSEQUENCE = {
    "absent": ("boundary.miss", "boundary.fallback"),
    "paraphrase": ("boundary.miss", "boundary.retry_match"),
    "paraphrase_retry": ("boundary.miss", "boundary.fallback"),
    "midword": ("boundary.miss",),
    "early": ("boundary.miss",),
    "incomplete": ("boundary.incomplete",),
    "invalid_json": ("invalid_outputs", "repairs"),
    "empty": ("invalid_outputs", "repairs"),
    "bad_groups": ("group.invalid", "group.fallback"),
    "oversize": ("group.oversize",),
}
ALONE = {"paraphrase_retry": {"paraphrase": 1.0}}  # the retry follows a first miss
RATE = {"incomplete": 0.5, "invalid_json": 0.5, "empty": 0.5}
SMALL = dict(min_chunk_tokens=120, max_chunk_tokens=600, background_budget_tokens=200,
             summary_count_threshold=8)  # more items than max_group_size: `oversize` can act


@pytest.mark.parametrize("mode,fault", [(m, f) for m in MODES for f in MODE_FAULTS[m] if f != "error"])
def test_each_fault_acts_where_it_means_something_and_is_counted(mode, fault, cinderella):
    out, fired = run(cinderella, mode, {fault: RATE.get(fault, 1.0), **ALONE.get(fault, {})}, 0, **SMALL)
    assert_lossless(out["tree"], cinderella)
    assert fired.get(fault, 0) > 0, fired
    assert_faults_counted(out["stats"], fired)
    for key in CONSEQUENCE[fault]:
        assert out["stats"].get(key, 0) > 0, (key, out["stats"])


@pytest.mark.parametrize("fault", sorted(set(MODE_FAULTS["phrase"]) - set(MODE_FAULTS["candidates"])))
def test_phrase_faults_change_nothing_in_candidates_mode(fault, cinderella):
    clean, _ = run(cinderella, "candidates", {}, 0, **SMALL)
    out, fired = run(cinderella, "candidates", {fault: 1.0}, 0, **SMALL)
    assert fired == {}
    assert [(leaf["span"], leaf["boundary"]) for leaf in leaves(out["tree"])] == \
        [(leaf["span"], leaf["boundary"]) for leaf in leaves(clean["tree"])]

"""Whatever the text and however the model misbehaves, the tree is lossless."""

from hypothesis import HealthCheck, given, settings, strategies as st

from chunker.document.tokens import count_tokens
from conftest import assert_lossless, leaves, run_text, scripted

pieces = st.one_of(
    st.text(min_size=1, max_size=40),  # any unicode, control chars included
    st.sampled_from(["\r\n", "\n\n", "\r", ". ", "? ", "\u200b", "\u05e9\u05dc\u05d5\u05dd ",
                     "e\u0301", "\U0001f600", "word ", "x" * 300, "Mr. Smith. "]),
)
texts = st.lists(pieces, min_size=1, max_size=60).map("".join).filter(lambda t: t.strip() and "\x00" not in t)
fault_sets = st.fixed_dictionaries({}, optional={
    k: st.sampled_from([0.0, 0.3, 1.0]) for k in
    ("paraphrase", "paraphrase_retry", "absent", "midword", "early", "incomplete", "invalid_json", "empty",
     "bad_groups", "oversize")
})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts, faults=fault_sets, seed=st.integers(0, 5),
       unit=st.sampled_from(["sentence", "paragraph", "word"]))
def test_always_lossless(text, faults, seed, unit):
    out, _ = run_text(text, scripted(faults=faults, seed=seed), min_chunk_tokens=5,
                      max_chunk_tokens=40, max_expansion_attempts=3, split_unit=unit,
                      summary_count_threshold=3, background_budget_tokens=30)
    assert_lossless(out["tree"], text)
    # a boundary the model named (a phrase validated against the text) never cuts a word
    # and never lands before the window's minimum size
    for leaf in leaves(out["tree"])[:-1]:
        if leaf["boundary"] in ("match", "retry_match"):
            end = leaf["span"][1]
            assert not (text[end - 1].isalnum() and text[end].isalnum()), leaf
            assert count_tokens(leaf["original"]) >= 5 - 1, leaf


words = st.lists(st.sampled_from(["alpha", "Beta", "gamma", "delta", "x1", "über", "naïve", "end."]),
                 min_size=1, max_size=12).map(" ".join)
prose = st.lists(words, min_size=3, max_size=40).map(lambda ws: " ".join(w + "." for w in ws))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=prose, fault=st.sampled_from(["midword", "early"]), rate=st.sampled_from([0.5, 1.0]),
       seed=st.integers(0, 5))
def test_phrases_inside_a_word_or_before_the_minimum_never_cut_there(text, fault, rate, seed):
    out, _ = run_text(text, scripted(faults={fault: rate}, seed=seed), min_chunk_tokens=8,
                      max_chunk_tokens=60, max_expansion_attempts=3, summary_count_threshold=3,
                      background_budget_tokens=30)
    assert_lossless(out["tree"], text)
    for leaf in leaves(out["tree"])[:-1]:
        end = leaf["span"][1]
        assert not (text[end - 1].isalnum() and text[end].isalnum()), leaf
        if leaf["boundary"] in ("match", "retry_match"):
            assert count_tokens(leaf["original"]) >= 8 - 1, leaf

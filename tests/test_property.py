"""Whatever the text and however the model misbehaves, the tree is lossless."""

from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import assert_lossless, run_text, scripted

pieces = st.one_of(
    st.text(min_size=1, max_size=40),  # any unicode, control chars included
    st.sampled_from(["\r\n", "\n\n", "\r", ". ", "? ", "\u200b", "\u05e9\u05dc\u05d5\u05dd ",
                     "e\u0301", "\U0001f600", "word ", "x" * 300, "Mr. Smith. "]),
)
texts = st.lists(pieces, min_size=1, max_size=60).map("".join).filter(lambda t: t.strip() and "\x00" not in t)
fault_sets = st.fixed_dictionaries({}, optional={
    k: st.sampled_from([0.0, 0.3, 1.0]) for k in
    ("paraphrase", "paraphrase_retry", "absent", "incomplete", "invalid_json", "empty", "bad_groups", "oversize")
})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts, faults=fault_sets, seed=st.integers(0, 5),
       unit=st.sampled_from(["sentence", "paragraph", "word"]))
def test_always_lossless(text, faults, seed, unit):
    out, _ = run_text(text, scripted(faults=faults, seed=seed), min_chunk_tokens=5,
                      max_chunk_tokens=40, max_expansion_attempts=3, split_unit=unit,
                      summary_count_threshold=3, background_budget_tokens=30)
    assert_lossless(out["tree"], text)

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


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=md_texts, faults=fault_sets, seed=st.integers(0, 5))
def test_markdown_is_lossless_and_never_cut_inside_a_unit_or_across_a_heading(text, faults, seed):
    from chunker.document.structure import parse_structure, safe_cut, table_row_cuts

    max_tokens = 40
    out, _ = run_text(text, scripted(faults=faults, seed=seed), structure="markdown", strategy="peel",
                      min_chunk_tokens=5, max_chunk_tokens=max_tokens, max_expansion_attempts=3,
                      summary_count_threshold=3, background_budget_tokens=30)
    assert_lossless(out["tree"], text)
    structure = parse_structure(text)
    big_table_rows = {cut for u in structure.atomic_units
                      if u.kind == "table" and count_tokens(text[u.start:u.end]) > max_tokens
                      for cut in table_row_cuts((u.start, u.end), text)}
    for leaf in leaves(out["tree"]):
        start, end = leaf["span"]
        assert safe_cut(end, structure) or end in big_table_rows, leaf
        assert not any(start < h.start < end for h in structure.headings), leaf

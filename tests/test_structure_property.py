"""On Markdown-like random input, sections tile the text and atomic spans are exact whole lines."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as st

from chunker.document.structure import DocumentStructure, atomic_spans, parse_structure, safe_cut

# one line of text: anything but a line break (NUL and other controls included)
line_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), max_size=24)
word = st.sampled_from(["alpha", "beta", "*em*", "`code`", "| pipe", "$x$", "# hash", "---", "===",
                        "```", "$$", "![i](p.png)", "> quote", "- item", "1. one", "    indented", ""])
words = st.lists(st.one_of(word, line_text), min_size=1, max_size=4).map(" ".join)


@st.composite
def atx(draw):
    marks = "#" * draw(st.integers(1, 7))  # 7 marks is not a heading
    indent = " " * draw(st.integers(0, 4))  # 4 spaces is indented code
    return [f"{indent}{marks} {draw(words)}" + draw(st.sampled_from(["", " ##", " #"]))]


@st.composite
def setext(draw):
    return [draw(words), draw(st.sampled_from(["=", "-"])) * draw(st.integers(1, 5))]


@st.composite
def fence(draw):
    marker = draw(st.sampled_from(["```", "~~~", "````"]))
    body = draw(st.lists(st.one_of(words, atx().map(lambda l: l[0])), max_size=4))
    closed = draw(st.booleans())
    return [marker + draw(st.sampled_from(["", "python", "rust"])), *body] + ([marker] if closed else [])


@st.composite
def table(draw):
    cols = draw(st.integers(1, 4))
    row = lambda cells: "| " + " | ".join(cells) + " |"  # noqa: E731
    cell = st.sampled_from(["a", "1", "`x|y`", "\\|", " ", "**b**", "long cell text"])
    rows = draw(st.lists(st.lists(cell, min_size=cols, max_size=cols), max_size=5))
    return [row(["h"] * cols), row(["---"] * cols), *(row(r) for r in rows)]


@st.composite
def math(draw):
    body = draw(st.lists(st.sampled_from(["x^2", "a + b", "\\frac{1}{2}", "# no"]), max_size=3))
    return ["$$", *body] + (["$$"] if draw(st.booleans()) else [])


block = st.one_of(
    atx(), setext(), fence(), table(), math(),
    st.lists(words, min_size=1, max_size=3),  # a paragraph
    st.just(["![figure](img.png)"]),
    words.map(lambda w: ["    " + w]),  # indented code
    words.map(lambda w: ["> " + w]),
    words.map(lambda w: ["- " + w]),
    st.just(["---"]), st.just([""]),
)


@st.composite
def documents(draw):
    """(LF text, list of LF lines) of a random Markdown-like document."""
    lines: list[str] = []
    if draw(st.booleans()):
        lines += ["---", draw(st.sampled_from(["title: t", "a: [1, 2]", "- not a mapping", ""])), "---"]
    for blk in draw(st.lists(block, max_size=14)):
        lines += blk
        if draw(st.booleans()):
            lines.append("")
    return lines


def check(structure: DocumentStructure, text: str) -> None:
    # sections tile the text: leaves cut along them concatenate to the source
    assert structure.length == len(text)
    assert "".join(text[s.start:s.end] for s in structure.sections) == text
    assert all(s.start < s.end and s.start <= s.body_start <= s.end for s in structure.sections)
    starts = {0, len(text)} | {i + 1 for i, c in enumerate(text) if c == "\n" or (c == "\r" and text[i + 1:i + 2] != "\n")}
    # atomic units and headings: whole lines inside the text, sorted and non-overlapping
    blocks = sorted([(u.start, u.end) for u in structure.atomic_units] +
                    [(h.start, h.end) for h in structure.headings])
    assert [(u.start, u.end) for u in structure.atomic_units] == sorted((u.start, u.end) for u in structure.atomic_units)
    previous_end = 0
    for start, end in blocks:
        assert previous_end <= start < end <= len(text)
        assert start in starts and end in starts
        previous_end = end
    for start, end, _ in atomic_spans(structure):
        assert safe_cut(start, structure) and safe_cut(end, structure)
        assert not safe_cut((start + end) // 2, structure) or end - start == 1


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=documents(), eol=st.sampled_from(["\n", "\r\n", "\r"]), final=st.booleans())
def test_structure_is_exact_under_every_line_ending(lines, eol, final):
    lf = "\n".join(lines) + ("\n" if final else "")
    text = lf.replace("\n", eol)
    structure = parse_structure(text)
    check(structure, text)
    # same structure as the LF text, with offsets that land on the same characters
    reference = parse_structure(lf)
    assert [h.title for h in structure.headings] == [h.title for h in reference.headings]
    assert [(k, text[s:e].replace(eol, "\n")) for s, e, k in atomic_spans(structure)] == \
        [(k, lf[s:e]) for s, e, k in atomic_spans(reference)]
    assert [text[s.start:s.end].replace(eol, "\n") for s in structure.sections] == \
        [lf[s.start:s.end] for s in reference.sections]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pieces=st.lists(st.one_of(words, st.sampled_from(["\n", "\r\n", "\r", "\n\n", "\r\r", "\n```\n",
                                                          "\n| a |\n|---|\n", "\n# H\n", "\n$$\n"])),
                       max_size=40))
def test_structure_tiles_arbitrary_mixed_input(pieces):
    text = "".join(pieces)
    check(parse_structure(text), text)

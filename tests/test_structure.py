"""Markdown structure: headings, sections, atomic units and front matter, with exact offsets."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunker.document.loader import read_document
from chunker.document.structure import (DocumentStructure, atomic_spans, kind_of, parse_structure,
                                        safe_cut, section_of, table_header, table_row_cuts)
from conftest import EMMA, RUST

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def read(path: Path) -> str:
    return read_document(path)  # the text exactly as stored, line endings included


def assert_tiles(structure: DocumentStructure, text: str) -> None:
    """Sections cover the text with no gap and no overlap, so leaves cut along them stay lossless."""
    assert structure.length == len(text)
    position = 0
    for i, section in enumerate(structure.sections):
        assert section.index == i
        assert section.start == position and section.end > section.start
        assert section.start <= section.body_start <= section.end <= section.subtree_end <= len(text)
        position = section.end
    assert position == len(text)
    assert "".join(text[s.start:s.end] for s in structure.sections) == text


@pytest.fixture(scope="module")
def fixture_text() -> str:
    return read(FIXTURES / "structure_all.md")


@pytest.fixture(scope="module")
def fixture_structure(fixture_text) -> DocumentStructure:
    return parse_structure(fixture_text)


def test_headings_of_every_level_and_both_styles(fixture_structure, fixture_text):
    headings = [(h.level, h.style, h.title) for h in fixture_structure.headings]
    assert headings == [
        (1, "atx", "Level one with code and a link"),
        (2, "atx", "Level two"), (3, "atx", "Level three"), (4, "atx", "Level four"),
        (5, "atx", "Level five"), (6, "atx", "Level six"),
        (1, "setext", "Setext level one"), (2, "setext", "Setext level two"),
        (2, "atx", "Tables and math"), (2, "atx", "Figures"), (2, "atx", "Empty section"),
        (2, "atx", "Nested blocks"),
    ]
    spans = {h.title: fixture_text[h.start:h.end] for h in fixture_structure.headings}
    assert spans["Level one with code and a link"] == "# Level one with `code` and [a link](http://example.com)\n"
    assert spans["Setext level one"] == "Setext level one\n================\n"
    assert spans["Setext level two"] == "Setext level two\n----------------\n"


def test_headings_in_code_or_quotes_are_not_headings(fixture_structure):
    titles = " ".join(h.title for h in fixture_structure.headings)
    assert "not a heading" not in titles
    assert "quoted heading" not in titles


def test_heading_inside_a_fence_only():
    text = "```\n# Fenced\n```\n\n# Real\nbody\n"
    structure = parse_structure(text)
    assert [h.title for h in structure.headings] == ["Real"]
    assert [text[s.start:s.end] for s in structure.sections] == ["```\n# Fenced\n```\n\n", "# Real\nbody\n"]
    assert atomic_spans(structure) == [(0, 17, "code")]


def test_sections_and_header_paths(fixture_structure, fixture_text):
    assert_tiles(fixture_structure, fixture_text)
    preamble, first, *_ = fixture_structure.sections
    assert preamble.heading is None and preamble.level == 0 and preamble.header_path == []
    assert fixture_text[preamble.start:preamble.end].startswith("---\ntitle: Every construct\n")
    assert first.header_path == ["Level one with code and a link"]
    by_title = {s.heading.title: s for s in fixture_structure.sections if s.heading}
    six = by_title["Level six"]
    assert six.header_path == ["Level one with code and a link", "Level two", "Level three",
                               "Level four", "Level five", "Level six"]
    assert six.parent == by_title["Level five"].index
    tables = by_title["Tables and math"]
    assert tables.header_path == ["Setext level one", "Tables and math"]
    assert tables.parent == by_title["Setext level one"].index
    # a level-1 section's subtree runs to the next level-1 heading
    assert first.subtree_end == by_title["Setext level one"].start
    assert by_title["Setext level one"].subtree_end == len(fixture_text)


def test_empty_section(fixture_structure, fixture_text):
    empty = next(s for s in fixture_structure.sections if s.heading and s.heading.title == "Empty section")
    assert fixture_text[empty.start:empty.end] == "## Empty section\n"
    assert empty.body_start == empty.end
    # two headings in a row, and a heading at the very end without a newline
    text = "# A\n## B\n### C"
    structure = parse_structure(text)
    assert_tiles(structure, text)
    assert [(s.start, s.body_start, s.end) for s in structure.sections] == [(0, 4, 4), (4, 9, 9), (9, 14, 14)]
    assert structure.sections[2].header_path == ["A", "B", "C"]


def test_document_without_a_heading_at_the_start():
    text = "Plain opening.\n\nMore.\n\n## Later\ntext\n"
    structure = parse_structure(text)
    assert_tiles(structure, text)
    assert structure.sections[0].heading is None
    assert text[:structure.sections[0].end] == "Plain opening.\n\nMore.\n\n"
    # a document with no heading at all is one preamble section
    plain = "just prose\nover two lines"
    only = parse_structure(plain)
    assert [(s.start, s.end, s.heading) for s in only.sections] == [(0, len(plain), None)]


def test_titles_lose_markup_but_keep_dollars():
    text = "## *Costs* of `push_str`: $5 and $10 ![icon](i.png) [link](u) \\#1\n"
    assert parse_structure(text).headings[0].title == "Costs of push_str: $5 and $10 icon link #1"


def test_skipped_levels_keep_the_path():
    structure = parse_structure("# Top\n### Deep\n## Mid\n")
    assert [s.header_path for s in structure.sections] == [["Top"], ["Top", "Deep"], ["Top", "Mid"]]
    assert [s.parent for s in structure.sections] == [None, 0, 0]


def test_front_matter(fixture_structure, fixture_text):
    fm = fixture_structure.front_matter
    assert fm is not None and fm.start == 0
    assert fixture_text[fm.start:fm.end] == ("---\ntitle: Every construct\nauthors:\n  - Ada\n  - Grace\n"
                                             "date: 2024-05-01\n---\n")
    assert fm.metadata == {"title": "Every construct", "authors": ["Ada", "Grace"], "date": "2024-05-01"}
    assert fixture_structure.model_dump(mode="json")["front_matter"]["metadata"]["date"] == "2024-05-01"
    assert not safe_cut(fm.start + 5, fixture_structure) and safe_cut(fm.end, fixture_structure)


def test_a_leading_rule_that_is_not_yaml_is_markdown():
    text = "---\nA *setext* title\n---\nbody\n"  # a YAML scalar, not a mapping
    structure = parse_structure(text)
    assert structure.front_matter is None
    assert [h.title for h in structure.headings] == ["A setext title"]
    bomb = "---\na: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
        for p, c in zip("abcdefgh", "bcdefghi")) + "---\n# H\n"
    assert parse_structure(bomb).front_matter is None  # aliases expanding past the cap
    assert parse_structure("---\n---\n# H\n").front_matter.metadata == {}


def test_atomic_units_have_exact_spans(fixture_structure, fixture_text):
    found = [(kind, fixture_text[start:end]) for start, end, kind in atomic_spans(fixture_structure)]
    assert found == [
        ("code", '```python\n# not a heading: a comment in a code fence\nprint("hello")\n```\n'),
        ("code", "~~~\n## not a heading either\n~~~\n"),
        ("code", "    # indented code, not a heading\n    x = 1\n"),
        ("table", "| Name  | Value | Note             |\n| ----- | ----: | ---------------- |\n"
                  "| alpha |     1 | first row        |\n| beta  |     2 | second row       |\n"
                  "| gamma |     3 | third row        |\n"),
        ("math", "$$\nE = mc^2\n$$\n"),
        ("math", "$$ a^2 + b^2 = c^2 $$ (pythagoras)\n"),
        ("math", "\\begin{equation}\n\\int_0^1 x\\,dx = \\frac{1}{2}\n\\end{equation}\n"),
        ("figure", "![A diagram of the pipeline](images/pipeline.png)\n"),
        ("figure", "[![A linked badge](images/badge.svg)](https://example.com)\n"),
        ("code", "  ```sh\n  echo nested\n  ```\n"),
        ("table", "  | k | v |\n  |---|---|\n  | a | 1 |\n"),
    ]


@pytest.mark.parametrize("eol", ["\r\n", "\r"])
def test_offsets_exact_with_crlf_and_cr(fixture_text, fixture_structure, eol):
    text = fixture_text.replace("\n", eol)
    structure = parse_structure(text)
    assert_tiles(structure, text)
    assert structure.front_matter.metadata == fixture_structure.front_matter.metadata
    assert [h.title for h in structure.headings] == [h.title for h in fixture_structure.headings]
    lf_blocks = [fixture_text[s:e] for s, e, _ in atomic_spans(fixture_structure)]
    assert [text[s:e].replace(eol, "\n") for s, e, _ in atomic_spans(structure)] == lf_blocks
    assert [text[s.start:s.end].replace(eol, "\n") for s in structure.sections] == \
        [fixture_text[s.start:s.end] for s in fixture_structure.sections]
    for unit in structure.atomic_units:  # every unit ends after its own line ending
        assert text[unit.end - len(eol):unit.end] == eol


def test_final_line_without_newline():
    text = "# T\n\n| a | b |\n|---|---|\n| 1 | 2 |"
    structure = parse_structure(text)
    assert atomic_spans(structure) == [(5, len(text), "table")]
    assert table_row_cuts((5, len(text)), text) == []


def test_safe_cut(fixture_structure, fixture_text):
    for start, end, _ in atomic_spans(fixture_structure):
        assert safe_cut(start, fixture_structure) and safe_cut(end, fixture_structure)
        assert not any(safe_cut(i, fixture_structure) for i in range(start + 1, end))
    setext = next(h for h in fixture_structure.headings if h.style == "setext")
    assert not safe_cut(setext.start + len("Setext level one\n"), fixture_structure)
    prose = fixture_text.index("Intro prose")
    assert safe_cut(prose + 5, fixture_structure)


def test_kind_of(fixture_structure, fixture_text):
    s = fixture_structure
    by_title = {x.heading.title: x for x in s.sections if x.heading}
    units = atomic_spans(s)
    table = next(u for u in units if u[2] == "table")
    assert kind_of(table[:2], s) == "table"
    tables = by_title["Tables and math"]
    assert kind_of((tables.start, table[1] + 1), s) == "table"  # heading and blank line are neutral
    assert kind_of((tables.start, tables.end), s) == "mixed"  # a table and math
    math = [u for u in units if u[2] == "math"]
    assert kind_of((math[0][0], math[-1][1]), s) == "math"
    figures = by_title["Figures"]
    assert kind_of((figures.start, fixture_text.index("Text with an inline")), s) == "figure"
    assert kind_of((figures.start, figures.end), s) == "mixed"  # plus a prose paragraph
    assert kind_of((units[0][0] + 3, units[0][0] + 10), s) == "code"  # part of a block
    intro = by_title["Level one with code and a link"]
    assert kind_of((intro.start, intro.end), s) == "prose"
    assert kind_of((by_title["Empty section"].start, by_title["Empty section"].end), s) == "prose"


def test_section_of(fixture_structure, fixture_text):
    s = fixture_structure
    offset = fixture_text.index("E = mc^2")
    assert section_of(offset, s).header_path == ["Setext level one", "Tables and math"]
    assert section_of(0, s).heading is None
    assert section_of(len(fixture_text), s) is s.sections[-1]
    for section in s.sections:
        assert section_of(section.start, s) is section and section_of(section.end - 1, s) is section
    with pytest.raises(ValueError):
        section_of(len(fixture_text) + 1, s)


def test_table_rows_and_header():
    text = "Before.\n\n| h1 | h2 |\r\n| -- | -- |\r\n| a | 1 |\r\n| b | 2 |\r\n| c | 3 |\r\n\r\nAfter.\n"
    structure = parse_structure(text)
    [(start, end, kind)] = atomic_spans(structure)
    assert kind == "table" and text[start:end].endswith("| c | 3 |\r\n")
    assert table_header((start, end), text) == "| h1 | h2 |\r\n| -- | -- |\r\n"
    cuts = table_row_cuts((start, end), text)
    assert [text[c:c + 5] for c in cuts] == ["| b |", "| c |"]
    parts = [text[a:b] for a, b in zip([start, *cuts], [*cuts, end])]
    assert "".join(parts) == text[start:end]
    assert parts[0] == "| h1 | h2 |\r\n| -- | -- |\r\n| a | 1 |\r\n"
    with pytest.raises(ValueError):
        table_row_cuts((0, 0), text)


def test_corpus_markdown_parses_with_tables_and_code():
    text = read(RUST / "rust-book-appendix-02-operators.md")
    structure = parse_structure(text)
    assert_tiles(structure, text)
    tables = [(s, e) for s, e, k in atomic_spans(structure) if k == "table"]
    assert tables and all(text[s:e].startswith("|") and text[s:e].rstrip().endswith("|") for s, e in tables)
    assert [h.title for h in structure.headings][:2] == ["Appendix B: Operators and Symbols", "Operators"]


def test_emma_chapters():
    text = read(EMMA)
    structure = parse_structure(text)
    assert_tiles(structure, text)
    assert structure.headings[0].title == "Emma" and structure.headings[0].level == 1
    chapters = [s for s in structure.sections if s.level == 2]
    assert len(chapters) == sum(1 for line in text.splitlines() if line.startswith("## "))
    assert chapters[2].header_path == ["Emma", "VOLUME I. CHAPTER III"]


def test_structure_round_trips_through_json(fixture_structure):
    """The graph keeps payloads in its JSON store: the structure must come back equal."""
    dumped = fixture_structure.model_dump_json()
    assert DocumentStructure.model_validate_json(dumped) == fixture_structure

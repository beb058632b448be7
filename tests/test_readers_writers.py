"""The readers on real files other writers made (tests/data/formats/writers, made by
bench/writers_make.py): LibreOffice 7.4's EPUB, PPTX, DOCX and ODT, and pandoc's EPUB 2 with a
table of contents page. Each is checked against the Markdown it came from, or against what
its structures should read as (bench/writers_odf.py wrote the LibreOffice document's source)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

if not os.environ.get("CI"):  # CI installs every reader's extra: a missing library fails there
    for module in ("lxml", "readability", "ebooklib", "docx", "pptx"):
        pytest.importorskip(module)

from chunker.readers.base import ReadSettings  # noqa: E402
from chunker.readers.registry import sniff  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"
WRITERS = DATA / "formats" / "writers"


def read(name: str):
    path = WRITERS / name
    got = sniff(path).read(path, ReadSettings())
    got.check()
    return got


def headings(md: str, levels: bool = True) -> list:
    fenced, out = False, []
    for line in md.splitlines():
        fenced ^= line.startswith("```")
        m = re.match(r"^(#{1,6}) (.*)$", line)
        if m and not fenced:
            title = re.sub(r"[`*]", "", m.group(2)).strip()
            out.append((len(m.group(1)), title) if levels else title)
    return out


def test_libreoffice_epub_headings_and_code_come_from_its_stylesheet():
    """LibreOffice writes no heading element: `<p class="para3"><span class="span6">`."""
    got = read("libreoffice-rust-book-ch08-02-strings.epub")
    source = (DATA / "markdown" / "rust-book-ch08-02-strings.md").read_text(encoding="utf-8")
    want = headings(source)
    # the levels are relative (the file names none): the chapter's `##` is the book's `#`
    assert headings(got.markdown) == [(level - 1, title) for level, title in want]
    assert "```\n{{#rustdoc_include ../listings/ch08-common-collections/listing-08-11/src/main.rs:here}}\n```" in got.markdown
    assert "the `push_str` method" in got.markdown


def test_libreoffice_deck_titles_and_columns():
    """Impress's content placeholders are `<p:ph/>` (index 0): no title; the text column on the
    left is read before the table on the right, as the chapter reads."""
    got = read("libreoffice-rust-book-ch03-02-data-types.pptx")
    source = (DATA / "markdown" / "rust-book-ch03-02-data-types.md").read_text(encoding="utf-8")
    want = [t for t in headings(source, levels=False) if t != "Integer Overflow"]  # a quote's
    have = headings(got.markdown, levels=False)
    assert [t for t in have if t in want] == want
    assert all(len(t.split()) <= 6 for t in have)  # no paragraph taken for a title
    md = got.markdown
    assert md.index("Table 3-1: Integer Types in Rust") < md.index("| Length | Signed | Unsigned |")


STRUCTURES = [(1, "Emma, an excerpt"), (1, "Volume One"), (2, "Chapter I"), (3, "Hartfield"),
              (3, "The household"), (2, "Chapter II")]


@pytest.mark.parametrize("name", ["libreoffice-structures.docx", "libreoffice-structures.odt"])
def test_libreoffice_document_structures(name):
    """Outline numbering, a heading inside a list, custom heading styles, a generated table of
    contents, a frame, fields, notes, merged and nested table cells, a tracked deletion."""
    md = read(name).markdown
    assert headings(md) == STRUCTURES
    assert "Contents" not in md and "__RefHeading" not in md  # the TOC is left out
    assert "\n\nHighbury lies sixteen miles from London.\n\n" in md  # the frame, apart
    assert "| Mr. Woodhouse |  | her father |" in md  # a merged cell is empty below
    assert "| Mr. Knightley | Donwell Abbey | a neighbour and brother-in-law |" in md
    assert "struck out words" not in md and "Check the dates" not in md
    assert "[^1]: Highbury is an invented village." in md
    assert "[^2]: Mr. Weston's first wife was a Churchill." in md
    assert "- Hartfield, the house\n    - its lawn\n    - its shrubberies\n- Randalls, the Westons'" in md


def test_pandoc_epub2_table_of_contents_page_is_left_out():
    got = read("pandoc-rust-book-epub2.epub")
    assert "](text/ch00" not in got.markdown  # the TOC page's links
    titles = headings(got.markdown, levels=False)
    assert titles.count("Rust excerpts") == 1 and titles[:3] == ["Rust excerpts", "Part 1", "Data Types"]

"""The EPUB reader on books as other tools write them: an EPUB 2 book whose table of contents
is also a page of the reading order (pandoc's `-t epub2 --toc`, calibre's), named in the OPF
guide or not; Sphinx's first page, which the guide names the TOC but which is prose; an NCX
with nested navPoints and a chapter split across two files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

if not os.environ.get("CI"):  # in CI the epub extra is installed: a missing library fails there
    pytest.importorskip("ebooklib")
    pytest.importorskip("lxml")

from ebooklib import epub  # noqa: E402

from chunker.readers.epub import extract_epub  # noqa: E402
from test_reader_epub import chapter  # noqa: E402

PROSE = "<p>" + "The mill grinds the grain into flour, slowly and well. " * 4 + "</p>"


def book_with_toc_page(path: Path, toc_body: str, *, guide: bool) -> Path:
    book = epub.EpubBook()
    book.set_identifier("toc-page")
    book.set_title("Mills")
    book.set_language("en")
    one = chapter("text/one.xhtml", "One", f'<h1 id="c1">Grinding</h1>{PROSE}')
    two = chapter("text/two.xhtml", "Two", f'<h1 id="c2">Sieving</h1>{PROSE}')
    page = chapter("toc.xhtml", "Contents", toc_body)
    for item in (page, one, two):
        book.add_item(item)
    book.toc = [epub.Link("text/one.xhtml", "Grinding", "c1"), epub.Link("text/two.xhtml", "Sieving", "c2")]
    book.add_item(epub.EpubNcx())
    if guide:
        book.guide.append({"type": "toc", "href": "toc.xhtml", "title": "Contents"})
    book.spine = [page, one, two]
    epub.write_epub(str(path), book)
    return path


LINKS = ('<div id="toc"><h1>Mills</h1><ol><li><a href="text/one.xhtml#c1">Grinding</a></li>'
         '<li><a href="text/two.xhtml#c2">Sieving</a><ol><li><a href="text/two.xhtml">Fine sieves</a>'
         '</li></ol></li></ol></div>')


@pytest.mark.parametrize("guide", [True, False])
def test_a_table_of_contents_page_in_the_spine_is_left_out(tmp_path, guide):
    got = extract_epub(book_with_toc_page(tmp_path / "b.epub", LINKS, guide=guide))
    got.check()
    assert got.markdown.startswith("# Grinding\n\nThe mill grinds")
    assert "Fine sieves" not in got.markdown and "](text/" not in got.markdown


def test_a_first_page_the_guide_names_but_that_is_prose_is_kept(tmp_path):
    """Sphinx names its root page, prose and a short list of links, the guide's TOC."""
    body = (f"<h1>Mills</h1>{PROSE}<ul><li><a href='text/one.xhtml'>Grinding</a></li>"
            "<li><a href='text/two.xhtml'>Sieving</a></li><li><a href='text/two.xhtml#c2'>More</a></li></ul>")
    md = extract_epub(book_with_toc_page(tmp_path / "s.epub", body, guide=True)).markdown
    assert md.startswith("# Mills\n\nThe mill grinds") and "[Grinding](text/one.xhtml)" in md

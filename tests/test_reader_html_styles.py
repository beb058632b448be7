"""Headings and code a page states only in its styles (chunker/readers/html_styles.py):
LibreOffice's EPUB export writes `<p class="para3"><span class="span6">` for every heading and
monospace paragraphs for code, in a linked stylesheet. A page that has heading elements keeps
its own structure."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

if not os.environ.get("CI"):  # in CI the html and epub extras are installed
    pytest.importorskip("lxml")
    pytest.importorskip("readability")
    pytest.importorskip("ebooklib")

from ebooklib import epub  # noqa: E402

from chunker.readers.base import ReadSettings  # noqa: E402
from chunker.readers.epub import extract_epub  # noqa: E402
from chunker.readers.html import HtmlReader, extract_html  # noqa: E402

CSS = """.para0 { margin: 0 } .span0 { font-family: 'Liberation Serif'; font-size: 18.0000pt; font-weight: bold; }
.span6 { font-size: 14pt; font-weight: bold } .span7 { font-size: 12.0pt; font-weight: bold; }
.span2 { font-style: italic; } .span3 { font-family: 'Menlo'; } .span5 { font-family: Menlo; font-size: 10pt }
.span9 { font-size: 10pt; font-weight: bold; font-style: italic } /* a caption, smaller than the text */"""
BODY = """<p class="para0"><span class="span0">Data Types</span></p>
<p class="para1"><span class="span1">Every value has a </span><span class="span2">data type</span><span class="span1">, such as </span><span class="span3">u32</span><span class="span1">.</span></p>
<p class="para3"><span class="span6">Scalar Types</span></p>
<p class="para1"><span class="span1">A scalar type represents a single value.</span></p>
<p class="para4"><span class="span7">Appending with </span><span class="span7" style="font-family: Menlo">push_str</span></p>
<p class="para2"><span class="span5">let mut s = String::new();</span></p>
<p class="para2"><span class="span5">s.push_str("bar");</span></p>
<p class="para1"><span class="span9">Filename: src/main.rs</span></p>
<p class="para1"><span class="span7">A bold sentence in the text, which ends as a sentence.</span></p>
<table><tr><td><p class="para5"><span class="span3">i8</span></p></td><td><p class="para5"><span class="span1">8-bit</span></p></td></tr></table>"""
EXPECTED = """# Data Types

Every value has a *data type*, such as `u32`.

## Scalar Types

A scalar type represents a single value.

### Appending with push_str

```
let mut s = String::new();
s.push_str("bar");
```

*Filename: src/main.rs*

**A bold sentence in the text, which ends as a sentence.**

|  |  |
| --- | --- |
| `i8` | 8-bit |
"""


def page(body: str, head: str = "") -> bytes:
    return (f'<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head>'
            f'{head}</head><body class="body0">{body}</body></html>').encode()


def test_styled_paragraphs_become_headings_and_code():
    got = extract_html(page(BODY, f"<style>{CSS}</style>"))
    got.check()
    assert got.markdown == EXPECTED


def test_a_page_with_heading_elements_keeps_its_own_structure():
    md = extract_html(page("<h1>Title</h1>" + BODY, f"<style>{CSS}</style>")).markdown
    assert [line for line in md.splitlines() if line.startswith("#")] == ["# Title"]
    assert "```" not in md


def test_a_saved_page_reads_the_stylesheet_it_links_beside_it(tmp_path):
    (tmp_path / "page_files").mkdir()
    (tmp_path / "page_files" / "style.css").write_text(CSS)
    path = tmp_path / "page.html"
    path.write_bytes(page(BODY, '<link rel="stylesheet" href="page_files/style.css"/>'))
    assert HtmlReader().read(path, ReadSettings()).markdown == EXPECTED


def test_an_epub_chapter_reads_the_book_stylesheet_it_links(tmp_path):
    """As LibreOffice's EPUB export writes a book: one section file, its styles in
    `styles/stylesheet.css`, no heading element."""
    book = epub.EpubBook()
    book.set_identifier("lo-1")
    book.set_title("Data Types")
    book.set_language("en")
    book.add_item(epub.EpubItem(uid="css", file_name="styles/stylesheet.css", media_type="text/css",
                                content=CSS.encode()))
    section = epub.EpubHtml(title="Data Types", file_name="sections/section0001.xhtml", lang="en")
    section.content = page(BODY)
    section.add_link(href="../styles/stylesheet.css", rel="stylesheet", type="text/css")
    book.add_item(section)
    book.toc = [epub.Link("sections/section0001.xhtml", "Data Types", "s1")]
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", section]
    path = tmp_path / "lo.epub"
    epub.write_epub(str(path), book)
    got = extract_epub(path)
    got.check()
    assert got.markdown == EXPECTED

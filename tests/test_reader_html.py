"""The HTML/XHTML reader: the main content as Markdown with its structure, places that tile it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

if not os.environ.get("CI"):  # in CI the html extra is installed: a missing library fails there
    pytest.importorskip("lxml")
    pytest.importorskip("readability")

from chunker.readers.base import ReadSettings  # noqa: E402
from chunker.readers.html import HtmlReader, extract_html  # noqa: E402
from chunker.readers.model import ReaderError  # noqa: E402

DATA = Path(__file__).parent / "data" / "formats"

PAGE = b"""<!DOCTYPE html>
<html lang="en-GB"><head>
<meta charset="utf-8"><title>Cats, a field guide</title>
<meta name="author" content="Ada Lovelace"><meta name="date" content="2024-03-01">
<style>p { color: red } .stylesecret {}</style>
<script>var scriptsecret = 1;</script>
</head><body>
<div class="cookie-banner">We use cookies cookiesecret. <button>Accept</button></div>
<header class="site"><a href="/">Home</a> <nav><a href="/a">navsecret one</a></nav></header>
<nav><ul><li><a href="/x">navsecret two</a></li></ul></nav>
<main>
<h1 id="top">Cats</h1>
<p>Cats are <em>small</em> carnivores, see <a href="https://example.org/cats">the guide</a>.</p>
<h2 id="sec-2">Second section</h2>
<p>Body text of the <strong>second</strong> section with <code>inline_code()</code>.</p>
<h3>Deeper</h3><h4>Deeper still</h4><h5>Five</h5><h6>Six</h6>
<p>Last words.<img src="cat.png" alt="a sleeping cat"></p>
</main>
<aside>asidesecret related links</aside>
<footer>footersecret copyright</footer>
</body></html>
"""


def test_headings_keep_their_levels_and_main_content_only():
    got = extract_html(PAGE, part="page.html")
    md = got.markdown
    for line in ("# Cats", "## Second section", "### Deeper", "#### Deeper still",
                 "##### Five", "###### Six"):
        assert line + "\n" in md
    assert md.startswith("# Cats\n\n")
    for secret in ("stylesecret", "scriptsecret", "cookiesecret", "navsecret", "asidesecret",
                   "footersecret", "Accept", "color: red"):
        assert secret not in md, secret
    assert "Cats are *small* carnivores, see [the guide](https://example.org/cats)." in md
    assert "`inline_code()`" in md and "**second**" in md
    assert "![a sleeping cat](cat.png)" in md


def test_places_tile_the_text_and_point_at_the_nearest_id():
    got = extract_html(PAGE, part="page.html")
    got.check()
    assert all(p.part == "page.html" for p in got.places)
    at = got.markdown.index("Body text of the")
    (place,) = got.places_in(at, at + 1)
    assert place.anchor == "sec-2"
    assert place.paragraph == 3  # h1, p, h2, p
    assert got.markdown[place.start:place.end].startswith("Body text of the")
    assert [p.paragraph for p in got.places] == list(range(len(got.places)))


def test_metadata_from_title_meta_and_lang():
    meta = extract_html(PAGE).metadata
    assert meta.title == "Cats, a field guide"
    assert meta.authors == ("Ada Lovelace",)
    assert meta.date == "2024-03-01"
    assert meta.language == "en-GB"


def test_without_landmarks_the_article_is_found_and_chrome_dropped():
    filler = " ".join(f"Sentence {i} tells how the mill grinds grain into flour, slowly." for i in range(12))
    page = f"""<html><head><title>Mill</title></head><body>
    <div id="top-links"><a href="/1">Products</a> | <a href="/2">Pricing</a> | <a href="/3">Blog</a></div>
    <div class="wrapper">
      <div class="col-a"><ul><li><a href="/a">sidebarsecret archive</a></li>
        <li><a href="/b">sidebarsecret tags</a></li></ul></div>
      <div class="post">
        <h2>How a mill works</h2>
        <p>{filler}</p>
        <p>{filler.replace('grain', 'wheat')}</p>
        <p>The last paragraph of the post, about water wheels and their gears.</p>
      </div>
    </div>
    <div class="subscribe-box">Subscribe to our newsletter subscribesecret</div>
    </body></html>""".encode()
    md = extract_html(page).markdown
    assert "## How a mill works" in md and "water wheels" in md and "grinds wheat" in md
    for secret in ("sidebarsecret", "subscribesecret", "Pricing"):
        assert secret not in md, secret


def test_tables_with_header_colspan_rowspan_and_pipes():
    page = b"""<html><body><table><caption>Table 1: sizes</caption>
    <thead><tr><th>Name</th><th colspan="2">Size</th></tr></thead>
    <tbody><tr><td rowspan="2">a|b</td><td>1</td><td>2</td></tr>
    <tr><td>3</td><td>4</td></tr></tbody></table></body></html>"""
    md = extract_html(page).markdown
    assert md == ("Table 1: sizes\n\n"
                  "| Name | Size | Size |\n"
                  "| --- | --- | --- |\n"
                  "| a\\|b | 1 | 2 |\n"
                  "|  | 3 | 4 |\n")


def test_table_without_header_row_gets_an_empty_one():
    md = extract_html(b"<html><body><table><tr><td>x</td><td>y</td></tr></table></body></html>").markdown
    assert md == "|  |  |\n| --- | --- |\n| x | y |\n"


def test_code_blocks_are_fenced_with_their_language():
    page = b"""<html><body><pre><code class="language-python">def f():
    return "```"
</code></pre><pre class="console">$ cargo run</pre></body></html>"""
    md = extract_html(page).markdown
    assert md == ('````python\ndef f():\n    return "```"\n````\n\n'
                  "```console\n$ cargo run\n```\n")


def test_nested_lists():
    page = b"""<html><body><ul><li>one<ol start="3"><li>three</li><li>four</li></ol></li>
    <li><p>two</p></li></ul></body></html>"""
    assert extract_html(page).markdown == "- one\n  3. three\n  4. four\n- two\n"


def test_xhtml_chapter_namespaced():
    got = extract_html((DATA / "the-time-machine-chapter-3.xhtml").read_bytes(),
                       part="chapter-3.xhtml")
    got.check()
    assert got.markdown.startswith("## III\n\n“I told some of you last Thursday")
    assert got.metadata.language == "en-GB" and got.metadata.title == "III"
    assert {p.anchor for p in got.places} == {"chapter-3"}
    assert "Mrs.\u00a0Watchett came in" in got.markdown  # its no-break space kept
    assert got.markdown.rstrip().endswith("I took my hands from the machine.")


def test_xhtml_self_closing_anchors_do_not_swallow_text():
    page = b"""<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>T</title></head><body>
<p>First<a id="page-7"/> paragraph.</p><p>Second paragraph.</p></body></html>"""
    got = extract_html(page)
    assert got.markdown == "First paragraph.\n\nSecond paragraph.\n"
    assert [p.anchor for p in got.places] == ["page-7", "page-7"]


def test_pandoc_page_headings_match_its_markdown_source():
    md = extract_html((DATA / "rust-book-ch03-02-data-types.html").read_bytes()).markdown
    heads = [line for line in md.split("\n") if line.startswith("#")]
    assert heads[:4] == ["# ch03-02-data-types", "## Data Types", "### Scalar Types",
                         "#### Integer Types"]
    assert "| 8-bit | `i8` | `u8` |" in md
    assert "```rust\nlet guess: u32 = \"42\".parse().expect(\"Not a number!\");\n```" in md
    assert "html {" not in md and "font-family" not in md


def test_sniff_by_content_not_name(tmp_path):
    reader = HtmlReader()
    assert reader.sniff(b"\xef\xbb\xbf<!-- saved -->\n<!DOCTYPE html><html>", tmp_path / "a.txt")
    assert reader.sniff(b'<?xml version="1.0"?>\n<html xmlns="http://www.w3.org/1999/xhtml">',
                        tmp_path / "a")
    assert not reader.sniff(b"# Notes\n\nExample: <html> is a tag.\n", tmp_path / "a.md")
    assert not reader.sniff(b"%PDF-1.7\n", tmp_path / "a.html")
    assert reader.sniff(b"<head><title>t</title></head><p>x", tmp_path / "a")
    saved = b"Saved from https://example.org on Monday\n<!DOCTYPE html><html><body>x"
    assert reader.sniff(saved, tmp_path / "page.htm") and not reader.sniff(saved, tmp_path / "notes.md")


def test_read_a_file_and_refuse_an_empty_page(tmp_path):
    page = tmp_path / "saved page.txt"
    page.write_bytes(PAGE)
    got = HtmlReader().read(page, ReadSettings())
    assert got.places[0].part == "saved page.txt" and got.markdown.startswith("# Cats")
    empty = tmp_path / "empty.html"
    empty.write_bytes(b"<!DOCTYPE html><html><head><title>x</title></head><body><nav>menu</nav></body></html>")
    with pytest.raises(ReaderError) as err:
        HtmlReader().read(empty, ReadSettings())
    assert err.value.reason == "empty"
    assert HtmlReader().available() is None


def test_registry_sniffs_html():
    from chunker.readers.registry import ReaderRegistry

    assert ReaderRegistry().sniff(DATA / "the-time-machine-chapter-3.xhtml").id == "html"


def test_permalinks_layout_tables_and_line_starts():
    page = """<html><body>
    <h2 id="setup">Set<a href="#setup">up</a><a class="headerlink" href="#setup">¶</a></h2>
    <table role="presentation"><tr><td><p>Layout cell one.</p></td><td><p>Layout cell two.</p></td></tr></table>
    <p>2024. A year that opens a line.</p><p># not a heading</p>
    <p>un<em>break</em>able</p>
    <pre>line one<br>line two</pre>
    </body></html>""".encode()
    md = extract_html(page).markdown
    assert md == ("## Setup\n\nLayout cell one.\n\nLayout cell two.\n\n"
                  "2024\\. A year that opens a line.\n\n\\# not a heading\n\n"
                  "un*break*able\n\n```\nline one\nline two\n```\n")


SPHINX = b"""<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>Installation - Foo documentation</title><script src="_static/jquery.js"></script></head><body>
<div class="related" role="navigation"><h3>Navigation</h3><ul><li><a href="genindex.html">relatedsecret</a></li></ul></div>
<div class="document"><div class="documentwrapper"><div class="body" role="main">
<section id="installation"><h1>Installation<a class="headerlink" href="#installation">\xc2\xb6</a></h1>
<p>Install Foo with pip:</p>
<div class="highlight-console notranslate"><div class="highlight"><pre><span></span><span class="gp">$ </span>pip install foo
</pre></div></div>
<section id="requirements"><h2>Requirements<a class="headerlink" href="#requirements">\xc2\xb6</a></h2>
<p>Python 3.11 or later.</p></section></section></div></div>
<div class="sphinxsidebar" role="navigation"><h3>Table of Contents</h3><ul><li>sidebarsecret</li></ul>
<div id="searchbox" role="search"><form action="search.html"><input type="text" name="q"></form></div></div></div>
<div class="footer">copyrightsecret 2024, Foo team.</div>
</body></html>"""


def test_a_sphinx_page():
    got = extract_html(SPHINX, part="install.html")
    assert got.markdown == ("# Installation\n\nInstall Foo with pip:\n\n"
                            "```console\n$ pip install foo\n```\n\n## Requirements\n\n"
                            "Python 3.11 or later.\n")
    assert [p.anchor for p in got.places] == ["installation"] * 3 + ["requirements"] * 2

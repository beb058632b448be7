"""The EPUB reader: spine order, the book's own TOC as the upper structure, places per chapter."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest

if not os.environ.get("CI"):  # in CI the epub extra is installed: a missing library fails there
    pytest.importorskip("lxml")
    pytest.importorskip("ebooklib")
from ebooklib import epub  # noqa: E402

from chunker.readers.base import ReadSettings  # noqa: E402
from chunker.readers.epub import EpubReader, extract_epub  # noqa: E402
from chunker.readers.model import ReaderError  # noqa: E402

DATA = Path(__file__).parent / "data" / "formats"
PNG = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
       b"\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00"
       b"\x00\x00\x00IEND\xaeB`\x82")


def chapter(name: str, title: str, body: str) -> epub.EpubHtml:
    item = epub.EpubHtml(title=title, file_name=name, lang="en")
    item.content = f"<html><head><title>{title}</title></head><body>{body}</body></html>"
    return item


def make_book(path: Path, *, nav: bool = True, toc=None) -> Path:
    book = epub.EpubBook()
    book.set_identifier("id-1")
    book.set_title("A Small Book")
    book.set_language("en")
    book.add_author("Mary Shelley")
    book.add_author("Percy Shelley")
    book.add_metadata("DC", "date", "1818-01-01")
    one = chapter("text/one.xhtml", "One",
                  '<section id="c1"><h1>Chapter One</h1><p>First chapter text.</p>'
                  '<h2 id="c1-a">A part of one</h2><p>Text of part A.</p>'
                  '<h3>Deep in A</h3><p>Deep text.</p></section>')
    two = chapter("text/two.xhtml", "Two",
                  '<h2 id="c2">The Second Chapter</h2><p>Second chapter text, see '
                  '<a href="one.xhtml#c1-a">part A</a>.</p>'
                  '<figure><img src="../images/the%20dot.png" alt="a dot"/>'
                  '<figcaption>Figure 1: a single dot.</figcaption></figure>'
                  '<h3 id="c2-x">Unlisted section</h3><p>Unlisted text.</p>')
    three = chapter("text/three.xhtml", "Three", "<p>An appendix without a heading.</p>")
    book.add_item(epub.EpubItem(uid="dot", file_name="images/the dot.png", media_type="image/png",
                                content=PNG))
    for item in (one, two, three):
        book.add_item(item)
    book.toc = toc if toc is not None else [
        (epub.Section("Chapter One", "text/one.xhtml#c1"),
         [epub.Link("text/one.xhtml#c1-a", "A part of one", "c1a")]),
        epub.Link("text/two.xhtml", "The Second Chapter", "c2"),
        epub.Link("text/three.xhtml", "Appendix", "c3"),
    ]
    book.add_item(epub.EpubNcx())
    if nav:
        book.add_item(epub.EpubNav())
    # the spine lists the chapters in reading order, not in the order they were added
    book.spine = (["nav"] if nav else []) + [one, two, three]
    epub.write_epub(str(path), book)
    return path


def headings(md: str) -> list[str]:
    return [line for line in md.split("\n") if line.startswith("#")]


@pytest.mark.parametrize("nav", [True, False], ids=["epub3-nav", "epub2-ncx"])
def test_toc_is_the_upper_structure_and_chapter_headings_nest_below(tmp_path, nav):
    got = extract_epub(make_book(tmp_path / "book.epub", nav=nav))
    got.check()
    assert headings(got.markdown) == [
        "# Chapter One",            # TOC depth 1 = the chapter's h1 (not repeated)
        "## A part of one",         # TOC depth 2 = its h2
        "### Deep in A",            # the chapter's own h3 below it
        "# The Second Chapter",     # TOC depth 1 = the chapter's h2, raised
        "## Unlisted section",      # its h3, shifted to nest below
        "# Appendix",               # a TOC entry with no heading in its chapter
    ]
    assert got.markdown.index("First chapter text") < got.markdown.index("Second chapter text")
    assert "Table of Contents" not in got.markdown  # the nav document is not a chapter
    assert "[part A](one.xhtml#c1-a)" in got.markdown


def test_places_name_the_chapter_file_and_anchor(tmp_path):
    got = extract_epub(make_book(tmp_path / "book.epub"))
    md = got.markdown

    def place_of(text: str):
        at = md.index(text)
        (place,) = got.places_in(at, at + 1)
        return place

    assert place_of("Text of part A").part == "EPUB/text/one.xhtml"
    assert place_of("Text of part A").anchor == "c1-a"
    assert place_of("Text of part A").paragraph == 3  # h1, p, h2, p
    assert place_of("Unlisted text").part == "EPUB/text/two.xhtml"
    assert place_of("Unlisted text").anchor == "c2-x"
    assert place_of("# The Second Chapter").paragraph == 0
    appendix = place_of("# Appendix")
    assert appendix.part == "EPUB/text/three.xhtml" and appendix.paragraph == 0
    assert place_of("An appendix without").paragraph == 0  # the heading it got is not a source block


def test_metadata_from_the_opf(tmp_path):
    meta = extract_epub(make_book(tmp_path / "book.epub")).metadata
    assert meta.title == "A Small Book"
    assert meta.authors == ("Mary Shelley", "Percy Shelley")
    assert meta.language == "en"
    assert meta.date == "1818-01-01"


def test_images_with_alt_and_caption(tmp_path):
    got = extract_epub(make_book(tmp_path / "book.epub"))
    (image,) = got.images
    assert image.name == "image-1.png" and image.mime == "image/png" and image.data == PNG
    assert image.alt == "a dot" and image.caption == "Figure 1: a single dot."
    assert got.markdown[image.offset:].startswith("![a dot](image-1.png)")
    assert "Figure 1: a single dot." in got.markdown


def test_toc_entry_with_another_title_keeps_the_chapter_heading_below(tmp_path):
    toc = [epub.Link("text/one.xhtml", "Part I", "p1"),
           epub.Link("text/two.xhtml", "The Second Chapter", "c2")]
    got = extract_epub(make_book(tmp_path / "book.epub", toc=toc))
    assert headings(got.markdown)[:5] == ["# Part I", "## Chapter One", "### A part of one",
                                          "#### Deep in A", "# The Second Chapter"]


def test_pandoc_epub_matches_its_markdown_levels():
    got = extract_epub(DATA / "rust-book-ch03-02-data-types.epub")
    got.check()
    heads = headings(got.markdown)
    assert heads[1:5] == ["# ch03-02-data-types", "## Data Types", "### Scalar Types",
                          "#### Integer Types"]
    assert "### Compound Types" in heads and "#### The Tuple Type" in heads
    assert "| 8-bit | `i8` | `u8` |" in got.markdown
    assert {p.part for p in got.places} == {"EPUB/text/title_page.xhtml", "EPUB/text/ch001.xhtml"}


def test_truncated_epub_is_broken(tmp_path):
    whole = make_book(tmp_path / "book.epub").read_bytes()
    cut = tmp_path / "cut.epub"
    cut.write_bytes(whole[: len(whole) // 2])
    for read in (lambda: extract_epub(cut), lambda: EpubReader().read(cut, ReadSettings())):
        with pytest.raises(ReaderError) as err:
            read()
        assert err.value.reason == "broken-epub"
    assert EpubReader().sniff(cut.read_bytes()[:8192], cut)  # still an EPUB by its head
    with pytest.raises(ReaderError) as err:  # a corpus's early check, from the bytes
        EpubReader().check(cut.read_bytes(), cut, ReadSettings())
    assert err.value.reason == "broken-epub"
    EpubReader().check(whole, tmp_path / "book.epub", ReadSettings())


def test_epub_without_its_package_is_broken(tmp_path):
    path = tmp_path / "no-opf.epub"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        zf.writestr("META-INF/container.xml", "<container/>")
    with pytest.raises(ReaderError) as err:
        extract_epub(path)
    assert err.value.reason == "broken-epub"


def _with_member(src: Path, dst: Path, name: str, data: str) -> Path:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            zout.writestr(info, zin.read(info.filename))
        zout.writestr(name, data)
    return dst


ENCRYPTION = """<?xml version="1.0"?>
<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container"
            xmlns:enc="http://www.w3.org/2001/04/xmlenc#">
  <enc:EncryptedData><enc:EncryptionMethod Algorithm="{algorithm}"/>
    <enc:CipherData><enc:CipherReference URI="EPUB/text/one.xhtml"/></enc:CipherData>
  </enc:EncryptedData>
</encryption>"""


def test_drm_epub_is_refused_but_font_obfuscation_is_not(tmp_path):
    book = make_book(tmp_path / "book.epub")
    drm = _with_member(book, tmp_path / "drm.epub", "META-INF/encryption.xml",
                       ENCRYPTION.format(algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"))
    for refuse in (lambda: EpubReader().read(drm, ReadSettings()),
                   lambda: EpubReader().check(drm.read_bytes(), drm, ReadSettings())):
        with pytest.raises(ReaderError) as err:
            refuse()
        assert err.value.reason == "drm-epub"
    fonts = _with_member(book, tmp_path / "fonts.epub", "META-INF/encryption.xml",
                         ENCRYPTION.format(algorithm="http://www.idpf.org/2008/embedding"))
    assert "First chapter text" in extract_epub(fonts).markdown


def test_sniff_by_content(tmp_path):
    book = make_book(tmp_path / "book.zip")  # the name does not matter
    reader = EpubReader()
    assert reader.sniff(book.read_bytes()[:8192], book)
    plain = tmp_path / "plain.epub"
    with zipfile.ZipFile(plain, "w") as zf:
        zf.writestr("a.txt", "hello")
    assert not reader.sniff(plain.read_bytes()[:8192], plain)
    assert reader.available() is None


def test_registry_sniffs_and_reads_epub(tmp_path):
    from chunker.readers.registry import ReaderRegistry

    book = make_book(tmp_path / "book")
    found = ReaderRegistry().sniff(book)
    assert found.id == "epub"
    assert "# Chapter One" in found.read(book, ReadSettings()).markdown


def test_an_unreadable_chapter_is_left_out_with_a_note(tmp_path):
    book = make_book(tmp_path / "book.epub")
    bad = tmp_path / "bad.epub"
    with zipfile.ZipFile(book) as zin, zipfile.ZipFile(bad, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            zout.writestr(info, b"\x00\x01 not a page" if info.filename.endswith("two.xhtml") else data)
    got = extract_epub(bad)
    got.check()
    assert got.notes == ("EPUB/text/two.xhtml: not readable as XHTML, left out",)
    assert "First chapter text" in got.markdown and "Second chapter text" not in got.markdown

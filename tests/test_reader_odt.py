"""The ODT reader on an OpenDocument text written here (its XML, zipped as ODF requires) and on
one pandoc wrote (tests/data)."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest

from chunker.readers.base import ReadSettings
from chunker.readers.model import ReaderError

try:
    import lxml.etree  # noqa: F401  (the odt extra)
except ImportError:  # CI installs the extra: there a missing library fails the file
    if os.environ.get("CI"):
        raise
    pytest.skip("lxml is missing: pip install 'chunker-tree[odt]'", allow_module_level=True)

from chunker.readers.odt import OdtReader, extract_odt

DATA = Path(__file__).resolve().parent / "data" / "formats"
NS = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
      'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
      'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
      'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
      'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
      'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" '
      'xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:dc="http://purl.org/dc/elements/1.1/" '
      'xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" '
      'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" '
      'xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"')

STYLES = f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document-styles {NS} office:version="1.3"><office:styles>
  <style:style style:name="Heading" style:family="paragraph"/>
  <style:style style:name="Chapter_20_Head" style:display-name="Chapter Head" style:family="paragraph"
     style:parent-style-name="Heading" style:default-outline-level="2"/>
  <style:style style:name="Preformatted_20_Text" style:display-name="Preformatted Text" style:family="paragraph"/>
</office:styles></office:document-styles>"""

BODY = """
<text:h text:outline-level="1">Field guide</text:h>
<text:p>Owls hunt <text:span text:style-name="T1">at night</text:span> and
 <text:span text:style-name="T2">rest</text:span> by day<text:note text:id="ftn1" text:note-class="footnote">
 <text:note-citation>1</text:note-citation><text:note-body><text:p>Most of them.</text:p></text:note-body></text:note>.</text:p>
<text:p text:style-name="Chapter_20_Head">Marked by its style</text:p>
<text:h text:outline-level="3">Barn owls</text:h>
<text:list text:style-name="LB">
  <text:list-item><text:p>pellets</text:p>
    <text:list><text:list-item><text:p>bones inside</text:p></text:list-item></text:list></text:list-item>
  <text:list-item><text:p>feathers</text:p></text:list-item>
</text:list>
<text:list text:style-name="LN">
  <text:list-item><text:p>watch</text:p></text:list-item>
  <text:list-item><text:p>listen</text:p></text:list-item>
</text:list>
<table:table table:name="T"><table:table-column table:number-columns-repeated="3"/>
  <table:table-row><table:table-cell><text:p>Owl</text:p></table:table-cell>
    <table:table-cell><text:p>Wingspan</text:p></table:table-cell><table:table-cell><text:p>Range</text:p></table:table-cell></table:table-row>
  <table:table-row><table:table-cell table:number-columns-spanned="2"><text:p>Barn owl | common</text:p></table:table-cell>
    <table:covered-table-cell/><table:table-cell><text:p>world</text:p></table:table-cell></table:table-row>
</table:table>
<text:p>After the table.</text:p>
<text:p text:style-name="P1">let x = 1;</text:p>
<text:p text:style-name="P1">let y = x + 1;</text:p>
<text:list text:style-name="LN"><text:list-item>
  <text:h text:outline-level="2">Numbered heading, as outline numbering writes it</text:h></text:list-item></text:list>
<text:p><draw:frame draw:name="f1"><draw:image xlink:href="Pictures/owl.png"/><svg:title>An owl</svg:title></draw:frame></text:p>
"""


def write_odt(path: Path, body: str = BODY, *, encrypted: bool = False) -> Path:
    content = f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document-content {NS} office:version="1.3"><office:automatic-styles>
  <style:style style:name="T1" style:family="text"><style:text-properties fo:font-style="italic"/></style:style>
  <style:style style:name="T2" style:family="text"><style:text-properties fo:font-weight="bold"/></style:style>
  <style:style style:name="P1" style:family="paragraph" style:parent-style-name="Preformatted_20_Text"/>
  <text:list-style style:name="LB"><text:list-level-style-bullet text:level="1" text:bullet-char="•"/>
    <text:list-level-style-bullet text:level="2" text:bullet-char="◦"/></text:list-style>
  <text:list-style style:name="LN"><text:list-level-style-number text:level="1" style:num-format="1"/></text:list-style>
</office:automatic-styles><office:body><office:text>{body}</office:text></office:body></office:document-content>"""
    meta = f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document-meta {NS} office:version="1.3"><office:meta><dc:title>Owls</dc:title>
<dc:creator>Ann Lee</dc:creator><dc:language>en-GB</dc:language>
<meta:creation-date>2024-05-17T09:30:00</meta:creation-date></office:meta></office:document-meta>"""
    encryption = ('<manifest:encryption-data manifest:checksum-type="SHA1/1K" manifest:checksum="x">'
                  '<manifest:algorithm manifest:algorithm-name="Blowfish CFB" manifest:initialisation-vector="x"/>'
                  '</manifest:encryption-data>') if encrypted else ""
    manifest = f"""<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest {NS} manifest:version="1.3">
 <manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>
 <manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml">{encryption}</manifest:file-entry>
</manifest:manifest>"""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(zipfile.ZipInfo("mimetype"), "application/vnd.oasis.opendocument.text",
                   compress_type=zipfile.ZIP_STORED)
        z.writestr("content.xml", content)
        z.writestr("styles.xml", STYLES)
        z.writestr("meta.xml", meta)
        z.writestr("META-INF/manifest.xml", manifest)
        z.writestr("Pictures/owl.png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 16)
    return path


@pytest.fixture()
def guide(tmp_path: Path) -> Path:
    return write_odt(tmp_path / "guide.odt")


def headings(md: str) -> list[tuple[int, str]]:
    return [(len(line) - len(line.lstrip("#")), line.lstrip("#").strip())
            for line in md.splitlines() if line.startswith("#")]


def test_headings_from_outline_levels_and_styles(guide):
    ex = extract_odt(guide)
    assert headings(ex.markdown) == [(1, "Field guide"), (2, "Marked by its style"), (3, "Barn owls"),
                                     (2, "Numbered heading, as outline numbering writes it")]


def test_inline_notes_lists_tables_code_and_image(guide):
    ex = extract_odt(guide)
    md = ex.markdown
    assert "Owls hunt *at night* and **rest** by day[^1]." in md
    assert "- pellets\n    - bones inside\n- feathers\n\n1. watch\n2. listen" in md
    assert "| Owl | Wingspan | Range |\n|---|---|---|\n| Barn owl \\| common |  | world |" in md
    assert "```\nlet x = 1;\nlet y = x + 1;\n```" in md
    assert md.rstrip().endswith("[^1]: Most of them.")
    (image,) = ex.images
    assert image.alt == "An owl" and image.mime == "image/png"
    assert md[image.offset:].startswith("![An owl](image-1.png)")


def test_places_tile_and_count_blocks(guide):
    ex = extract_odt(guide)
    ex.check()

    def paragraph(needle: str) -> int:
        at = ex.markdown.index(needle)
        (place,) = ex.places_in(at, at + 1)
        assert place.part == "content.xml"
        return place.paragraph

    # blocks in document order: h, p, p(style heading), h, 3 list paragraphs, 2 list paragraphs, table, p
    assert paragraph("# Field guide") == 0
    assert paragraph("Owls hunt") == 1
    assert paragraph("- feathers") == 6
    assert paragraph("| Owl") == 9
    assert paragraph("After the table.") == 10
    assert paragraph("[^1]: Most") == 1  # a note points at the paragraph that cites it


def test_metadata(guide):
    meta = extract_odt(guide).metadata
    assert (meta.title, meta.authors, meta.date, meta.language) == ("Owls", ("Ann Lee",), "2024-05-17", "en-GB")


def test_pandoc_document_headings_match_its_markdown():
    ex = extract_odt(DATA / "rust-book-appendix-02-operators.odt")
    ex.check()
    assert headings(ex.markdown) == [(1, "appendix-02-operators"), (2, "Appendix B: Operators and Symbols"),
                                     (3, "Operators"), (3, "Non-operator Symbols")]
    assert "| `!=` | `expr != expr` | Nonequality comparison | `PartialEq` |" in ex.markdown


def test_reader_sniffs_by_mimetype(guide, tmp_path):
    reader = OdtReader()
    assert reader.available() is None
    assert reader.sniff(guide.read_bytes()[:8192], guide)
    docx = DATA / "rust-book-appendix-02-operators.docx"
    assert not reader.sniff(docx.read_bytes()[:8192], docx)
    assert reader.read(guide, ReadSettings()).markdown.startswith("# Field guide\n\n")


def test_truncated_and_encrypted_odt(guide, tmp_path):
    reader = OdtReader()
    cut = tmp_path / "cut.odt"
    cut.write_bytes(guide.read_bytes()[:300])
    assert reader.sniff(cut.read_bytes(), cut)  # the stored mimetype comes first
    with pytest.raises(ReaderError) as err:
        reader.read(cut, ReadSettings())
    assert err.value.reason == "broken-odt"
    locked = write_odt(tmp_path / "locked.odt", encrypted=True)
    with pytest.raises(ReaderError) as err:
        reader.read(locked, ReadSettings())
    assert err.value.reason == "encrypted-odt"
    reader.check(guide.read_bytes(), guide, ReadSettings())  # the corpus's early test
    for path, reason in ((cut, "broken-odt"), (locked, "encrypted-odt")):
        with pytest.raises(ReaderError) as err:
            reader.check(path.read_bytes(), path, ReadSettings())
        assert err.value.reason == reason


def test_damaged_files_raise_only_reader_errors(tmp_path):
    from test_reader_docx import corrupted

    path = tmp_path / "damaged.odt"
    for blob in corrupted((DATA / "rust-book-appendix-02-operators.odt").read_bytes()):
        path.write_bytes(blob)
        try:
            extract_odt(path)
        except ReaderError as err:
            assert "\n" not in str(err) and err.reason.endswith("-odt")

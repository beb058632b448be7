"""The DOCX reader on documents python-docx writes here, and on one pandoc wrote (tests/data)."""

from __future__ import annotations

import datetime as dt
import io
import os
import struct
import zlib
from pathlib import Path

import pytest

from chunker.readers.base import ReadSettings
from chunker.readers.model import ExtraMissing, ReaderError

try:
    import docx
    from docx.opc.constants import RELATIONSHIP_TYPE as RT
    from docx.opc.packuri import PackURI
    from docx.opc.part import Part
    from docx.oxml import parse_xml
    from docx.oxml.ns import nsdecls, qn
except ImportError:  # CI installs the extra: there a missing library fails the file
    if os.environ.get("CI"):
        raise
    pytest.skip("python-docx is missing: pip install 'chunker-tree[docx]'", allow_module_level=True)

from chunker.readers.docx import DocxReader, extract_docx

DATA = Path(__file__).resolve().parent / "data" / "formats"


def png(width: int = 4, height: int = 3) -> bytes:
    """A tiny valid PNG, written by hand (no imaging library needed)."""
    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def outline(paragraph, level: int) -> None:
    """Mark a paragraph as an outline level directly (0-based, as Word stores it)."""
    paragraph._p.get_or_add_pPr().append(parse_xml(f'<w:outlineLvl {nsdecls("w")} w:val="{level}"/>'))


def numbered(paragraph, num_id: int, ilvl: int) -> None:
    paragraph._p.get_or_add_pPr().append(parse_xml(
        f'<w:numPr {nsdecls("w")}><w:ilvl w:val="{ilvl}"/><w:numId w:val="{num_id}"/></w:numPr>'))


TEXT_BOX = (
    '<w:r xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
    'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
    'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" '
    'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
    'xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" '
    'xmlns:v="urn:schemas-microsoft-com:vml"><mc:AlternateContent>'
    '<mc:Choice Requires="wps"><w:drawing><wp:anchor><a:graphic><a:graphicData><wps:wsp><wps:txbx>'
    '<w:txbxContent><w:p><w:r><w:t>Boxed note</w:t></w:r></w:p></w:txbxContent>'
    '</wps:txbx></wps:wsp></a:graphicData></a:graphic></wp:anchor></w:drawing></mc:Choice>'
    '<mc:Fallback><w:pict><v:shape><v:textbox><w:txbxContent><w:p><w:r><w:t>Boxed note</w:t></w:r>'
    '</w:p></w:txbxContent></v:textbox></v:shape></w:pict></mc:Fallback></mc:AlternateContent></w:r>')


def add_footnotes(document, notes: dict[int, str]) -> None:
    """A footnotes part (python-docx has no API for one), related from the document part."""
    body = "".join(
        f'<w:footnote w:id="{i}"><w:p><w:r><w:footnoteRef/></w:r><w:r><w:t xml:space="preserve"> {t}</w:t>'
        "</w:r></w:p></w:footnote>" for i, t in notes.items())
    xml = (f'<w:footnotes {nsdecls("w")}><w:footnote w:type="separator" w:id="-1"><w:p><w:r>'
           f'<w:separator/></w:r></w:p></w:footnote>{body}</w:footnotes>')
    part = Part(PackURI("/word/footnotes.xml"),
                "application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml",
                xml.encode(), document.part.package)
    document.part.relate_to(part, RT.FOOTNOTES)


def note_ref(paragraph, note_id: int) -> None:
    paragraph._p.append(parse_xml(
        f'<w:r {nsdecls("w")}><w:rPr><w:vertAlign w:val="superscript"/></w:rPr>'
        f'<w:footnoteReference w:id="{note_id}"/></w:r>'))


@pytest.fixture()
def report(tmp_path: Path) -> Path:
    d = docx.Document()
    cp = d.core_properties
    cp.title, cp.author, cp.language = "Quarterly report", "Ann Lee; Bob Roy", "en-GB"
    cp.created = dt.datetime(2024, 5, 17, 9, 30)
    d.add_heading("Quarterly report", level=0)                       # Title style
    d.add_heading("Overview", level=1)
    p = d.add_paragraph("Sales rose in the north")
    note_ref(p, 1)
    p.add_run(". See ")
    r = p.add_run("bold")
    r.bold = True
    p.add_run(" and ")
    r = p.add_run("italic")
    r.italic = True
    p.add_run(" words.")
    chapter = d.styles.add_style("Chapter Head", 1)                   # a custom heading style
    chapter.element.get_or_add_pPr().append(parse_xml(f'<w:outlineLvl {nsdecls("w")} w:val="1"/>'))
    based = d.styles.add_style("Chapter Head Blue", 1)                # outline level up the chain
    based.base_style = chapter
    d.add_paragraph("Regional detail", style="Chapter Head")
    outline(d.add_paragraph("Marked by outline level"), 2)             # direct w:outlineLvl: level 3
    d.add_paragraph("Inherited outline level", style="Chapter Head Blue")
    table = d.add_table(rows=3, cols=3)
    for i, row in enumerate([["Region", "Q1", "Q2"], ["North", "10", "12"], ["South", "7", "9"]]):
        for j, text in enumerate(row):
            table.cell(i, j).text = text
    table.cell(1, 1).merge(table.cell(1, 2))                           # a horizontal merge
    table.cell(1, 0).merge(table.cell(2, 0))                           # a vertical merge
    after = d.add_paragraph("After the table.")
    after._p.append(parse_xml(TEXT_BOX))                              # a text box, as Word writes one
    deleted = parse_xml(f'<w:del {nsdecls("w")} w:id="9" w:author="x"><w:r><w:delText>gone</w:delText>'
                        '</w:r></w:del>')
    after._p.append(deleted)                                           # a tracked deletion
    d.add_paragraph("first point", style="List Bullet")
    nested = d.add_paragraph("nested point", style="List Bullet")
    numbered(nested, 1, 1)                                             # ilvl 1 of the bullet list
    d.add_paragraph("second point", style="List Bullet")
    d.add_paragraph("step one", style="List Number")
    d.add_paragraph("step two", style="List Number")
    d.add_paragraph("deeper by style name", style="List Bullet 2")
    code = d.styles.add_style("Code Block", 1)
    d.add_paragraph("let x = 1;", style=code)
    d.add_paragraph("let y = x + 1;", style=code)
    d.add_picture(io.BytesIO(png()))
    d.inline_shapes[0]._inline.docPr.set("descr", "A red square")
    d.add_paragraph("Figure 1: the logo", style="Caption")
    d.add_paragraph("# not a heading, just text")
    d.add_paragraph("2024. A good year")
    add_footnotes(d, {1: "Northern stores only."})
    path = tmp_path / "report.docx"
    d.save(path)
    return path


def headings(md: str) -> list[tuple[int, str]]:
    return [(len(line) - len(line.lstrip("#")), line.lstrip("#").strip())
            for line in md.splitlines() if line.startswith("#")]


def test_headings_by_style_and_by_outline_level(report):
    ex = extract_docx(report)
    assert headings(ex.markdown) == [
        (1, "Quarterly report"), (1, "Overview"), (2, "Regional detail"),
        (3, "Marked by outline level"), (2, "Inherited outline level")]


def test_body_order_tables_lists_code_footnotes_and_inline(report):
    md = extract_docx(report).markdown
    table = "| Region | Q1 | Q2 |\n|---|---|---|\n| North South | 10 12 |  |\n|  | 7 | 9 |"
    assert table in md
    assert md.index("Inherited outline level") < md.index("| Region") < md.index("After the table.")
    assert "- first point\n    - nested point\n- second point\n\n1. step one" in md
    assert "1. step one\n2. step two" in md
    assert "    - deeper by style name" in md
    assert "```\nlet x = 1;\nlet y = x + 1;\n```" in md
    assert "Sales rose in the north[^1]. See **bold** and *italic* words." in md
    assert md.rstrip().endswith("[^1]: Northern stores only.")
    assert "\\# not a heading, just text" in md
    assert "\n2024\\. A good year\n" in md  # not an ordered list
    # a floating text box is a shape beside the paragraph: its text follows it, once
    assert "After the table.\n\nBoxed note" in md and md.count("Boxed note") == 1
    assert "gone" not in md


def test_places_tile_and_point_at_paragraphs(report):
    ex = extract_docx(report)
    ex.check()
    body = docx.Document(str(report)).element.body
    blocks = [el for el in body if el.tag in (qn("w:p"), qn("w:tbl"))]
    for needle in ("After the table.", "Regional detail", "| Region", "step two"):
        at = ex.markdown.index(needle)
        (place,) = ex.places_in(at, at + 1)
        assert place.part == "word/document.xml"
        el = blocks[place.paragraph]
        text = "".join(el.itertext())
        assert needle.strip("| ") in text, (needle, text)
    at = ex.markdown.index("[^1]: Northern")
    (place,) = ex.places_in(at, at + 1)
    assert place.part == "word/footnotes.xml"


def test_metadata_and_image(report):
    ex = extract_docx(report)
    assert ex.metadata.title == "Quarterly report"
    assert ex.metadata.authors == ("Ann Lee", "Bob Roy")
    assert ex.metadata.date == "2024-05-17"
    assert ex.metadata.language == "en-GB"
    (image,) = ex.images
    assert image.name == "image-1.png" and image.mime == "image/png"
    assert image.alt == "A red square" and image.caption == "Figure 1: the logo"
    assert image.data.startswith(b"\x89PNG")
    assert ex.markdown[image.offset:].startswith("![A red square](image-1.png)")


def test_pandoc_document_headings_match_its_markdown():
    """The Rust-book appendix as pandoc wrote it: its Markdown source has these headings."""
    ex = extract_docx(DATA / "rust-book-appendix-02-operators.docx")
    ex.check()
    assert (2, "Appendix B: Operators and Symbols") in headings(ex.markdown)
    assert headings(ex.markdown)[-2:] == [(3, "Operators"), (3, "Non-operator Symbols")]
    assert "| `!=` | `expr != expr` | Nonequality comparison | `PartialEq` |" in ex.markdown


def test_reader_sniffs_and_reads(report):
    reader = DocxReader()
    assert reader.available() is None
    assert reader.sniff(report.read_bytes()[:8192], report)
    assert not reader.sniff(b"PK\x03\x04" + b"\x00" * 100, DATA / "rust-book-appendix-02-operators.odt")
    assert reader.read(report, ReadSettings()).markdown.startswith("# Quarterly report\n\n")


def test_truncated_docx_is_broken(report, tmp_path):
    cut = tmp_path / "cut.docx"
    cut.write_bytes(report.read_bytes()[: report.stat().st_size // 2])
    reader = DocxReader()
    assert reader.sniff(cut.read_bytes()[:8192], cut)  # still a Word file by its local headers
    with pytest.raises(ReaderError) as err:
        reader.read(cut, ReadSettings())
    assert err.value.reason == "broken-docx"
    assert "\n" not in str(err.value)


def ole_file(streams: list[str]) -> bytes:
    """A compound file (the container Office encrypts into): header and one directory sector."""
    header = bytearray(512)
    header[:8] = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
    header[0x18:0x1E] = struct.pack("<HHH", 0x3E, 3, 0xFFFE)
    header[0x1E:0x20] = struct.pack("<H", 9)
    header[0x30:0x34] = struct.pack("<I", 0)  # the directory starts at sector 0
    entries = b""
    for i, name in enumerate(["Root Entry", *streams]):
        raw = name.encode("utf-16-le") + b"\x00\x00"
        entry = bytearray(128)
        entry[: len(raw)] = raw
        entry[64:66] = struct.pack("<H", len(raw))
        entry[66] = 5 if i == 0 else 2
        entries += bytes(entry)
    return bytes(header) + entries.ljust(512, b"\x00")


def test_password_protected_docx_is_encrypted(tmp_path):
    locked = tmp_path / "locked.docx"
    locked.write_bytes(ole_file(["EncryptionInfo", "EncryptedPackage"]))
    reader = DocxReader()
    assert reader.sniff(locked.read_bytes()[:8192], locked)
    with pytest.raises(ReaderError) as err:
        reader.read(locked, ReadSettings())
    assert err.value.reason == "encrypted-docx"
    legacy = tmp_path / "old.doc"
    legacy.write_bytes(ole_file(["WordDocument"]))
    with pytest.raises(ReaderError) as err:
        reader.read(legacy, ReadSettings())
    assert err.value.reason == "legacy-docx"


def test_missing_library_is_extra_missing(report, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "docx", None)  # as if not installed
    with pytest.raises(ExtraMissing) as err:
        extract_docx(report)
    assert err.value.extra == "docx" and err.value.reason == "needs-extra:docx"


def test_check_refuses_early(report, tmp_path):
    """The corpus's cheap test on discovery: the same reasons as `read`, from the bytes."""
    reader = DocxReader()
    reader.check(report.read_bytes(), report, ReadSettings())
    data = report.read_bytes()
    for blob, reason in ((data[: len(data) // 2], "broken-docx"),
                         (ole_file(["EncryptionInfo", "EncryptedPackage"]), "encrypted-docx")):
        with pytest.raises(ReaderError) as err:
            reader.check(blob, tmp_path / "x.docx", ReadSettings())
        assert err.value.reason == reason


def corrupted(data: bytes, count: int = 40, seed: int = 7):
    """`count` copies of a file with bytes overwritten somewhere (a damaged deflate stream, CRC,
    header or directory), the same copies on every run."""
    import random

    rng = random.Random(seed)
    for _ in range(count):
        copy = bytearray(data)
        at = rng.randrange(len(copy))
        for k in range(rng.choice([1, 8, 64])):
            if at + k < len(copy):
                copy[at + k] = rng.randrange(256)
        yield bytes(copy)


def test_damaged_files_raise_only_reader_errors(tmp_path):
    """Whatever python-docx, zipfile, zlib or lxml raise on a damaged file becomes one line."""
    path = tmp_path / "damaged.docx"
    for blob in corrupted((DATA / "rust-book-appendix-02-operators.docx").read_bytes()):
        path.write_bytes(blob)
        try:
            extract_docx(path)
        except ReaderError as err:
            assert "\n" not in str(err) and err.reason.endswith("-docx")

"""The reader interface (`chunker/readers/`): sniffing by content, the registry with a plugin
found through an installed distribution's entry point, the source map and locations."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from chunker.readers import registry as readers_registry
from chunker.readers.base import ReadSettings, Reader
from chunker.readers.location import Locator
from chunker.readers.model import Extracted, Place, ReaderError
from chunker.readers.registry import READERS, ReaderRegistry
from chunker.readers.sniffing import looks_html, zip_mimetype, zip_names
from chunker.readers.source import Source, reader_of
from chunker.readers.source_map import load_map, write_map

ROOT = Path(__file__).resolve().parents[1]
CINDERELLA = ROOT / "examples" / "cinderella.txt"


def _zip(path: Path, members: dict[str, str], mimetype: str | None = None) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        if mimetype is not None:  # first and stored, as EPUB and ODF require
            z.writestr(zipfile.ZipInfo("mimetype"), mimetype, compress_type=zipfile.ZIP_STORED)
        for name, data in members.items():
            z.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED)
    return path


def _pdf(path: Path, text: str = "Hello from a PDF.") -> Path:
    pymupdf = pytest.importorskip("pymupdf")
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), text)
    doc.save(path)
    return path


def test_a_pdf_named_txt_is_a_pdf_and_a_text_named_pdf_is_text(tmp_path):
    disguised = _pdf(tmp_path / "notes.txt")
    assert reader_of(disguised).id == "pdf"
    plain = tmp_path / "paper.pdf"
    plain.write_text("Just words about a %PDF- header, not a PDF.\n")
    assert reader_of(plain).id == "text"


def test_zip_containers_are_told_apart_by_their_members(tmp_path):
    docx = _zip(tmp_path / "a.bin", {"[Content_Types].xml": "<x/>", "word/document.xml": "<w/>"})
    pptx = _zip(tmp_path / "b.bin", {"[Content_Types].xml": "<x/>", "ppt/presentation.xml": "<p/>"})
    epub = _zip(tmp_path / "c.bin", {"META-INF/container.xml": "<c/>"}, mimetype="application/epub+zip")
    odt = _zip(tmp_path / "d.bin", {"content.xml": "<o/>"}, mimetype="application/vnd.oasis.opendocument.text")
    assert "word/document.xml" in zip_names(docx) and "ppt/presentation.xml" in zip_names(pptx)
    assert zip_mimetype(epub.read_bytes()[:8192]) == "application/epub+zip"
    assert zip_mimetype(odt.read_bytes()[:8192]) == "application/vnd.oasis.opendocument.text"
    assert zip_mimetype(docx.read_bytes()[:8192]) is None  # its first member is no mimetype
    truncated = tmp_path / "cut.docx"
    truncated.write_bytes(docx.read_bytes()[:60])
    assert zip_names(truncated) == frozenset()


def test_html_is_found_by_its_doctype_tag_or_namespace():
    assert looks_html(b"\xef\xbb\xbf<!DOCTYPE html><title>T</title>")
    assert looks_html(b"<?xml version='1.0'?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\">")
    assert looks_html(b"<HTML><body>x</body></HTML>")
    assert not looks_html(b"# A Markdown title\n\nWith <b>bold</b> inline HTML.\n")


def test_a_zip_no_reader_knows_is_refused_as_broken(tmp_path):
    registry = ReaderRegistry(builtins={"pdf": "chunker.readers.pdf:PdfReader"})
    odd = _zip(tmp_path / "odd.zip", {"hello.txt": "hi"})
    with pytest.raises(ReaderError) as info:
        registry.sniff(odd)
    assert info.value.reason == "broken-zip"


def test_text_refuses_binary_with_a_stable_reason(tmp_path):
    binary = tmp_path / "a.bin"
    binary.write_bytes(b"abc\x00def")
    reader = reader_of(binary)
    assert reader.id == "text"
    with pytest.raises(ReaderError) as info:
        Source.open(binary, ReadSettings(), reader)
    assert info.value.reason == "binary: contains NUL bytes"
    assert "looks binary" in str(info.value)


def test_a_text_source_is_its_file(tmp_path):
    src = Source.open(CINDERELLA, ReadSettings())
    assert src.reader_id == "text" and not src.writes_source and src.split_unit is None
    assert src.text == CINDERELLA.read_text(encoding="utf-8")
    assert src.locate(0, 10) is None  # no location beyond its characters
    src.extracted.check()


def test_a_pdf_source_has_pages_and_writes_its_extraction(tmp_path):
    pymupdf = pytest.importorskip("pymupdf")
    path = tmp_path / "two.pdf"
    doc = pymupdf.open()
    for words in ("The first page speaks of cats.", "The second page speaks of dogs."):
        doc.new_page().insert_text((72, 72), words)
    doc.save(path)
    src = Source.open(path, ReadSettings())
    assert src.reader_id == "pdf" and src.writes_source and src.split_unit == "page"
    src.extracted.check()
    first, second = src.places
    assert (first.page, second.page) == (1, 2)
    assert src.locate(first.start, second.end).pages == (1, 2)
    assert src.locate(second.start, second.end).as_dict() == {"pages": [2, 2]}
    write_map(tmp_path / ".chunker", "pdf", src.path, src.fingerprint, src.places, src.text)
    loaded = load_map(tmp_path)
    assert loaded.reader == "pdf" and loaded.places == src.places and loaded.pages((0, 1)) == (1, 1)


def test_locations_merge_parts_slides_paragraphs_and_ocr():
    places = (Place(0, 10, part="ch1.xhtml", anchor="start", paragraph=0),
              Place(10, 20, part="ch1.xhtml", paragraph=1),
              Place(20, 30, part="ch2.xhtml", anchor="two", paragraph=0, ocr_confidence=80.0),
              Place(30, 40, part="ch2.xhtml", paragraph=1, ocr_confidence=60.5))
    locator = Locator(places)
    assert locator.locate(12, 35).as_dict() == {"parts": ["ch1.xhtml", "ch2.xhtml"], "anchor": "start",
                                                "paragraphs": [1, 1], "ocr_confidence": 60.5}
    assert locator.locate(31, 33).anchor == "two"  # the nearest id before it in its part
    slides = Locator((Place(0, 5, slide=1), Place(5, 9, slide=2), Place(9, 12, slide=3)))
    assert slides.locate(6, 12).slides == (2, 3)


PLUGIN = '''
from pathlib import Path

from chunker.readers.base import Reader
from chunker.readers.model import Extracted, Place


class RtfReader(Reader):
    id = "rtf"
    label = "RTF document"

    def sniff(self, head, path):
        return head.startswith(b"{\\\\rtf")

    def read(self, path, settings):
        words = Path(path).read_text().replace("{\\\\rtf1 ", "").rstrip("}\\n") + "\\n"
        return Extracted(words, (Place(0, len(words), paragraph=0),))
'''


@pytest.fixture
def rtf_plugin(tmp_path, monkeypatch):
    """An installed distribution whose `chunker.readers` entry point adds an RTF reader."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "acme_rtf.py").write_text(PLUGIN)
    info = site / "acme_rtf-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-rtf\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[chunker.readers]\nrtf = acme_rtf:RtfReader\n")
    monkeypatch.syspath_prepend(str(site))
    READERS.rediscover()
    yield
    monkeypatch.undo()
    READERS.rediscover()


def test_a_plugin_adds_a_format_through_the_entry_point_group(rtf_plugin, tmp_path):
    doc = tmp_path / "memo.rtf"
    doc.write_text("{\\rtf1 Meet at noon by the old mill.}\n")
    assert "rtf" in READERS.ids() and READERS.ids()[-1] == "text"  # before the plain-text fallback
    reader = reader_of(doc)
    assert reader.id == "rtf" and readers_registry.reader("rtf") is reader
    src = Source.open(doc, ReadSettings())
    assert src.text == "Meet at noon by the old mill.\n" and src.writes_source
    assert src.locate(0, 4).paragraphs == (0, 0)


def test_without_the_plugin_the_file_is_text(tmp_path):
    doc = tmp_path / "memo.rtf"
    doc.write_text("{\\rtf1 Meet at noon by the old mill.}\n")
    assert "rtf" not in READERS.ids() and reader_of(doc).id == "text"


def test_a_missing_extra_names_it(tmp_path):
    class Needy(Reader):
        id, label, extra = "needy", "needy file", "needy"

        def sniff(self, head, path):
            return head.startswith(b"NEEDY")

        def available(self):
            return "reading needy files needs the needy extra: pip install 'chunker-tree[needy]'"

        def read(self, path, settings):  # pragma: no cover - never reached
            return Extracted("x", (Place(0, 1),))

    registry = ReaderRegistry(builtins={"needy": f"{__name__}:_NEEDY"})
    globals()["_NEEDY"] = Needy
    doc = tmp_path / "a.needy"
    doc.write_bytes(b"NEEDY data")
    reader = registry.sniff(doc)
    assert reader.id == "needy" and "chunker-tree[needy]" in reader.available()

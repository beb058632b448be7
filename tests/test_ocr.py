"""OCR with tesseract: a page rendered here (PyMuPDF draws the text, then only its image is kept)
is read back. With CI set tesseract and pytesseract must be installed: these tests fail, never
skip, there; elsewhere a missing one skips with the line to install it."""

from __future__ import annotations

import io
import os
import re

import pytest

from chunker.readers import ocr

PARAGRAPHS = [
    "The quick brown fox jumps over the lazy dog near the river bank.",
    "Owls hunt at night and rest during the day in old barns.",
]


def need_ocr() -> None:
    line = ocr.missing()
    if line is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"CI must have OCR installed: {line}")
    pytest.skip(line)


def rendered_page(dpi: int = 200) -> bytes:
    """A PNG of a page holding PARAGRAPHS as two text blocks, a gap between them."""
    if os.environ.get("CI"):  # the pdf extra is installed there
        import pymupdf
    else:
        pymupdf = pytest.importorskip("pymupdf")
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=300)
    page.insert_textbox(pymupdf.Rect(40, 40, 555, 120), PARAGRAPHS[0], fontsize=14)
    page.insert_textbox(pymupdf.Rect(40, 160, 555, 240), PARAGRAPHS[1], fontsize=14)
    return page.get_pixmap(dpi=dpi).tobytes("png")


def words(text: str) -> list[str]:
    return re.findall(r"[a-z]+", text.lower())


def test_reads_a_rendered_page_in_paragraphs():
    need_ocr()
    text, confidence = ocr.read_image(rendered_page())
    assert words(text) == words(" ".join(PARAGRAPHS))
    assert len(text.split("\n\n")) == 2, text  # the two blocks, a blank line between
    assert 70 <= confidence <= 100


def test_blank_image_has_no_text():
    need_ocr()
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (200, 100), "white").save(buf, format="PNG")
    assert ocr.read_image(buf.getvalue()) == ("", 0.0)


def test_bad_input_and_unknown_language_raise_ocr_error():
    need_ocr()
    with pytest.raises(ocr.OcrError):
        ocr.read_image(b"not an image")
    with pytest.raises(ocr.OcrError):
        ocr.read_image(rendered_page(dpi=72), lang="zzz")


def test_missing_names_what_to_install(monkeypatch, tmp_path):
    need_ocr()
    assert ocr.missing() is None
    monkeypatch.setenv("PATH", str(tmp_path))  # a PATH without the tesseract program
    line = ocr.missing()
    assert line is not None and "apt-get install -y tesseract-ocr" in line
    assert "pip install" not in line  # the binding is there


def test_image_reader_reads_png_and_multipage_tiff(tmp_path):
    need_ocr()
    from PIL import Image

    from chunker.readers.base import ReadSettings
    from chunker.readers.image import ImageReader
    from chunker.readers.model import ReaderError

    reader = ImageReader()
    assert reader.available() is None
    page = tmp_path / "scan.png"
    page.write_bytes(rendered_page())
    assert reader.sniff(page.read_bytes()[:8192], page)
    ex = reader.read(page, ReadSettings())
    ex.check()
    assert words(ex.markdown) == words(" ".join(PARAGRAPHS))
    (place,) = ex.places
    assert place.page == 1 and place.scanned and place.ocr_confidence > 70
    assert ex.images[0].data.startswith(b"\x89PNG")

    frame = Image.open(io.BytesIO(rendered_page()))
    tiff = tmp_path / "scan.tiff"
    frame.save(tiff, save_all=True, append_images=[frame.copy()])
    ex = reader.read(tiff, ReadSettings())
    ex.check()
    assert [p.page for p in ex.places] == [1, 2]
    assert ex.markdown.count("quick brown fox") == 2
    assert len(reader.page_images(tiff, [2], dpi=150, max_images=4)) == 1

    broken = tmp_path / "broken.png"
    broken.write_bytes(page.read_bytes()[:200])
    with pytest.raises(ReaderError) as err:
        reader.read(broken, ReadSettings())
    assert err.value.reason == "broken-image"
    with pytest.raises(ReaderError) as err:
        reader.read(page, ReadSettings(ocr=False))
    assert err.value.reason == "ocr-off"

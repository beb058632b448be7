"""The PDF reader reads a page without a text layer by OCR (`chunker/readers/ocr.py`), marks
it (its place's `ocr_confidence`), and without OCR keeps the placeholder line and says once
which pages it could not read and what to install."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

pymupdf = pytest.importorskip("pymupdf")

from chunker.readers import ocr  # noqa: E402
from chunker.readers.base import ReadSettings  # noqa: E402
from chunker.readers.pdf import SCANNED_NOTE  # noqa: E402
from chunker.readers.source import Source  # noqa: E402

LINES = ["The harbour master counted forty ships in the bay.",
         "Each ship carried timber, salt and barrels of oil.",
         "The crane on the north pier lifted every cargo by noon."]


def _needs_ocr():
    if ocr.missing() and not os.environ.get("CI"):
        pytest.skip(ocr.missing())


def _scanned_pdf(path: Path) -> Path:
    """Page 1 with a text layer; page 2 the same kind of page rendered to an image only."""
    text = pymupdf.open()
    page = text.new_page()
    for i, line in enumerate(LINES):
        page.insert_text((72, 100 + 24 * i), line, fontsize=14)
    png = page.get_pixmap(dpi=200).tobytes("png")
    out = pymupdf.open()
    first = out.new_page()
    first.insert_text((72, 100), "A page with its own text layer about the harbour.", fontsize=12)
    scan = out.new_page()
    scan.insert_image(scan.rect, stream=png)
    out.save(path)
    return path


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z]+", text.lower())


def test_a_scanned_page_is_read_by_ocr_and_marked(tmp_path):
    _needs_ocr()
    src = Source.open(_scanned_pdf(tmp_path / "scan.pdf"), ReadSettings())
    src.extracted.check()
    first, second = src.places
    assert first.ocr_confidence is None and not first.scanned
    assert second.page == 2 and second.scanned and second.ocr_confidence > 50
    read = src.text[second.start:second.end]
    truth = _words(" ".join(LINES))
    recovered = sum(w in set(_words(read)) for w in truth) / len(truth)
    assert recovered >= 0.9, read
    assert "scanned image" not in src.text and not src.extracted.notes
    assert src.locate(second.start, second.end).ocr_confidence == second.ocr_confidence


def test_without_ocr_the_placeholder_stays_and_one_note_names_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setattr(ocr, "missing", lambda: "OCR needs the tesseract program and its binding: "
                                                "apt-get install -y tesseract-ocr")
    src = Source.open(_scanned_pdf(tmp_path / "scan.pdf"), ReadSettings())
    assert SCANNED_NOTE.format(number=2) in src.text
    assert src.places[1].placeholder and src.placeholder_pages == [2]
    (note,) = src.extracted.notes
    assert "page 2" in note and "apt-get install -y tesseract-ocr" in note
    lines = src.notes(vision_model=False)
    assert lines[0].startswith("no --vision-model: PDF pages are read as text only; scanned page(s) 2")
    assert lines[1] == note


def test_ocr_off_keeps_the_placeholder(tmp_path):
    src = Source.open(_scanned_pdf(tmp_path / "scan.pdf"), ReadSettings(ocr=False))
    assert SCANNED_NOTE.format(number=2) in src.text and "OCR is off" in src.extracted.notes[0]

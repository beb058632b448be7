"""PDF extraction on PDFs generated here with PyMuPDF: detection, page map, headings, tables,
scanned pages, errors and rendering."""

from __future__ import annotations

from pathlib import Path

import pytest

import pymupdf

from chunker.document.loader import BadInput  # noqa: E402
from chunker.document.pdf import extract, is_pdf, render_pages  # noqa: E402
from chunker.document.pdf_model import PdfSettings, pages_of  # noqa: E402

BODY = ("The company sold more tickets this year than last year. Attendance rose in every region. "
        "Costs stayed flat while revenue grew, so the margin improved. ")
ROWS = [("Segment", "2024", "2025"), ("Cinema", "120", "135"), ("Parks", "300", "310")]


def _body(page, y: float, lines: int = 4) -> float:
    for i in range(lines):
        line = "# not a heading, a hash sign in body text" if i == 3 else BODY[i * 20:i * 20 + 80]
        page.insert_text((72, y), line, fontsize=11)
        y += 14
    return y + 10


def _table(page, y: float) -> float:
    """A 3x3 table with ruling lines, so any table finder sees it."""
    x0, w, h = 72, 120, 20
    for r, row in enumerate(ROWS):
        for c, cell in enumerate(row):
            rect = pymupdf.Rect(x0 + c * w, y + r * h, x0 + (c + 1) * w, y + (r + 1) * h)
            page.draw_rect(rect, color=(0, 0, 0), width=0.8)
            page.insert_text((rect.x0 + 4, rect.y1 - 6), cell, fontsize=10)
    return y + len(ROWS) * h + 24


def make_pdf(path: Path, *, scanned_page: bool = True, outline: bool = False) -> Path:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "Annual Report", fontsize=24)
    y = _body(page, 110)
    page.insert_text((72, y + 6), "Revenue by segment", fontsize=16)
    y = _body(page, y + 34)
    _table(page, y)
    page = doc.new_page()
    page.insert_text((72, 80), "Outlook", fontsize=16)
    _body(page, 110, lines=8)
    if scanned_page:
        page = doc.new_page()
        pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 40, 40), False)
        pix.set_rect(pix.irect, (200, 200, 200))
        page.insert_image(pymupdf.Rect(72, 72, 400, 400), pixmap=pix)
    if outline:
        doc.set_toc([[1, "Annual Report", 1], [2, "Revenue by segment", 1], [2, "Outlook", 2],
                     [2, "Appendix", 2]])
    doc.save(path)
    doc.close()
    return path


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> Path:
    return make_pdf(tmp_path_factory.mktemp("pdf") / "report.pdf")


@pytest.fixture(scope="module")
def text(sample):
    return extract(sample)


def test_detection_by_content_not_name(tmp_path, sample):
    disguised = tmp_path / "report.txt"
    disguised.write_bytes(sample.read_bytes())
    fake = tmp_path / "notes.pdf"
    fake.write_text("just text, %PDF- appears only later\n" * 100)
    assert is_pdf(disguised)
    assert not is_pdf(fake)
    assert not is_pdf(tmp_path / "missing.pdf")


def test_page_map_tiles_the_text(text):
    assert [p.number for p in text.pages] == [1, 2, 3]
    assert text.pages[0].start == 0
    for prev, cur in zip(text.pages, text.pages[1:]):
        assert cur.start == prev.end
    assert text.pages[-1].end == len(text.markdown)
    assert "Outlook" in text.markdown[text.pages[1].start:text.pages[1].end]
    assert "Outlook" not in text.markdown[text.pages[0].start:text.pages[0].end]


def test_headings_from_two_font_sizes(text):
    assert [(h.level, h.title, h.page) for h in text.headings] == [
        (1, "Annual Report", 1), (2, "Revenue by segment", 1), (2, "Outlook", 2)]
    assert text.heading_source == "font"
    lines = text.markdown.splitlines()
    assert "# Annual Report" in lines and "## Revenue by segment" in lines
    for h in text.headings:
        assert text.markdown[h.start:h.end].lstrip("#").strip() == h.title
        assert pages_of((h.start, h.end), text.pages) == (h.page, h.page)
    # body text that looks like Markdown structure stays text
    assert not any(line.startswith("#") and "not a heading" in line for line in lines)


def test_table_is_one_markdown_table_inside_its_page(text):
    assert len(text.tables) == 1
    table = text.tables[0]
    body = text.markdown[table.start:table.end]
    rows = body.splitlines()
    assert all(r.startswith("|") and r.endswith("|") for r in rows)
    assert rows[1].replace("|", "").strip("-") == ""
    assert "Cinema" in body and "310" in body
    page = text.pages[0]
    assert page.start <= table.start < table.end <= page.end
    assert table.rows == 3 and table.cols == 3
    assert "Cinema" not in text.markdown.replace(body, "")


def test_scanned_page_is_flagged_with_an_empty_range(text):
    scanned = text.pages[2]
    assert scanned.scanned and scanned.start == scanned.end == len(text.markdown)
    assert text.scanned_pages == (3,)
    assert not text.pages[0].scanned
    assert pages_of((scanned.start, scanned.start), text.pages) == (3, 3)


def test_pages_of_spans_across_pages(text):
    p1, p2 = text.pages[0], text.pages[1]
    assert pages_of((0, p1.end), text.pages) == (1, 1)
    assert pages_of((p1.end - 1, p1.end + 1), text.pages) == (1, 2)
    assert pages_of((p2.start, p2.start), text.pages) == (2, 2)
    with pytest.raises(ValueError):
        pages_of((0, len(text.markdown) + 1), text.pages)


def test_outline_gives_headings_when_present(tmp_path):
    got = extract(make_pdf(tmp_path / "toc.pdf", scanned_page=False, outline=True))
    assert got.heading_source == "outline"
    # "Appendix" is in no line: it goes where its bookmark points, the top of page 2
    assert [(h.level, h.title, h.page) for h in got.headings] == [
        (1, "Annual Report", 1), (2, "Revenue by segment", 1), (2, "Appendix", 2), (2, "Outlook", 2)]
    assert got.markdown.count("Outlook") == 1
    assert "## Outlook" in got.markdown.splitlines()


def _one_line_bad_input(path: Path) -> str:
    with pytest.raises(BadInput) as info:
        extract(path)
    message = str(info.value)
    assert "\n" not in message and message
    return message


def test_encrypted_pdf_is_bad_input(tmp_path, sample):
    doc = pymupdf.open(sample)
    locked = tmp_path / "locked.pdf"
    doc.save(locked, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="secret", owner_pw="owner")
    doc.close()
    assert "encrypted" in _one_line_bad_input(locked)


@pytest.mark.parametrize("fraction", [0.02, 0.3, 0.6, 0.95])
def test_truncated_pdf_is_bad_input(tmp_path, sample, fraction):
    data = sample.read_bytes()
    cut = tmp_path / "cut.pdf"
    cut.write_bytes(data[:int(len(data) * fraction)])
    assert "damaged" in _one_line_bad_input(cut)


def test_blank_pdf_is_bad_input(tmp_path):
    doc = pymupdf.open()
    doc.new_page()
    doc.save(tmp_path / "blank.pdf")
    assert "no page has text" in _one_line_bad_input(tmp_path / "blank.pdf")


def test_render_pages_png_at_dpi_with_a_cap(sample):
    images = render_pages(sample, [1, 2, 3], dpi=72, max_images=2)
    assert len(images) == 2
    assert all(img.startswith(b"\x89PNG\r\n\x1a\n") for img in images)
    pix = pymupdf.Pixmap(images[0])
    assert (pix.width, pix.height) == (595, 842)  # A4 at 72 DPI: one pixel per point
    assert pymupdf.Pixmap(render_pages(sample, [1], dpi=144)[0]).width == 1190
    with pytest.raises(ValueError):
        render_pages(sample, [9])


def test_tables_off_keeps_cells_as_text(sample):
    got = extract(sample, settings=PdfSettings(find_tables=False))
    assert not got.tables and "Cinema" in got.markdown

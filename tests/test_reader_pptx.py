"""The PPTX reader on a deck python-pptx writes here, and on one pandoc wrote (tests/data)."""

from __future__ import annotations

import datetime as dt
import io
import os
from pathlib import Path

import pytest

from chunker.readers.base import ReadSettings
from chunker.readers.model import ReaderError

try:
    from pptx import Presentation
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE
    from pptx.util import Inches
except ImportError:  # CI installs the extra: there a missing library fails the file
    if os.environ.get("CI"):
        raise
    pytest.skip("python-pptx is missing: pip install 'chunker-tree[pptx]'", allow_module_level=True)

from chunker.readers.pptx import PptxReader, extract_pptx
from test_reader_docx import ole_file, png

DATA = Path(__file__).resolve().parent / "data" / "formats"


@pytest.fixture()
def deck(tmp_path: Path) -> Path:
    prs = Presentation()
    cp = prs.core_properties
    cp.title, cp.author, cp.language = "Owl survey", "Ann Lee", "en-GB"
    cp.created = dt.datetime(2024, 5, 17, 9, 30)
    s1 = prs.slides.add_slide(prs.slide_layouts[0])
    s1.shapes.title.text = "Owl survey 2024"
    s1.placeholders[1].text = "Field team north"
    s2 = prs.slides.add_slide(prs.slide_layouts[1])                    # title and content
    s2.shapes.title.text = "Findings"
    body = s2.placeholders[1].text_frame
    body.text = "Barn owls everywhere"
    p = body.add_paragraph()
    p.text, p.level = "mostly in barns", 1
    p = body.add_paragraph()
    p.text = "Tawny owls "
    run = p.add_run()
    run.text = "in woods"
    run.hyperlink.address = "https://example.org/tawny"
    s2.notes_slide.notes_text_frame.text = "Mention the rain.\nThank the farmers."
    s3 = prs.slides.add_slide(prs.slide_layouts[5])                    # title only
    s3.shapes.title.text = "Counts"
    low = s3.shapes.add_textbox(Inches(1), Inches(5), Inches(6), Inches(1))   # added first, lies lower
    low.text_frame.text = "Counts are per night."
    table = s3.shapes.add_table(3, 3, Inches(1), Inches(2), Inches(6), Inches(2)).table
    for i, row in enumerate([["Owl", "North", "South"], ["Barn", "10", "7"], ["Tawny", "4", "5"]]):
        for j, text in enumerate(row):
            table.cell(i, j).text = text
    table.cell(2, 1).merge(table.cell(2, 2))
    s4 = prs.slides.add_slide(prs.slide_layouts[6])                    # blank: no title
    box = s4.shapes.add_textbox(Inches(1), Inches(1), Inches(6), Inches(3)).text_frame
    box.text = "Method"
    box.paragraphs[0].runs[0].font.bold = True
    box.add_paragraph().text = "We listened from dusk to dawn."
    pic = s4.shapes.add_picture(io.BytesIO(png()), Inches(1), Inches(4))
    pic._element.nvPicPr.cNvPr.set("descr", "Map of the sites")
    chart = CategoryChartData()
    chart.categories = ["Barn", "Tawny"]
    chart.add_series("Count", (10, 4))
    s4.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(5), Inches(4), Inches(3), Inches(2), chart)
    path = tmp_path / "deck.pptx"
    prs.save(path)
    return path


def headings(md: str) -> list[tuple[int, str]]:
    return [(len(line) - len(line.lstrip("#")), line.lstrip("#").strip())
            for line in md.splitlines() if line.startswith("#")]


def test_slide_titles_are_sections(deck):
    md = extract_pptx(deck).markdown
    assert headings(md) == [(1, "Owl survey 2024"), (1, "Findings"), (1, "Counts"), (2, "Method")]


def test_text_in_reading_order_tables_notes_and_links(deck):
    md = extract_pptx(deck).markdown
    assert "- Barn owls everywhere\n    - mostly in barns\n- Tawny owls [in woods](https://example.org/tawny)" in md
    assert "> Notes: Mention the rain.\n>\n> Thank the farmers." in md
    assert "# Owl survey 2024\n\nField team north\n\n# Findings" in md
    assert md.index("> Notes:") < md.index("# Counts")
    table = "| Owl | North | South |\n|---|---|---|\n| Barn | 10 | 7 |\n| Tawny | 4 5 |  |"
    assert table in md
    assert md.index("| Owl") < md.index("Counts are per night.")  # the table lies higher
    assert "## Method\n\nWe listened from dusk to dawn.\n\n![Map of the sites](image-1.png)" in md


def test_places_point_at_slides(deck):
    ex = extract_pptx(deck)
    ex.check()

    def place(needle: str):
        at = ex.markdown.index(needle)
        (found,) = ex.places_in(at, at + 1)
        return found

    assert place("# Findings").slide == 2 and place("# Findings").part == "ppt/slides/slide2.xml"
    assert place("> Notes").slide == 2 and place("> Notes").part.startswith("ppt/notesSlides/")
    assert place("| Owl").slide == 3
    assert place("We listened").slide == 4
    (image,) = ex.images
    assert image.alt == "Map of the sites" and ex.markdown[image.offset:].startswith("![Map")


def test_unread_chart_is_a_note(deck):
    ex = extract_pptx(deck)
    assert len(ex.notes) == 1 and ex.notes[0].startswith("slide 4: a chart")


def test_metadata(deck):
    meta = extract_pptx(deck).metadata
    assert (meta.title, meta.authors, meta.date, meta.language) == ("Owl survey", ("Ann Lee",), "2024-05-17", "en-GB")


def test_pandoc_deck_titles_match_its_markdown():
    ex = extract_pptx(DATA / "rust-book-appendix-02-operators.pptx")
    ex.check()
    titles = [t for _, t in headings(ex.markdown)]
    assert titles == ["appendix-02-operators", "Appendix B: Operators and Symbols", "Operators",
                      "Non-operator Symbols"]


def test_reader_sniffs_broken_and_encrypted(deck, tmp_path):
    reader = PptxReader()
    assert reader.available() is None
    assert reader.sniff(deck.read_bytes()[:8192], deck)
    assert reader.read(deck, ReadSettings()).markdown.startswith("# Owl survey 2024\n\n")
    cut = tmp_path / "cut.pptx"
    cut.write_bytes(deck.read_bytes()[: deck.stat().st_size // 2])
    assert reader.sniff(cut.read_bytes()[:8192], cut)
    with pytest.raises(ReaderError) as err:
        reader.read(cut, ReadSettings())
    assert err.value.reason == "broken-pptx"
    locked = tmp_path / "locked.pptx"
    locked.write_bytes(ole_file(["EncryptionInfo", "EncryptedPackage"]))
    assert reader.sniff(locked.read_bytes(), locked)
    with pytest.raises(ReaderError) as err:
        reader.read(locked, ReadSettings())
    assert err.value.reason == "encrypted-pptx"
    reader.check(deck.read_bytes(), deck, ReadSettings())  # the corpus's early test
    for path, reason in ((cut, "broken-pptx"), (locked, "encrypted-pptx")):
        with pytest.raises(ReaderError) as err:
            reader.check(path.read_bytes(), path, ReadSettings())
        assert err.value.reason == reason


def test_damaged_files_raise_only_reader_errors(tmp_path):
    from test_reader_docx import corrupted

    path = tmp_path / "damaged.pptx"
    for blob in corrupted((DATA / "rust-book-appendix-02-operators.pptx").read_bytes()):
        path.write_bytes(blob)
        try:
            extract_pptx(path)
        except ReaderError as err:
            assert "\n" not in str(err) and err.reason.endswith("-pptx")

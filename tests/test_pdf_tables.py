"""PDF tables as the table finder lays them out (`chunker/document/pdf_tables.py`), on PDFs
written here with PyMuPDF, ruled so that the finder sees every cell: a header line that runs
across a column edge, a merged header cell, a wrapped row label, a group label in the cell of
the label below it, two tables stacked in one grid, a first row of figures, a header set above
the grid. Each is read through `extract` and the records parser, as a run reads it."""

from __future__ import annotations

from pathlib import Path

import pytest

import pymupdf

from chunker.document.pdf import extract
from chunker.document.structure import parse_structure
from chunker.structured.extract import build_records

WIDTHS = [150, 70, 70, 60]


def _grid(page, y: float, rows: list[list], merged: dict | None = None, x0: float = 72) -> float:
    """Ruled cells; a cell given as a list is several lines; `merged` {(row, col): columns}."""
    merged = merged or {}
    for r, row in enumerate(rows):
        height = 18 * max(len(c) if isinstance(c, list) else 1 for c in row)
        x, c = x0, 0
        while c < len(row):
            span = merged.get((r, c), 1)
            rect = pymupdf.Rect(x, y, x + sum(WIDTHS[c:c + span]), y + height)
            page.draw_rect(rect, color=(0, 0, 0), width=0.6)
            for k, line in enumerate(row[c] if isinstance(row[c], list) else [row[c]]):
                page.insert_text((x + 3, y + 13 + k * 18), line, fontsize=9)
            x, c = rect.x1, c + span
        y += height
    return y


def _make(path: Path) -> Path:
    doc = pymupdf.open()
    page = doc.new_page()  # 1: header line across an edge, wrapped label, group label, stacked tables
    page.insert_text((72, 60), "The following table summarizes the results:", fontsize=10)
    _grid(page, 80, [
        ["", "", "", ""], ["($ in millions)", "2024", "2023", "Change"], ["Revenues:", "", "", ""],
        ["Entertainment", "10,872", "9,981", "9 %"], ["Amortization of intangible", "", "", ""],
        ["assets and step-up costs", "397", "451", "12 %"], [["Exclude:", "Restructuring charges"], "143", "0", "nm"],
        ["Total", "11,412", "10,432", "9 %"], ["Average revenue per subscriber:", "", "", ""],
        ["", "2024", "2023", "Change"], ["Domestic", "7.99", "7.70", "4 %"], ["International", "7.19", "6.78", "6 %"]])
    page.insert_text((72 + 150 + 40, 93), "Quarter Ended", fontsize=9)  # one line over the edge of two cells
    page = doc.new_page()  # 2: a first row of figures; a merged header cell
    page.insert_text((72, 60), "Costs were as follows.", fontsize=10)
    _grid(page, 80, [["Revenues", "10,872", "9,981", "9 %"], ["Costs", "(8,000)", "(7,500)", "(7) %"],
                     ["Net income", "2,872", "2,481", "16 %"]])
    _grid(page, 200, [["", "Quarter Ended", "", "Change"], ["", "2024", "2023", ""], ["Revenue", "6,072", "5,546", "9 %"]],
          merged={(0, 1): 2})
    page = doc.new_page()  # 3: the column labels set above the grid (the finder's external header)
    page.insert_text((72, 50), "Segment results were as follows.", fontsize=10)
    x = 72
    for label, width in zip(["Segment", "Revenue", "Cost", "Margin"], WIDTHS):
        page.insert_text((x + 3, 78), label, fontsize=9)
        x += width
    _grid(page, 82, [["Parks", "6,432", "4,450", "31 %"], ["Studios", "2,183", "1,871", "14 %"]])
    doc.save(path)
    doc.close()
    return path


@pytest.fixture(scope="module")
def pdf(tmp_path_factory):
    got = extract(_make(tmp_path_factory.mktemp("pdf-tables") / "tables.pdf"))
    return got, build_records(got.markdown, parse_structure(got.markdown)).tables


def _labels(table) -> list[str]:
    return [c.label for c in table.columns[1:]]


def test_header_line_across_a_column_edge_is_one_merged_header(pdf):
    text, tables = pdf
    assert "Quarter Ended" in text.markdown and "|Quarter|" not in text.markdown
    assert _labels(tables[0]) == ["Quarter Ended / 2024", "Quarter Ended / 2023", "Change"]
    assert tables[0].unit == "$ in millions"


def test_wrapped_label_is_one_row_and_a_group_label_is_its_own(pdf):
    _, tables = pdf
    rows = {r.label: r for r in tables[0].rows}
    assert list(rows) == ["Revenues:", "Entertainment", "Amortization of intangible assets and step-up costs",
                          "Exclude:", "Restructuring charges", "Total"]
    assert [c.number.value for c in rows["Amortization of intangible assets and step-up costs"].cells[1:3]] == [397, 451]
    assert all(not c.text for c in rows["Exclude:"].cells[1:])
    assert not [c for c in build_records(pdf[0].markdown, None).checks if c.kind == "table-total"]  # 10,872 + 397 + 143


def test_stacked_tables_are_two_with_the_caption_between(pdf):
    text, tables = pdf
    second = tables[1]
    assert [r.label for r in second.rows] == ["Domestic", "International"]
    assert _labels(second) == ["2024", "2023", "Change"]
    assert second.caption == "Average revenue per subscriber:"
    assert [t.page for t in text.tables] == [1, 1, 2, 2, 3]


def test_first_row_of_figures_is_a_row_not_the_header(pdf):
    _, tables = pdf
    costs = tables[2]
    assert [r.label for r in costs.rows] == ["Revenues", "Costs", "Net income"]
    assert costs.rows[0].cells[1].number.value == 10872


def test_merged_header_cell_is_written_over_each_column_it_covers(pdf):
    text, tables = pdf
    assert "|Quarter Ended|Quarter Ended|Change|" in text.markdown
    assert _labels(tables[3]) == ["Quarter Ended / 2024", "Quarter Ended / 2023", "Change"]


def test_header_set_above_the_grid_heads_its_columns_once(pdf):
    text, tables = pdf
    assert _labels(tables[4]) == ["Revenue", "Cost", "Margin"]
    assert text.markdown.count("Segment") == 2  # the sentence above, and the header cell; no loose line
    assert "Segment Revenue Cost Margin" not in text.markdown

"""A merged header cell, as every reader writes it, reaches the table record as the label of
each column it heads and of no other (issue 32's merged headers, from issue 31's readers).

Markdown has no colspan, so a reader writes a merged header's label over every column it spans;
an empty header cell beside it then stays empty. Written as a label and empty cells (what the
readers did before), the parser could not tell a merge from a column without a header, and
carried `Quarter Ended` onto the `Change` column. Each file here is written by the format's own
library (python-docx, python-pptx, lxml for ODT) or by hand (HTML).
"""

from __future__ import annotations

from pathlib import Path

from chunker.document.markdown_parse import markdown_parser
from chunker.document.structure import parse_structure
from chunker.readers.docx import extract_docx
from chunker.readers.html import extract_html
from chunker.readers.odt import extract_odt
from chunker.readers.pptx import extract_pptx
from chunker.structured.tables import parse_tables
from test_reader_odt import write_odt

# Quarter Ended heads two dates; Change has no upper label; Segment heads the label column
UPPER = ["Segment", "Quarter Ended", None, ""]  # None: covered by the merge on its left
LOWER = ["", "Dec 28, 2024", "Dec 30, 2023", "Change"]
BODY = [["Parks", "8,549", "8,389", "2 %"], ["Media", "10,872", "11,250", "(3) %"]]
EXPECTED = ["Segment", "Quarter Ended / Dec 28, 2024", "Quarter Ended / Dec 30, 2023", "Change"]


def columns(markdown: str) -> list[str]:
    text = markdown + "\n"
    (table,) = parse_tables(text, markdown_parser(True).parse(text), parse_structure(text))
    return [c.label for c in table.columns]


def test_html_colspan():
    upper = "<tr><th>Segment</th><th colspan='2'>Quarter Ended</th><th></th></tr>"
    lower = "<tr>" + "".join(f"<th>{x}</th>" for x in LOWER) + "</tr>"
    body = "".join("<tr>" + "".join(f"<td>{x}</td>" for x in row) + "</tr>" for row in BODY)
    page = f"<html><body><table><thead>{upper}{lower}</thead><tbody>{body}</tbody></table></body></html>"
    md = extract_html(page.encode()).markdown
    assert "| Segment | Quarter Ended | Quarter Ended |  |" in md
    assert columns(md) == EXPECTED


def _fill(table) -> None:
    """The cells outside the merged one, in a python-docx or python-pptx table (same API)."""
    table.cell(0, 0).text = "Segment"
    for c, text in enumerate(LOWER):
        table.cell(1, c).text = text
    for r, row in enumerate(BODY, 2):
        for c, text in enumerate(row):
            table.cell(r, c).text = text


def test_docx_grid_span(tmp_path: Path):
    import docx  # noqa: PLC0415

    document = docx.Document()
    table = document.add_table(rows=2 + len(BODY), cols=4)
    merged = table.cell(0, 1).merge(table.cell(0, 2))
    merged.text = "Quarter Ended"
    _fill(table)
    document.save(tmp_path / "t.docx")
    assert columns(extract_docx(tmp_path / "t.docx").markdown) == EXPECTED


def test_pptx_merged_cells(tmp_path: Path):
    import pptx  # noqa: PLC0415
    from pptx.util import Inches  # noqa: PLC0415

    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Results"
    shape = slide.shapes.add_table(2 + len(BODY), 4, Inches(0.5), Inches(1.5), Inches(8), Inches(2))
    table = shape.table
    table.cell(0, 1).merge(table.cell(0, 2))
    table.cell(0, 1).text = "Quarter Ended"
    _fill(table)
    deck.save(tmp_path / "t.pptx")
    assert columns(extract_pptx(tmp_path / "t.pptx").markdown) == EXPECTED


def test_odt_covered_cell(tmp_path: Path):
    def cell(text: str, span: int = 1) -> str:
        spanned = f' table:number-columns-spanned="{span}"' if span > 1 else ""
        return f"<table:table-cell{spanned}><text:p>{text}</text:p></table:table-cell>"

    upper = cell("Segment") + cell("Quarter Ended", 2) + "<table:covered-table-cell/>" + cell("")
    rows = [upper, "".join(cell(x) for x in LOWER), *("".join(cell(x) for x in row) for row in BODY)]
    body = ('<table:table table:name="T"><table:table-column table:number-columns-repeated="4"/>'
            + "".join(f"<table:table-row>{r}</table:table-row>" for r in rows) + "</table:table>")
    path = write_odt(tmp_path / "t.odt", body)
    assert columns(extract_odt(path).markdown) == EXPECTED

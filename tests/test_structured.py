"""Structured records (issue 32): numbers, tables, checks, the records in hierarchy.json and
CSV, grounding above a failed check, the targeted table route and the navigator's fallback,
and an update redoing an edited table's record."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from chunker.document.markdown_parse import markdown_parser
from chunker.document.structure import parse_structure
from chunker.structured.checks import mismatch_checks, total_checks
from chunker.structured.extract import build_records
from chunker.structured.numbers import parse_number
from chunker.structured.prose import prose_checks
from chunker.structured.tables import parse_tables

DATA = Path(__file__).parent / "data" / "structured"
ORCHARD = (DATA / "orchard.md").read_text(encoding="utf-8")
OPERATORS = (DATA / "rust-book-appendix-02-operators.md").read_text(encoding="utf-8")


def tables_of(text: str):
    return parse_tables(text, markdown_parser(True).parse(text), parse_structure(text))


@pytest.mark.parametrize("text, unit, value, shown, decimals", [
    ("1,234.50", None, 1234.5, None, 2),
    ("(447)", "$ in millions", -447.0, "USD millions", 0),
    ("$ (138)", None, -138.0, "USD", 0),
    ("(17) %", None, -17.0, "%", 0),
    ("−4.5%", None, -4.5, "%", 1),
    ("$1.2 billion", None, 1.2, "USD billions", 1),
    ("12bps", "$ in millions", 12.0, "bps", 0),
    ("€ 40", "$ in millions", 40.0, "EUR millions", 0),
    ("7", "%", 7.0, "%", 0),
    ("**3.25**", None, 3.25, None, 2),
])
def test_numbers_are_read_with_sign_unit_and_precision(text, unit, value, shown, decimals):
    n = parse_number(text, unit)
    assert (n.value, n.unit, n.decimals) == (value, shown, decimals)


@pytest.mark.parametrize("text", ["Q1 FY25", "nm", "—  %", "-", "8-bit", "expr != expr", "(a) 12", ""])
def test_text_is_no_number(text):
    assert parse_number(text) is None


def test_a_table_has_columns_rows_cells_spans_and_caption():
    fruit, costs = tables_of(ORCHARD)
    assert fruit.caption == "Table 1: Fruit sold by month (crates)"
    assert [c.label for c in fruit.columns] == ["Fruit", "March", "April"]
    assert [r.label for r in fruit.rows] == ["Red apples", "Pears", "Total"]
    apples = fruit.rows[0].cells
    assert [c.text for c in apples] == ["Red apples", "12", "15"]
    assert all(ORCHARD[c.span[0]:c.span[1]] == c.text for c in apples)
    assert ORCHARD[fruit.span[0]:fruit.span[1]].startswith("| Fruit | March | April |")
    assert costs.caption == "Costs"  # no `Table N` line: the heading it sits under
    assert costs.rows[1].cells[1].number.value == -40.0
    assert costs.rows[0].cells[1].number.unit == "USD thousands"  # the unit of the corner header


def test_stacked_headers_are_flattened_with_their_path_and_currency_columns_fold():
    text = ("Revenue by quarter:\n\n"
            "|Col1|Col2|Quarter Ended|Col4|Col5|\n|---|---|---|---|---|\n"
            "|($ in millions)|Dec 28, 2024|Dec 28, 2024|Dec 30, 2023|Dec 30, 2023|\n"
            "|Revenues|$|24,690|$|23,549|\n|Free cash flow|$|(147)|$|886|\n")
    (t,) = tables_of(text)
    assert t.header_rows == 2 and t.caption == "Revenue by quarter:"
    assert [c.label for c in t.columns] == ["($ in millions)", "Quarter Ended / Dec 28, 2024",
                                            "Quarter Ended / Dec 30, 2023"]
    flow = t.rows[1].cells[1].number
    assert (flow.value, flow.currency, flow.scale) == (-147.0, "USD", "millions")


def test_the_operators_appendix_tables_match_their_source():
    tables = tables_of(OPERATORS)
    assert len(tables) == 10
    assert [t.caption for t in tables][:2] == ["Table B-1: Operators", "Table B-2: Stand-alone Syntax"]
    ops = tables[0]
    assert [c.label for c in ops.columns] == ["Operator", "Example", "Explanation", "Overloadable?"]
    ne = next(r for r in ops.rows if r.label == "!=")
    assert [c.text for c in ne.cells] == ["!=", "expr != expr", "Nonequality comparison", "PartialEq"]
    assert not any(c.number for t in tables for r in t.rows for c in r.cells)  # symbols, not numbers


def test_totals_and_mismatches():
    clean = ORCHARD
    assert build_records(clean, parse_structure(clean)).checks == []
    off = clean.replace("| Total | 20 | 25 |", "| Total | 20 | 26 |")
    checks = build_records(off, parse_structure(off)).checks
    assert [c.kind for c in checks] == ["table-total"]
    assert checks[0].locations[0].quote == "26"
    assert off[slice(*checks[0].locations[0].span)] == "26"
    costs = clean.replace("| Total costs | 1,160.5 |", "| Total costs | 1,160.6 |")
    assert [c.kind for c in build_records(costs, parse_structure(costs)).checks] == ["table-total"]
    prose = clean.replace("sold 15 crates", "sold 16 crates")
    checks = build_records(prose, parse_structure(prose)).checks
    assert [c.kind for c in checks] == ["table-mismatch"]
    assert prose[slice(*checks[0].locations[0].span)] == "16"
    assert prose[slice(*checks[0].locations[1].span)] == "15"


def test_two_tables_that_disagree_on_one_shared_quantity():
    table = "| Item | 2024 | 2025 |\n|---|---|---|\n| Revenue total | 10 | 12 |\n| Cost base | 4 | {x} |\n"
    text = "# A\n\n" + table.format(x=5) + "\n# B\n\n" + table.format(x=6)
    tables = tables_of(text)
    (finding,) = mismatch_checks(tables)
    assert finding.kind == "table-mismatch" and "5" in finding.message and "6" in finding.message
    assert mismatch_checks(tables_of("# A\n\n" + table.format(x=5) + "\n# B\n\n" + table.format(x=5))) == []
    assert prose_checks(text, tables, []) == []


def test_equations_have_their_latex_label_and_defined_variables():
    text = ("# Growth\n\nThe balance grows as\n\n$$\nA = P (1 + r)^n \\tag{3}\n$$\n\n"
            "where $P$ is the principal, $r$ is the yearly rate and $n$ the number of years.\n")
    (eq,) = build_records(text, parse_structure(text)).equations
    assert eq.latex.startswith("A = P") and eq.label == "3"
    assert [(v.symbol, v.definition) for v in eq.variables] == [
        ("P", "the principal"), ("r", "the yearly rate"), ("n", "the number of years")]
    assert all(text[slice(*v.span)] == v.definition for v in eq.variables)


def test_figures_have_caption_alt_and_path_and_a_description_only_from_a_given_vision_model(tmp_path):
    from chunker.structured.figures import describe
    from chunker.structured.media import MediaImage, attach

    text = "# Trees\n\n![An apple tree in bloom](img/tree.png)\n\nFigure 1: The oldest apple tree.\n\nAs Figure 1 shows, the tree is in bloom.\n"
    (fig,) = build_records(text, parse_structure(text)).figures
    assert (fig.alt, fig.image, fig.caption) == ("An apple tree in bloom", "img/tree.png", "Figure 1: The oldest apple tree.")
    (fig,) = attach([fig], [MediaImage(name="img/tree.png", file="tree-0123456789.png", mime="image/png")])
    assert fig.media == "media/tree-0123456789.png"
    assert describe([fig], text, None, lambda s, e: True)[0].description is None  # no model: none invented
    grounded = lambda said, evidence: all(w in " ".join(evidence).lower() for w in ("apple", "tree"))
    (seen,) = describe([fig], text, lambda f: "An old apple tree in bloom.", grounded)
    assert seen.description == "An old apple tree in bloom."
    (made_up,) = describe([fig], text, lambda f: "A red tractor.", lambda s, e: "tractor" in " ".join(e))
    assert made_up.description is None


def test_header_written_out_over_its_columns_gaps_and_years():
    """A merged header written in every column it covers (as the PDF reader writes a span)
    is not carried over the empty header cell beside it; a row of years before the figures
    is a header row; a column empty in the body whose header adds nothing is a gap."""
    text = ("|  | Quarter Ended | Quarter Ended | Quarter Ended |  |\n|---|---|---|---|---|\n"
            "| ($ in millions) | 2024 |  | 2023 | Change |\n"
            "| Revenues | 24,690 |  | 23,549 | 5 % |\n| Costs | (20,612) |  | (20,613) | — % |\n")
    table = build_records(text, parse_structure(text)).tables[0]
    assert [c.label for c in table.columns[1:]] == ["Quarter Ended / 2024", "Quarter Ended / 2023", "Change"]
    assert [r.label for r in table.rows] == ["Revenues", "Costs"]
    assert [c.number.value for c in table.rows[0].cells[1:]] == [24690, 23549, 5]
    assert table.unit == "$ in millions"


def test_caption_is_the_sentence_that_introduces_the_table():
    """The intro sentence run into a long paragraph above (as a PDF's lines join), an
    emphasised one, and one that points down at the table without a colon, are captions."""
    long = "Management uses several measures to evaluate the business and believes they help investors. " * 4
    text = (f"{long}The following table reconciles income to operating income:\n\n"
            "| | 2024 |\n|---|---|\n| Income | 3,660 |\n\n"
            "_Average revenue per subscriber for the quarter ended:_\n\n"
            "| | 2024 |\n|---|---|\n| Domestic | 7.99 |\n\n"
            f"{long}The following table is on a sequential quarter basis.\n\n"
            "| | 2024 |\n|---|---|\n| Subscribers | 24.9 |\n")
    captions = [t.caption for t in build_records(text, parse_structure(text)).tables]
    assert captions == ["The following table reconciles income to operating income:",
                        "Average revenue per subscriber for the quarter ended:",
                        "The following table is on a sequential quarter basis."]

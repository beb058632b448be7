"""Sums the label does not call sums (`table-total`, issue 32's consistency checks).

A row whose label says nothing of a total (`Equity in the income of investees`, `Excluding
certain items`) may still be the sum of the rows above it: statements add up a segment's parts
or a reconciliation's adjustments under a plain label. Such a row is a sum when, in at least
`SUM_MIN_COLUMNS` of its columns, it is exactly (at the precision the cells are written at) the
sum of one and the same run of rows read back from it (group labels skipped, a cell with no
figure read as none), the run holding at least two figures that are not zero in each of those
columns. A column of that row that no run of rows adds up to, and whose figure is within
`SUM_CLOSE` (relative) of that run's sum, is a failed sum. Farther from it, the column is some
other quantity (a ratio, a count, an average), not a sum gone wrong. Rows the label marks as
totals are `checks.total_checks`'s.
"""

from __future__ import annotations

from dataclasses import dataclass

from chunker.output.checks import Check
from chunker.structured.checks import _fmt, _is_group, _num, agrees, location, total_kind
from chunker.structured.records import NumberValue, TableRecord

SUM_MIN_COLUMNS = 1
"""How many other columns of a row must each be exactly the sum of the same run of rows above
it before the row is read as a sum without a total label. One column is what the unlabelled
subtotals (`checks.total_kind`'s weak totals) already ask for; a coincidence must also hold
two non-zero figures and leave the failing column within `SUM_CLOSE`."""
SUM_CLOSE = 0.1
"""A failing column within this relative distance of the run's sum is a failed sum; farther,
it is another quantity (an average, a ratio), not a sum."""


@dataclass(frozen=True)
class SumSettings:
    min_columns: int = SUM_MIN_COLUMNS
    close: float = SUM_CLOSE


def _runs(table: TableRecord, r: int, col: int) -> dict[int, list[NumberValue]]:
    """first row -> the figures of the run of rows from it up to row `r` (exclusive), in
    column `col`, for every run read back from row `r` (group labels skipped)."""
    out: dict[int, list[NumberValue]] = {}
    figures: list[NumberValue] = []
    for k in range(r - 1, -1, -1):
        row = table.rows[k]
        if _is_group(row):
            continue
        n = _num(row, col)
        if n is not None and n.percent:
            break
        if n is not None:
            figures.append(n)
        out[k] = list(figures)
    return out


def unlabelled_sums(table: TableRecord, settings: SumSettings = SumSettings()) -> list[Check]:
    found: list[Check] = []
    for r, row in enumerate(table.rows):
        if not row.label.strip() or total_kind(row) is not None or _is_group(row):
            continue
        cols = [c for c, cell in enumerate(row.cells) if c > 0 and cell.number is not None and not cell.number.percent]
        if len(cols) < settings.min_columns + 1:
            continue
        runs = {c: _runs(table, r, c) for c in cols}
        holds = {c: {first for first, figures in runs[c].items()
                     if sum(1 for f in figures if f.value) >= 2 and agrees(row.cells[c].number, figures)}
                 for c in cols}
        failing = [c for c in cols if not holds[c]]
        if not failing:
            continue
        # the shortest run that holds in enough columns: the rows this row sums
        shared = sorted({f for c in cols for f in holds[c]}, reverse=True)
        first = next((f for f in shared if sum(f in holds[c] for c in cols) >= settings.min_columns), None)
        if first is None:
            continue
        for c in failing:
            cell, figures = row.cells[c], runs[c].get(first, [])
            summed = sum(f.value for f in figures)
            if len(figures) < 2 or not summed or abs(cell.number.value - summed) > settings.close * abs(summed):
                continue
            column = table.columns[c].label if c < len(table.columns) else str(c)
            found.append(Check(
                kind="table-total", severity="error",
                message=(f"{table.id}: '{row.label}' under '{column}' says {cell.text} but the rows above it, "
                         f"which it adds up in its other columns, add up to {_fmt(summed, cell.number.decimals)}"),
                locations=[location(cell.span, cell.text), location(table.span, table.caption or table.id)]))
    return found

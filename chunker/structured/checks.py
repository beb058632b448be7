"""Consistency checks on the tables, before any model reads them.

- `table-total`: a row (or column) labelled as a total (`Total`, `Subtotal`, `Sum`, `Σ`;
  `Net ...` and `..., net` more weakly; a row of figures without a label, a subtotal, as
  weakly) against the sum of the cells it covers, at the precision the cells are written at.
  What a total covers is not written down, so each plausible cover is tried: the rows since
  the group label or the previous total; the rows since the group's start, inner totals
  standing for their parts; and every run of rows read back from the total, group labels
  skipped and each total already checked standing for the rows it covers (`Total liabilities
  and equity` over `Total equity` over `Total Disney Shareholders' equity`); a total that
  names its group (`Total Experiences` under `Experiences`) covers that group only. The total
  passes when one adds up. A weak total is often a difference, not a sum: it is only held to account
  when another of its columns does add up. A row whose label says nothing of a total is
  `structured.sums`'s.
- `table-mismatch`: one quantity (a row label, a column label and a unit) with two values in
  two tables that otherwise agree on what they share (two tables that share labels but
  disagree on most of them are about different things: segments). The prose against the
  tables is `structured.prose`.

Every finding is a `chunker.output.checks.Check` with both locations; nothing is corrected.
"""

from __future__ import annotations

import re

from chunker.output.checks import Check, CheckLocation
from chunker.structured.records import NumberValue, Row, TableRecord

STRONG_TOTAL = re.compile(r"^\s*(grand\s+total|sub-?total|total|sum|σ|Σ)\b", re.IGNORECASE)
WEAK_TOTAL = re.compile(r"^\s*net\b|,\s*net\s*$", re.IGNORECASE)
def norm_label(label: str) -> str:
    """A label as compared: lower case, footnote marks `(1)` and punctuation dropped."""
    label = re.sub(r"\(\d+\)|\*+|†|‡", " ", label.lower())
    return " ".join(re.findall(r"[a-z0-9+&]+", label))


def agrees(total: NumberValue, parts: list[NumberValue]) -> bool:
    decimals = max([total.decimals] + [p.decimals for p in parts])
    return abs(sum(p.value for p in parts) - total.value) < 0.5 * 10 ** -decimals + 1e-9


def location(span, quote: str) -> CheckLocation:
    return CheckLocation(span=tuple(span), quote=quote, node=None)


def _is_group(row: Row) -> bool:
    return all(c.number is None and not c.text.strip() for c in row.cells[1:])


def total_kind(row: Row) -> str | None:
    """`strong` (`Total ...`), `weak` (`Net ...`, `..., net`, or no label on a row of
    figures: a subtotal), or None."""
    if STRONG_TOTAL.match(row.label):
        return "strong"
    if WEAK_TOTAL.search(row.label):
        return "weak"
    if not row.label.strip() and any(c.number is not None and not c.number.percent for c in row.cells[1:]):
        return "weak"
    return None


def _num(row: Row, col: int) -> NumberValue | None:
    cell = row.cells[col] if col < len(row.cells) else None
    return cell.number if cell is not None else None


def _covers(rows: list[Row], r: int, col: int, starts: dict[int, int]) -> list[tuple[int, list[NumberValue]]]:
    """(first row, cells) of each candidate cover of the total in row `r`, column `col`;
    `starts` holds the first row each total checked so far covers."""
    covers = []
    near: list[NumberValue] = []
    k = r - 1
    while k >= 0 and not _is_group(rows[k]) and total_kind(rows[k]) is None:
        if _num(rows[k], col) is not None:
            near.append(_num(rows[k], col))
        k -= 1
    covers.append((k + 1, near))
    # hierarchical: inner totals stand for the rows they cover
    wide: list[NumberValue] = []
    k = r - 1
    while k >= 0:
        row = rows[k]
        if total_kind(row) is not None:
            if _num(row, col) is not None:
                wide.append(_num(row, col))
            k -= 1
            while k >= 0 and not _is_group(rows[k]) and total_kind(rows[k]) is None:
                k -= 1
            if k >= 0 and _is_group(rows[k]):
                k -= 1
            continue
        if _is_group(row):
            break
        if _num(row, col) is not None:
            wide.append(_num(row, col))
        k -= 1
    covers.append((k + 1, wide))
    # read back: group labels skipped, a total already checked standing for its cover
    run: list[NumberValue] = []
    k = r - 1
    while k >= 0:
        first = starts.get(k, k)
        if _num(rows[k], col) is not None:
            run.append(_num(rows[k], col))
            if len(run) >= 2:
                covers.append((first, list(run)))
        k = first - 1
    return [(first, c) for first, c in covers if len(c) >= 2]


def _group_start(rows: list[Row], r: int) -> int:
    """The first row after the group label above row `r` (a total that names its group,
    `Total Experiences` under `Experiences`, covers that group and nothing above it)."""
    k = r - 1
    while k >= 0 and not _is_group(rows[k]):
        k -= 1
    return k + 1


def _names_its_group(rows: list[Row], r: int) -> bool:
    """Whether total row `r` names the group label it closes (`Total revenues` under
    `Revenues:`): then it is a sum even when none of its columns adds up."""
    rest = norm_label(STRONG_TOTAL.sub("", rows[r].label, count=1))
    k = r - 1
    while k >= 0 and not _is_group(rows[k]):
        k -= 1
    return bool(rest) and k >= 0 and _stem(norm_label(rows[k].label)) == _stem(rest)


def _stem(label: str) -> str:
    return " ".join(w.rstrip("s") for w in label.split())


def total_checks(table: TableRecord) -> list[Check]:
    found: list[Check] = []
    labelled = any(row.label.strip() for row in table.rows)  # a table of figures only has no subtotals
    starts: dict[int, int] = {}
    for r, row in enumerate(table.rows):
        kind = total_kind(row)
        if kind is None or (not row.label.strip() and not labelled):
            continue
        failed, passed = [], 0
        group = _group_start(table.rows, r) if _names_its_group(table.rows, r) else None
        for col, cell in enumerate(row.cells):
            if cell.number is None or cell.number.percent:
                continue
            covers = [(first, c) for first, c in _covers(table.rows, r, col, starts) if group is None or first >= group]
            if not covers:
                continue
            hit = next((first for first, cover in covers if agrees(cell.number, cover)), None)
            if hit is not None:
                passed += 1
                starts.setdefault(r, hit)
            else:
                failed.append((col, cell, covers[0][1]))
        if not passed and (kind == "weak" or not _names_its_group(table.rows, r)):
            continue  # no column adds up: a named measure (`Total segment operating income`), not a sum
        for col, cell, cover in failed:
            column = table.columns[col].label if col < len(table.columns) else str(col)
            summed = sum(p.value for p in cover)
            found.append(Check(
                kind="table-total", severity="error",
                message=(f"{table.id}: '{row.label}' under '{column}' says {cell.text} but the "
                         f"cells above add up to {_fmt(summed, cell.number.decimals)}"),
                locations=[location(cell.span, cell.text), location(table.span, table.caption or table.id)]))
    found.extend(_column_totals(table))
    return found


def _column_totals(table: TableRecord) -> list[Check]:
    found = []
    totals = [c.index for c in table.columns if c.index > 0 and STRONG_TOTAL.match(c.path[-1] if c.path else "")]
    for t in totals:
        for row in table.rows:
            cell = row.cells[t] if t < len(row.cells) else None
            if cell is None or cell.number is None or cell.number.percent:
                continue
            parts = [c.number for c in row.cells[1:t] if c.number is not None and not c.number.percent]
            if len(parts) >= 2 and not agrees(cell.number, parts):
                found.append(Check(
                    kind="table-total", severity="error",
                    message=(f"{table.id}: '{row.label}' under '{table.columns[t].label}' says {cell.text} "
                             f"but the cells to its left add up to {_fmt(sum(p.value for p in parts), cell.number.decimals)}"),
                    locations=[location(cell.span, cell.text), location(row.span, row.label)]))
    return found


def _fmt(value: float, decimals: int) -> str:
    return f"{value:,.{decimals}f}"


def _keyed(table: TableRecord) -> dict[tuple[str, str, str], tuple[Row, int]]:
    out = {}
    for row in table.rows:
        label = norm_label(row.label)
        if not label:
            continue
        for col, cell in enumerate(row.cells):
            if cell.number is None or col >= len(table.columns):
                continue
            path = table.columns[col].path
            column = norm_label(path[-1]) if path else ""
            if column:
                out.setdefault((label, column, cell.number.unit or ""), (row, col))
    return out


def mismatch_checks(tables: list[TableRecord]) -> list[Check]:
    found = []
    keyed = [_keyed(t) for t in tables]
    for i, a in enumerate(tables):
        for j in range(i + 1, len(tables)):
            b = tables[j]
            shared = sorted(set(keyed[i]) & set(keyed[j]))
            same, differ = 0, []
            for key in shared:
                (ra, ca), (rb, cb) = keyed[i][key], keyed[j][key]
                na, nb = ra.cells[ca].number, rb.cells[cb].number
                if abs(na.value - nb.value) < 0.5 * 10 ** -min(na.decimals, nb.decimals) + 1e-9:
                    same += 1
                else:
                    differ.append((key, ra.cells[ca], rb.cells[cb], ra))
            if same and same > len(differ):
                for key, x, y, row in differ:
                    found.append(Check(
                        kind="table-mismatch", severity="error",
                        message=(f"'{row.label}' ({key[1]}) is {x.text} in {a.id} but {y.text} in {b.id}"),
                        locations=[location(x.span, x.text), location(y.span, y.text)]))
    return found

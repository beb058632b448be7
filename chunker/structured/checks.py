"""Consistency checks on the tables, before any model reads them.

- `table-total`: a row (or column) labelled as a total (`Total`, `Subtotal`, `Sum`, `Σ`;
  `Net ...` more weakly) against the sum of the cells it covers, at the precision the cells
  are written at. What a total covers is not written down, so each plausible cover is tried
  (the rows since the group label or the previous total; the rows since the table's or the
  group's start, inner totals standing for their parts) and the total passes when one adds up.
  A `Net` row is often a difference, not a sum: it is only held to account when another of
  its columns does add up.
- `table-mismatch`: one quantity (a row label, a column label and a unit) with two values: in
  two tables that otherwise agree on what they share (two tables that share labels but
  disagree on most of them are about different things: segments), or in a table and a
  sentence of the prose that names the row and states a number close to the row's (within
  `PROSE_CLOSE`) but not equal to any of its cells at the sentence's precision.

Every finding is a `chunker.output.checks.Check` with both locations; nothing is corrected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from chunker.output.checks import Check, CheckLocation
from chunker.structured.numbers import prose_numbers
from chunker.structured.records import NumberValue, Row, TableRecord

STRONG_TOTAL = re.compile(r"^\s*(grand\s+total|sub-?total|total|sum|σ|Σ)\b", re.IGNORECASE)
WEAK_TOTAL = re.compile(r"^\s*net\b", re.IGNORECASE)
PROSE_CLOSE = 0.1
"""A prose number within this relative distance of a cell of the row it names (and equal to
none) is a mismatch; farther ones are other quantities (a change, a count)."""
PROSE_MIN_LABEL_CHARS = 8
"""One-word row labels shorter than this (`Sports`, `Other`) name too much prose to be
matched in it; labels of two words or more always count."""
HEDGE = re.compile(r"(approximately|about|around|roughly|nearly|almost|over|more than|less than|~)\s*\(?$",
                   re.IGNORECASE)
"""An estimate is no statement of the table's figure."""
CHANGE = re.compile(r"\b(increased|decreased|grew|declined|rose|fell|improved|by|up|down)\s*$", re.IGNORECASE)
"""A number right after a change verb is the change, not the quantity (`increased $0.8 billion`)."""
SCALE_FACTORS = {None: 1.0, "thousands": 1e3, "millions": 1e6, "billions": 1e9}


@dataclass(frozen=True)
class Settings:
    prose_close: float = PROSE_CLOSE
    prose_min_label_chars: int = PROSE_MIN_LABEL_CHARS


def norm_label(label: str) -> str:
    """A label as compared: lower case, footnote marks `(1)` and punctuation dropped."""
    label = re.sub(r"\(\d+\)|\*+|†|‡", " ", label.lower())
    return " ".join(re.findall(r"[a-z0-9+&]+", label))


def agrees(total: NumberValue, parts: list[NumberValue]) -> bool:
    decimals = max([total.decimals] + [p.decimals for p in parts])
    return abs(sum(p.value for p in parts) - total.value) < 0.5 * 10 ** -decimals + 1e-9


def _loc(table: TableRecord, span, quote: str) -> CheckLocation:
    return CheckLocation(span=tuple(span), quote=quote, node=None)


def _is_group(row: Row) -> bool:
    return all(c.number is None and not c.text.strip() for c in row.cells[1:])


def _total_kind(row: Row) -> str | None:
    if STRONG_TOTAL.match(row.label):
        return "strong"
    if WEAK_TOTAL.match(row.label):
        return "weak"
    return None


def _covers(rows: list[Row], r: int, col: int) -> list[list[NumberValue]]:
    """The candidate covers of the total in row `r`, column `col`."""
    def num(row: Row) -> NumberValue | None:
        cell = row.cells[col] if col < len(row.cells) else None
        return cell.number if cell is not None else None

    covers = []
    near: list[NumberValue] = []
    k = r - 1
    while k >= 0 and not _is_group(rows[k]) and _total_kind(rows[k]) is None:
        if num(rows[k]) is not None:
            near.append(num(rows[k]))
        k -= 1
    covers.append(near)
    # hierarchical: inner totals stand for the rows they cover
    wide: list[NumberValue] = []
    k = r - 1
    while k >= 0:
        row = rows[k]
        if _total_kind(row) is not None or (not row.label.strip() and num(row) is not None):
            if num(row) is not None:
                wide.append(num(row))
            k -= 1
            while k >= 0 and not _is_group(rows[k]) and _total_kind(rows[k]) is None:
                k -= 1
            if k >= 0 and _is_group(rows[k]):
                k -= 1
            continue
        if _is_group(row):
            break
        if num(row) is not None:
            wide.append(num(row))
        k -= 1
    covers.append(wide)
    return [c for c in covers if len(c) >= 2]


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
    for r, row in enumerate(table.rows):
        kind = _total_kind(row)
        if kind is None:
            continue
        failed, passed = [], 0
        for col, cell in enumerate(row.cells):
            if cell.number is None or cell.number.percent:
                continue
            covers = _covers(table.rows, r, col)
            if not covers:
                continue
            if any(agrees(cell.number, cover) for cover in covers):
                passed += 1
            else:
                failed.append((col, cell, covers[0]))
        if not passed and not _names_its_group(table.rows, r):
            continue  # no column adds up: a named measure (`Total segment operating income`), not a sum
        for col, cell, cover in failed:
            column = table.columns[col].label if col < len(table.columns) else str(col)
            summed = sum(p.value for p in cover)
            found.append(Check(
                kind="table-total", severity="error",
                message=(f"{table.id}: '{row.label}' under '{column}' says {cell.text} but the "
                         f"cells above add up to {_fmt(summed, cell.number.decimals)}"),
                locations=[_loc(table, cell.span, cell.text), _loc(table, table.span, table.caption or table.id)]))
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
                    locations=[_loc(table, cell.span, cell.text), _loc(table, row.span, row.label)]))
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
                        locations=[_loc(a, x.span, x.text), _loc(b, y.span, y.text)]))
    return found


def _in_scale(n: NumberValue, scale: str | None) -> float:
    return n.value * SCALE_FACTORS.get(n.scale, 1.0) / SCALE_FACTORS.get(scale, 1.0)


def prose_checks(text: str, tables: list[TableRecord], prose: list[tuple[int, int]],
                 settings: Settings = Settings()) -> list[Check]:
    """Sentences of the prose blocks `prose` that name a table's row and state a number close
    to, but not equal to, its cells."""
    rows = [(t, row, norm_label(row.label)) for t in tables for row in t.rows
            if (len(norm_label(row.label).split()) >= 2
                or len(norm_label(row.label)) >= settings.prose_min_label_chars)
            and _total_kind(row) != "weak" and any(c.number for c in row.cells)]
    if not rows:
        return []
    found = []
    for start, end in prose:
        for s, e in _sentences(text, start, end):
            sentence = text[s:e]
            spoken = norm_label(sentence)
            named = [(t, row, label) for t, row, label in rows if f" {label} " in f" {spoken} "]
            if not named:
                continue
            for ns, ne, number in prose_numbers(text, s, e):
                if number.decimals == 0 and 1900 <= number.value <= 2100 and not number.currency:
                    continue  # a year
                before = text[s:ns]
                if HEDGE.search(before[-20:]) or (not number.percent and CHANGE.search(before[-25:])):
                    continue  # an estimate, or a change rather than the quantity
                nearest = _nearest(before, named)
                for t, row in nearest:
                    hit = _compare(number, row, settings.prose_close)
                    if hit is not None:
                        found.append(Check(
                            kind="table-mismatch", severity="error",
                            message=(f"the prose says {text[ns:ne].strip()} for '{row.label}' but "
                                     f"{t.id} says {hit.text}"),
                            locations=[CheckLocation(span=(ns, ne), quote=text[ns:ne]),
                                       _loc(t, hit.span, hit.text)]))
    return found


def _nearest(before: str, named):
    """The rows whose label is the last one named before the number (where labels end at the
    same place, `income taxes` inside `income before income taxes`, the longer one)."""
    spoken = f" {norm_label(before)} "
    ends = {}
    for _, _, label in named:
        pos = spoken.rfind(f" {label} ")
        ends[label] = pos + len(label) if pos >= 0 else -1
    best = max(ends.values(), default=-1)
    if best < 0:
        return []
    longest = max(len(label) for label, end in ends.items() if end == best)
    return [(t, row) for t, row, label in named if ends[label] == best and len(label) == longest]


def _compare(number: NumberValue, row: Row, close_share: float = PROSE_CLOSE):
    """The cell `number` contradicts, or None when it matches one (or is far from all)."""
    close = None
    for cell in row.cells:
        n = cell.number
        if n is None or n.percent != number.percent:
            continue
        prose_value = _in_scale(number, n.scale) if number.scale or not n.scale else number.value
        if number.scale is None and n.scale and not number.currency and not number.percent:
            prose_value = number.value
        step = 0.5 * 10 ** -number.decimals * SCALE_FACTORS.get(number.scale, 1.0) / SCALE_FACTORS.get(n.scale, 1.0)
        if abs(prose_value - n.value) <= step + 1e-9:
            return None
        if n.value and abs(prose_value - n.value) / abs(n.value) <= close_share:
            close = close or cell
    return close


def _sentences(text: str, start: int, end: int):
    pos = start
    for m in re.finditer(r"(?<=[.!?])\s+(?=[A-Z(“\"])", text[start:end]):
        yield pos, start + m.start()
        pos = start + m.end()
    if pos < end:
        yield pos, end

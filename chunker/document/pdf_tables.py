"""A table PyMuPDF's finder found, as GFM pipe tables (and the caption lines between them).

PyMuPDF's own `Table.to_markdown` writes what its grid holds; the grid of a table drawn without
rules (financial statements, most reports) needs a few repairs first, each read off the page's
geometry or the grid itself, none about one document:

- the *external header* (lines above the table that the finder took for its header when the
  first row looked like data) is kept only when it is one: text over at least two of the
  columns after the labels, not a line cut at a column edge
  (the paragraph that introduces the table, in pieces) and not a repeat of the row below it
  (`Quarter Ended` over `Quarter Ended`, `December 28,` over `December 28, 2024`); a kept one
  is part of the table's box, a dropped one stays the text above the table;
- a header row whose one line of text runs across a column edge (`Quarter Ended` centred
  over two columns, cut into `Quarter` and `Ended`) is one merged cell;
- a merged cell (the finder's `None` cells) is written in every column it covers, in the
  header rows, so the header parser (`structured.tables`) knows what it spans; in the body it
  is written once;
- a row label wrapped onto a second line (a row with only its label, the next row's label
  starting in lower case) is one label, and a group label written in the same cell above a
  row label (`Exclude:<br>Restructuring charges`) is a row of its own;
- two tables stacked in one grid (a row repeating the header row after the body) are two
  tables; a caption line between them is text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

import pymupdf
from pymupdf.table import extract_cells

_NUMBER = re.compile(r"^[\s$€£¥₹(+\-\u2212\u2013]*\d[\d,.\s]*\)?\s*%?\)?\s*$")
"""A cell that is a figure (`24,690`, `$ (1,016)`, `(2) %`): where the body starts."""
_YEAR = re.compile(r"^\s*(19|20)\d\d\s*$")
"""A bare year (`2024`) heads a column; a row of them is a header, not figures."""
_BR = re.compile(r"\s*<br>\s*")
_GROUP_HEAD = re.compile(r"^([^<>]{1,60}:)\s*<br>\s*(.+)$")
EDGE_OVERLAP = 0.5
"""How far (in the line's heights) a header line must reach into each of two cells to run
across their edge: half a line's height is about one character, more than a cell's text
spills over its edge."""


@dataclass(frozen=True, slots=True)
class TablePart:
    """One Markdown element a found table becomes: a pipe table, or a caption line between two."""

    kind: Literal["table", "text"]
    text: str
    y: float
    rows: int = 0
    cols: int = 0


def table_parts(table: pymupdf.table.Table) -> tuple[pymupdf.Rect, list[TablePart]]:
    """The table's box (its external header's with it, when kept) and the table as pipe
    tables (more than one when the grid stacks tables) and captions."""
    grid = [[None if box is None else extract_cells(table.textpage, box, markdown=True) for box in row.cells]
            for row in table.rows]
    boxes = [list(row.cells) for row in table.rows]
    tops = [row.bbox[1] for row in table.rows]
    lines = [line["bbox"] for block in table.textpage.extractDICT()["blocks"] for line in block.get("lines", ())]
    box = pymupdf.Rect(table.bbox)
    header = _external_header(table, grid, lines)
    if header is not None:
        grid, boxes, tops = [header, *grid], [list(table.header.cells), *boxes], [table.header.bbox[1], *tops]
        box |= pymupdf.Rect(table.header.bbox)
    _merge_crossed_headers(grid, boxes, lines, table.textpage)
    parts: list[TablePart] = []
    for kind, start, end in _stacks(grid):
        if kind == "text":
            parts.append(TablePart("text", _BR.sub(" ", grid[start][0] or "").strip(), tops[start]))
        else:
            rows = _rows(grid[start:end])
            parts.append(TablePart("table", _markdown(rows), tops[start], rows=len(rows), cols=len(rows[0])))
    return box, parts


def _is_number(text: str | None) -> bool:
    return bool(text) and bool(_NUMBER.match(_BR.sub(" ", text)))


def _figure_rows(grid: list[list[str | None]]) -> list[bool]:
    """Which rows hold figures (cells after the label that are numbers, bare years aside;
    in a table of nothing but years, the years)."""
    def figures(row, years: bool) -> bool:
        return any(_is_number(c) and (years or not _YEAR.match(_BR.sub(" ", c))) for c in row[1:])

    got = [figures(row, False) for row in grid]
    return got if any(got) else [figures(row, True) for row in grid]


def _filled(row: list[str | None]) -> list[int]:
    return [k for k, c in enumerate(row) if c and c.strip()]


def _crossing(lines: list, boxes: list) -> list[list[int]]:
    """For each text line that runs across a column edge of a row (`boxes`, its cells' boxes,
    None where a merged cell goes on), the cells it runs across."""
    cells = [(k, pymupdf.Rect(b)) for k, b in enumerate(boxes) if b is not None]
    out = []
    for x0, y0, x1, y1 in lines:
        mid = (y0 + y1) / 2
        crossed = [k for k, box in cells if box.y0 <= mid <= box.y1
                   and min(x1, box.x1) - max(x0, box.x0) > EDGE_OVERLAP * (y1 - y0)]
        if len(crossed) >= 2:
            out.append(crossed)
    return out


def _flat(text: str | None) -> str:
    return " ".join(_BR.sub(" ", text or "").split())


def _external_header(table, grid: list[list[str | None]], lines: list) -> list[str | None] | None:
    """The finder's external header, when it is one (see the module's docstring)."""
    header = table.header
    if not header.external or not grid:
        return None
    cells = [None if b is None else extract_cells(table.textpage, b, markdown=True) for b in header.cells]
    if sum(1 for c in cells[1:] if _flat(c)) < 2 or _crossing(lines, header.cells):
        return None  # a header names the columns of figures; a line cut at their edges is prose
    for k, cell in enumerate(cells):
        if _flat(cell) and k < len(grid[0]) and _flat(grid[0][k]).startswith(_flat(cell)):
            return None  # it repeats the row below
    return cells


def _merge_crossed_headers(grid: list[list[str | None]], boxes: list[list], lines: list, textpage) -> None:
    """In the rows above the first row of figures, cells that one line of text runs across
    become one cell (its text read from their joint box)."""
    head = _figure_rows(grid)
    for r, row in enumerate(grid):
        if head[r]:
            break
        while crossings := _crossing(lines, boxes[r]):
            first, last = crossings[0][0], crossings[0][-1]
            joint = pymupdf.Rect(boxes[r][first]) | pymupdf.Rect(boxes[r][last])
            grid[r][first] = extract_cells(textpage, tuple(joint), markdown=True)
            for k in range(first + 1, last + 1):
                grid[r][k], boxes[r][k] = None, None
            boxes[r][first] = tuple(joint)


def _stacks(grid: list[list[str | None]]) -> list[tuple[str, int, int]]:
    """(kind, start, end) runs of the grid: a row repeating a header row of the table above
    (after that table's figures) starts a new table; a row above it holding only a first
    cell is that table's caption."""
    def key(row):
        return tuple(_BR.sub(" ", c or "").strip() for c in row[1:])

    out: list[tuple[str, int, int]] = []
    start, headers, body = 0, set(), False
    figures = _figure_rows(grid)
    for r, row in enumerate(grid):
        if figures[r]:
            body = True
            continue
        filled = [k for k in _filled(row) if k > 0]
        if not body:
            if len(filled) >= 2:
                headers.add(key(row))
            continue
        if len(filled) >= 2 and key(row) in headers:
            caption = r - 1 if r - 1 > start and _filled(grid[r - 1]) == [0] and not figures[r - 1] else None
            out.append(("table", start, caption if caption is not None else r))
            if caption is not None:
                out.append(("text", caption, caption + 1))
            start, headers, body = r, {key(row)}, False
    out.append(("table", start, len(grid)))
    return out


def _rows(grid: list[list[str | None]]) -> list[list[str]]:
    """The rows to write: spans filled in the header rows, wrapped labels joined, group labels
    split from the label below them; the first row is the GFM header (empty when the table
    has no header row)."""
    head = next((r for r, figures in enumerate(_figure_rows(grid)) if figures), len(grid))
    rows: list[list[str]] = []
    for r, row in enumerate(grid):
        if r < head:
            filled, carry = [], ""
            for cell in row:
                carry = carry if cell is None else cell
                filled.append(carry)
            rows.append(filled)
        else:
            rows.append([cell or "" for cell in row])
    width = len(rows[0]) if rows else 0
    header_row = bool(rows) and head > 0 and any(c.strip() for c in rows[0][1:])
    header = rows[0] if header_row else [""] * width
    body: list[list[str]] = []
    for row in rows[1:] if header_row else rows:
        m = _GROUP_HEAD.match(row[0])
        if m and any(c.strip() for c in row[1:]):
            body.append([m.group(1)] + [""] * (width - 1))
            row = [m.group(2)] + row[1:]
        if (body and row[0][:1].islower() and not body[-1][0].rstrip().endswith(":")
                and body[-1][0].strip() and not any(c.strip() for c in body[-1][1:])):
            row = [body.pop()[0].rstrip() + " " + row[0]] + row[1:]
        body.append(row)
    return [header, *body]


def _markdown(rows: list[list[str]]) -> str:
    def line(cells: list[str]) -> str:
        return "|" + "|".join(_BR.sub("<br>", c.strip()).replace("\n", "<br>").replace("|", "\\|") for c in cells) + "|"

    return "\n".join([line(rows[0]), "|" + "|".join("---" for _ in rows[0]) + "|", *(line(r) for r in rows[1:])])

"""Pipe tables of the document's Markdown text as `TableRecord`s.

Every reader writes its tables as GFM pipe tables into the text (a PDF's `find_tables`, the
HTML, DOCX, ODT, EPUB and PPTX readers), so one parser serves them all. markdown-it-py
(the project's Markdown grammar, `document.markdown_parse`) says where each table and row is
and what each cell's text is; the raw line, split on its unescaped pipes, gives each cell's
span. Then what a PDF table's transcription leaves behind is undone:

- stacked header rows (a merged header above its sub-headers, `Quarter Ended` over two
  dates): the rows before the first row holding a number that have more than a label are
  headers; a merged cell's label is carried right over the empty cells it covered, and each
  column's label is its path (`Quarter Ended / December 28, 2024`), unless the row writes its
  merged cells out over every column (as the PDF reader does); PyMuPDF's `Col3` placeholders
  are no labels;
- currency columns (a `$` set apart from its figure) are folded into the figure's column, and
  so is a column with nothing in the body whose header says nothing its neighbour's does not
  (the gaps of a table laid out without rules);
- a row of bare years (`| | 2024 | 2023 |`) before the figures is a header row;
- a unit stated by the table (`($ in millions)` in its corner, a caption) or by a header
  (`Margin (%)`) is every number's unit below it.

The caption and a unit stated above the table come from `captions.py`.
"""

from __future__ import annotations

import re

from markdown_it.token import Token

from chunker.document.markdown_parse import LineOffsets, plain_text
from chunker.document.markdown_records import DocumentStructure
from chunker.document.structure import section_of
from chunker.structured.captions import caption_of, paragraph_above, unit_above
from chunker.structured.numbers import CURRENCIES, header_unit, parse_number
from chunker.structured.records import Cell, Column, Row, TableRecord

_PLACEHOLDER = re.compile(r"^Col\d+$")
_BR = re.compile(r"<br\s*/?>", re.IGNORECASE)
STRAY_MIN_WORDS = 4
STRAY_SHARE = 0.6
"""A header row of at least STRAY_MIN_WORDS words, STRAY_SHARE of them the paragraph's above,
is that paragraph, not a header."""


def parse_tables(text: str, tokens: list[Token], structure: DocumentStructure | None) -> list[TableRecord]:
    """Every pipe table of `text` (parsed into `tokens`), in document order."""
    lines = LineOffsets(text)
    tables: list[TableRecord] = []
    i = 0
    while i < len(tokens):
        if tokens[i].type != "table_open":
            i += 1
            continue
        j = i
        while tokens[j].type != "table_close":
            j += 1
        rows = _rows(text, tokens[i:j], lines)
        start, end = lines.span(tokens[i])
        if rows:
            tables.append(build_table(f"table-{len(tables) + 1}", text, (start, end), rows, structure))
        i = j + 1
    return tables


def _rows(text: str, tokens: list[Token], lines: LineOffsets) -> list[tuple[bool, list[Cell], tuple[int, int]]]:
    """(is the GFM header row, cells, span) of each row."""
    rows = []
    head = False
    cells_text: list[str] = []
    span = (0, 0)
    for k, tok in enumerate(tokens):
        if tok.type == "thead_open":
            head = True
        elif tok.type == "tbody_open":
            head = False
        elif tok.type == "tr_open":
            span = lines.span(tok)
            cells_text = []
        elif tok.type == "inline":
            cells_text.append(cell_text(tok.children or []))
        elif tok.type == "tr_close":
            spans = cell_spans(text, *span, len(cells_text))
            rows.append((head, [Cell(text=t, span=s) for t, s in zip(cells_text, spans)], span))
    return rows


def cell_text(children: list[Token]) -> str:
    """A cell's text without markup; a `<br>` (a PDF's or HTML's line break) is a space."""
    spaced = [Token("softbreak", "", 0) if c.type == "html_inline" and _BR.match(c.content) else c
              for c in children]
    return plain_text(spaced)


def cell_spans(text: str, start: int, end: int, count: int) -> list[tuple[int, int]]:
    """The spans of a row's `count` cells in its line: split on unescaped pipes, trimmed;
    a cell GFM adds to a short row gets an empty span at the line's end."""
    line_end = start + len(text[start:end].rstrip("\r\n"))
    cuts = [m.start() for m in re.finditer(r"(?<!\\)\|", text[start:line_end])]
    bounds = [start] + [start + c for c in cuts] + [line_end]
    segments = [(bounds[k] + (k > 0), bounds[k + 1]) for k in range(len(bounds) - 1)]
    first = text[segments[0][0]:segments[0][1]]
    if cuts and not first.strip(" \t>"):
        segments = segments[1:]  # the leading pipe (after any `>` of a quote)
    if len(segments) > count and not text[segments[-1][0]:segments[-1][1]].strip():
        segments = segments[:-1]  # the trailing pipe
    out = []
    for s, e in segments[:count]:
        raw = text[s:e]
        lead = len(raw) - len(raw.lstrip(" \t>" if s == start else " \t"))
        trail = len(raw) - len(raw.rstrip())
        out.append((s + lead, max(s + lead, e - trail)))
    while len(out) < count:
        out.append((line_end, line_end))
    return out


def build_table(table_id: str, text: str, span: tuple[int, int],
                raw_rows: list[tuple[bool, list[Cell], tuple[int, int]]],
                structure: DocumentStructure | None) -> TableRecord:
    width = max(len(cells) for _, cells, _ in raw_rows)
    grid = [cells + [Cell(text="", span=(rs[1], rs[1]))] * (width - len(cells)) for _, cells, rs in raw_rows]
    spans = [rs for _, _, rs in raw_rows]
    header_count = _header_rows(grid, sum(1 for head, _, _ in raw_rows if head))
    header_grid = [[grid[r][c].text for c in range(width)] for r in range(header_count)]
    header_grid = [row for row in header_grid if not _stray(row, text, span)]
    paths = _column_paths(header_grid, width)
    currency_cols = _currency_columns(grid[header_count:], width) | _empty_columns(grid[header_count:], paths, width)
    keep = [c for c in range(width) if c not in currency_cols]
    caption, caption_span = caption_of(text, span, structure)
    section = section_of(span[0], structure).header_path if structure is not None else []
    corner = " ".join(row[0] for row in header_grid)
    table_unit = header_unit(corner) or header_unit(caption or "") or unit_above(text, span)
    columns = []
    for new, c in enumerate(keep):
        path = paths[c]
        label = " / ".join(path)
        columns.append(Column(index=new, label=label, path=path, unit=header_unit(label)))
    rows = []
    for r in range(header_count, len(grid)):
        cells = []
        for new, c in enumerate(keep):
            cell = grid[r][c]
            currency = _currency_left(grid[r], c, currency_cols)
            unit = columns[new].unit or header_unit(grid[r][0].text) or table_unit
            number = None if new == 0 and not _numeric_only(grid, c, header_count) else parse_number(cell.text, unit)
            if number is not None and currency and not number.currency:
                number = number.model_copy(update={"currency": CURRENCIES[currency]})
            cells.append(cell.model_copy(update={"number": number}))
        label = cells[0].text.strip() if cells and cells[0].number is None else ""
        rows.append(Row(index=len(rows), label=label, cells=cells, span=spans[r]))
    return TableRecord(id=table_id, span=span, caption=caption, caption_span=caption_span,
                       section=section, unit=table_unit, columns=columns, header_rows=header_count,
                       rows=rows)


def _is_number(text: str) -> bool:
    return parse_number(text) is not None


_YEAR = re.compile(r"^\s*(19|20)\d\d\s*$")
"""A bare year (`2024`) heads a column: a row of them before the figures is a header."""


def _header_rows(grid: list[list[Cell]], gfm_header: int) -> int:
    """The GFM header row, and after it the rows before the first row holding a number that
    are headers too: more than a label (a row with only its first cell is a group label,
    `Revenues:`), and no number (bare years aside, unless the table's only numbers are
    years). Only in a table that has numbers at all."""
    count = gfm_header
    if not any(_is_number(c.text) for row in grid[count:] for c in row):
        return count
    years = not any(_is_number(c.text) and not _YEAR.match(c.text) for row in grid[count:] for c in row)
    while count < len(grid):
        row = grid[count]
        if any(_is_number(c.text) and (years or not _YEAR.match(c.text)) for c in row):
            break
        filled = [k for k, c in enumerate(row) if c.text.strip()]
        if not filled or filled == [0]:
            break
        count += 1
    return count


def _stray(row: list[str], text: str, span: tuple[int, int]) -> bool:
    """A header row that is the paragraph above cut into pieces (PyMuPDF took the lines over
    the table for its header): most of its words are that paragraph's."""
    words = re.findall(r"\w+", " ".join(row).lower())
    above = paragraph_above(text, span[0])
    if len(words) < STRAY_MIN_WORDS or above is None:
        return False
    para = set(re.findall(r"\w+", text[above[0]:above[1]].lower()))
    return sum(w in para for w in words) >= STRAY_SHARE * len(words)


def _currency_columns(body: list[list[Cell]], width: int) -> set[int]:
    """Columns whose body cells are only currency signs (or empty), with a number to their right."""
    out = set()
    for c in range(width - 1):
        values = [row[c].text.strip() for row in body]
        if any(values) and all(v in CURRENCIES or not v for v in values):
            out.add(c)
    return out


def _empty_columns(body: list[list[Cell]], paths: list[list[str]], width: int) -> set[int]:
    """Columns with nothing in the body (or only currency signs) whose header says nothing
    its neighbour's does not: the gaps and the `$` columns of a table laid out without rules
    (a merged header written over them too), not columns of their own."""
    def empty(c: int) -> bool:
        return all(not row[c].text.strip() or row[c].text.strip() in CURRENCIES for row in body)

    out = set()
    for c in range(1, width):
        if not empty(c):
            continue
        beside = [paths[k] for k in (c - 1, c + 1) if 0 < k < width and not empty(k)]
        if not paths[c] or any(set(paths[c]) <= set(p) for p in beside):
            out.add(c)
    return out


def _currency_left(row: list[Cell], c: int, currency_cols: set[int]) -> str | None:
    k = c - 1
    while k in currency_cols:
        sign = row[k].text.strip()
        if sign:
            return sign
        k -= 1
    return None


def _numeric_only(grid: list[list[Cell]], c: int, header_count: int) -> bool:
    """Whether the first column holds numbers rather than labels (a table of numbers only)."""
    values = [row[c].text for row in grid[header_count:] if row[c].text.strip()]
    return bool(values) and all(_is_number(v) for v in values)


def _column_paths(header: list[list[str]], width: int) -> list[list[str]]:
    """Each column's header labels, top row first: a label in an upper row is carried right
    over the empty cells after it (a merged cell), unless the row writes its merged cells out
    (a label repeated in the cell beside it, as the PDF and HTML readers write a span); a label
    equal to the one above is kept once."""
    rows = [[("" if _PLACEHOLDER.match(x.strip()) else x.strip()) for x in row] for row in header]
    for r, row in enumerate(rows[:-1]):
        if any(row[c] and row[c] == row[c + 1] for c in range(width - 1)):
            continue  # the row writes its merged cells out over every column: an empty cell is empty
        carry = ""
        for c in range(width):
            if row[c]:
                carry = row[c]
            elif carry and c > 0:
                row[c] = carry
    paths = []
    for c in range(width):
        path: list[str] = []
        for row in rows:
            if row[c] and (not path or path[-1] != row[c]):
                path.append(row[c])
        paths.append(path)
    return paths

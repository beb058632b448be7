"""Tables found and parsed, against gold made by hand (issue 32); used by bench/structured.py.

Gold: `bench/structured_gold/<name>.json` for the shared PDFs (typed by hand from
`pdftotext -layout` and the page images, every page's decision recorded in its `pages`), and
for the Markdown sources their pipe lines split on their unescaped pipes here (no Markdown
parser). Each gold table is matched to the parsed table on its page that holds most of its row
labels (one parsed table per gold table: a parsed table that runs two gold tables together
finds only one of them); a parsed table that matches no gold table is a *false table*.

Every gold cell is compared: the header of each column after the labels (`header cells`),
and each row's label and cells (`cells`), rows aligned in order by their labels. A cell is
exact when its text is the gold's up to case, spacing, `$` signs and footnote marks (`(1)`);
a gold cell that states a number (by `gold_value`, a rule of its own) is parsed right when the
parsed cell's number has that value and is a percentage exactly when the gold writes `%`.
"""

from __future__ import annotations

import difflib
import html
import json
import re
from pathlib import Path

GOLD_DIR = Path(__file__).resolve().parent / "structured_gold"


def norm(text: str) -> str:
    text = re.sub(r"\(\d\)|<br>|\$", " ", text.replace("\u2019", "'"))
    return " ".join(text.lower().split())


def norm_header(text: str) -> str:
    """A column header as compared: `norm`, and no space around a slash (`Income/ Loss`)."""
    return re.sub(r"\s*/\s*", "/", norm(text))


def gold_value(text: str) -> float | None:
    """The number a gold cell states, by a rule of its own (not the parser's): digits with
    thousands commas, a decimal point, parentheses as negatives, `%`; a dash or `nm` is none."""
    if "_" in text:
        return None  # a Rust literal (`98_222`), not a figure
    t = text.replace(",", "").replace("%", "").strip()
    neg = t.startswith("(") and t.endswith(")")
    t = t.strip("() ")
    try:
        return -float(t) if neg else float(t)
    except ValueError:
        return None


def cell_text(raw: str) -> str:
    """A source cell as read: code ticks, HTML tags and emphasis marks gone, entities decoded."""
    text = re.sub(r"</?(code|span|em|strong|br)\b[^>]*>", "", raw.replace("`", ""))
    text = re.sub(r"(?<![\w`])_([A-Za-z][A-Za-z ]*[A-Za-z])_(?!\w)", r"\1", text)  # _word_ emphasis
    return html.unescape(text)


def markdown_gold(text: str) -> list[dict]:
    """Pipe tables of a Markdown source: runs of `|` lines, split on unescaped pipes; the first
    line is the header, the second the delimiter row."""
    tables, run = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            run.append(line)
            continue
        if len(run) >= 3:
            cells = [[cell_text(c.strip().replace("\\|", "|")) for c in re.split(r"(?<!\\)\|", r.strip()[1:-1])]
                     for r in run]
            tables.append({"page": None, "corner": cells[0][0], "columns": cells[0][1:], "rows": cells[2:]})
        run = []
    return tables


def pdf_gold(name: str) -> dict:
    return json.loads((GOLD_DIR / f"{name}.json").read_text(encoding="utf-8"))


def trimmed(cells: list[str]) -> list[str]:
    """Cells without the empty ones at the end (a group label row is its label)."""
    cells = list(cells)
    while len(cells) > 1 and not cells[-1].strip():
        cells.pop()
    return cells


def parsed_row(row) -> list[str]:
    return trimmed([row.label] + [c.text for c in row.cells[1:]])


def page_of(start: int, pages: list[tuple[int, int, int]] | None) -> int | None:
    """The 1-based page whose text holds character `start` (None for a source without pages)."""
    for number, s, e in pages or ():
        if s <= start < e:
            return number
    return None


def _label_hits(gold: dict, table) -> int:
    want = [norm(r[0]) for r in gold["rows"]]
    got = [norm(r.label) for r in table.rows]
    return sum(min(want.count(x), got.count(x)) for x in set(want))


def match(gold: list[dict], tables, pages) -> dict[int, int]:
    """gold index -> parsed index: pairs on the same page, the most shared row labels first."""
    pairs = []
    for g, gt in enumerate(gold):
        for k, t in enumerate(tables):
            if gt.get("page") is not None and page_of(t.span[0], pages) != gt["page"]:
                continue
            hits = _label_hits(gt, t)
            if hits * 2 >= len(gt["rows"]) and hits:
                pairs.append((-hits, g, k))
    out, used = {}, set()
    for _, g, k in sorted(pairs):
        if g not in out and k not in used:
            out[g] = k
            used.add(k)
    return out


def _align(gold_rows: list[list[str]], got_rows: list[list[str]]) -> dict[int, int]:
    """gold row -> parsed row, in order, by label (then a whole-row match for what is left)."""
    a, b = [norm(r[0]) for r in gold_rows], [norm(r[0]) for r in got_rows]
    pairs = {}
    for block in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks():
        for i in range(block.size):
            pairs[block.a + i] = block.b + i
    taken = set(pairs.values())
    for i, row in enumerate(gold_rows):
        if i in pairs:
            continue
        whole = [norm(c) for c in row]
        k = next((k for k, r in enumerate(got_rows) if k not in taken and [norm(c) for c in r] == whole), None)
        if k is not None:
            pairs[i] = k
            taken.add(k)
    return pairs


def compare_table(gold: dict, table) -> dict:
    rows = [trimmed(r) for r in gold["rows"]]
    got = [parsed_row(r) for r in table.rows]
    pairs = _align(rows, got)
    out = {"cells": 0, "cells_exact": 0, "numbers": 0, "numbers_right": 0, "header_cells": 0, "header_exact": 0,
           "missing_rows": [], "extra_rows": len(got) - len(pairs), "wrong_cells": []}
    for i, row in enumerate(rows):
        match_row = table.rows[pairs[i]] if i in pairs else None
        texts = got[pairs[i]] if i in pairs else []
        if match_row is None:
            out["missing_rows"].append(row[0])
        for c, cell in enumerate(row):
            out["cells"] += 1
            value = gold_value(cell) if c else None
            out["numbers"] += value is not None
            ok = c < len(texts) and norm(texts[c]) == norm(cell)
            out["cells_exact"] += ok
            if match_row is not None and not ok:
                out["wrong_cells"].append([row[0], c, cell, texts[c] if c < len(texts) else None])
            if value is not None and match_row is not None and c < len(match_row.cells):
                n = match_row.cells[c].number
                out["numbers_right"] += (n is not None and abs(n.value - value) < 1e-9
                                         and n.percent == ("%" in cell))
    want = gold.get("columns") or []
    have = [c.label for c in table.columns[1:]]
    out["header_cells"] = len(want)
    out["header_exact"] = sum(1 for i, h in enumerate(want) if i < len(have) and norm_header(have[i]) == norm_header(h))
    if out["header_exact"] < len(want) or len(have) != len(want):
        out["header_got"] = have
    return out


COUNTS = ("cells", "cells_exact", "numbers", "numbers_right", "header_cells", "header_exact")


def compare(gold: list[dict], tables, pages=None) -> dict:
    """One document: found / gold tables, false tables, every cell; `tables` its parsed records."""
    pairs = match(gold, tables, pages)
    total = {k: 0 for k in COUNTS}
    detail = []
    for g, gt in enumerate(gold):
        got = compare_table(gt, tables[pairs[g]]) if g in pairs else None
        about = gt.get("about") or (gt["rows"][0][0] if gt["rows"] else "")
        if got is None:
            n_cells = sum(len(trimmed(r)) for r in gt["rows"])
            got = {"cells": n_cells, "cells_exact": 0, "header_cells": len(gt.get("columns") or []), "header_exact": 0,
                   "numbers": sum(gold_value(c) is not None for r in gt["rows"] for c in trimmed(r)[1:]),
                   "numbers_right": 0}
        for k in COUNTS:
            total[k] += got[k]
        detail.append({"page": gt.get("page"), "about": about, "parsed": tables[pairs[g]].id if g in pairs else None,
                       **{k: v for k, v in got.items() if v or k in COUNTS}})
    false = [t.id for k, t in enumerate(tables) if k not in pairs.values()]
    return {"gold_tables": len(gold), "found": len(pairs), "parsed_tables": len(tables),
            "false_tables": len(false), "false_table_ids": false, **total,
            "extra_rows": sum(d.get("extra_rows", 0) for d in detail), "tables": detail}


def overall(results: dict[str, dict]) -> dict:
    keys = ("gold_tables", "found", "parsed_tables", "false_tables", *COUNTS, "extra_rows")
    return {k: sum(r[k] for r in results.values()) for k in keys}

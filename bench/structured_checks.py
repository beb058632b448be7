"""Consistency checks against corruptions made from the hand gold (issue 32); used by
bench/structured.py.

- *Totals*: every row of a gold table whose figures are the sum of the rows above it (found by
  arithmetic on the gold, with a rule of its own: rows read back from the row above it, a
  sum standing for the rows it covers, group labels skipped, a dash read as zero) has its first
  such figure put one unit off in the document's text (`24,690` -> `24,691`, `1.40` -> `1.41`).
  Each is marked `labelled` (a `Total`/`Net`/`Sum` label, or no label: what the check is built
  for) or `other` (a sum the label does not call one: `Income before income taxes`).
- *Prose*: every sentence of the prose that restates a gold table's figure (listed by hand in
  the gold's `prose`) has that figure put one unit off the same way (`$24.7 billion` ->
  `$24.8 billion`, `5%` -> `6%`), one sentence at a time. Each is marked by whether the sentence
  names the row by its label as the table writes it (what a label-matching check can see).

A corruption is *found* when a check of the corrupted text that the untouched text does not
raise points at the changed characters. A finding on an untouched document is a false alarm.
"""

from __future__ import annotations

import re

from structured_parse import _align, match, parsed_row, trimmed

TOTAL_LABEL = re.compile(r"^\s*(total|sub-?total|sum|net)\b|^\s*$", re.IGNORECASE)


def value(text: str) -> float | None:
    t = text.replace(",", "").replace("$", "").strip()
    if t in ("—", "-", "\u2013"):
        return 0.0
    if "%" in t or not re.fullmatch(r"\(?-?\d+(\.\d+)?\)?", t):
        return None
    return -float(t.strip("()")) if t.startswith("(") else float(t)


def decimals(text: str) -> int:
    m = re.search(r"\.(\d+)", text)
    return len(m.group(1)) if m else 0


def sum_rows(rows: list[list[str]]) -> dict[int, tuple[int, int]]:
    """row -> (column, first row covered) for each row whose figure in some column is the sum
    of the rows above it (at least two), the same cover holding in every column it has."""
    rows = [trimmed(r) for r in rows]
    sums: dict[int, int] = {}
    out = {}
    for r, row in enumerate(rows):
        cols = [c for c in range(1, len(row)) if value(row[c]) is not None]
        if not cols:
            continue
        starts = []
        for c in cols:
            target, acc, n, k, start = value(row[c]), 0.0, 0, r - 1, None
            tol = 0.5 * 10 ** -decimals(row[c]) + 1e-9
            while k >= 0:
                above = rows[k]
                if len(above) <= c or value(above[c]) is None:
                    if len(above) == 1:  # a group label
                        k -= 1
                        continue
                    break
                acc, n = acc + value(above[c]), n + 1
                first = sums.get(k, k)
                if n >= 2 and abs(acc - target) <= tol:
                    start = first
                    break
                k = first - 1
            starts.append(start)
        if starts[0] is not None and all(s == starts[0] for s in starts if s is not None):
            sums[r] = starts[0]
            out[r] = (cols[0], starts[0])
    return out


def bump(text: str) -> str:
    """The figure one unit off in its last digit, written the same way."""
    m = re.search(r"\d[\d,]*(\.\d+)?", text)
    digits = m.group(0)
    plain = digits.replace(",", "")
    dec = decimals(plain)
    n = round(float(plain) * 10 ** dec) + 1
    new = f"{n / 10 ** dec:,.{dec}f}" if "," in digits else f"{n / 10 ** dec:.{dec}f}"
    return text[:m.start()] + new + text[m.end():]


def total_corruptions(name: str, text: str, gold: list[dict], records, pages) -> list[dict]:
    out = []
    pairs = match(gold, records.tables, pages)
    for g, gt in enumerate(gold):
        if g not in pairs:
            out += [{"kind": "total", "labelled": bool(TOTAL_LABEL.match(gt["rows"][r][0])), "document": name,
                     "what": f"p.{gt['page']} {gt.get('about')}: '{gt['rows'][r][0]}': the table was not found",
                     "missing": True} for r in sum_rows(gt["rows"])]
            continue
        table = records.tables[pairs[g]]
        aligned = _align([trimmed(r) for r in gt["rows"]], [parsed_row(r) for r in table.rows])
        for r, (col, start) in sum_rows(gt["rows"]).items():
            if r not in aligned or col >= len(table.rows[aligned[r]].cells):
                out.append({"kind": "total", "labelled": bool(TOTAL_LABEL.match(gt["rows"][r][0])), "document": name,
                            "what": f"p.{gt['page']} {gt.get('about')}: '{gt['rows'][r][0]}': the parse has no such row",
                            "missing": True})
                continue
            cell = table.rows[aligned[r]].cells[col]
            s, e = cell.span
            label = gt["rows"][r][0]
            if not re.search(r"\d", text[s:e]) or cell.number is None:  # the parse misplaced the figure
                out.append({"kind": "total", "labelled": bool(TOTAL_LABEL.match(label)), "document": name,
                            "what": f"p.{gt['page']} {gt.get('about')}: '{label}': the parse has no figure "
                                    f"where the gold has {gt['rows'][r][col]}", "missing": True})
                continue
            new = bump(text[s:e])
            out.append({"kind": "total", "labelled": bool(TOTAL_LABEL.match(label)), "document": name,
                        "what": f"p.{gt['page']} {gt.get('about')}: '{label}' {text[s:e]} -> {new}",
                        "text": text[:s] + new + text[e:], "span": (s, s + len(new))})
    return out


def prose_corruptions(name: str, text: str, prose: list[dict]) -> list[dict]:
    out = []
    for p in prose:
        at = text.find(p["quote"])
        if at < 0:
            out.append({"kind": "prose", "labelled": p["names_row"], "document": name, "what": p["quote"],
                        "missing": True})
            continue
        s = at + p["quote"].index(p["number"])
        e = s + len(p["number"])
        new = bump(p["number"])
        out.append({"kind": "prose", "labelled": p["names_row"], "document": name,
                    "what": f"{p['quote']!r}: {p['number']} -> {new}",
                    "text": text[:s] + new + text[e:], "span": (s, s + len(new))})
    return out


def hits(check, span: tuple[int, int]) -> bool:
    return any(loc.span[0] < span[1] and span[0] < loc.span[1] for loc in check.locations)

"""Questions about table values, generated from the hand gold (issue 32); used by
bench/structured.py (`questions`).

Every question asks for one cell of a gold table (never the parser's), by one of a fixed
set of phrasing templates taken in turn, so that no question is written to suit the code:

- `what-was`: "What was <row> <period> in the <table>?"
- `how-much`: "How much was <row> <period>?"
- `percentage`: "What percentage did <row> change ...?" (a `Change` column; another column:
  "What was the reported <row> <period>?")
- `fiscal`: "<row> in Q1 FY25?" (the period as a fiscal quarter; the column's header word
  where the column is no period)
- `header-word`: "<row> <a word of the column's header>" (a search-box query)
- `give-me`: "Give me the <row> figure <period> from the <table>."

The row is named by its label (footnote marks dropped), with its group labels where the label
alone names several rows of the document (`Domestic Parks & Experiences Operating income`),
and the table is named (its `about`, written by hand in the gold) whenever the row's words still
name rows of different values elsewhere. Long labels are sometimes cut to their first words
(`label-cut`: its last third dropped), as people shorten them. Markdown tables (the Rust book's operators appendix and
data types chapter) get their own templates, from the source's pipe lines.
"""

from __future__ import annotations

import re
from pathlib import Path

from structured_parse import gold_value, markdown_gold, pdf_gold, trimmed

ROWS_PER_TABLE = 3
"""Rows asked about per gold table (spread over the table: first, middle, last)."""
EARNINGS_TEMPLATES = ("what-was", "how-much", "percentage", "fiscal", "header-word", "give-me")
LONG_LABEL_WORDS = 7
"""A label longer than this is asked without its last third in every other question."""


def _period(header: str, k: int) -> tuple[str, str]:
    """(a way to name the column as a period, its fiscal quarter) for the k-th phrasing."""
    h = header.lower()
    if "december 28, 2024" in h and "quarter" in h:
        return (["for the quarter ended December 28, 2024", "in the first quarter of fiscal 2025",
                 "in the current quarter"][k % 3], "Q1 FY25")
    if "december 30, 2023" in h:
        return (["for the quarter ended December 30, 2023", "in the first quarter of fiscal 2024",
                 "in the prior-year quarter"][k % 3], "Q1 FY24")
    if "december 28, 2024" in h:
        return (["as of December 28, 2024", "at December 28, 2024", "at the end of the first quarter"][k % 3],
                "Q1 FY25")
    if "september 28, 2024" in h:
        return (["as of September 28, 2024", "at September 28, 2024", "at the end of fiscal 2024"][k % 3],
                "Q4 FY24")
    if h.startswith("change"):
        return ("change versus the prior period", "")
    return (f"({header})", "")


def _label(label: str) -> str:
    return " ".join(re.sub(r"\(\d\)", "", label).lower().split())


def _row_phrase(label: str, groups: list[str]) -> str:
    label = re.sub(r"\(\d\)", "", label).strip()
    return " ".join([label, *[g.rstrip(":") for g in groups]])


def _spread(items: list, n: int) -> list:
    if len(items) <= n:
        return items
    return [items[round(i * (len(items) - 1) / (n - 1))] for i in range(n)]


def earnings_questions(name: str = "q1-fy25-earnings", templates: tuple[str, ...] = EARNINGS_TEMPLATES,
                       holdout: bool = False) -> list[dict]:
    gold = pdf_gold(name)["tables"]
    cells = []  # (table, row label, groups, column index, value)
    for t in gold:
        above: list[str] = []  # the group labels the row sits in, nearest first
        rows, after_group = [], False
        for row in (trimmed(r) for r in t["rows"]):
            if len(row) == 1:  # under the group label right above it; after figures, a new group
                # (inside the one above when it ends with ':' and that one does not: `Exclude:`)
                if after_group:
                    above = [row[0], *above]
                elif row[0].endswith(":") and above and not above[-1].endswith(":"):
                    above = [row[0], above[-1]]
                else:
                    above = [row[0]]
                after_group = True
                continue
            after_group = False
            if row[0]:
                rows.append((row, list(above)))
        cells.append((t, rows))
    everyone = [(row, above) for _, rows in cells for row, above in rows]

    def groups_that_tell(row, above) -> list[str]:
        """The fewest group labels, nearest first, that tell the row from rows of the same
        label and other figures."""
        others = [a for r, a in everyone if _label(r[0]) == _label(row[0]) and r[1:] != row[1:]]
        chosen = []
        for g in above:
            if not others:
                break
            if any(g not in a for a in others):
                chosen.append(g)
                others = [a for a in others if g in a]
        return chosen
    out, n = [], 0
    for t, rows in cells:
        picked = _spread(rows, ROWS_PER_TABLE)
        if holdout:  # the rows between those the tuning set asks about, where a table has them
            picked = [r for r in rows if r not in picked][:2] or picked[:1]
        for row, groups in picked:
            cols = [c for c in range(1, len(row)) if gold_value(row[c]) is not None]
            if not cols:
                continue
            col = cols[n % len(cols)]
            header = t["columns"][col - 1]
            label = re.sub(r"\(\d\)", "", row[0]).strip()
            short = " ".join(label.split()[:-(len(label.split()) // 3)]).rstrip(",")
            cut = (len(label.split()) > LONG_LABEL_WORDS and n % 2 == 0  # and still one row's, as a person cuts it
                   and not any(_label(r[0]).startswith(short.lower()) for r, _ in everyone if _label(r[0]) != _label(label)))
            asked = short if cut else label
            told = groups_that_tell(row, groups)
            rowp = _row_phrase(asked, told)
            same_words = sum(1 for r, a in everyone if _label(r[0]) == _label(row[0]) and r[1:] != row[1:]
                             and all(g in a for g in told))
            about = t["about"]
            where = f" in the {about} table" if same_words else ""
            period, fiscal = _period(header, n)
            template = templates[n % len(templates)]
            change = header.lower().startswith("change")
            if template == "according-to":
                q = f"According to the {about} table, what is the {header.split('/')[-1].strip()} figure for {rowp}?"
            elif template == "whats":
                q = f"What's {rowp} {period}{where}?"
            elif template == "can-you":
                q = f"Can you tell me {rowp} {period}{where}?"
            elif template == "need":
                q = f"I need the {fiscal or header.split('/')[-1].strip()} number for {rowp}{where}."
            elif template == "report":
                q = f"Report {rowp} ({header}){where}."
            elif template == "how-did":
                q = f"How did {rowp} change{where}?" if change else f"{rowp} for {period}, please{where}."
            elif template == "what-was":
                q = f"What was {rowp} {period}{where or f' in the {about} table'}?"
            elif template == "how-much":
                q = f"How much was {rowp} {period}{where}?"
            elif template == "percentage":
                q = (f"What percentage did {rowp} change{where}?" if header.lower().startswith("change")
                     else f"What was the reported {rowp} {period}{where}?")
            elif template == "fiscal":
                q = f"{rowp} in {fiscal}{where}?" if fiscal else f"{rowp}, {header.split('/')[-1].strip()}{where}?"
            elif template == "header-word":
                last = header.split("/")[-1].strip()
                word = last if re.search(r"\d{4}$", last) else last.split()[0].strip(",")
                q = f"{rowp} {word.lower() if word == 'Change' else word}{where}"
            elif header.lower().startswith("change"):
                q = f"Give me the change in {rowp} from the {about} table."
            else:
                q = f"Give me the {rowp} figure {period} from the {about} table."
            out.append({"question": q[0].upper() + q[1:], "file": name, "label": row[0], "value": row[col],
                        "template": template + ("+label-cut" if cut else ""), "table": f"p.{t['page']} {about}",
                        "column": header})
            n += 1
    return out


HOLDOUT_TEMPLATES = ("according-to", "whats", "can-you", "need", "report", "how-did")
"""Phrasings written after the route was tuned on the others and never tuned on: how the
route does on wording it has not seen."""
HOLDOUT_MARKDOWN = {
    "operators": [("explain", "Explain the {label} operator.", 2), ("meaning", "{label} operator meaning", 2)],
    "symbols": [("meaning-of", "Meaning of {label} in Rust", 1), ("what-is", "What is {label}?", 1)],
    "integer-types": [("terse", "{label} signed type?", 1), ("terse-unsigned", "unsigned {label} integer", 2)],
    "literals": [("terse", "{label} literal example", 1), ("syntax", "Syntax of a {label} literal?", 1)],
}
MARKDOWN_TEMPLATES = {
    "operators": [("what-does", "What does the {label} operator do in Rust?", 2),
                  ("which-trait", "Which trait overloads {label}?", 3),
                  ("example", "Show an example of {label} in use.", 1)],
    "symbols": [("what-does", "What does {label} mean in Rust?", 1),
                ("used-for", "What is {label} used for?", 1)],
    "integer-types": [("signed", "What is the signed integer type of length {label}?", 1),
                      ("unsigned", "Which unsigned type is {label}?", 2)],
    "literals": [("example", "What does a {label} number literal look like?", 1),
                 ("how-written", "How do you write a {label} literal, for example?", 1)],
}


PER_MARKDOWN_TABLE = {"operators": 8, "symbols": 3, "integer-types": 4, "literals": 4}
"""Rows asked about per Markdown table, by kind (the operators table is the appendix's main one)."""


def markdown_questions(corpus: Path, rel: str, templates: dict = MARKDOWN_TEMPLATES, holdout: bool = False) -> list[dict]:
    out, n = [], 0
    for k, t in enumerate(markdown_gold((corpus / rel).read_text(encoding="utf-8"))):
        head = " ".join([t["corner"], *t["columns"]]).lower()
        kind = ("operators" if "overloadable" in head else "integer-types" if "signed" in head
                else "literals" if "literal" in head else "symbols")
        labels = [r[0] for r in t["rows"]]
        rows = [r for r in t["rows"] if labels.count(r[0]) == 1]
        picked = _spread(rows, PER_MARKDOWN_TABLE[kind])
        if holdout:
            picked = [r for r in rows if r not in picked][:max(1, PER_MARKDOWN_TABLE[kind] // 2)] or picked[:1]
        for row in picked:
            options = [(name, text, col) for name, text, col in templates[kind] if col < len(row) and row[col].strip()]
            if not options:
                continue
            name, text, col = options[n % len(options)]
            out.append({"question": text.format(label=row[0]), "file": Path(rel).stem, "label": row[0],
                        "value": row[col], "template": f"{kind}:{name}", "table": f"{Path(rel).stem} table {k + 1}",
                        "column": t["columns"][col - 1]})
            n += 1
    return out


def make_questions(corpus: Path, markdown: tuple[str, ...]) -> list[dict]:
    return earnings_questions() + [q for rel in markdown for q in markdown_questions(corpus, rel)]


def make_holdout(corpus: Path, markdown: tuple[str, ...]) -> list[dict]:
    return (earnings_questions(templates=HOLDOUT_TEMPLATES, holdout=True)
            + [q for rel in markdown for q in markdown_questions(corpus, rel, HOLDOUT_MARKDOWN, holdout=True)])

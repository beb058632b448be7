"""Prose that names a table's row otherwise than by writing its label before the number
(`table-mismatch`, issue 32's consistency checks; `structured.prose` reads the label-first
sentences).

Three other ways prose names a row, each read from the document alone:

- **The label after the number**: "125 million Disney+ subscribers", "3,110 visitors". The
  number is followed at once, on its line, by a row's label, or by the group label a total
  closes (`Total Disney+` under `Disney+` is the quantity "Disney+" names); a one-word label
  shorter than `PROSE_MIN_LABEL_CHARS` (`Sports`) names too much prose to count alone.
- **The label's words, abbreviations spelled out**: "Equity loss from the India JV of $33
  million" names `Equity in the loss of India joint venture`. A row is named when every
  content word of its label (at least `PROSE_MIN_LABEL_WORDS` of them) is written between the
  previous number of the sentence (or its start) and this one; an upper-case word there
  whose letters are the initials of consecutive words of a row label (`JV`: `joint venture`)
  stands for those words. Of the rows so named, those with most words are held to account.
- **The section's heading**: under "# Restructuring and Impairment Charges", "the Company
  recorded a $143 million loss" states the row the heading names. Only a sentence with one
  number and no row label of its own is read this way: one with several numbers, or that
  names a row, speaks of more than the heading's quantity.

The number is then compared as `structured.prose` does (an estimate or a change is not the
row's figure; close to a cell, within `PROSE_CLOSE`, and equal to none at the precision the
sentence writes), signs aside: statements write a loss in parentheses, prose says "loss".
"""

from __future__ import annotations

import re

from chunker.document.structure import section_of
from chunker.document.markdown_records import DocumentStructure
from chunker.output.checks import Check
from chunker.structured.checks import STRONG_TOTAL, norm_label
from chunker.structured.numbers import prose_numbers
from chunker.structured.prose import CHANGE, HEDGE, Settings, against, dated, mismatch, sentences
from chunker.structured.records import NumberValue, Row, TableRecord

STOPWORDS = frozenset("the and for from with that this its their per of in on at to by as or an a "
                      "total net other were was are is be".split())
ACRONYM = re.compile(r"\b[A-Z]{2,6}\b")


def _words(text: str) -> list[str]:
    return [w.rstrip("s") for w in norm_label(text).split() if w not in STOPWORDS]


class _Row:
    def __init__(self, table: TableRecord, row: Row, group: str | None, min_chars: int):
        self.table, self.row = table, row
        self.label = norm_label(row.label)
        self.words = frozenset(_words(row.label))
        self.all_words = norm_label(row.label).split()
        # a total that closes its group is the group's quantity: `Total Disney+` is "Disney+"
        rest = norm_label(STRONG_TOTAL.sub("", row.label, count=1))
        # a short one-word label (`Sports`) names too much prose (as in `structured.prose`)
        short = len(self.label.split()) < 2 and len(self.label) < min_chars
        self.names = ({self.label} - ({self.label} if short else set())) | (
            {group} if group and rest == group else set())

    def expands(self, acronym: str) -> list[str]:
        """The words of this label whose initials spell `acronym` (`JV`: joint venture)."""
        letters, words = acronym.lower(), self.all_words
        for i in range(len(words)):
            for run in (words[i:i + len(letters)], [w for w in words[i:] if w not in STOPWORDS][:len(letters)]):
                if len(run) == len(letters) and "".join(w[0] for w in run) == letters:
                    return run
        return []


def _rows(tables: list[TableRecord], min_chars: int) -> list[_Row]:
    out = []
    for t in tables:
        group = None
        for row in t.rows:
            if all(c.number is None and not c.text.strip() for c in row.cells[1:]):
                group = norm_label(row.label) or group
                continue
            if norm_label(row.label) and any(c.number is not None for c in row.cells[1:]):
                out.append(_Row(t, row, group, min_chars))
    return out


def _magnitude(n: NumberValue) -> NumberValue:
    return n.model_copy(update={"value": abs(n.value)})


def _contradicted(number: NumberValue, row: Row, close: float):
    """The cell of `row` the prose's `number` is close to, when it equals none (signs aside)."""
    got = [(against(_magnitude(number), _magnitude(c.number), close), c) for c in row.cells if c.number is not None]
    if any(g == "equal" for g, _ in got):
        return None
    return next((c for g, c in got if g == "close"), None)


def _after(text: str, end: int, stop: int, rows: list[_Row]) -> list[_Row]:
    """Rows whose label (or the group label a total closes) follows the number on its line
    (a line break may begin another item of a list: `$247 million` / `◦ Domestic ESPN ...`)."""
    line = text[end:stop].split("\n", 1)[0]
    following = f"{norm_label(line)} "
    return [r for r in rows if any(following.startswith(f"{name} ") for name in r.names)]


def _by_words(clause: str, rows: list[_Row], min_words: int) -> list[_Row]:
    said = set(_words(clause))
    for acronym in ACRONYM.findall(clause):
        for r in rows:
            said.update(w.rstrip("s") for w in r.expands(acronym))
    named = [r for r in rows if len(r.words) >= min_words and r.words <= said]
    most = max((len(r.words) for r in named), default=0)
    return [r for r in named if len(r.words) == most]


def _by_heading(before: str, heading: str, rows: list[_Row]) -> list[_Row]:
    """The rows the section's heading names, when no row label is written before the number
    (the label-first reading, `structured.prose`, then holds the number to that row)."""
    spoken = f" {norm_label(before)} "
    if any(f" {r.label} " in spoken for r in rows):
        return []
    return [r for r in rows if r.label == heading]


def named_checks(text: str, tables: list[TableRecord], prose: list[tuple[int, int]],
                 structure: DocumentStructure | None, settings: Settings = Settings()) -> list[Check]:
    rows = _rows(tables, settings.prose_min_label_chars)
    if not rows:
        return []
    found = []
    for start, end in prose:
        section = section_of(start, structure) if structure is not None and structure.sections else None
        heading = norm_label(section.heading.title) if section is not None and section.heading else ""
        for s, e in sentences(text, start, end):
            numbers = [(ns, ne, n) for ns, ne, n in prose_numbers(text, s, e) if not dated(text, s, ns, n)]
            previous = s
            for ns, ne, number in numbers:
                before, clause, previous = text[s:ns], text[previous:ns], ne
                if HEDGE.search(before[-20:]) or (not number.percent and CHANGE.search(before[-25:])):
                    continue
                named = (_after(text, ne, e, rows) or _by_words(clause, rows, settings.prose_min_label_words)
                         or (_by_heading(before, heading, rows) if len(numbers) == 1 and heading else []))
                for r in named:
                    cell = _contradicted(number, r.row, settings.prose_close)
                    if cell is not None:
                        found.append(mismatch(text, (ns, ne), r.table, r.row, cell))
    return found


"""The prose against the tables: a sentence that names a table's row and states a number close
to, but not equal to, the row's cells is a `table-mismatch` (issue 32's consistency checks).

Which row a number speaks of: among the rows whose label the sentence writes (a one-word
label shorter than `PROSE_MIN_LABEL_CHARS` only with one of its group labels), the rows of the label named
last before the number, and of those the rows whose group labels it also names
(`International` under `Parks & Experiences` under `Operating income`, in "International
Parks & Experiences operating income increased 28%"). An estimate (`approximately $15 billion`) and a change (`increased
$0.8 billion`) are not the row's figure; a percentage after a verb of decline is negative
(`declined 5%` is the table's `(5) %`). A number is close when it is within `PROSE_CLOSE` of a
cell (relative), or, for a percentage, within one unit of the precision the sentence writes
(`6%` against `5 %`), and equal to none at that precision.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from chunker.output.checks import Check, CheckLocation
from chunker.structured.checks import location, norm_label, total_kind
from chunker.structured.numbers import prose_numbers
from chunker.structured.records import Cell, NumberValue, Row, TableRecord

PROSE_CLOSE = 0.1
"""A prose number within this relative distance of a cell of the row it names (and equal to
none) is a mismatch; farther ones are other quantities (a change, a count)."""
PROSE_MIN_LABEL_CHARS = 8
"""One-word row labels shorter than this (`Sports`, `Other`) name too much prose to be
matched in it alone: they count when the sentence also names one of their group labels
(`Sports: Segment operating income ...` under `Segment operating income:`); labels of two
words or more always count."""
PROSE_MIN_LABEL_WORDS = 3
"""A label is matched by its words in any order (`structured.prose_named`) only when it has at
least this many content words: two (`interest expense`) turn up together in too many sentences
about something else."""
GROUP_DEPTH = 2
"""How many group labels above a row (`Operating income` > `Parks & Experiences`) a sentence
may also name to pick that row among rows of the same label."""
HEDGE = re.compile(r"(approximately|about|around|roughly|nearly|almost|over|more than|less than|~)\s*\(?$",
                   re.IGNORECASE)
"""An estimate is no statement of the table's figure."""
CHANGE = re.compile(r"\b(increased|decreased|grew|declined|rose|fell|improved|by|up|down)\s*$", re.IGNORECASE)
"""A number right after a change verb is the change, not the quantity (`increased $0.8 billion`)."""
DECLINE = re.compile(r"\b(declined|decreased|fell|dropped|down|decline of|decrease of)\s*(by\s*)?$", re.IGNORECASE)
"""A percentage right after one of these is a fall: the table writes it negative."""
DAY = re.compile(r"\b(january|february|march|april|may|june|july|august|september|october|november|december"
                 r"|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.?\s*$", re.IGNORECASE)
"""A number right after a month's name is the day of a date (`November 14, 2024`)."""
SCALE_FACTORS = {None: 1.0, "thousands": 1e3, "millions": 1e6, "billions": 1e9}


@dataclass(frozen=True)
class Settings:
    prose_close: float = PROSE_CLOSE
    prose_min_label_chars: int = PROSE_MIN_LABEL_CHARS
    prose_min_label_words: int = PROSE_MIN_LABEL_WORDS


@dataclass(frozen=True)
class _Named:
    table: TableRecord
    row: Row
    label: str
    groups: tuple[str, ...]
    short: bool
    """A short one-word label (`Sports`) counts only with one of its group labels named too."""


def _named_rows(tables: list[TableRecord], settings: Settings) -> list[_Named]:
    out = []
    for t in tables:
        groups: list[str] = []
        for row in t.rows:
            label = norm_label(row.label)
            if all(c.number is None and not c.text.strip() for c in row.cells[1:]):
                if label:
                    groups.append(label)
                continue
            if label and total_kind(row) != "weak" and any(c.number for c in row.cells):
                short = len(label.split()) < 2 and len(label) < settings.prose_min_label_chars
                out.append(_Named(t, row, label, tuple(groups[-GROUP_DEPTH:]), short))
    return out


def prose_checks(text: str, tables: list[TableRecord], prose: list[tuple[int, int]],
                 settings: Settings = Settings()) -> list[Check]:
    """Sentences of the prose blocks `prose` that name a table's row and state a number close
    to, but not equal to, its cells."""
    rows = _named_rows(tables, settings)
    if not rows:
        return []
    found = []
    for start, end in prose:
        for s, e in sentences(text, start, end):
            spoken = f" {norm_label(text[s:e])} "
            named = [n for n in rows if f" {n.label} " in spoken
                     and (not n.short or any(g != n.label and f" {g} " in spoken for g in n.groups))]
            if not named:
                continue
            for ns, ne, number in prose_numbers(text, s, e):
                if dated(text, s, ns, number):
                    continue
                before = text[s:ns]
                if HEDGE.search(before[-20:]) or (not number.percent and CHANGE.search(before[-25:])):
                    continue  # an estimate, or a change rather than the quantity
                if number.percent and DECLINE.search(before[-25:]):
                    number = number.model_copy(update={"value": -abs(number.value)})
                for n in _nearest(before, named):
                    hit = _compare(number, n.row, settings.prose_close)
                    if hit is not None:
                        found.append(mismatch(text, (ns, ne), n.table, n.row, hit))
    return found


def mismatch(text: str, span: tuple[int, int], table: TableRecord, row: Row, cell: Cell) -> Check:
    """The finding of a prose number (`text[span]`) that `row`'s `cell` contradicts."""
    ns, ne = span
    return Check(kind="table-mismatch", severity="error",
                 message=(f"the prose says {text[ns:ne].strip()} for '{row.label}' but "
                          f"{table.id} says {cell.text}"),
                 locations=[CheckLocation(span=(ns, ne), quote=text[ns:ne]), location(cell.span, cell.text)])


def _nearest(before: str, named: list[_Named]) -> list[_Named]:
    """The rows the number speaks of: those whose label is named last before it (a label
    written only inside a longer label or group label, `experiences` in `parks & experiences`,
    `income taxes` in `income before income taxes`, is not named by itself), and among them
    the rows with most of their group labels named too (`International` under `Parks &
    Experiences` under `Operating income`)."""
    spoken = f" {norm_label(before)} "
    phrases = {n.label for n in named} | {g for n in named for g in n.groups}
    spans = {p: [(m.start(), m.start() + len(p)) for m in re.finditer(f"(?<= ){re.escape(p)}(?= )", spoken)]
             for p in phrases}

    def end(label: str) -> int:
        for s, e in reversed(spans[label]):
            if not any(len(o) > len(label) and os <= s and e <= oe for o in phrases for os, oe in spans[o]):
                return e
        return -1

    def named_at(label: str) -> bool:
        return bool(spans[label])

    scored = [((end(n.label), sum(named_at(g) for g in n.groups)), n) for n in named if end(n.label) >= 0]
    if not scored:
        return []
    best = max(key for key, _ in scored)
    return [n for key, n in scored if key == best]


def dated(text: str, sentence_start: int, at: int, number: NumberValue) -> bool:
    """Whether the number at `at` is part of a date: a year, or a day after a month's name."""
    if number.decimals == 0 and 1900 <= number.value <= 2100 and not number.currency and not number.percent:
        return True
    return not number.currency and bool(DAY.search(text[max(sentence_start, at - 12):at]))


def _in_scale(n: NumberValue, scale: str | None) -> float:
    return n.value * SCALE_FACTORS.get(n.scale, 1.0) / SCALE_FACTORS.get(scale, 1.0)


def against(number: NumberValue, n: NumberValue, close_share: float = PROSE_CLOSE) -> str | None:
    """`equal` when the prose's `number` is the cell's figure `n` at the precision the prose
    writes (scales converted), `close` when it is near it but not that, else None."""
    if n.percent != number.percent:
        return None
    prose_value = _in_scale(number, n.scale) if number.scale or not n.scale else number.value
    if number.scale is None and n.scale and not number.currency and not number.percent:
        prose_value = number.value
    unit = 10 ** -number.decimals * SCALE_FACTORS.get(number.scale, 1.0) / SCALE_FACTORS.get(n.scale, 1.0)
    diff = abs(prose_value - n.value)
    if diff <= 0.5 * unit + 1e-9:
        return "equal"
    if (n.value and diff / abs(n.value) <= close_share) or (number.percent and diff <= unit + 1e-9):
        return "close"
    return None


def _compare(number: NumberValue, row: Row, close_share: float = PROSE_CLOSE):
    """The cell `number` contradicts, or None when it matches one (or is far from all)."""
    close = None
    for cell in row.cells:
        if cell.number is None:
            continue
        got = against(number, cell.number, close_share)
        if got == "equal":
            return None
        if got == "close":
            close = close or cell
    return close


def sentences(text: str, start: int, end: int):
    pos = start
    for m in re.finditer(r"(?<=[.!?])[”’\"']?\s+(?=[A-Z(“\"])", text[start:end]):  # `.”` ends one too
        yield pos, start + m.start()
        pos = start + m.end()
    if pos < end:
        yield pos, end

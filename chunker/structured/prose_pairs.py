"""Two figures of one sentence read as one row's two periods (`table-mismatch`, issue 32's
consistency checks).

"Revenue increased from $7.70 to $7.99", "decreased $89 million, to $92 million from $181
million": the sentence states where a quantity was and where it is, and a table holds both in
one row, one figure per period column. Prose often names the quantity otherwise than the row
does (`Capital expenditures` for `Total investments in parks, resorts and other property`,
`adjusted EPS` for `Diluted EPS excluding certain items`), so the row is found by the pair
itself: a row with one of the two figures exactly (at the precision the sentence writes,
scales converted, signs aside: statements write outflows in parentheses, prose does not)
and, in another of its columns, a figure the other one is close to (within `PROSE_CLOSE`) but
equal to none of its cells, is contradicted by the sentence. To keep a coincidence from
passing for the row, the sentence must also share a word with the row's label, its group
labels, or the headings of the section the table sits in (`Capital expenditures` is the
section of the `Total investments ...` table), and only the rows sharing most words with it
are held to account. A row that states both figures agrees with the sentence, and then nothing
is found unless another row shares more of the sentence's words (`Diluted earnings per share
... to $1.41 from $1.04` against a `Diluted` row of 1.40 and 1.04, though `Basic` says 1.41 and
1.04). Numbers written as years are never a pair.
"""

from __future__ import annotations

import re

from chunker.output.checks import Check, CheckLocation
from chunker.structured.checks import location, norm_label
from chunker.structured.numbers import prose_numbers
from chunker.structured.prose import Settings, against, sentences
from chunker.structured.records import NumberValue, Row, TableRecord

FROM_BEFORE = re.compile(r"\bfrom\s*$", re.IGNORECASE)
TO_BEFORE = re.compile(r"\bto\s*$", re.IGNORECASE)
GAP_TO = re.compile(r"\s*,?\s*to\s*", re.IGNORECASE)
GAP_FROM = re.compile(r"\s*,?\s*from\s*", re.IGNORECASE)
STOPWORDS = frozenset("the and for from with that this its their per of in on at to by as or an a "
                      "total net other were was are is be follows following".split())


def _words(text: str) -> set[str]:
    return {w.rstrip("s") for w in norm_label(text).split() if len(w) >= 3 and w not in STOPWORDS}


def _pairs(text: str, s: int, e: int):
    """(then, now) spans and numbers of each `from X to Y` and `to Y from X` in the sentence."""
    numbers = list(prose_numbers(text, s, e))
    for (as_, ae, a), (bs, be, b) in zip(numbers, numbers[1:]):
        before, gap = text[max(s, as_ - 12):as_], text[ae:bs]
        if FROM_BEFORE.search(before) and GAP_TO.fullmatch(gap):
            yield (as_, ae, a), (bs, be, b)
        elif TO_BEFORE.search(before) and GAP_FROM.fullmatch(gap):
            yield (bs, be, b), (as_, ae, a)


def _year(n: NumberValue) -> bool:
    return n.decimals == 0 and 1900 <= n.value <= 2100 and not n.currency and not n.percent


def _magnitude(n: NumberValue) -> NumberValue:
    return n.model_copy(update={"value": abs(n.value)})


def _rows(tables: list[TableRecord]):
    """(table, row, the words of its label, group labels and section) of each row of figures."""
    for t in tables:
        groups: list[str] = []
        section = set().union(*(_words(h) for h in t.section)) if t.section else set()
        for row in t.rows:
            if all(c.number is None and not c.text.strip() for c in row.cells[1:]):
                groups.append(row.label)
                continue
            if any(c.number is not None for c in row.cells[1:]):
                yield t, row, _words(row.label) | set().union(*(_words(g) for g in groups[-2:])) | section


def _contradicted(said: NumberValue, other: NumberValue, row: Row, close: float):
    """The cell of `row` that `said` is close to but not, when `other` is exactly another of
    its cells and `said` equals none."""
    cells = [(i, c) for i, c in enumerate(row.cells) if c.number is not None]
    if any(against(said, _magnitude(c.number), close) == "equal" for _, c in cells):
        return None
    anchors = {i for i, c in cells if against(other, _magnitude(c.number), close) == "equal"}
    for i, c in cells:
        if against(said, _magnitude(c.number), close) == "close" and anchors - {i}:
            return c
    return None


def _holds_both(row: Row, then: NumberValue, now: NumberValue, close: float) -> bool:
    cells = [c.number for c in row.cells if c.number is not None]
    return (any(against(then, _magnitude(n), close) == "equal" for n in cells)
            and any(against(now, _magnitude(n), close) == "equal" for n in cells))


def pair_checks(text: str, tables: list[TableRecord], prose: list[tuple[int, int]],
                settings: Settings = Settings()) -> list[Check]:
    rows = list(_rows(tables))
    found = []
    for start, end in prose:
        for s, e in sentences(text, start, end):
            for then, now in _pairs(text, s, e):
                if _year(then[2]) or _year(now[2]):
                    continue
                a, b = _magnitude(then[2]), _magnitude(now[2])
                spoken = _words(text[s:e])
                # a row that states both agrees with the sentence, unless the sentence names another row more
                agreed = max((len(spoken & words) for _, row, words in rows
                              if _holds_both(row, a, b, settings.prose_close)), default=-1)
                candidates = []  # (words shared, said, other, table, row, cell)
                for t, row, words in rows:
                    shared = len(spoken & words)
                    for said, other in ((now, then), (then, now)):
                        cell = shared and _contradicted(_magnitude(said[2]), _magnitude(other[2]), row,
                                                        settings.prose_close)
                        if cell:
                            candidates.append((shared, said, other, t, row, cell))
                best = max((c[0] for c in candidates), default=0)
                if best <= agreed:
                    continue
                for _, (ns, ne, _), (os_, oe, _), t, row, cell in (c for c in candidates if c[0] == best):
                    found.append(Check(
                        kind="table-mismatch", severity="error",
                        message=(f"the prose says {text[ns:ne].strip()} (beside {text[os_:oe].strip()}) "
                                 f"for '{row.label}' but {t.id} says {cell.text}"),
                        locations=[CheckLocation(span=(ns, ne), quote=text[ns:ne]), location(cell.span, cell.text)]))
    return found

"""What the records and their checks let model prose say.

- A block above a table with a failed check is told of the finding in its prompt
  (`prompts/synthesize_checks.md`), and its summary may not state a disputed number
  (`states_disputed`): a number of a failed check is not a fact.
- A summary of a leaf whose content is a table may state only numbers its record holds
  (`unrecorded_numbers`), and the leaf's extractive stand-in is its caption and headers
  (`table_fallback`), not its first cells.
"""

from __future__ import annotations

import re

from chunker.grounding.text import numbers
from chunker.structured.records import StructuredRecords, TableRecord


def findings_in(records: StructuredRecords, span: tuple[int, int]):
    """The checks with a location inside `span`, and the numbers they dispute."""
    start, end = span
    found, disputed = [], set()
    for check in records.checks:
        inside = [loc for loc in check.locations if loc.span and start <= loc.span[0] < end]
        if not inside:
            continue
        found.append(check)
        quotes = check.locations if check.kind == "table-mismatch" else check.locations[:1]
        for loc in quotes:
            disputed.update(numbers(loc.quote or ""))
    return found, disputed


def states_disputed(text: str, disputed: set[str]) -> list[str]:
    return [surface for value, surface in numbers(text).items() if value in disputed]


def strip_disputed(text: str, disputed: set[str]) -> str:
    """`text` without the sentences that state a disputed number."""
    sentences = re.split(r"(?<=[.!?])\s+", text.strip())
    return " ".join(s for s in sentences if not states_disputed(s, disputed)).strip()


def tables_in(records: StructuredRecords, span: tuple[int, int]) -> list[TableRecord]:
    start, end = span
    return [t for t in records.tables if t.span[0] < end and t.span[1] > start]


def recorded_numbers(tables: list[TableRecord]) -> set[str]:
    found: set[str] = set()
    for t in tables:
        found.update(numbers(" ".join([t.caption or "", *(c.label for c in t.columns)])))
        for row in t.rows:
            found.update(numbers(" ".join(c.text for c in row.cells)))
    return found


def unrecorded_numbers(summary: str, tables: list[TableRecord]) -> list[str]:
    """The numbers `summary` states that none of `tables` holds."""
    held = recorded_numbers(tables)
    return [surface for value, surface in numbers(summary).items() if value not in held]


def table_fallback(tables: list[TableRecord], max_chars: int) -> str:
    """A table leaf's extractive stand-in: each table's caption and its column headers."""
    parts = []
    for t in tables:
        heads = ", ".join(c.label for c in t.columns if c.label)
        caption = (t.caption or "").rstrip(" :.")
        parts.append(f"{caption}: {heads}." if caption and heads else (caption or heads))
    text = " ".join(p for p in parts if p)
    return text if len(text) <= max_chars else text[:max_chars - 1].rstrip() + "\u2026"

"""The records pass: a document's tables, equations and figures, and the checks on them,
from its whole text, once, when it is loaded (before the cursor starts and any model reads it).

The records live in the run's store (`put_records`, `run_records`), never in the graph
state; `assemble` then names the leaves that hold each record (`with_parts`) and writes them
into `hierarchy.json`. An update loads the edited text again, so an edited table's record
and its checks are made again from it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from chunker.document.markdown_parse import markdown_parser
from chunker.document.markdown_records import DocumentStructure
from chunker.structured.checks import mismatch_checks, total_checks
from chunker.structured.equations import parse_equations
from chunker.structured.figures import parse_figures
from chunker.structured.prose import prose_checks
from chunker.structured.prose_named import named_checks
from chunker.structured.prose_pairs import pair_checks
from chunker.structured.records import StructuredRecords
from chunker.structured.sums import unlabelled_sums
from chunker.structured.tables import parse_tables

KIND = "structured"
KEY = "records"


def build_records(text: str, structure: DocumentStructure | None, images: Sequence = ()) -> StructuredRecords:
    """Every record of `text` and the checks they fail. `structure` is the Markdown parse
    (None for plain text: a pipe table there is still a table)."""
    tokens = markdown_parser(front_matter=structure is not None and structure.front_matter is not None).parse(text)
    tables = parse_tables(text, tokens, structure)
    checks = [c for t in tables for c in total_checks(t) + unlabelled_sums(t)]
    checks += mismatch_checks(tables)
    if tables:
        prose = _prose_blocks(text, tokens, structure, tables)
        checks += prose_checks(text, tables, prose)
        said = {c.locations[0].span for c in checks if c.kind == "table-mismatch"}
        checks += [c for c in pair_checks(text, tables, prose) if c.locations[0].span not in said]
        said = {c.locations[0].span for c in checks if c.kind == "table-mismatch"}
        checks += [c for c in named_checks(text, tables, prose, structure) if c.locations[0].span not in said]
    return StructuredRecords(tables=tables, equations=parse_equations(text, tokens, structure),
                             figures=parse_figures(text, tokens, structure, images), checks=checks)


def _prose_blocks(text, tokens, structure, tables) -> list[tuple[int, int]]:
    if structure is not None:
        return [b.span for b in structure.prose_blocks]
    from chunker.document.markdown_parse import walk_tokens  # noqa: PLC0415
    return [b.span for b in walk_tokens(text, tokens).prose_blocks]


def may_hold_records(text: str) -> bool:
    """Plain text is parsed for records only when a line could start a table or display math."""
    return bool(re.search(r"^\s*(\||\$\$|\\\[)", text, re.MULTILINE))


def put_records(rs, records: StructuredRecords) -> None:
    rs.put_value(KIND, KEY, records.model_dump(mode="json"))
    rs.memo.put((KIND, KEY), records)


def run_records(rs) -> StructuredRecords:
    """The run's records (empty for a run made before they existed)."""
    def load() -> StructuredRecords:
        value = rs.get_value(KIND, KEY)
        return StructuredRecords() if value is None else StructuredRecords.model_validate(value)
    return rs.memo.get((KIND, KEY), load)


def with_parts(records: StructuredRecords, leaves: list[tuple[str, tuple[int, int]]]) -> StructuredRecords:
    """The records with the ids of the leaves (id, span) their spans overlap, and each
    check's locations with the node that holds them."""
    def parts(span: tuple[int, int]) -> list[str]:
        start, end = span
        return [nid for nid, (s, e) in leaves if s < max(end, start + 1) and e > start]

    def located(check):
        locs = [loc.model_copy(update={"node": (parts(loc.span) or [None])[0]}) if loc.span else loc
                for loc in check.locations]
        return check.model_copy(update={"locations": locs})

    return StructuredRecords(
        tables=[t.model_copy(update={"parts": parts(t.span)}) for t in records.tables],
        equations=[e.model_copy(update={"parts": parts(e.span)}) for e in records.equations],
        figures=[f.model_copy(update={"parts": parts(f.span)}) for f in records.figures],
        checks=[located(c) for c in records.checks])


def stats_of(records: StructuredRecords) -> dict[str, int]:
    """The counts the stats table and `--json` show."""
    stats = {f"records.{name}": len(getattr(records, name)) for name in ("tables", "equations", "figures")
             if getattr(records, name)}
    for check in records.checks:
        stats[f"checks.{check.kind}"] = stats.get(f"checks.{check.kind}", 0) + 1
    return stats

"""A table record as CSV (RFC 4180, via the csv module): one header line of the flattened
column labels, then one line per row of the cells' text as the document writes them."""

from __future__ import annotations

import csv
import io

from chunker.structured.records import TableRecord


def table_csv(table: TableRecord) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow([c.label for c in table.columns])
    for row in table.rows:
        writer.writerow([c.text for c in row.cells])
    return buffer.getvalue()

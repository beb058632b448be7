"""The typed records of a document's structured content: tables, equations, figures.

They are built once from the whole document's text when it is loaded (before any model
reads it), kept in the run's store, and written into `hierarchy.json` (`tables`,
`equations`, `figures`, with the `checks` they fail). Every span is `[start, end)` in the
document's text (the file, or a PDF's `source.md`), so a record points back to its source;
`parts` names the leaves that hold it once the tree is cut (a table longer than
`max_chunk_tokens` is split between rows: one record, several parts).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from chunker.output.checks import Check


class NumberValue(BaseModel):
    """A number as written: its value with sign (parentheses are negative), and what it is."""

    model_config = ConfigDict(frozen=True)

    value: float
    text: str = Field(description="the text it was read from")
    decimals: int = Field(0, description="digits written after the decimal point: its precision")
    percent: bool = False
    currency: str | None = Field(None, description="ISO code: USD, EUR, ...")
    scale: str | None = Field(None, description="thousands, millions, billions")
    unit: str | None = Field(None, description="the unit as shown: %, USD millions, bps, ...")


class Cell(BaseModel):
    text: str = Field(description="the cell's text without Markdown markup")
    span: tuple[int, int] = Field(description="the cell's source in the document's text")
    number: NumberValue | None = None


class Column(BaseModel):
    index: int
    label: str = Field(description="the header, merged headers flattened with their path "
                                   "(`Q1 FY25 / Revenue`)")
    path: list[str] = Field(default_factory=list, description="the header rows' labels, top first")
    unit: str | None = Field(None, description="the unit the header states (`$ millions`, `%`)")


class Row(BaseModel):
    index: int
    label: str = Field(description="the row's label: its first cell that is not a number")
    cells: list[Cell]
    span: tuple[int, int]


class TableRecord(BaseModel):
    id: str = Field(description="table-1, table-2, ... in document order")
    span: tuple[int, int]
    caption: str | None = Field(None, description="`Table 3: ...` above or below, else the heading "
                                                  "it sits under")
    caption_span: tuple[int, int] | None = None
    section: list[str] = Field(default_factory=list, description="the heading path it sits under")
    unit: str | None = Field(None, description="a unit the caption or a line above states for "
                                               "the whole table (`in millions`)")
    columns: list[Column]
    header_rows: int = Field(1, description="rows of headers (stacked headers are merged)")
    rows: list[Row]
    parts: list[str] = Field(default_factory=list, description="ids of the leaves that hold it")
    csv: str | None = Field(None, description="its CSV file, relative to OUT")

    def numbers(self) -> list[NumberValue]:
        return [c.number for r in self.rows for c in r.cells if c.number is not None]


class Variable(BaseModel):
    symbol: str
    definition: str
    span: tuple[int, int] = Field(description="the definition's source")


class EquationRecord(BaseModel):
    id: str
    span: tuple[int, int]
    latex: str
    label: str | None = Field(None, description="`\\label{}` or `\\tag{}`, or `(3)` written after it")
    variables: list[Variable] = Field(default_factory=list)
    section: list[str] = Field(default_factory=list)
    parts: list[str] = Field(default_factory=list)


class FigureRecord(BaseModel):
    id: str
    span: tuple[int, int]
    caption: str | None = None
    alt: str | None = None
    image: str | None = Field(None, description="the image path as the document gives it")
    media: str | None = Field(None, description="the extracted image, relative to OUT (`media/...`)")
    description: str | None = Field(None, description="the vision model's description, grounded "
                                                      "against the caption and citing text; None "
                                                      "without a vision model")
    section: list[str] = Field(default_factory=list)
    parts: list[str] = Field(default_factory=list)


class StructuredRecords(BaseModel):
    """Everything the records pass found in one document, and the checks it ran on them."""

    tables: list[TableRecord] = Field(default_factory=list)
    equations: list[EquationRecord] = Field(default_factory=list)
    figures: list[FigureRecord] = Field(default_factory=list)
    checks: list[Check] = Field(default_factory=list)

    def empty(self) -> bool:
        return not (self.tables or self.equations or self.figures or self.checks)

    def by_id(self) -> dict[str, TableRecord | EquationRecord | FigureRecord]:
        return {r.id: r for r in [*self.tables, *self.equations, *self.figures]}

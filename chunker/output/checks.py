"""Findings of the data-level checks (tables, terms, references): what `hierarchy.json` keeps
under `checks`, what the stats table counts and `--json` prints. A finding is recorded with
every location it involves and never silently corrected.

Kinds in use (each the module that finds it): `table-total` and `table-mismatch`
(structured data: a total that does not add up, one quantity with two values), `term-conflict`,
`dangling-reference`, `unused-term`, `orphan-note` (the knowledge passes).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class CheckLocation(BaseModel):
    """One place a finding involves: a node of the tree, a span of its file's text."""

    model_config = ConfigDict(frozen=True)

    node: str | None = Field(default=None, description="the node's id")
    source: str | None = Field(default=None, description="the file, relative to the corpus root")
    span: tuple[int, int] | None = Field(default=None, description="[start, end) in the file's text")
    quote: str | None = Field(default=None, description="the text at the span, as it reads")


class Check(BaseModel):
    """One finding."""

    model_config = ConfigDict(frozen=True)

    kind: str = Field(description="what was checked, e.g. table-total, term-conflict")
    severity: Literal["error", "warning"] = "warning"
    message: str = Field(description="one line for a person")
    locations: list[CheckLocation] = Field(default_factory=list)

"""Peeling: the Markdown structure as the chunking loop sees it.

load_document parses a Markdown document once (`document.structure.parse_structure`) and
keeps the parse in the run's store (`store_structure`), never in the graph state. Each
window step then asks `peel_of` for the cursor's `Peel`: the end of the cursor's heading
section (`limit`, which no window, lookahead or cut crosses, so every heading starts a
leaf), which cuts are allowed (`allows`: never inside a table, code block, formula,
figure, Setext heading or the front matter), and where a too-large window may be cut
(`snap`: a table larger than `max_chunk_tokens` splits between its rows).

Plain text (no structure in the store) gets `None` everywhere, and the loop runs exactly
as it did before structure existed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath

from chunker.chunking.outline import Outline, leaf_limit, leaf_section, outline_of
from chunker.config.sections import ChunkingSettings
from chunker.document.markdown_query import covering
from chunker.document.structure import (DocumentStructure, kind_of, parse_structure, safe_cut, section_of,
                                        table_header, table_row_cuts)
from chunker.state.records import NodeRecord
from chunker.state.store import RunStore

MARKDOWN_SUFFIXES = (".md", ".markdown")
_KIND = "structure"


def markdown_structure(chunking: ChunkingSettings, path: str | None, text: str) -> DocumentStructure | None:
    """The parse of a Markdown document, or None when the input is not read as Markdown.

    `structure="markdown"` always parses; `"none"` never does; `"auto"` parses a file whose
    name ends in .md or .markdown and nothing else: text passed directly (served, embedded,
    `run_text`) is plain unless the caller says `structure="markdown"`. Sniffing content
    would misread plain text: a line starting with `#` (a hashtag, a shell comment) would
    become a heading, indented lines code blocks, a line of dashes a Setext underline.
    """
    if chunking.structure == "none":
        return None
    if chunking.structure == "markdown":
        return parse_structure(text)
    if path and PurePath(path).suffix.lower() in MARKDOWN_SUFFIXES:
        return parse_structure(text)
    return None


def is_structured(structure: DocumentStructure | None) -> bool:
    """Whether there is anything to peel or keep whole (a heading, an atomic unit, front matter)."""
    return structure is not None and bool(structure.headings or structure.atomic_units
                                          or structure.front_matter)


def store_structure(rs: RunStore, doc_id: str, structure: DocumentStructure) -> None:
    rs.put_value(_KIND, doc_id, structure.model_dump(mode="json"))
    rs.memo.put((_KIND, doc_id), structure)


def run_structure(rs: RunStore, doc_id: str) -> DocumentStructure | None:
    """The run's stored structure (read once per run: every window step needs it)."""
    def load() -> DocumentStructure | None:
        value = rs.get_value(_KIND, doc_id)
        return None if value is None else DocumentStructure.model_validate(value)
    return rs.memo.get((_KIND, doc_id), load)


def run_outline(rs: RunStore, doc_id: str) -> Outline | None:
    """The outline of the run's structure (`chunker/chunking/outline.py`: its folds and node
    spans), worked out once per run from the stored structure and text."""
    structure = run_structure(rs, doc_id)
    if structure is None:
        return None
    return rs.memo.get(("outline", doc_id), lambda: outline_of(structure, rs.units(doc_id).text))


@dataclass(frozen=True)
class Peel:
    """The structure around one cursor position."""

    structure: DocumentStructure
    text: str
    cursor: int
    limit: int
    """End of the cursor's section: the next heading's start (or the end of the text); past
    the headings that fold into their first subsection (`chunker/chunking/outline.py`)."""
    joins: frozenset[int] = frozenset()
    """Starts of the subsections that a folded heading runs into: never a cut."""

    def clamp(self, offset: int) -> int:
        return min(offset, self.limit)

    def allows(self, offset: int) -> bool:
        """May a chunk that starts at the cursor end at `offset`?"""
        return (self.cursor < offset <= self.limit and offset not in self.joins
                and safe_cut(offset, self.structure))

    def _block_at(self, offset: int) -> tuple[int, int, str] | None:
        """The atomic unit, heading or front matter strictly containing `offset`."""
        s = self.structure
        for spans in (s.atomic_units, s.headings):
            span = covering(spans, offset)
            if span is not None and span.start < offset:
                return span.start, span.end, getattr(span, "kind", "heading")
        fm = s.front_matter
        if fm is not None and fm.start < offset < fm.end:
            return fm.start, fm.end, "front_matter"
        return None

    def grow(self, offset: int) -> int:
        """A window end at or after `offset` that does not fall inside a block: the end of
        the block, or for a table the next row start (a table grows row by row)."""
        offset = self.clamp(offset)
        block = self._block_at(offset)
        if block is None:
            return offset
        start, end, kind = block
        if kind == "table":
            rows = [r for r in table_row_cuts((start, end), self.text) if r >= offset]
            return self.clamp(rows[0] if rows else end)
        return self.clamp(end)

    def snap(self, offset: int) -> int:
        """The cut to take for a wanted end `offset` (> cursor): itself when allowed; inside
        a block that starts after the cursor, the block's start (the block goes whole to
        the next chunk); a block that starts at the cursor is taken whole, except a table,
        which is split at its last row start at or before `offset` (at its first row start
        after the cursor when none is): only a table larger than the cap gets there."""
        offset = self.clamp(offset)
        block = self._block_at(offset)
        if block is None:
            return offset
        start, end, kind = block
        if start > self.cursor:
            return start
        rows = table_row_cuts((start, end), self.text) if kind == "table" else []
        before = [r for r in rows if self.cursor < r <= offset]
        if before:
            return before[-1]
        after = [r for r in rows if r > self.cursor]
        return self.clamp(after[0] if after else end)


def peel_of(rs: RunStore, doc_id: str, cursor: int) -> Peel | None:
    """The Peel at `cursor`, or None for a run without structure."""
    structure = run_structure(rs, doc_id)
    if structure is None:
        return None
    outline = run_outline(rs, doc_id)
    return Peel(structure=structure, text=rs.units(doc_id).text, cursor=cursor,
                limit=leaf_limit(structure, outline, cursor), joins=outline.joins)


@dataclass(frozen=True)
class LeafStructure:
    """What a leaf records of the structure, and what its rewrite is shown."""

    kind: str | None = None
    """prose, table, code, math, figure or mixed (None without structure)."""
    header_path: tuple[str, ...] = ()
    table_header: str = ""
    """A later part of a split table: the table's header and delimiter rows, repeated at
    the start of the part's rewritten text (its original stays exact)."""

    def path_line(self) -> str:
        """The rewrite prompt's heading line, and a split table's header rows ("" for
        plain text, whose prompt stays as it was)."""
        line = f"Section: {' > '.join(self.header_path)}\n" if self.header_path else ""
        if self.table_header:
            line += f"The passage continues a table whose header rows are:\n{self.table_header}\n"
        return line


def leaf_structure(rs: RunStore, doc_id: str, start: int, end: int) -> LeafStructure:
    structure = run_structure(rs, doc_id)
    if structure is None:
        return LeafStructure()
    header = ""
    unit = covering(structure.atomic_units, start)
    if unit is not None and unit.kind == "table" and unit.start < start:
        header = table_header((unit.start, unit.end), rs.units(doc_id).text)
    return LeafStructure(kind=kind_of((start, end), structure),
                         header_path=tuple(leaf_section(structure, run_outline(rs, doc_id), start).header_path),
                         table_header=header)


def document_structure(rs: RunStore) -> tuple[DocumentStructure, Outline] | None:
    """The run's structure and outline, found through the stored document's id (for the output)."""
    item = rs.store.get(rs.ns("doc"), "text")
    if item is None:
        return None
    doc_id = item.value["doc_id"]
    structure = run_structure(rs, doc_id)
    return None if structure is None else (structure, run_outline(rs, doc_id))


def block_structure(records: list[NodeRecord], outline: Outline | None
                    ) -> dict[str, tuple[list[str] | None, str | None]]:
    """(header_path, title) per node id: a block's heading path is the common prefix of its
    children's; a node, leaf or block, that is exactly one heading's section (with its
    subsections, folds applied: see `chunker/chunking/outline.py`) gets that heading's title.
    Records must list children before their parents (leaves first)."""
    if outline is None:
        return {}
    titles = outline.titles
    paths: dict[str, list[str] | None] = {r.id: r.header_path for r in records if r.is_leaf}
    out: dict[str, tuple[list[str] | None, str | None]] = {}
    for r in records:
        if r.is_leaf:
            out[r.id] = (r.header_path, titles.get(tuple(r.span)) or r.title)
            continue
        kids = [paths.get(c) or [] for c in r.children]
        prefix = list(kids[0]) if kids else []
        for path in kids[1:]:
            n = 0
            while n < min(len(prefix), len(path)) and prefix[n] == path[n]:
                n += 1
            prefix = prefix[:n]
        paths[r.id] = prefix
        out[r.id] = (prefix, titles.get(tuple(r.span)))
    return out

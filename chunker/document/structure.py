"""Markdown structure: headings, sections, atomic units and front matter, with exact offsets.

`parse_structure(text)` parses with markdown-it-py (see `markdown_parse`) and returns a
`DocumentStructure` whose sections tile the text, so leaves cut along section bounds stay
lossless. The helpers the chunking loop needs (`safe_cut`, `kind_of`, `section_of`,
`atomic_spans`, `table_row_cuts`, `table_header`) live in `markdown_query` and are
re-exported here.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import yaml

from .markdown_parse import TokenWalk, markdown_parser, walk_tokens
from .markdown_query import atomic_spans, kind_of, safe_cut, section_of, table_header, table_row_cuts
from .markdown_records import (AtomicKind, AtomicUnit, DocumentStructure, FrontMatter, Heading,
                               LeafKind, Section, Span)

__all__ = [
    "AtomicKind", "AtomicUnit", "DocumentStructure", "FrontMatter", "Heading", "LeafKind",
    "Section", "Span", "atomic_spans", "kind_of", "parse_structure", "safe_cut", "section_of",
    "table_header", "table_row_cuts",
]

# YAML aliases let a few lines of front matter stand for an exponentially large value
# ("billion laughs"); metadata with more values than this is not taken as front matter.
MAX_METADATA_VALUES = 10_000


class _TooLarge(ValueError):
    pass


def parse_structure(text: str) -> DocumentStructure:
    """The Markdown structure of `text` (any line endings; plain text gives one preamble section)."""
    walk = walk_tokens(text, markdown_parser(front_matter=True).parse(text))
    front_matter = None
    if walk.front_matter is not None:
        start, end, source = walk.front_matter
        metadata = _metadata(source)
        if metadata is None:  # not a YAML mapping: the `---` block is ordinary Markdown
            walk = walk_tokens(text, markdown_parser(front_matter=False).parse(text))
        else:
            front_matter = FrontMatter(start=start, end=end, metadata=metadata)
    return DocumentStructure(
        length=len(text), front_matter=front_matter, headings=walk.headings,
        sections=_sections(walk, len(text)), atomic_units=walk.atomic_units,
        prose_blocks=walk.prose_blocks)


def _metadata(source: str) -> dict[str, Any] | None:
    """The front matter's YAML mapping as plain JSON values, or None when it is not one."""
    try:
        data = yaml.safe_load(source)
    except yaml.YAMLError:
        return None
    if data is None:  # an empty front matter block
        return {}
    if not isinstance(data, dict):
        return None
    try:
        return _plain(data, [MAX_METADATA_VALUES])
    except _TooLarge:
        return None


def _plain(value: Any, budget: list[int]) -> Any:
    """`value` with string keys, ISO dates and lists only, so it serializes to JSON."""
    budget[0] -= 1
    if budget[0] < 0:
        raise _TooLarge
    if isinstance(value, dict):
        return {str(k): _plain(v, budget) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [_plain(v, budget) for v in value]
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def _sections(walk: TokenWalk, length: int) -> list[Section]:
    """Heading sections that tile [0, length): the preamble (if any), then one per heading."""
    sections: list[Section] = []
    headings = walk.headings
    first = headings[0].start if headings else length
    if first > 0:
        sections.append(Section(index=0, start=0, end=first, heading=None, level=0, body_start=0,
                                header_path=[], parent=None, subtree_end=first))
    # open: indices of the sections whose subtree is still open, outermost first
    open_: list[int] = []
    subtree_end: dict[int, int] = {}
    pending: list[tuple[Heading, int | None, list[str]]] = []
    base = len(sections)
    for i, heading in enumerate(headings):
        while open_ and pending[open_[-1] - base][0].level >= heading.level:
            subtree_end[open_.pop()] = heading.start
        parent = open_[-1] if open_ else None
        path = (pending[parent - base][2] if parent is not None else []) + [heading.title]
        pending.append((heading, parent, path))
        open_.append(base + i)
    for index in open_:
        subtree_end[index] = length
    for i, (heading, parent, path) in enumerate(pending):
        end = headings[i + 1].start if i + 1 < len(headings) else length
        sections.append(Section(index=base + i, start=heading.start, end=end, heading=heading,
                                level=heading.level, body_start=heading.end, header_path=path,
                                parent=parent, subtree_end=subtree_end[base + i]))
    return sections

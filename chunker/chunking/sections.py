"""Aggregation within sections: where a level's pending items may and may not be grouped.

Each pending item (a leaf or a block) starts either at a heading (a section break of that
heading's level) or inside a section. The rule, enforced by validate_groups whenever a
grouping can meet it:

    a group that spans the start of a section of level H (a crossed break) must hold whole
    sections of level H or above: it starts at a heading of level <= H and ends where one
    starts (or at the end of the document).

So a block never mixes part of one chapter with part of the next, and every heading start
stays a block boundary up to the level where whole sections are merged. When a level's
items hold section breaks, the structure decides the grouping (`section_groups`, no LLM
call): one run of items per section, runs too small for a group merged with a neighbour,
runs too large split at the deepest summary dips. The trailing run of the section still
being read stays pending while the sections before it can be grouped on their own, and
the sweep waits for the section to close while they cannot (`swept_count`). A leading
run too small for a group (the tail of a section whose start is already in a block, or a
title section with nothing but subsections after it) moves up a level as it is
(`promoted_count`), where it can join the block that holds its section's start. Plain
text has no breaks, and everything here is a no-op.
"""

from __future__ import annotations

from collections.abc import Sequence

from chunker.embeddings import split_at_dips
from chunker.chunking.peel import run_structure
from chunker.state.store import RunStore

# The start of the document (and its end) is a break above every heading level.
DOCUMENT_LEVEL = 0


def start_levels(rs: RunStore, doc_id: str, items: Sequence[Sequence]) -> list[int | None] | None:
    """Per pending `[id, tokens]` item: the level of the heading its span starts at, 0 at the
    document's start, None inside a section; None for a run without structure."""
    structure = run_structure(rs, doc_id)
    if structure is None:
        return None
    levels = {h.start: h.level for h in structure.headings}
    levels.setdefault(0, DOCUMENT_LEVEL)
    return [levels.get(rs.get_node(nid).span[0]) for nid, _ in items]


def level_after(rs: RunStore, state: dict, level: int) -> int | None:
    """The break level right after a level's pending items: where the first pending item
    of a lower level starts (lower levels cover later text), else the cursor; 0 at the
    end of the document, None inside a section."""
    offset = state["cursor"]
    for lower in range(level - 1, -1, -1):
        if state["pending"][lower]:
            offset = rs.get_node(state["pending"][lower][0][0]).span[0]
            break
    structure = run_structure(rs, state["doc_id"])
    if structure is None or offset >= state["doc_chars"]:
        return DOCUMENT_LEVEL
    return next((h.level for h in structure.headings if h.start == offset), None)


def has_breaks(starts: Sequence[int | None]) -> bool:
    return any(level is not None for level in starts[1:])


def section_problem(groups: list[list[int]], starts: Sequence[int | None], after: int | None) -> str | None:
    """Why a grouping mixes sections (see the module's rule), or None."""
    bounds = list(starts) + [after]
    for group in groups:
        crossed = [starts[j] for j in group[1:] if starts[j] is not None]
        if not crossed:
            continue
        top = min(crossed)
        first, last = bounds[group[0]], bounds[group[-1] + 1]
        if first is None or first > top or last is None or last > top:
            j = next(j for j in group[1:] if starts[j] == top)
            return (f"group {group} spans the start of a section (item {j}) without holding "
                    "whole sections: start a new group there")
    return None


def swept_count(starts: Sequence[int | None], after: int | None, min_size: int, max_size: int,
                max_pending: int, finalizing: bool) -> int:
    """How many leading items a sweep groups (0: wait for the open section to close).

    All of them when their last section is closed (the next item starts at a heading of
    the same or a higher level, or the document ends), when there is no break among them,
    or at the end. Otherwise (the last section goes on, in its text or in a subsection)
    the items before its run, when they can be grouped keeping sections apart; else all
    of them once the level holds `max_pending` items (the count threshold: the state
    stays bounded); else none yet."""
    n = len(starts)
    last = max((j for j in range(1, n) if starts[j] is not None), default=0)
    own = starts[last]
    if finalizing or last == 0 or (after is not None and (own is None or after <= own)):
        return n
    prefix = starts[:last]
    prefix = prefix[promoted_count(prefix, min_size):]  # a small leading run moves up instead
    if len(prefix) >= min_size and section_problem(
            section_groups(prefix, [], min_size, max_size), prefix, starts[last]) is None:
        return last
    return n if n >= max_pending else 0


def promoted_count(starts: Sequence[int | None], min_size: int) -> int:
    """How many leading items move up a level ungrouped: the first section's run when it
    is too small for a group and the items after it can still be grouped."""
    n = len(starts)
    first = next((j for j in range(1, n) if starts[j] is not None), n)
    return first if first < min_size and n - first >= min_size else 0


def section_groups(starts: Sequence[int | None], dips: Sequence[float], min_size: int,
                   max_size: int, after: int | None = None) -> list[list[int]]:
    """Consecutive groups of items 0..n-1 that follow the section breaks: whole sections
    packed together up to `max_size` items where the rule allows (`after`: the break level
    after the last item), a section too large for one group split at the deepest dips."""
    n = len(starts)
    cuts = [j for j in range(1, n) if starts[j] is not None]
    runs = [list(range(a, b)) for a, b in zip([0] + cuts, cuts + [n])]
    merged: list[list[int]] = []
    i = 0
    while i < len(runs):
        run = runs[i]
        if len(run) < min_size and (not merged or _merge_forward(runs, i, starts)) and i + 1 < len(runs):
            runs[i + 1] = run + runs[i + 1]  # a small section joins the one after it
        elif len(run) < min_size and merged:
            merged[-1] = merged[-1] + run  # ... or the one before it
        else:
            merged.append(run)
        i += 1
    bounds = list(starts) + [after]
    packed: list[list[int]] = []
    for run in merged:
        if packed and len(packed[-1]) + len(run) <= max_size and section_problem(
                [packed[-1] + run], bounds[:run[-1] + 1], bounds[run[-1] + 1]) is None:
            packed[-1] = packed[-1] + run  # sibling sections share a block
        else:
            packed.append(run)
    groups: list[list[int]] = []
    for run in packed:
        if len(run) <= max_size:
            groups.append(run)
            continue
        inner = list(dips[run[0]:run[-1]]) if len(dips) == n - 1 else [0.0] * (len(run) - 1)
        groups += [[run[k] for k in part] for part in split_at_dips(len(run), inner, min_size, max_size)]
    return groups


def _merge_forward(runs: list[list[int]], i: int, starts: Sequence[int | None]) -> bool:
    """A small run joins the next one when that starts at a heading no higher than its own
    (a subsection or a sibling), else the previous one."""
    if i + 1 >= len(runs):
        return False
    mine, nxt = starts[runs[i][0]], starts[runs[i + 1][0]]
    return mine is not None and nxt is not None and nxt >= mine

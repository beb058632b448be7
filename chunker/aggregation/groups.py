"""Contiguous groups of consecutive items: what makes a grouping valid, and where the
summaries suggest breaking. Shared by a document's sweeps (`nodes/grouping.py`,
`nodes/aggregate.py`) and a corpus's flat folders (`chunker/corpus/grouping.py`)."""

from __future__ import annotations

import math


def grouping_problem(groups: list[list[int]] | None, n: int, min_size: int) -> str | None:
    """Why a grouping breaks a hard constraint, or None when it is valid."""
    if not groups:
        return "no groups were given"
    flat = [i for group in groups for i in group]
    if len(set(flat)) != len(flat):
        return "an item appears in more than one group"
    missing = sorted(set(range(n)) - set(flat))
    if missing:
        return f"items {missing[:10]} are in no group"
    extra = sorted(set(flat) - set(range(n)))
    if extra:
        return f"items {extra[:10]} do not exist"
    if flat != list(range(n)):
        return "groups must list consecutive items in order"
    small = [g for g in groups if len(g) < min_size]
    if small:
        return f"every group needs at least {min_size} items"
    return None


def break_hints(dips: list[float], n: int, max_group_size: int) -> str:
    """The deepest dips between consecutive summaries, as suggested places to break."""
    wanted = max(1, math.ceil(n / max_group_size)) - 1 if n > max_group_size else 1
    best = sorted(sorted(range(len(dips)), key=lambda i: (-dips[i], i))[:wanted])
    best = [i for i in best if dips[i] > 0]
    if not best:
        return ""
    return ("\nConsecutive summaries differ most after item"
            f"{'s' if len(best) > 1 else ''} {', '.join(str(i) for i in best)}: good places to "
            "start a new group.")


def even_groups(ids: list, max_size: int, min_size: int) -> list[list]:
    """Consecutive groups of even sizes: as few as `max_size` allows, none under `min_size`
    (one group when there are too few items for two)."""
    n = len(ids)
    count = max(1, min(math.ceil(n / max_size), n // min_size))
    base, extra = divmod(n, count)
    groups, start = [], 0
    for i in range(count):
        size = base + (1 if i < extra else 0)
        groups.append(ids[start:start + size])
        start += size
    return groups

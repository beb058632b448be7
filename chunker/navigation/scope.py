"""Which nodes a path prefix keeps (`Tree.search(..., prefix=...)`), so a question about
one part of a corpus ('tutorial/security/', or one file) is searched there alone."""

from __future__ import annotations

from chunker.navigation.errors import NavigationError
from chunker.output.hierarchy import Hierarchy

SHOWN_TOP = 6
"""How many top folders (or root files) a bad prefix's message lists."""


def normalise_prefix(prefix: str | None) -> str | None:
    """The prefix as sources are written (POSIX, relative); None or blank: no limit."""
    if prefix is None:
        return None
    cleaned = prefix.strip().replace("\\", "/")
    while cleaned.startswith("./"):
        cleaned = cleaned[2:]
    cleaned = cleaned.lstrip("/")
    return cleaned or None


def nodes_under(hierarchy: Hierarchy, prefix: str) -> set[str]:
    """Ids of the nodes whose file starts with `prefix`, and of the folders every one of
    whose documents does (a folder with a file outside the prefix would lead out of it).

    Raises NavigationError, naming the tree's top folders, when no file matches."""
    order = hierarchy.in_order()
    kept = {n.id for n in order if n.source is not None and n.source.startswith(prefix)}
    if not kept:
        tops = top_entries(hierarchy) or ["(no file)"]
        raise NavigationError(f"no file of this tree starts with {prefix!r}; its top folders "
                              f"and files are {', '.join(tops)} (give a folder such as "
                              f"{tops[0]!r} or a file's path)")
    for node in reversed(order):  # pre-order reversed: every child before its parent
        if node.kind == "folder" and node.children and all(c in kept for c in node.children):
            kept.add(node.id)
    return kept


def top_entries(hierarchy: Hierarchy) -> list[str]:
    """The first path segment of every file, in reading order ('tutorial/', 'README.md')."""
    tops: list[str] = []
    for source in hierarchy.sources():
        head, slash, _ = source.partition("/")
        entry = head + slash
        if entry not in tops:
            tops.append(entry)
    return tops[:SHOWN_TOP] + (["..."] if len(tops) > SHOWN_TOP else [])

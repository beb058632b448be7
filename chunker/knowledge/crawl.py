"""A crawl of OUT's Markdown: every wiki-link and relative Markdown link outside code, and
those that resolve to no file of OUT (what the tests and `bench/knowledge.py` count).

A wiki-link resolves as Obsidian resolves it in a vault opened at OUT: a path from OUT's root,
or a file name that exists somewhere in OUT (with `.md` or as given).
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from urllib.parse import unquote

from chunker.knowledge.syntax import CodeMap, find_links

FRONT = re.compile(r"\A---\n.*?\n---\n", re.S)


def dangling_links(out: str | Path) -> tuple[int, list[tuple[str, str]]]:
    """(links seen, [(file, link) that resolve nowhere in OUT]) over OUT's Markdown files."""
    root = Path(out)
    files = [p for p in root.rglob("*.md") if ".chunker" not in p.relative_to(root).parts]
    rels = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
    stems = {r[:-3].casefold() for r in rels if r.endswith(".md")} | {r.casefold() for r in rels}
    names = {posixpath.basename(s) for s in stems}
    seen, dead = 0, []
    for path in files:
        rel = path.relative_to(root).as_posix()
        text = FRONT.sub("", path.read_text(encoding="utf-8"), count=1)
        for link in find_links(text, CodeMap(text)):
            if link.external or (link.kind == "markdown-link" and not link.target):
                continue
            seen += 1
            target = link.target.strip()
            if link.kind == "wiki-link":
                key = target.casefold()
                ok = key in stems or posixpath.basename(key) in names
            else:
                joined = posixpath.normpath(posixpath.join(posixpath.dirname(rel), unquote(target)))
                ok = joined in rels or joined + ".md" in rels
            if not ok:
                dead.append((rel, link.raw))
    return seen, dead

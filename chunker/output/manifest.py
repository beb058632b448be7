"""The manifest of what chunker wrote into OUT: relative path -> content hashes.

`--force` may replace a file only when the manifest lists it and its content is still
what chunker wrote (the user has not edited it). Anything else is the user's: it is
never deleted or overwritten. While a tree is being moved into place the manifest lists
both the old and the new hash of each path, so a crash mid-write leaves every file
either recognisably chunker's or untouched.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

MANIFEST = Path(".chunker") / "manifest.json"


def file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read(out: Path) -> dict[str, list[str]]:
    path = out / MANIFEST
    if not path.exists():
        return {}
    try:
        return {k: list(v) for k, v in json.loads(path.read_text(encoding="utf-8"))["files"].items()}
    except (OSError, ValueError, KeyError, TypeError):
        return {}  # an unreadable manifest vouches for nothing


def write(out: Path, files: dict[str, list[str]]) -> None:
    path = out / MANIFEST
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps({"files": dict(sorted(files.items()))}, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def owned_unchanged(out: Path, rel: str, files: dict[str, list[str]]) -> bool:
    """Whether OUT/rel is a file chunker wrote and nobody has changed since."""
    path = out / rel
    return path.is_file() and not path.is_symlink() and rel in files and file_hash(path) in files[rel]


def in_the_way(out: Path, rel: str, files: dict[str, list[str]]) -> bool:
    """A file (or anything) at OUT/rel that chunker may not replace."""
    path = out / rel
    return (path.exists() or path.is_symlink()) and not owned_unchanged(out, rel, files)


def record(out: Path, rel: str) -> None:
    """Add a file chunker just wrote outside the tree (a PDF's `source.md`) to the manifest."""
    files = read(out)
    files[rel] = [file_hash(out / rel)]
    write(out, files)


def is_tree_file(rel: str) -> bool:
    """Whether `rel` is one of the files a tree write replaces as a whole."""
    return rel in ("index.md", "hierarchy.json") or rel.startswith(("content/", "terms/", "media/"))


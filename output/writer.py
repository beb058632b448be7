"""Writing the tree into OUT atomically enough that an unfinished run never looks finished.

Everything is first written to `OUT/.chunker/staging/`. Then the old `hierarchy.json`
(the completion marker) is removed, `content/` and `index.md` are swapped in, and the
new `hierarchy.json` is renamed into place last. A kill at any point leaves either no
`hierarchy.json` (unfinished; `chunker resume` redoes this step) or the complete tree.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from chunker.output.hierarchy import Hierarchy
from chunker.output.markdown import render_index, render_node, sibling_map


class UnsafePath(RuntimeError):
    """A computed path would land outside the output directory."""


def _inside(base: Path, rel: str) -> Path:
    path = (base / rel).resolve()
    if path != base and base not in path.parents:
        raise UnsafePath(f"refusing to write {rel!r}: outside {base}")
    return path


def hierarchy_json(h: Hierarchy) -> str:
    return json.dumps(h.model_dump(mode="json"), ensure_ascii=False, indent=1) + "\n"


def write_tree(out_dir: str | Path, h: Hierarchy, title: str) -> Path:
    out = Path(out_dir).resolve()
    staging = out / ".chunker" / "staging"
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    nodes = h.by_id()
    siblings = sibling_map(h)
    for node in h.nodes:
        path = _inside(staging, node.filename)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render_node(node, h, nodes, siblings), encoding="utf-8")
    _inside(staging, "index.md").write_text(render_index(h, nodes, title), encoding="utf-8")
    _inside(staging, "hierarchy.json").write_text(hierarchy_json(h), encoding="utf-8")
    _fsync_tree(staging)

    marker = out / "hierarchy.json"
    if marker.exists():
        marker.unlink()
    if (out / "content").exists():
        shutil.rmtree(out / "content")
    os.replace(staging / "content", out / "content")
    os.replace(staging / "index.md", out / "index.md")
    os.replace(staging / "hierarchy.json", marker)
    _fsync_dir(out)
    shutil.rmtree(staging, ignore_errors=True)
    return marker


def _fsync_tree(root: Path) -> None:
    for dirpath, _, files in os.walk(root):
        for name in files:
            fd = os.open(os.path.join(dirpath, name), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        _fsync_dir(Path(dirpath))


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)

"""Writing the tree into OUT so that an unfinished run never looks finished and no file
chunker did not write is ever touched.

Everything is first written to `OUT/.chunker/staging/`. Every target path is checked
against the manifest (`output/manifest.py`): a file there that chunker did not write,
or that was changed since, stops the write with `OutputConflict` naming it. The
manifest is then widened to the new files' hashes, the old `hierarchy.json` (the
completion marker) is removed, chunker's stale files are removed, the new files are
moved in (content, index), `hierarchy.json` last, and the manifest is narrowed to the
new tree. A kill at any point leaves either no `hierarchy.json` (unfinished; `chunker
resume` redoes this step) or the complete tree.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from chunker.output import manifest
from chunker.output.hierarchy import Hierarchy
from chunker.output.markdown import render_index, render_node, sibling_map

MARKER = "hierarchy.json"


class UnsafePath(RuntimeError):
    """A computed path would land outside the output directory."""


class OutputConflict(RuntimeError):
    """A file that chunker did not write (or that was edited) is where the tree goes."""


def _inside(base: Path, rel: str) -> Path:
    path = (base / rel).resolve()
    if path != base and base not in path.parents:
        raise UnsafePath(f"refusing to write {rel!r}: outside {base}")
    return path


def hierarchy_json(h: Hierarchy) -> str:
    return json.dumps(h.model_dump(mode="json"), ensure_ascii=False, indent=1) + "\n"


def foreign_stems(out_dir: str | Path) -> dict[str, set[str]]:
    """Stems of files under OUT/content that are not chunker's: slugs must avoid them."""
    out = Path(out_dir).resolve()
    files = manifest.read(out)
    taken: dict[str, set[str]] = {}
    content = out / "content"
    if content.is_dir():
        for path in content.rglob("*"):
            rel = path.relative_to(out).as_posix()
            if path.suffix == ".md" and manifest.in_the_way(out, rel, files):
                taken.setdefault(path.parent.relative_to(out).as_posix(), set()).add(path.stem)
    return taken


def write_tree(out_dir: str | Path, h: Hierarchy, title: str) -> Path:
    out = Path(out_dir).resolve()
    staging = out / ".chunker" / "staging"
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    nodes = h.by_id()
    siblings = sibling_map(h)
    targets: list[str] = []
    for node in h.nodes:
        _inside(staging, node.filename).parent.mkdir(parents=True, exist_ok=True)
        _inside(staging, node.filename).write_text(render_node(node, h, nodes, siblings), encoding="utf-8")
        targets.append(node.filename)
    _inside(staging, "index.md").write_text(render_index(h, nodes, title), encoding="utf-8")
    _inside(staging, MARKER).write_text(hierarchy_json(h), encoding="utf-8")
    targets += ["index.md", MARKER]  # the marker last
    _fsync_tree(staging)

    files = manifest.read(out)
    for rel in targets:
        _inside(out, rel)
        if manifest.in_the_way(out, rel, files):
            raise OutputConflict(f"{out / rel} was not written by chunker (or was edited since); "
                                 f"move it away, then `chunker resume {out}`")
    new = {rel: manifest.file_hash(staging / rel) for rel in targets}
    widened = {rel: sorted(set(files.get(rel, [])) | ({new[rel]} if rel in new else set()))
               for rel in set(files) | set(new)}
    manifest.write(out, widened)

    if manifest.owned_unchanged(out, MARKER, widened):
        (out / MARKER).unlink()
    old_tree = {rel for rel in files if manifest.is_tree_file(rel)}
    for rel in sorted(old_tree - set(new)):  # the old tree's files that the new one drops
        if manifest.owned_unchanged(out, rel, files):
            (out / rel).unlink()
    for rel in targets:
        dest = _inside(out, rel)
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.replace(staging / rel, dest)
    _prune_empty_dirs(out / "content")
    _fsync_dir(out)
    kept = {rel: hashes for rel, hashes in files.items() if not manifest.is_tree_file(rel)}
    manifest.write(out, {**kept, **{rel: [digest] for rel, digest in new.items()}})
    shutil.rmtree(staging, ignore_errors=True)
    return out / MARKER


def _prune_empty_dirs(root: Path) -> None:
    if not root.is_dir():
        return
    for dirpath, _, _ in sorted(os.walk(root), key=lambda w: -len(w[0])):
        path = Path(dirpath)
        if path != root and not any(path.iterdir()):
            path.rmdir()


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

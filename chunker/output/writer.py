"""Writing the tree into OUT so that readers always see a whole hierarchy.json, an
update rewrites only what changed, and no file chunker did not write is ever touched.

Everything is first written to `OUT/.chunker/staging/`. Every target path is checked
against the manifest (`output/manifest.py`): a file there that chunker did not write,
or that was changed since, stops the write with `OutputConflict` naming it. A target
that is chunker's, unedited, and already holds the staged bytes is left alone (same
bytes, same mtime), so `chunker update` touches only the nodes that changed. Then, in
this order:

1. the manifest is widened to the new files' hashes (before anything moves, so a crash
   leaves every file recognisably chunker's: old or new bytes are both listed);
2. new and changed content files are moved in (`os.replace` from staging);
3. `index.md`, then `hierarchy.json` (the completion marker), each with `os.replace`:
   the old `hierarchy.json` is never deleted first, so a reader sees either the old
   complete file or the new one, never none and never a mix;
4. the old tree's files that the new tree drops are removed, only those chunker wrote
   and nobody edited (a user's file is never deleted), then the level folders they
   leave empty;
5. the manifest is narrowed to the new tree.

A crash in 2-3 can leave some Markdown files new while `hierarchy.json` is still the
old one; a crash in 4-5 can leave stale files the manifest still lists. Running the
write again (`chunker resume` does) completes it: files already in place count as
unchanged, stale ones are still recognised as chunker's and removed.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from chunker.output import manifest
from chunker.output.hierarchy import Hierarchy
from chunker.knowledge.display import TERMS_DIR, Display, term_page
from chunker.knowledge.settings import KnowledgeSettings
from chunker.output.markdown import frontmatter, label, render_index, render_node, sibling_map
from chunker.output.tables_csv import table_csv
from chunker.structured.media import media_sources

MARKER = "hierarchy.json"
INDEX = "index.md"


class UnsafePath(RuntimeError):
    """A computed path would land outside the output directory."""


class OutputConflict(RuntimeError):
    """A file that chunker did not write (or that was edited) is where the tree goes."""


@dataclass(frozen=True)
class WriteResult:
    """What one `write_tree` did; paths relative to OUT, sorted."""

    marker: Path
    """OUT/hierarchy.json (what `write_tree` used to return)."""
    written: tuple[str, ...]
    """Files created or whose bytes changed (index.md and hierarchy.json when they did)."""
    unchanged: tuple[str, ...]
    """Files of the new tree that already held its bytes: not rewritten."""
    removed: tuple[str, ...]
    """The old tree's files that the new one drops, deleted by this call."""


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


def write_tree(out_dir: str | Path, h: Hierarchy, title: str,
               knowledge: KnowledgeSettings | None = None) -> WriteResult:
    """Write `h` into OUT in the order the module docstring gives; safe to call again
    after a crash (it completes the write) and on an unchanged tree (it touches nothing).
    `knowledge`: the run's knowledge section (the Terms lines and term pages it sizes; off, the
    bodies' links are left as they were), the defaults without one."""
    out = Path(out_dir).resolve()
    staging = out / ".chunker" / "staging"
    targets = _stage(staging, h, title, knowledge or KnowledgeSettings(), out)  # content files, then index.md, the marker last

    files = manifest.read(out)
    for rel in targets:
        _inside(out, rel)
        if manifest.in_the_way(out, rel, files):
            raise OutputConflict(f"{out / rel} was not written by chunker (or was edited since); "
                                 f"move it away, then `chunker resume {out}`")
    new = {rel: manifest.file_hash(staging / rel) for rel in targets}
    # not in the way and present means chunker's and unedited: same hash, same bytes
    unchanged = {rel for rel in targets
                 if (out / rel).is_file() and manifest.file_hash(out / rel) == new[rel]}
    changed = [rel for rel in targets if rel not in unchanged]
    widened = {rel: sorted(set(files.get(rel, [])) | ({new[rel]} if rel in new else set()))
               for rel in set(files) | set(new)}
    manifest.write(out, widened)

    touched: set[Path] = set()
    for rel in changed:
        if rel == MARKER:  # every other file is durable before the marker moves
            for folder in sorted(touched):
                _fsync_dir(folder)
        dest = _inside(out, rel)
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.replace(staging / rel, dest)
        touched.add(dest.parent)
    for folder in sorted(touched | {out}):
        _fsync_dir(folder)

    # a rerun after a crash below reads the widened manifest: it still lists these files
    dropped = sorted({rel for rel in files if manifest.is_tree_file(rel)} - set(new))
    removed = []
    for rel in dropped:
        if manifest.owned_unchanged(out, rel, files):
            (out / rel).unlink()
            removed.append(rel)
    _prune_empty_parents(out / "content", [out / rel for rel in dropped])
    _prune_empty_parents(out, [out / rel for rel in dropped if rel.startswith((f"{TERMS_DIR}/", "media/"))])
    kept = {rel: hashes for rel, hashes in files.items() if not manifest.is_tree_file(rel)}
    manifest.write(out, {**kept, **{rel: [digest] for rel, digest in new.items()}})
    shutil.rmtree(staging, ignore_errors=True)
    return WriteResult(marker=out / MARKER, written=tuple(sorted(changed)),
                       unchanged=tuple(sorted(unchanged)), removed=tuple(removed))


def _stage_media(staging: Path, h: Hierarchy, out: Path) -> list[str]:
    """The figures' images (`media/<name>`), copied from the run's cache (`OUT/.chunker/media/`,
    a corpus document's own); one already in OUT and nowhere cached (a tree written again
    later) is kept as it is."""
    wanted = sorted({f.media for f in h.figures if f.media})
    if not wanted:
        return []
    sources = media_sources(out)
    targets = []
    for rel in wanted:
        src = sources.get(Path(rel).name)
        if src is None and manifest.owned_unchanged(out, rel, manifest.read(out)):
            src = out / rel
        if src is None:
            continue
        dest = _inside(staging, rel)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)
        targets.append(rel)
    return targets


def _stage(staging: Path, h: Hierarchy, title: str, knowledge: KnowledgeSettings,
           out: Path | None = None) -> list[str]:
    """Render the whole tree into `staging` (durably); its paths, the marker last."""
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    nodes = h.by_id()
    siblings = sibling_map(h)
    display = Display(h, label, knowledge) if knowledge.enabled else None
    targets: list[str] = []
    for node in h.nodes:
        path = _inside(staging, node.filename)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render_node(node, h, nodes, siblings, display), encoding="utf-8")
        targets.append(node.filename)
    for table in h.tables:  # each table also as CSV, beside its (first) node's file
        if table.csv:
            _inside(staging, table.csv).write_text(table_csv(table), encoding="utf-8", newline="")
            targets.append(table.csv)
    targets += _stage_media(staging, h, out) if out is not None else []
    for term in h.terms if display else ():
        rel = f"{TERMS_DIR}/{term.id}.md"
        path = _inside(staging, rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(term_page(term, nodes, label, frontmatter, knowledge), encoding="utf-8")
        targets.append(rel)
    _inside(staging, INDEX).write_text(render_index(h, nodes, title), encoding="utf-8")
    _inside(staging, MARKER).write_text(hierarchy_json(h), encoding="utf-8")
    _fsync_tree(staging)
    return [*targets, INDEX, MARKER]


def _prune_empty_parents(root: Path, gone: list[Path]) -> None:
    """Remove the folders under `root` that dropped files leave empty, deepest first.
    Only their folders: an empty folder a user made elsewhere in content/ stays."""
    folders: set[Path] = set()
    for path in gone:
        folders.update(p for p in path.parents if root in p.parents)
    for folder in sorted(folders, key=lambda p: -len(p.parts)):
        if folder.is_dir() and not folder.is_symlink() and not any(folder.iterdir()):
            folder.rmdir()


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

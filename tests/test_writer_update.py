"""Re-writing a finished tree (what `chunker update` does): files that keep their bytes
are not touched, hierarchy.json is replaced in one step and never missing, dropped files
go only when they are chunker's and unedited, and a crash mid-write is completed by
writing again. Small hand-built trees, real files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from chunker.output import manifest
from chunker.output.hierarchy import Hierarchy, RunMeta, TreeNode
from chunker.output.slugs import SlugAllocator
from chunker.output.writer import MARKER, OutputConflict, WriteResult, write_tree

ROOT_ID = "L1-00000"
ROOT_FILE = "content/L1/doc.md"
PAST = 1_000_000_000  # seconds: old files' mtime, so that any rewrite shows


def _leaf(stem: str, start: int, rewritten: str | None, folder: str) -> TreeNode:
    original = f"Passage {stem}.\n"
    return TreeNode(id=f"L0-{stem}", level=0, kind="leaf", source="doc.md", parent=ROOT_ID,
                    span=(start, start + len(original)), original=original,
                    rewritten=rewritten or f"The {stem} passage, self-sufficient.",
                    summary=f"About {stem}.", slug=stem, filename=f"content/{folder}/{stem}.md",
                    token_count=2)


def tree(*stems: str, rewritten: dict[str, str] | None = None,
         folders: dict[str, str] | None = None) -> Hierarchy:
    """A document (content/L1/doc.md) over one leaf per stem (content/L0/<stem>.md, or
    the folder `folders` names), in order; `rewritten` overrides a leaf's body text."""
    leaves, pos = [], 0
    for stem in stems:
        leaves.append(_leaf(stem, pos, (rewritten or {}).get(stem), (folders or {}).get(stem, "L0")))
        pos = leaves[-1].span[1]
    root = TreeNode(id=ROOT_ID, level=1, kind="document", source="doc.md", parent=None,
                    children=[n.id for n in leaves], span=(0, pos), rewritten="The whole document.",
                    summary="A short document.", slug="doc", filename=ROOT_FILE, token_count=9)
    meta = RunMeta(tool_version="test", model="scripted", doc_id="doc", source="doc.md",
                   source_chars=pos, config={}, stats={})
    return Hierarchy(root=ROOT_ID, nodes=[root, *leaves], meta=meta)


def tree_files(out: Path) -> dict[str, bytes]:
    """Every file under OUT but chunker's own metadata folder."""
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and ".chunker" not in p.relative_to(out).parts}


def age(out: Path) -> dict[str, tuple[int, int]]:
    """Set every tree file's mtime into the past; their (mtime_ns, inode) afterwards."""
    stamps = {}
    for rel in tree_files(out):
        os.utime(out / rel, (PAST, PAST))
        st = (out / rel).stat()
        stamps[rel] = (st.st_mtime_ns, st.st_ino)
    return stamps


def stamp(out: Path, rel: str) -> tuple[int, int]:
    st = (out / rel).stat()
    return st.st_mtime_ns, st.st_ino


def fresh(tmp_path: Path, h: Hierarchy) -> dict[str, bytes]:
    """The files of `h` written into an empty folder: what an update must end with."""
    out = tmp_path / "fresh"
    write_tree(out, h, "Doc")
    return tree_files(out)


def test_writing_the_same_tree_twice_touches_nothing(tmp_path):
    out, h = tmp_path / "out", tree("a", "b", "c")
    first = write_tree(out, h, "Doc")
    everything = tuple(sorted(tree_files(out)))
    assert isinstance(first, WriteResult) and first.marker == out.resolve() / MARKER
    assert first.written == everything and first.unchanged == () and first.removed == ()
    before, stamps = tree_files(out), age(out)

    second = write_tree(out, h, "Doc")

    assert second.written == () and second.removed == () and second.unchanged == everything
    assert tree_files(out) == before
    assert {rel: stamp(out, rel) for rel in before} == stamps
    assert not (out / ".chunker" / "staging").exists()


def test_an_update_writes_the_changed_and_added_files_and_removes_the_dropped_one(tmp_path):
    out = tmp_path / "out"
    write_tree(out, tree("a", "b", "c", "d", folders={"d": "L0b"}), "Doc")
    before, stamps = tree_files(out), age(out)
    new = tree("a", "b", "c", "e", rewritten={"b": "B, said differently."})

    result = write_tree(out, new, "Doc")

    # b's text changed and e is new; c's Next link, the document's Contents and index.md's
    # Sections name e instead of d; a (Up: doc, Next: b, whose summary is unchanged) is as it was
    assert result.written == ("content/L0/b.md", "content/L0/c.md", "content/L0/e.md",
                              ROOT_FILE, MARKER, "index.md")
    assert result.unchanged == ("content/L0/a.md",)
    assert result.removed == ("content/L0b/d.md",)
    after = tree_files(out)
    assert after == fresh(tmp_path, new)  # exactly the new tree, nothing stale
    assert not (out / "content" / "L0b").exists()  # the level folder d leaves empty is pruned
    assert set(result.written) == {rel for rel in after if before.get(rel) != after[rel]}
    assert stamp(out, "content/L0/a.md") == stamps["content/L0/a.md"]
    assert all(stamp(out, rel) != stamps[rel] for rel in result.written if rel in stamps)
    listed = manifest.read(out.resolve())  # narrowed: the new tree, one hash per file
    assert listed == {rel: [manifest.file_hash(out / rel)] for rel in after}


def test_a_users_own_files_in_content_are_never_removed(tmp_path):
    out = tmp_path / "out"
    write_tree(out, tree("a", "b", "c", "d"), "Doc")
    (out / "content" / "L0" / "notes.md").write_text("my own notes\n", encoding="utf-8")
    (out / "content" / "mine").mkdir()  # a user's empty folder
    edited = out / "content" / "L0" / "d.md"
    edited.write_text(edited.read_text(encoding="utf-8") + "\nmy remark\n", encoding="utf-8")
    kept = edited.read_bytes()

    result = write_tree(out, tree("a", "c"), "Doc")  # drops b and d

    assert result.removed == ("content/L0/b.md",)  # d was edited: it is the user's now
    assert edited.read_bytes() == kept
    assert (out / "content" / "L0" / "notes.md").read_text(encoding="utf-8") == "my own notes\n"
    assert (out / "content" / "mine").is_dir()
    assert "content/L0/d.md" not in manifest.read(out.resolve())
    write_tree(out, tree("a", "c"), "Doc")  # and a later write leaves them alone too
    assert edited.read_bytes() == kept and (out / "content" / "L0" / "notes.md").exists()


def test_a_users_file_where_a_new_node_goes_stops_the_write_untouched(tmp_path):
    out = tmp_path / "out"
    write_tree(out, tree("a", "b"), "Doc")
    old = tree_files(out)
    (out / "content" / "L0" / "e.md").write_text("mine\n", encoding="utf-8")

    with pytest.raises(OutputConflict, match="e.md"):
        write_tree(out, tree("a", "b", "e", rewritten={"a": "changed"}), "Doc")

    assert (out / "content" / "L0" / "e.md").read_text(encoding="utf-8") == "mine\n"
    assert tree_files(out) == {**old, "content/L0/e.md": b"mine\n"}  # nothing else moved


class Crash(OSError):
    pass


def test_a_crash_mid_write_keeps_the_old_hierarchy_json_and_a_rewrite_completes_it(
        tmp_path, monkeypatch):
    out = tmp_path / "out"
    old_tree = tree("a", "b", "c", "d")
    write_tree(out, old_tree, "Doc")
    old_marker = (out / MARKER).read_bytes()
    new = tree("a", "b", "c", rewritten={"a": "A, anew.", "b": "B, anew."})
    real_replace, moved = os.replace, []

    def crashing_replace(src, dst):
        assert (out / MARKER).is_file()  # at every step, the old marker (or the new) is there
        if Path(dst).name != "manifest.json":
            if moved:
                raise Crash("killed")
            moved.append(Path(dst).relative_to(out.resolve()).as_posix())
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", crashing_replace)
    with pytest.raises(Crash):
        write_tree(out, new, "Doc")
    monkeypatch.undo()

    assert moved == [ROOT_FILE]  # the first changed content file (the nodes' order)
    assert (out / MARKER).read_bytes() == old_marker  # still the old one, whole
    assert Hierarchy.model_validate_json(old_marker) == old_tree
    assert (out / "content" / "L0" / "d.md").exists()  # nothing removed before the marker moved

    result = write_tree(out, new, "Doc")  # what `chunker resume` does

    assert ROOT_FILE in result.unchanged  # moved in before the crash
    assert "content/L0/b.md" in result.written and MARKER in result.written
    assert result.removed == ("content/L0/d.md",)
    assert tree_files(out) == fresh(tmp_path, new)
    assert Hierarchy.model_validate_json((out / MARKER).read_bytes()) == new


def test_content_then_index_then_marker_then_removals_with_the_manifest_widened_first(
        tmp_path, monkeypatch):
    out = tmp_path / "out"
    write_tree(out, tree("a", "b", "c"), "Doc")
    root = out.resolve()
    real_replace, real_unlink, events = os.replace, os.unlink, []

    def replace(src, dst):
        rel = Path(dst).relative_to(root).as_posix()
        if Path(dst).name != "manifest.json":
            assert manifest.file_hash(Path(src)) in manifest.read(root)[rel]  # widened first
            assert (root / MARKER).is_file()
            events.append(("move", rel))
        real_replace(src, dst)

    def unlink(path, *args, **kwargs):
        if root in Path(path).parents and ".chunker" not in Path(path).parts:
            events.append(("remove", Path(path).relative_to(root).as_posix()))
        real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(os, "unlink", unlink)
    write_tree(out, tree("a", "d", rewritten={"a": "A, anew."}), "Doc")
    monkeypatch.undo()

    moves = [rel for kind, rel in events if kind == "move"]
    assert events[-2:] == [("remove", "content/L0/b.md"), ("remove", "content/L0/c.md")]
    assert moves[-2:] == ["index.md", MARKER]
    assert set(moves[:-2]) == {"content/L0/a.md", "content/L0/d.md", ROOT_FILE}


def test_reserve_claims_a_free_stem_refuses_a_taken_one_and_allocate_avoids_it():
    alloc = SlugAllocator(60, taken={"content/L0": {"notes"}})
    assert alloc.reserve("content/L0", "intro") is True
    assert alloc.reserve("content/L0", "intro") is False  # already claimed
    assert alloc.reserve("content/L0", "notes") is False  # a user's file
    assert alloc.reserve("content/L1", "intro") is True  # per folder
    assert alloc.allocate("content/L0", "intro") == "intro-2"
    assert alloc.allocate("content/L0", "notes") == "notes-2"
    assert alloc.used["content/L0"] == {"notes", "intro", "intro-2", "notes-2"}

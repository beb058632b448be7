"""A folder of many loose documents is grouped by the model; an update that adds or removes
one of them keeps the old groups (`grouping.patch_groups`), so the documents that did not
change keep their place and their files' names, and no grouping call is made."""

from __future__ import annotations

import shutil

from chunker.corpus.grouping import patch_groups
from chunker.output.hierarchy import Hierarchy
from conftest import DATA, invoke

FASTAPI = DATA / "folders" / "fastapi-docs" / "tutorial"


def test_patch_groups_keeps_old_members_in_place():
    old_ids = ["a", "b", "c", "d", "e", "f"]
    old = [[0, 1], [2, 3], [4, 5]]
    # one added after b, one removed (e): b's group grows, e's group keeps f
    assert patch_groups(old_ids, old, ["a", "b", "x", "c", "d", "f"], 2, 3) == [[0, 1, 2], [3, 4], [5]] or \
        patch_groups(old_ids, old, ["a", "b", "x", "c", "d", "f"], 2, 3) == [[0, 1, 2], [3, 4, 5]]
    # a group left with one member joins the group before it
    assert patch_groups(old_ids, old, ["a", "b", "c", "d", "f"], 2, 3) == [[0, 1], [2, 3, 4]]
    # nothing left of the old items: no patch
    assert patch_groups(old_ids, old, ["x", "y"], 2, 3) is None
    # new items growing a group past max and its old size: a group of their own when they are
    # enough for one at its end, else the group stays whole; old members never move
    assert patch_groups(old_ids, old, ["a", "b", "n1", "n2", "c", "d", "e", "f"], 2, 3) == [
        [0, 1], [2, 3], [4, 5], [6, 7]]
    assert patch_groups(old_ids, old, ["a", "n1", "n2", "b", "c", "d", "e", "f"], 2, 3) == [
        [0, 1, 2, 3], [4, 5], [6, 7]]
    # every group keeps at least min_size members
    for new in (["b", "c"], ["a", "f"], ["f", "x", "a"]):
        groups = patch_groups(old_ids, old, new, 2, 3)
        assert sum(len(g) for g in groups) == len(new)
        assert all(len(g) >= 2 for g in groups) or len(groups) == 1


def test_a_file_added_to_a_grouped_folder_moves_no_other_file(tmp_path):
    src, out = tmp_path / "docs", tmp_path / "out"
    (src / "tutorial").mkdir(parents=True)
    names = sorted(p.name for p in FASTAPI.glob("*.md"))[:8]
    for name in names[:7]:  # 8 with the added one: name prefixes split no folder this small
        shutil.copyfile(FASTAPI / name, src / "tutorial" / name)
    (src / "README.md").write_text("# Docs\n\nThe tutorial.\n", encoding="utf-8")
    args = ("--model", "scripted", "--embeddings", "lexical", "--max-group-size", "3", "--quiet")
    invoke("run", src, "-o", out, *args, check=0)
    before = Hierarchy.model_validate_json((out / "hierarchy.json").read_bytes())
    assert before.meta.stats.get("signals.llm_groups", 0) >= 2  # the folder was grouped by the model
    added = "tutorial/zz-appendix.md"  # a name no other file shares a prefix with: the plan is the same
    shutil.copyfile(FASTAPI / names[7], src / added)

    invoke("update", out, "--quiet", check=0)
    after = Hierarchy.model_validate_json((out / "hierarchy.json").read_bytes())
    # the old groups were patched, not asked again (the added file's own sweeps may group)
    assert after.meta.stats.get("update.groups.patched") == 1
    old = {n.id: n.filename for n in before.nodes if n.source}
    new = {n.id: n.filename for n in after.nodes}
    moved = [i for i in old if new.get(i) != old[i]]
    assert moved == []  # every node of an unchanged document keeps its file
    assert added in {n.source for n in after.nodes}

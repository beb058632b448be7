"""`chunker update OUT` on a corpus (issue 19): a file added, one deleted, one moved to another
folder and one edited, in one update. Nothing changed: no call, no file touched. A dry run lists
the changes and writes nothing. The update redoes only the edited and added files (the moved one
keeps its nodes' ids and costs no call), drops the deleted file's nodes and files but not the
user's, leaves unchanged documents' files byte for byte, stays lossless, and ends close to a fresh
run of the edited folder. A model change makes every document stale; a killed update resumes to
the tree an uninterrupted one writes."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from chunker.output.hierarchy import Hierarchy
from conftest import DATA, check_markdown_tree, invoke

FASTAPI = DATA / "folders" / "fastapi-docs"
COUNTER = "CHUNKER_SCRIPTED_COUNTER"
# corpus path -> file of the FastAPI docs; three folders of two or three files each
FILES = {"tutorial/cookie-params.md": "tutorial/cookie-params.md",
         "tutorial/header-params.md": "tutorial/header-params.md",
         "tutorial/query-params.md": "tutorial/query-params.md",
         "guide/body-updates.md": "tutorial/body-updates.md",
         "guide/static-files.md": "tutorial/static-files.md",
         "misc/history-design-future.md": "history-design-future.md",
         "misc/project-generation.md": "project-generation.md"}
ADDED, DELETED, EDITED = "misc/extra-data-types.md", "misc/project-generation.md", "tutorial/header-params.md"
MOVED = ("tutorial/query-params.md", "guide/query-params.md")
UNCHANGED = ["guide/body-updates.md", "guide/static-files.md", "misc/history-design-future.md",
             "tutorial/cookie-params.md"]
NOTE = "content/my-note.md"
CHUNK = re.compile(r"<chunk>\n(.*?)\n</chunk>", re.DOTALL)  # the passage a rewrite call is given


def build(root: Path) -> None:
    for rel, name in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(FASTAPI / name, root / rel)


def edit(root: Path) -> None:
    """The four kinds of change. The edited file gains a sentence in one section and loses one
    in another: two of its six passages change, the other four do not."""
    (root / MOVED[0]).rename(root / MOVED[1])
    (root / DELETED).unlink()
    shutil.copyfile(FASTAPI / "tutorial" / "extra-data-types.md", root / ADDED)
    text = (root / EDITED).read_text(encoding="utf-8")
    grown = "But a variable like `user-agent` is invalid in Python."
    dropped = "You can define those cases using a list in the type declaration.\n\n"
    assert grown in text and dropped in text
    text = text.replace(grown, grown + " A Python name cannot hold a hyphen, so the parameter is "
                        "spelled another way and the framework translates it.").replace(dropped, "")
    (root / EDITED).write_text(text, encoding="utf-8")


def files_state(out: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under OUT, .chunker included: its bytes and its mtime."""
    return {p.relative_to(out).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(out.rglob("*")) if p.is_file()}


def changed(before: dict, after: dict) -> list[str]:
    """The files added, removed or changed (bytes or mtime) between two `files_state`s."""
    return sorted(name for name in before.keys() | after.keys() if before.get(name) != after.get(name))


def calls_in(counter: Path) -> list[str]:
    return counter.read_text(encoding="utf-8").split() if counter.exists() else []


def tree(out: Path) -> Hierarchy:
    return Hierarchy.model_validate_json((out / "hierarchy.json").read_bytes())


def of(h: Hierarchy, source: str) -> dict[str, dict]:
    return {n.id: n.model_dump() for n in h.nodes if n.source == source}


def logged_calls(out: Path, after: int = 0) -> list[tuple[int, str, str]]:
    """The call log's (id, node, prompt) rows past `after`."""
    with sqlite3.connect(out / ".chunker" / "calls.sqlite") as con:
        return con.execute("SELECT id, node, prompt FROM calls WHERE id > ? ORDER BY id", (after,)).fetchall()


def assert_lossless_per_file(h: Hierarchy, root: Path) -> None:
    for rel in h.sources():
        leaves = h.leaves(rel)
        assert "".join(leaf.original for leaf in leaves) == (root / rel).read_text(encoding="utf-8"), rel
        assert [leaf.span[0] for leaf in leaves] == [0] + [leaf.span[1] for leaf in leaves[:-1]], rel


@dataclass
class Story:
    src: Path
    out: Path
    old: Hierarchy
    new: Hierarchy
    fresh_calls: int
    calls_before_update: int
    noop: subprocess.CompletedProcess
    noop_calls: int
    before_noop: dict
    after_noop: dict
    before_dry: dict
    after_dry: dict
    dry: dict
    update_calls: int
    before_update: dict
    after_update: dict


@pytest.fixture(scope="module")
def story(tmp_path_factory) -> Story:
    """A corpus built, updated with no change, changed, dry-run, then updated: each step's
    output and OUT's files before and after it."""
    base = tmp_path_factory.mktemp("update-corpus")
    src, out = base / "docs", base / "out"
    build(src)
    invoke("run", src, "-o", out, "--model", "scripted", "--embeddings", "lexical", "--quiet",
           env={COUNTER: str(base / "run.calls")}, check=0)
    old = tree(out)
    before_noop = files_state(out)
    noop = invoke("update", out, env={COUNTER: str(base / "noop.calls")}, check=0)
    after_noop = files_state(out)
    note = out / NOTE  # the user's own note, linking a passage of the file that will be deleted
    deleted_leaf = old.leaves(DELETED)[0]
    note.write_text(f"My note on [[{deleted_leaf.filename[:-3]}]].\n", encoding="utf-8")
    edit(src)
    before_dry = files_state(out)
    dry = invoke("update", out, "--dry-run", "--json", env={COUNTER: str(base / "dry.calls")}, check=0)
    after_dry = files_state(out)
    calls_before = logged_calls(out)[-1][0]
    invoke("update", out, "--quiet", env={COUNTER: str(base / "update.calls")}, check=0)
    return Story(src=src, out=out, old=old, new=tree(out), fresh_calls=len(calls_in(base / "run.calls")),
                 calls_before_update=calls_before, noop=noop, noop_calls=len(calls_in(base / "noop.calls")),
                 before_noop=before_noop, after_noop=after_noop, before_dry=before_dry, after_dry=after_dry,
                 dry=json.loads(dry.stdout), update_calls=len(calls_in(base / "update.calls")),
                 before_update=before_dry, after_update=files_state(out))


def test_an_unchanged_corpus_is_up_to_date_without_a_call_or_a_write(story):
    assert "is up to date" in story.noop.stdout and "nothing to do" in story.noop.stdout
    assert story.noop_calls == 0
    assert changed(story.before_noop, story.after_noop) == []  # bytes, mtimes, .chunker included


def test_a_dry_run_lists_exactly_the_changes_and_writes_nothing(story):
    dry = story.dry
    assert dry["added"] == [ADDED] and dry["deleted"] == [DELETED] and dry["edited"] == [EDITED]
    assert dry["moved"] == [{"from": MOVED[0], "to": MOVED[1]}]
    assert dry["unchanged"] == len(UNCHANGED) and dry["stale"] == {}
    plan = dry["documents"]
    assert list(plan) == [EDITED] and plan[EDITED]["mode"] == "patch"
    assert len(plan[EDITED]["leaves_stale"]) == 2 and plan[EDITED]["leaves"] == len(story.old.leaves(EDITED))
    assert changed(story.before_dry, story.after_dry) == []


def test_the_moved_file_keeps_its_nodes_and_costs_no_call(story):
    before, after = of(story.old, MOVED[0]), of(story.new, MOVED[1])
    assert set(after) == set(before) and not of(story.new, MOVED[0])
    old_doc, new_doc = (next(n for n in t.values() if n["kind"] == "document") for t in (before, after))
    old_dir, new_dir = old_doc["filename"][:-3], new_doc["filename"][:-3]
    assert old_dir.endswith("/tutorial/query-params") and new_dir.endswith("/guide/query-params")
    for nid, node in after.items():
        was = before[nid]
        assert {k: v for k, v in node.items() if k not in ("source", "filename", "parent")} == \
            {k: v for k, v in was.items() if k not in ("source", "filename", "parent")}, nid
        if node["kind"] != "document":  # its files follow it to its new folder, under the same names
            assert node["filename"] == new_dir + was["filename"][len(old_dir):]
            assert (story.out / node["filename"]).is_file()
            assert not (story.out / was["filename"]).exists()
    # no call but the folders' syntheses read its text; the run's calls did (the check can see it)
    marks = [n["original"][40:100] for n in after.values() if n["original"] and len(n["original"]) > 120]
    assert marks
    fresh = [p for i, _, p in logged_calls(story.out) if i <= story.calls_before_update]
    assert all(any(m in p for p in fresh) for m in marks)
    update = [p for _, node, p in logged_calls(story.out, story.calls_before_update)
              if node != "synthesize_folder"]
    assert update and not any(m in p for m in marks for p in update)


def test_the_deleted_file_goes_and_the_users_note_stays(story):
    gone = [n.filename for n in story.old.nodes if n.source == DELETED]
    manifest = json.loads((story.out / ".chunker" / "manifest.json").read_text(encoding="utf-8"))["files"]
    assert gone and not of(story.new, DELETED)
    for name in gone:
        assert not (story.out / name).exists() and name not in manifest
    assert not (story.out / gone[0][:-3]).exists()  # its folder, left empty, is pruned
    assert story.after_update[NOTE] == story.before_update[NOTE]  # bytes and mtime
    assert NOTE not in manifest
    assert set(manifest) == ({n.filename for n in story.new.nodes} | {"index.md", "hierarchy.json"}
                             | {f"terms/{t.id}.md" for t in story.new.terms})  # the term pages
    check_markdown_tree(story.out, users=(NOTE,))


def test_the_added_file_is_built(story):
    added = of(story.new, ADDED)
    assert sum(1 for n in added.values() if not n["children"]) >= 2
    keys = {nid.split(".")[0] for nid in added}
    assert len(keys) == 1 and keys.isdisjoint(n.id.split(".")[0] for n in story.old.nodes)
    assert all((story.out / n["filename"]).is_file() for n in added.values())


def test_the_edited_file_keeps_its_unchanged_passages(story):
    stale = set(story.dry["documents"][EDITED]["leaves_stale"])
    old, new = story.old.leaves(EDITED), {n.id: n for n in story.new.leaves(EDITED)}
    kept = [leaf for leaf in old if leaf.id.split(".", 1)[1] not in stale]
    assert len(kept) == len(old) - 2
    first_stale = min(i for i, leaf in enumerate(old) if leaf.id.split(".", 1)[1] in stale)
    for leaf in kept:
        now = new[leaf.id]  # same id, text, rewrite, summary and file
        assert (now.original, now.rewritten, now.summary, now.filename) == \
            (leaf.original, leaf.rewritten, leaf.summary, leaf.filename)
    for leaf in old[:first_stale - 1]:  # neither it nor its neighbours changed: not even rewritten
        assert story.after_update[leaf.filename] == story.before_update[leaf.filename], leaf.id
    # the update rewrote only the edited passages and the added file's: no kept passage again
    kept_ids = {leaf.id for leaf in kept}
    redone = [leaf.original for leaf in story.new.leaves(EDITED) if leaf.id not in kept_ids]
    chunks = [m for _, node, p in logged_calls(story.out, story.calls_before_update)
              if node == "rewrite_chunk" for m in CHUNK.findall(p)]
    assert sorted(c.strip() for c in chunks) == \
        sorted(t.strip() for t in redone + [leaf.original for leaf in story.new.leaves(ADDED)])


def test_unchanged_documents_inner_files_are_untouched(story):
    for rel in UNCHANGED:
        inner, was = ([n.filename for n in h.nodes if n.source == rel and n.kind != "document"]
                      for h in (story.new, story.old))
        assert inner and inner == was
        for name in inner:
            after, before = story.after_update[name], story.before_update[name]
            if after[0] != before[0]:  # only its Terms / See also lines may follow the corpus's terms
                assert _without_knowledge(after[0]) == _without_knowledge(before[0]), name
                continue
            assert after == before, name  # bytes and mtime
        assert of(story.new, rel) == of(story.old, rel)


def _without_knowledge(page: bytes) -> list[bytes]:
    """A node file without the lines the knowledge passes write from the whole corpus (a term
    defined in a deleted file leaves a Terms line it was named on)."""
    return [line for line in page.splitlines() if not line.startswith((b"Terms: ", b"See also: "))]


def test_the_update_is_lossless_recorded_and_cheap(story):
    assert sorted(story.new.sources()) == sorted(p.relative_to(story.src).as_posix()
                                                 for p in story.src.rglob("*.md"))
    assert_lossless_per_file(story.new, story.src)
    record = story.new.meta.updates[-1]
    assert len(story.new.meta.updates) == 1
    assert record.reused["documents"] == len(UNCHANGED) + 1  # and the moved one
    assert record.redone["documents"] == 1 and record.added["documents"] == 1
    assert record.removed["documents"] == 1
    assert record.removed["leaves"] == len(story.old.leaves(DELETED))
    assert record.added["leaves"] >= len(story.new.leaves(ADDED))
    old_leaves = len(story.old.leaves())
    assert record.reused["leaves"] == old_leaves - len(story.old.leaves(DELETED)) - 2
    assert record.calls == story.update_calls == story.new.meta.stats["calls.total"]
    print(f"\nfresh run: {story.fresh_calls} calls; update: {story.update_calls}")
    assert 0 < story.update_calls * 3 <= story.fresh_calls


def test_the_update_is_close_to_a_fresh_run_of_the_edited_folder(story, tmp_path):
    fresh = tmp_path / "fresh"
    invoke("run", story.src, "-o", fresh, "--model", "scripted", "--embeddings", "lexical", "--quiet",
           check=0)
    h = tree(fresh)
    assert sorted(h.sources()) == sorted(story.new.sources())
    assert_lossless_per_file(h, story.src)
    cuts = [{(leaf.source, leaf.span[1]) for leaf in t.leaves()} for t in (h, story.new)]
    share = len(cuts[0] & cuts[1]) / len(cuts[0] | cuts[1])
    print(f"\nleaf boundaries in common with a fresh run: {share:.0%} of {len(cuts[0] | cuts[1])}")
    assert share > 0.8


def test_a_model_change_makes_every_document_stale_and_a_dry_run_writes_nothing(story, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(story.out, out)  # the shared tree stays as the other tests read it
    before = files_state(out)
    proc = invoke("update", out, "--model", "scripted:paraphrase=0.1", "--dry-run", "--json",
                  env={COUNTER: str(tmp_path / "calls")}, check=0)
    plan = json.loads(proc.stdout)
    assert sorted(plan["edited"]) == sorted(story.new.sources())
    assert plan["added"] == plan["deleted"] == plan["moved"] == [] and plan["unchanged"] == 0
    assert plan["stale"] and all(any("model" in r and "paraphrase" in r for r in reasons)
                                 for reasons in plan["stale"].values())
    assert set(plan["documents"]) == set(story.new.sources())
    assert all(p["mode"] == "fresh" for p in plan["documents"].values())
    assert not calls_in(tmp_path / "calls")
    assert changed(before, files_state(out)) == []


def test_after_an_update_a_dry_run_still_prices_a_new_file_at_a_runs_rate(story, tmp_path):
    """The dry run prices an added file at the tree's calls per character; after an update the
    tree's `calls.total` is that update's own few calls, which must not make a new file look
    nearly free."""
    out, src = tmp_path / "out", tmp_path / "docs"
    shutil.copytree(story.out, out)
    shutil.copytree(story.src, src)
    shutil.copyfile(src / ADDED, src / "misc" / "more-data-types.md")  # the added file's bytes again
    before = files_state(out)
    plan = json.loads(invoke("update", out, "--source", src, "--dry-run", "--json", check=0).stdout)
    assert plan["added"] == ["misc/more-data-types.md"] and not plan["edited"] and not plan["documents"]
    assert changed(before, files_state(out)) == []
    # what the same bytes cost when the update added them: one call per node (a rewrite per
    # passage, a synthesis per block), as the call log shows
    cost = len(of(story.new, ADDED))
    first = story.dry["expected_calls"] - story.dry["documents"][EDITED]["expected_calls"]
    print(f"\nnew file of {(src / ADDED).stat().st_size} bytes: estimated {first} calls before the update, "
          f"{plan['expected_calls']} after it; it cost {cost}")
    assert plan["expected_calls"] >= cost


def markdown(out: Path) -> dict[str, bytes]:
    """Every file of the tree but hierarchy.json (its timestamps differ) and .chunker."""
    return {name: data for name, (data, _) in files_state(out).items()
            if not name.startswith((".chunker/", "hierarchy.json"))}


def documents_done(out: Path, corpus_key: str) -> set[str]:
    with sqlite3.connect(out / ".chunker" / "store.sqlite") as con:
        return {k for (k,) in con.execute("SELECT key FROM store WHERE prefix = ?",
                                          (f"corpus.{corpus_key}.documents",))}


@pytest.mark.slow
def test_a_killed_update_resumes_to_the_uninterrupted_updates_tree(tmp_path):
    src, out, ref = tmp_path / "docs", tmp_path / "out", tmp_path / "ref"
    build(src)
    invoke("run", src, "-o", out, "--model", "scripted:delay_ms=60", "--embeddings", "lexical", "--quiet",
           check=0)
    shutil.copytree(out, ref)
    edit(src)
    invoke("update", ref, "--quiet", env={COUNTER: str(tmp_path / "ref.calls")}, check=0)
    ref_calls = calls_in(tmp_path / "ref.calls")
    # documents go in path order: the edited file is the last; kill in its second passage's call
    target = max(i for i, task in enumerate(ref_calls) if task == "RewriteWithSummary") + 1
    counter = tmp_path / "out.calls"
    proc = subprocess.Popen([sys.executable, "-m", "chunker.cli.app", "update", str(out), "--quiet"],
                            env={**os.environ, COUNTER: str(counter)})
    deadline = time.time() + 120
    while len(calls_in(counter)) < target and proc.poll() is None and time.time() < deadline:
        time.sleep(0.002)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    meta = json.loads((out / ".chunker" / "run.json").read_text(encoding="utf-8"))
    assert meta.get("update"), "the kill was meant to land inside the update"
    edited_key = next(d["key"] for d in meta["update"]["corpus"]["documents"] if d["rel"] == EDITED)
    done = documents_done(out, meta["update"]["corpus"]["corpus_key"])
    assert edited_key not in done and len(done) == len(FILES) - 1, "the kill was meant for the edited file"
    invoke("resume", out, "--quiet", env={COUNTER: str(counter)}, check=0)
    assert 0 <= len(calls_in(counter)) - len(ref_calls) <= 1  # at most the killed call again
    got, want = tree(out), tree(ref)
    assert [n.model_dump() for n in got.nodes] == [n.model_dump() for n in want.nodes]
    assert {k: v for k, v in got.meta.updates[-1].model_dump().items() if k != "at"} == \
        {k: v for k, v in want.meta.updates[-1].model_dump().items() if k != "at"}
    assert markdown(out) == markdown(ref)
    assert_lossless_per_file(got, src)


def test_a_renamed_file_titled_by_its_name_takes_its_new_name(tmp_path):
    """A file with no title of its own is named by its file name: renamed, it is copied (no
    call, same ids) and titled by its new name."""
    src, out = tmp_path / "notes", tmp_path / "out"
    src.mkdir()
    for name in ("alpha-notes.txt", "beta-notes.txt", "gamma-notes.txt"):
        (src / name).write_text(f"These are the {name[:-10]} notes. They hold a few plain sentences.\n",
                                encoding="utf-8")
    invoke("run", src, "-o", out, "--model", "scripted", "--embeddings", "lexical", "--quiet", check=0)
    before = Hierarchy.model_validate_json((out / "hierarchy.json").read_bytes())
    (src / "beta-notes.txt").rename(src / "delta-notes.txt")
    done = invoke("update", out, "--json", env={COUNTER: str(tmp_path / "calls.txt")}, check=0)
    after = Hierarchy.model_validate_json((out / "hierarchy.json").read_bytes())
    old = next(n for n in before.nodes if n.source == "beta-notes.txt" and n.kind == "document")
    new = next(n for n in after.nodes if n.source == "delta-notes.txt" and n.kind == "document")
    assert new.id == old.id and new.rewritten == old.rewritten
    assert "beta" in old.title.lower() and "delta" in new.title.lower()
    assert json.loads(done.stdout)["stats"].get("update.documents.moved") == 1

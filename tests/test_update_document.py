"""`chunker update OUT` on one document (issue 19), as a user runs it: a real run of a
30 KB slice of Emma, the source edited on disk, then `chunker update`.

What is checked: an unchanged source is a no-op (no call, no file touched); an edit redoes a
small share of the run's calls, keeps every passage outside it (id, file, rewrite and
summary) and leaves a lossless tree whose new ids are never an old passage's; a dry run
writes nothing and lists what is stale; settings redo what they shape and nothing else;
a moved source is followed with `--source`; a killed update resumes to the tree an
uninterrupted one gives.

The commands run in-process (typer's CliRunner: no interpreter start per command) except
the SIGKILL test, which needs a process to kill. The base tree is built once per module
and copied for each test; a test that edits the source points the update at its own copy
with `--source`.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from chunker.cli.app import app
from conftest import EMMA, assert_lossless, check_markdown_tree, leaves, tree_bytes

EMMA = EMMA.read_text(encoding="utf-8")
TEXT = EMMA[:EMMA.index("\n\n", 30_000) + 2]  # ~30 KB, ending at a paragraph
SETTINGS = ["--embeddings", "lexical", "--min-chunk-tokens", "120", "--max-chunk-tokens", "400"]
RUNNER = CliRunner()
# the calls that write a passage or choose its end; a rebuild must make none of them
LEAF_TASKS = {"Completeness", "CandidateBoundary", "Rewrite", "RewriteWithSummary", "Summary"}


# new prose for the edits: long enough (~1.3 KB, past min_chunk_tokens) to make passages of its own
ADDED = " ".join(
    f"The {what} was talked of at Hartfield for a whole {when}, and Mr. Woodhouse, who disliked "
    f"every change, could not be persuaded that the {what} had done anybody any good."
    for what, when in [("new road", "week"), ("ball at the Crown", "fortnight"), ("Coles' dinner", "month"),
                       ("piano from London", "winter"), ("visit to Box Hill", "summer"),
                       ("letter from Enscombe", "morning"), ("apple harvest", "season")])


def chunker(*args, counter: Path | None = None) -> Result:
    """`chunker ARGS` in-process; the scripted model appends one line per call to `counter`."""
    env = {"CHUNKER_SCRIPTED_COUNTER": str(counter) if counter else None}
    return RUNNER.invoke(app, [str(a) for a in args], env=env, catch_exceptions=False)


def calls(counter: Path) -> list[str]:
    """The task of every call the scripted model made (one line each, as it started)."""
    return counter.read_text(encoding="utf-8").split() if counter.exists() else []


def stamps(out: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under OUT, .chunker included: its bytes and mtime_ns."""
    return {p.relative_to(out).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(out.rglob("*")) if p.is_file()}


def without_run_json(files: dict[str, tuple[bytes, int]]) -> dict[str, tuple[bytes, int]]:
    return {rel: v for rel, v in files.items() if rel != ".chunker/run.json"}


def hierarchy(out: Path) -> dict:
    return json.loads((out / "hierarchy.json").read_text(encoding="utf-8"))


def blocks(tree: dict) -> list[dict]:
    return [n for n in tree["nodes"] if n["level"] > 0]


def shape(tree: dict) -> list[tuple]:
    """The tree's blocks as (level, span, children's spans): its grouping, whatever the ids."""
    spans = {n["id"]: tuple(n["span"]) for n in tree["nodes"]}
    return sorted((n["level"], spans[n["id"]], tuple(spans[c] for c in n["children"]))
                  for n in blocks(tree))


def paragraph_start(text: str, at: int) -> int:
    """The start of the first paragraph beginning at or after `at` (not a heading)."""
    pos = text.index("\n\n", at) + 2
    while text[pos] == "#":
        pos = text.index("\n\n", pos) + 2
    return pos


def paragraph(text: str, at: int, min_chars: int = 0) -> tuple[int, int]:
    """The first paragraph of `min_chars` or more (its blank line after it included)
    starting at or after `at`."""
    start = paragraph_start(text, at)
    end = text.index("\n\n", start) + 2
    return (start, end) if end - start >= min_chars else paragraph(text, end, min_chars)


def replace_word(text: str, at: int, new: str) -> tuple[str, tuple[int, int]]:
    """`text` with the word after the middle of the paragraph at `at` replaced by `new`;
    the replaced range in the old text."""
    start, end = paragraph(text, at)
    i = text.index(" ", (start + end) // 2) + 1
    j = text.index(" ", i)
    return text[:i] + new + text[j:], (i, j)


def overlaps(span: list[int], edits: list[tuple[int, int]]) -> bool:
    """Whether an old passage meets an edited old range (an insertion, i == j, meets both
    passages it falls between)."""
    return any(span[0] <= i <= span[1] if i == j else span[0] < j and span[1] > i for i, j in edits)


def check_update(old: dict, new: dict, new_text: str, edits: list[tuple[int, int]], out: Path,
                 regrounded: bool = False) -> dict:
    """What every document update keeps: a lossless tree whose files link up; each old
    passage outside the edited old ranges `edits` under its id, file, rewrite and summary
    (the one right after an edit may be rewritten again, `regrounded`, when the stats say
    so); an old id only on its own passage or on one that replaces an edited one; new ids
    past the old ones; meta.updates[-1]'s counts adding up. Returns that record."""
    assert_lossless(new, new_text)
    check_markdown_tree(out)
    old_leaves, new_by_id = leaves(old), {n["id"]: n for n in leaves(new)}
    after_edit = {o["id"] for k, o in enumerate(old_leaves[1:], 1)
                  if overlaps(old_leaves[k - 1]["span"], edits) and not overlaps(o["span"], edits)}
    outside = [o for o in old_leaves if not overlaps(o["span"], edits)]
    for o in outside:
        n = new_by_id.get(o["id"])
        assert n is not None, f"{o['id']} (outside the edit) is gone"
        assert (n["original"], n["filename"], n["slug"]) == (o["original"], o["filename"], o["slug"]), o["id"]
        assert (out / n["filename"]).is_file()
        if not (regrounded and o["id"] in after_edit):
            assert (n["rewritten"], n["summary"]) == (o["rewritten"], o["summary"]), o["id"]
    old_by_id = {o["id"]: o for o in old_leaves}
    top = max(int(o["id"].split("-")[1]) for o in old_leaves)
    for n in new_by_id.values():
        o = old_by_id.get(n["id"])
        if o is None:
            assert int(n["id"].split("-")[1]) > top, f"new leaf {n['id']} is not past the old ids"
        else:
            assert n["original"] == o["original"] or overlaps(o["span"], edits), \
                f"{n['id']} now names another passage"
    record = new["meta"]["updates"][-1]
    count = lambda kind, key: record[kind].get(key, 0)  # noqa: E731
    assert count("reused", "leaves") + count("redone", "leaves") + count("added", "leaves") == len(new_by_id)
    assert count("reused", "leaves") + count("redone", "leaves") + count("removed", "leaves") == len(old_leaves)
    assert count("reused", "leaves") >= len(outside) - len(after_edit)
    new_blocks, old_blocks = len(blocks(new)), len(blocks(old))
    assert count("reused", "blocks") + count("redone", "blocks") + count("added", "blocks") == new_blocks
    assert count("reused", "blocks") + count("redone", "blocks") + count("removed", "blocks") == old_blocks
    return record


@dataclass(frozen=True)
class Base:
    doc: Path
    out: Path
    calls: int
    """The run's LLM calls."""


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Base:
    root = tmp_path_factory.mktemp("base")
    doc, out, counter = root / "doc.md", root / "out", root / "calls.txt"
    doc.write_text(TEXT, encoding="utf-8")
    result = chunker("run", doc, "-o", out, "--model", "scripted", *SETTINGS, "-q", counter=counter)
    assert result.exit_code == 0, result.output
    assert len(leaves(hierarchy(out))) >= 20  # enough passages for "a small share" to mean something
    return Base(doc=doc, out=out, calls=len(calls(counter)))


def copy_of(base: Base, tmp_path: Path) -> tuple[Path, Path]:
    """The test's own OUT and source (a copy of the base's); the OUT's recorded source is
    still the base's, so an update of an edited copy passes `--source`."""
    out, doc = tmp_path / "out", tmp_path / "doc.md"
    shutil.copytree(base.out, out)
    doc.write_text(TEXT, encoding="utf-8")
    return doc, out


def small_run(tmp_path: Path) -> tuple[Path, Path]:
    """A run of its own (a 6 KB slice), for tests that move or delete its source."""
    doc, out = tmp_path / "a" / "doc.md", tmp_path / "out"
    doc.parent.mkdir()
    doc.write_text(EMMA[:EMMA.index("\n\n", 6000) + 2], encoding="utf-8")
    result = chunker("run", doc, "-o", out, "--model", "scripted", *SETTINGS, "-q")
    assert result.exit_code == 0, result.output
    return doc, out


def test_an_unchanged_source_is_a_no_op(base, tmp_path):
    _, out = copy_of(base, tmp_path)
    before, counter = stamps(out), tmp_path / "calls.txt"
    result = chunker("update", out, counter=counter)
    assert result.exit_code == 0, result.output
    assert "is up to date" in result.stdout and "nothing to do" in result.stdout
    assert calls(counter) == []
    assert stamps(out) == before


def test_a_paragraph_edited_in_the_middle_redoes_only_it(base, tmp_path):
    doc, out = copy_of(base, tmp_path)
    old = hierarchy(out)
    text, edit = replace_word(TEXT, len(TEXT) // 2, f"(an editor's new words) {ADDED}")
    doc.write_text(text, encoding="utf-8")
    counter = tmp_path / "calls.txt"
    result = chunker("update", out, "--source", doc, "--json", counter=counter)
    assert result.exit_code == 0, result.output
    stats = json.loads(result.stdout)["stats"]
    made = len(calls(counter))
    assert 0 < made < 0.25 * base.calls, (made, base.calls)
    new = hierarchy(out)
    record = check_update(old, new, text, [edit], out, regrounded=bool(stats.get("update.leaves.regrounded_redone")))
    assert record["calls"] == stats["calls.total"] == made
    assert record["source_sha256"] == hashlib.sha256(text.encode("utf-8")).hexdigest()
    edited = [o["id"] for o in leaves(old) if overlaps(o["span"], [edit])]
    assert len(edited) == 1
    assert record["redone"]["leaves"] >= 1 and record["redone"]["blocks"] >= 1
    assert record["reused"]["blocks"] > record["redone"]["blocks"]  # only the path to the root is redone
    assert record["reused"]["leaves"] >= len(leaves(old)) - 2
    assert stats["update.leaves.copied"] == record["reused"]["leaves"]
    # the edited passage keeps its id (links to it by id still work); the new words are in it
    # or in a passage of a new id
    assert edited[0] in {n["id"] for n in leaves(new)}
    holder = [n for n in leaves(new) if "an editor's new words" in n["original"]]
    assert len(holder) == 1 and holder[0]["id"] not in {o["id"] for o in leaves(old)} - set(edited)


def test_a_sentence_added_at_the_very_start(base, tmp_path):
    doc, out = copy_of(base, tmp_path)
    old = hierarchy(out)
    opening = "A note from the editor opens this copy of the novel.\n\n"
    text = opening + TEXT
    doc.write_text(text, encoding="utf-8")
    result = chunker("update", out, "--source", doc, "-q")
    assert result.exit_code == 0, result.output
    new = hierarchy(out)
    record = check_update(old, new, text, [(0, 0)], out, regrounded=True)
    first = leaves(new)[0]
    assert first["original"].startswith(opening)
    assert first["original"] not in {o["original"] for o in leaves(old)}  # not a copied passage
    assert record["reused"]["leaves"] >= len(leaves(old)) - 2
    assert record["redone"].get("leaves", 0) + record["added"].get("leaves", 0) >= 1


def test_a_paragraph_deleted_and_text_appended(base, tmp_path):
    doc, out = copy_of(base, tmp_path)
    old = hierarchy(out)
    gone = paragraph(TEXT, len(TEXT) // 3, min_chars=800)
    tail = f"\nA chapter the editor appended at the very end.\n\n{ADDED}\n\n{ADDED}\n"
    text = TEXT[:gone[0]] + TEXT[gone[1]:] + tail
    doc.write_text(text, encoding="utf-8")
    result = chunker("update", out, "--source", doc, "--json")
    assert result.exit_code == 0, result.output
    stats = json.loads(result.stdout)["stats"]
    new = hierarchy(out)
    record = check_update(old, new, text, [gone, (len(TEXT), len(TEXT))], out,
                          regrounded=bool(stats.get("update.leaves.regrounded_redone")))
    assert TEXT[gone[0]:gone[1]] not in "".join(n["original"] for n in leaves(new))
    assert record["redone"].get("leaves", 0) + record["added"].get("leaves", 0) >= 2  # both edits
    assert record["added"]["leaves"] >= 1  # the appended chapter is longer than a passage
    assert record["reused"]["leaves"] >= len(leaves(old)) - 4
    assert stats["update.leaves.reused"] == record["reused"]["leaves"]


def test_a_users_note_linking_an_unchanged_leaf_is_untouched(base, tmp_path):
    doc, out = copy_of(base, tmp_path)
    old = hierarchy(out)
    target = leaves(old)[3]
    note = out / "content" / "my-note.md"
    note.write_text(f"# My note\n\nSee [[{target['filename'][:-3]}]] for Miss Taylor.\n", encoding="utf-8")
    (out / "notes.txt").write_text("keep me", encoding="utf-8")
    mine = {rel: v for rel, v in stamps(out).items() if rel in ("content/my-note.md", "notes.txt")}
    text, edit = replace_word(TEXT, 2 * len(TEXT) // 3, "(the editor's words)")
    assert target["span"][1] < edit[0]
    doc.write_text(text, encoding="utf-8")
    result = chunker("update", out, "--source", doc, "-q")
    assert result.exit_code == 0, result.output
    assert {rel: v for rel, v in stamps(out).items() if rel in mine} == mine
    assert (out / target["filename"]).is_file()  # the note's link still resolves
    new = hierarchy(out)
    assert next(n for n in new["nodes"] if n["id"] == target["id"])["filename"] == target["filename"]
    check_markdown_tree(out, users=("content/my-note.md",))
    listed = json.loads((out / ".chunker" / "manifest.json").read_text(encoding="utf-8"))
    assert "content/my-note.md" not in json.dumps(listed)


def test_a_dry_run_writes_nothing_and_lists_what_is_stale(base, tmp_path):
    doc, out = copy_of(base, tmp_path)
    old = hierarchy(out)
    text, edit = replace_word(TEXT, len(TEXT) // 2, "(an editor's new words)")
    doc.write_text(text, encoding="utf-8")
    edited = [o["id"] for o in leaves(old) if overlaps(o["span"], [edit])]
    before, counter = stamps(out), tmp_path / "calls.txt"

    shown = chunker("update", out, "--source", doc, "--dry-run", counter=counter)
    assert shown.exit_code == 0, shown.output
    assert "nothing written" in shown.stdout
    assert all(nid in shown.stdout for nid in edited)
    plan = chunker("update", out, "--source", doc, "--dry-run", "--json", counter=counter)
    assert plan.exit_code == 0, plan.output
    data = json.loads(plan.stdout)
    assert data["mode"] == "patch" and data["stale"] == {}
    assert data["leaves_stale"] == edited
    assert 0 < len(data["blocks_stale"]) < len(blocks(old))
    assert (data["chars_removed"], data["chars_added"]) != (0, 0)
    assert 0 < data["expected_calls"] < base.calls

    # another model redoes every output; the text is unchanged (the base's own source)
    fresh = chunker("update", out, "--model", "scripted:paraphrase=0.1", "--dry-run", "--json", counter=counter)
    assert fresh.exit_code == 0, fresh.output
    data = json.loads(fresh.stdout)
    assert data["mode"] == "fresh"
    assert set(data["stale"]) == {"boundaries", "leaf_text", "blocks"}
    assert all(data["stale"].values())
    assert sorted(data["leaves_stale"]) == sorted(n["id"] for n in leaves(old))
    assert sorted(data["blocks_stale"]) == sorted(n["id"] for n in blocks(old))
    # nor does a dry run keep a setting that shapes nothing
    kept = chunker("update", out, "--set", "llm_max_attempts=6", "--dry-run", "--json", counter=counter)
    assert kept.exit_code == 0 and json.loads(kept.stdout)["mode"] == "unchanged"
    assert calls(counter) == []
    assert stamps(out) == before


def test_a_setting_that_shapes_nothing_redoes_nothing(base, tmp_path):
    _, out = copy_of(base, tmp_path)
    before, counter = stamps(out), tmp_path / "calls.txt"
    result = chunker("update", out, "--set", "llm_max_attempts=6", counter=counter)
    assert result.exit_code == 0, result.output
    assert "nothing to do" in result.stdout
    assert calls(counter) == []
    after = stamps(out)
    # run.json may keep the new value for later runs; nothing else in it, and no other file, changes
    assert without_run_json(after) == without_run_json(before)
    run_json = [json.loads(s[".chunker/run.json"][0]) for s in (before, after)]
    for meta in run_json:
        assert meta["config"].pop("llm_max_attempts") in (4, 6)
    assert run_json[0] == run_json[1]


FANOUT = ("--set", "fanout_min=2", "--set", "fanout_max=3")


def test_a_group_size_change_regroups_the_kept_leaves(base, tmp_path):
    # the section tree's fan-out (a Markdown document's blocks follow its headings: the model's
    # max_group_size no longer sizes them, issue 21)
    doc, out = copy_of(base, tmp_path)
    old = hierarchy(out)
    counter = tmp_path / "calls.txt"
    plan = json.loads(chunker("update", out, *FANOUT, "--dry-run", "--json").stdout)
    assert plan["mode"] == "rebuild" and list(plan["stale"]) == ["blocks"]
    result = chunker("update", out, *FANOUT, "--json", counter=counter)
    assert result.exit_code == 0, result.output
    stats = json.loads(result.stdout)["stats"]
    made = calls(counter)
    assert made and not LEAF_TASKS & set(made), sorted(set(made))
    assert "Synthesis" in made
    assert not any(k.startswith(("calls.rewrite", "calls.summar", "calls.completeness")) for k in stats)
    assert stats["calls.total"] == len(made)
    new = hierarchy(out)
    assert_lossless(new, TEXT)
    check_markdown_tree(out)
    assert [(n["id"], n["filename"], n["rewritten"], n["summary"]) for n in leaves(new)] == \
           [(n["id"], n["filename"], n["rewritten"], n["summary"]) for n in leaves(old)]
    record = new["meta"]["updates"][-1]
    assert record["reused"]["leaves"] == len(leaves(old))
    assert record["added"]["blocks"] == len(blocks(new)) and "blocks" not in record["reused"]
    assert record["removed"]["blocks"] == len(blocks(old))
    assert record["stale"] and list(record["stale"]) == ["blocks"]
    assert new["meta"]["config"]["fanout_max"] == 3
    # grouped as a fresh run with the new setting groups the same passages
    result = chunker("run", doc, "-o", tmp_path / "fresh", "--model", "scripted", *SETTINGS,
                     *FANOUT, "-q")
    assert result.exit_code == 0, result.output
    assert shape(new) == shape(hierarchy(tmp_path / "fresh")) != shape(old)
    # the new setting is the tree's now: a second update has nothing to do
    again = chunker("update", out, counter=tmp_path / "again.txt")
    assert "nothing to do" in again.stdout and calls(tmp_path / "again.txt") == []


def test_a_moved_source_is_followed_with_source(tmp_path):
    doc, out = small_run(tmp_path)
    moved = tmp_path / "b" / "moved.md"
    moved.parent.mkdir()
    doc.rename(moved)
    before, counter = stamps(out), tmp_path / "calls.txt"
    same = chunker("update", out, "--source", moved, counter=counter)
    assert same.exit_code == 0, same.output
    assert "nothing to do" in same.stdout
    assert calls(counter) == []
    # run.json may record the new place; the tree and the rest of .chunker are untouched
    assert without_run_json(stamps(out)) == without_run_json(before)

    old = hierarchy(out)
    text, edit = replace_word(moved.read_text(encoding="utf-8"), 3000, "(moved, then edited)")
    moved.write_text(text, encoding="utf-8")
    result = chunker("update", out, "--source", moved, "-q", counter=counter)
    assert result.exit_code == 0, result.output
    assert calls(counter)
    new = hierarchy(out)
    assert new["meta"]["source"] == str(moved.resolve())
    check_update(old, new, text, [edit], out, regrounded=True)
    # the new place is recorded: no --source needed any more
    again = chunker("update", out, counter=tmp_path / "again.txt")
    assert again.exit_code == 0 and "nothing to do" in again.stdout


def test_two_updates_in_a_row(base, tmp_path):
    doc, out = copy_of(base, tmp_path)
    first = hierarchy(out)
    text1, edit1 = replace_word(TEXT, len(TEXT) // 4, "(the first edit)")
    doc.write_text(text1, encoding="utf-8")
    assert chunker("update", out, "--source", doc, "-q").exit_code == 0
    second = hierarchy(out)
    check_update(first, second, text1, [edit1], out, regrounded=True)
    text2, edit2 = replace_word(text1, 3 * len(text1) // 4, "(the second edit, elsewhere)")
    doc.write_text(text2, encoding="utf-8")
    assert chunker("update", out).exit_code == 0  # the first update recorded doc as the source
    third = hierarchy(out)
    check_update(second, third, text2, [edit2], out, regrounded=True)
    updates = third["meta"]["updates"]
    assert len(updates) == 2
    assert updates[0] == second["meta"]["updates"][0]
    assert [u["source_sha256"] for u in updates] != [updates[0]["source_sha256"]] * 2
    run = json.loads((out / ".chunker" / "run.json").read_text(encoding="utf-8"))
    assert len(run["updates"]) == 2 and "update" not in run
    # what the first update wrote is an ordinary passage to the second: kept as it wrote it
    made = [n for n in leaves(second) if "(the first edit)" in n["original"]]
    assert len(made) == 1 and made[0] not in leaves(first)
    kept = next(n for n in leaves(third) if n["id"] == made[0]["id"])
    assert {k: v for k, v in kept.items() if k != "span"} == {k: v for k, v in made[0].items() if k != "span"}


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine", encoding="utf-8")
    for where in (empty, foreign, tmp_path / "absent"):
        result = chunker("update", where)
        assert result.exit_code == 2, (where, result.output)
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert "no chunker tree" in result.stderr
    assert (foreign / "notes.txt").read_text(encoding="utf-8") == "mine"
    assert list(empty.iterdir()) == []

    doc, out = small_run(tmp_path)
    doc.unlink()
    before = stamps(out)
    result = chunker("update", out)
    assert result.exit_code == 2, result.output
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "--source" in result.stderr and doc.name in result.stderr
    assert stamps(out) == before


# -- SIGKILL during an update ------------------------------------------------------------

DELAYED = "scripted:delay_ms=50"  # the model of the run and its updates (another would redo all)


def _process(*args, counter: Path, log: Path) -> subprocess.Popen:
    with open(log, "a", encoding="utf-8") as err:  # a file, not a pipe nobody reads while it runs
        return subprocess.Popen([sys.executable, "-m", "chunker.cli.app", *map(str, args)],
                                env={**os.environ, "CHUNKER_SCRIPTED_COUNTER": str(counter)},
                                stdout=subprocess.DEVNULL, stderr=err)


def _comparable(out: Path) -> dict[str, bytes | dict]:
    """The tree's files (tree_bytes) with hierarchy.json as JSON, less its timestamps: the
    run's finish and each update's `at` (the only values a resumed update may differ in)."""
    files: dict[str, bytes | dict] = dict(tree_bytes(out))
    tree = hierarchy(out)
    tree["meta"].pop("finished_at")
    for record in tree["meta"]["updates"]:
        record.pop("at")
    files["hierarchy.json"] = tree
    return files


@pytest.mark.slow
def test_a_killed_update_resumes_to_the_uninterrupted_tree(tmp_path):
    doc, counter = tmp_path / "doc.md", tmp_path / "run.txt"
    doc.write_text(TEXT, encoding="utf-8")
    assert chunker("run", doc, "-o", tmp_path / "built", "--model", DELAYED, *SETTINGS, "-q",
                   counter=counter).exit_code == 0
    ref, killed = tmp_path / "ref", tmp_path / "killed"
    shutil.copytree(tmp_path / "built", ref)
    shutil.copytree(tmp_path / "built", killed)
    text, _ = replace_word(TEXT, len(TEXT) // 2, "(an editor's new words, quite unexpected here)")
    text, _ = replace_word(text, len(text) // 5, "(and a second edit)")
    doc.write_text(text, encoding="utf-8")

    ref_counter = tmp_path / "ref.txt"
    log = tmp_path / "stderr.txt"
    proc = _process("update", ref, "-q", counter=ref_counter, log=log)
    assert proc.wait(timeout=300) == 0, log.read_text()
    ref_calls = len(calls(ref_counter))
    assert ref_calls >= 4  # room to land a kill inside the update's calls

    kill_counter = tmp_path / "killed.txt"
    proc = _process("update", killed, "-q", counter=kill_counter, log=log)
    run_json, deadline = killed / ".chunker" / "run.json", time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        if '"update"' in run_json.read_text(encoding="utf-8") and len(calls(kill_counter)) >= ref_calls // 2:
            break
        time.sleep(0.01)
    assert proc.poll() is None, "the update ended before the kill"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    meta = json.loads(run_json.read_text(encoding="utf-8"))
    assert meta.get("update", {}).get("status") == "running"  # killed mid-update
    assert not hierarchy(killed)["meta"].get("updates")  # the old tree is still whole and readable

    resumed = _process("resume", killed, "-q", counter=kill_counter, log=log)
    assert resumed.wait(timeout=300) == 0, log.read_text()
    assert _comparable(killed) == _comparable(ref)
    assert len(calls(kill_counter)) <= ref_calls + 1, (len(calls(kill_counter)), ref_calls)
    assert_lossless(hierarchy(killed), text)
    assert "update" not in json.loads(run_json.read_text(encoding="utf-8"))

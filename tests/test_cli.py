"""The CLI as a user runs it: real files, real SQLite. Commands run in-process (conftest.invoke:
no interpreter start per command) except where a process is the point: a whole run and its
`inspect` through `python -m chunker.cli.app`, a run that fails in one process and resumes in
another, and a second command refused while another process holds OUT."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CINDERELLA, check_markdown_tree, invoke, tree_bytes as tree_files

FAST = ["--min-chunk-tokens", "150", "--max-chunk-tokens", "500"]


def child(*args, env=None, check=None, cwd=None):
    """`chunker ARGS` in a child process."""
    full_env = {**os.environ, **(env or {})}
    proc = subprocess.run([sys.executable, "-m", "chunker.cli.app", *map(str, args)],
                          capture_output=True, text=True, env=full_env, timeout=300, cwd=cwd)
    if check is not None:
        assert proc.returncode == check, proc.stderr + proc.stdout
    return proc


def test_run_writes_a_linked_tree(tmp_path):
    out = tmp_path / "out"
    proc = child("run", CINDERELLA, "--model", "scripted", "-o", out, *FAST, "--json", check=0)
    stats = json.loads(proc.stdout)["stats"]
    assert stats["leaves"] >= 5
    check_markdown_tree(out)
    h = json.loads((out / "hierarchy.json").read_text())
    assert "".join(n["original"] for n in sorted((n for n in h["nodes"] if n["level"] == 0),
                                                  key=lambda n: n["span"][0])) == CINDERELLA.read_text()
    index = (out / "index.md").read_text()
    root = next(n for n in h["nodes"] if n["id"] == h["root"])
    assert root["summary"] in index
    insp = invoke("inspect", out, "--json", check=0)
    assert json.loads(insp.stdout)["status"] == "finished"
    calls = invoke("inspect", out, "--calls", "--limit", "100000", "--json", check=0)
    assert len(json.loads(calls.stdout)) == stats["calls.total"]


def test_refuses_existing_output_unless_forced(tmp_path):
    out = tmp_path / "out"
    invoke("run", CINDERELLA, "--model", "scripted", "-o", out, "--quiet", *FAST, check=0)
    again = invoke("run", CINDERELLA, "--model", "scripted", "-o", out, "--quiet", *FAST, check=2)
    assert "--force" in again.stderr
    before = tree_files(out)
    invoke("run", CINDERELLA, "--model", "scripted", "-o", out, "--quiet", "--force", *FAST, check=0)
    assert tree_files(out) == before  # chunker's own files were replaced by the same tree
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    proc = invoke("run", CINDERELLA, "--model", "scripted", "-o", foreign, "--quiet", *FAST, check=2)
    assert "not created by chunker" in proc.stderr
    invoke("run", CINDERELLA, "--model", "scripted", "-o", foreign, "--quiet", "--force", *FAST, check=0)
    assert (foreign / "notes.txt").read_text() == "keep me"


def test_force_never_deletes_or_overwrites_a_users_files(tmp_path):
    # defect 2: an Obsidian vault holds the user's own content/notes.md and index.md
    vault = tmp_path / "vault"
    (vault / "content").mkdir(parents=True)
    (vault / "content" / "notes.md").write_text("my notes")
    (vault / "index.md").write_text("my index")
    # in a child: a run refused here leaves OUT's lock held in its process (RunDir.prepare_new
    # raises without releasing it), which in this process would refuse the next run
    proc = child("run", CINDERELLA, "--model", "scripted", "-o", vault, "--quiet", "--force", *FAST, check=2)
    assert "index.md" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert (vault / "index.md").read_text() == "my index"
    assert (vault / "content" / "notes.md").read_text() == "my notes"
    assert not (vault / "hierarchy.json").exists()

    (vault / "index.md").rename(vault / "my-index.md")
    invoke("run", CINDERELLA, "--model", "scripted", "-o", vault, "--quiet", "--force", *FAST, check=0)
    assert (vault / "content" / "notes.md").read_text() == "my notes"
    assert (vault / "my-index.md").read_text() == "my index"
    check_markdown_tree(vault, users=("content/notes.md", "my-index.md"))

    # an edited tree file is the user's now: never touched
    h = json.loads((vault / "hierarchy.json").read_text())
    block = next(n for n in h["nodes"] if n["level"] > 0)
    (vault / block["filename"]).write_text("I edited this section")
    proc = invoke("run", CINDERELLA, "--model", "scripted", "-o", vault, "--quiet", "--force", *FAST, check=2)
    assert block["filename"] in proc.stderr
    assert (vault / block["filename"]).read_text() == "I edited this section"

    # a user's note exactly where a leaf's file would go: the leaf takes another name
    leaf = next(n for n in h["nodes"] if n["level"] == 0)
    other = tmp_path / "other"
    (other / leaf["filename"]).parent.mkdir(parents=True)
    (other / leaf["filename"]).write_text("a note of mine that happens to have a leaf's name")
    invoke("run", CINDERELLA, "--model", "scripted", "-o", other, "--quiet", "--force", *FAST, check=0)
    assert (other / leaf["filename"]).read_text() == "a note of mine that happens to have a leaf's name"
    h2 = json.loads((other / "hierarchy.json").read_text())
    assert leaf["filename"] not in {n["filename"] for n in h2["nodes"]}
    check_markdown_tree(other, users=(leaf["filename"],))


def test_failure_then_resume_equals_uninterrupted_run(tmp_path):
    ref = tmp_path / "ref"
    out = tmp_path / "out"
    counter = tmp_path / "calls.txt"
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("llm_max_attempts: 2\nllm_retry_initial_s: 0.01\n")
    invoke("run", CINDERELLA, "--model", "scripted", "-o", ref, "--quiet", "--force", "--config", cfg,
           *FAST, check=0)  # the reference with the same settings: its tree must match byte for byte
    env = {"CHUNKER_SCRIPTED_COUNTER": str(counter), "CHUNKER_SCRIPTED_FAIL_AT": "9-10"}
    failed = child("run", CINDERELLA, "--model", "scripted", "-o", out, "--quiet", "--config", cfg,
                   *FAST, env=env, check=1)  # fails in a process; resumed in another (this one)
    assert "chunker resume" in failed.stderr and len(failed.stderr.strip().splitlines()) == 1
    assert not (out / "hierarchy.json").exists()
    unfinished = invoke("run", CINDERELLA, "--model", "scripted", "-o", out, "--quiet", *FAST, check=2)
    assert "resume" in unfinished.stderr
    assert json.loads(invoke("inspect", out, "--json", check=0).stdout)["status"] == "unfinished"
    invoke("resume", out, "--quiet", env=env, check=0)
    assert tree_files(out) == tree_files(ref)
    # exactly one call (the failed one's node) was issued again
    total = json.loads((ref / "hierarchy.json").read_text())["meta"]["stats"]["calls.total"]
    assert len(counter.read_text().splitlines()) == total + 2  # the two failed attempts


def test_resume_works_from_any_directory_and_refuses_a_changed_source(tmp_path):
    # defect 5: the source path was stored as typed, so resuming from elsewhere failed
    work = tmp_path / "work"
    work.mkdir()
    (work / "tale.txt").write_text(CINDERELLA.read_text())
    counter = tmp_path / "calls.txt"
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("llm_max_attempts: 1\n")
    env = {"CHUNKER_SCRIPTED_COUNTER": str(counter), "CHUNKER_SCRIPTED_FAIL_AT": "5"}
    invoke("run", "tale.txt", "--model", "scripted", "-o", "out", "--quiet", "--config", cfg, *FAST,
           env=env, check=1, cwd=work)
    out = work / "out"
    meta = json.loads((out / ".chunker" / "run.json").read_text())
    assert meta["source"] == str(work / "tale.txt") and len(meta["source_sha256"]) == 64

    (work / "tale.txt").write_text(CINDERELLA.read_text() + "A new ending.\n")
    changed = invoke("resume", out, "--quiet", env=env, check=2, cwd="/")
    assert "changed" in changed.stderr and len(changed.stderr.strip().splitlines()) == 1
    moved = tmp_path / "elsewhere.txt"
    moved.write_text(CINDERELLA.read_text())
    (work / "tale.txt").unlink()
    wrong = invoke("resume", out, "--source", tmp_path / "nope.txt", "--quiet", env=env, check=2, cwd="/")
    assert "no such file" in wrong.stderr
    invoke("resume", out, "--source", moved, "--quiet", env=env, check=0, cwd="/")
    assert json.loads((out / ".chunker" / "run.json").read_text())["source"] == str(moved)
    assert json.loads(invoke("inspect", out, "--json", check=0).stdout)["status"] == "finished"


def test_second_process_on_same_output_is_refused(tmp_path):
    out = tmp_path / "out"
    first = subprocess.Popen([sys.executable, "-m", "chunker.cli.app", "run", str(CINDERELLA),
                              "--model", "scripted:delay_ms=1500", "-o", str(out), "--quiet"],
                             stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(100):
            if (out / ".chunker" / "run.json").exists():
                break
            import time
            time.sleep(0.1)
        second = invoke("run", CINDERELLA, "--model", "scripted", "-o", out, "--quiet", "--force", check=2)
        assert "another chunker process" in second.stderr
        resumed = invoke("resume", out, "--quiet", check=2)
        assert "another chunker process" in resumed.stderr
    finally:
        first.kill()
        first.wait()


@pytest.mark.parametrize("content,message", [
    (None, "no such file"),
    ("DIR", "no documents found"),  # a folder is a corpus: an empty one holds none
    (b"", "is empty"),
    (b"  \n\t\n", "only whitespace"),
    (b"abc\x00def", "binary"),
    (b"caf\xe9 au lait", "--encoding"),
    ("caf\u00e9".encode("utf-16"), "UTF-16"),
])
def test_bad_input_exits_2_and_writes_nothing(tmp_path, content, message):
    doc = tmp_path / "doc.txt"
    if content == "DIR":
        doc.mkdir()
    elif content is not None:
        doc.write_bytes(content)
    out = tmp_path / "out"
    proc = invoke("run", doc, "--model", "scripted", "-o", out, check=2)
    assert message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_size_limit_and_encoding_option(tmp_path):
    doc = tmp_path / "latin.txt"
    doc.write_bytes("Caf\u00e9 cr\u00e8me. Na\u00efve r\u00e9sum\u00e9.".encode("latin-1"))
    proc = invoke("run", doc, "--model", "scripted", "-o", tmp_path / "o1", "--max-bytes", "10", check=2)
    assert "over the limit" in proc.stderr
    invoke("run", doc, "--model", "scripted", "-o", tmp_path / "o2", "--encoding", "latin-1", "--quiet", check=0)
    h = json.loads((tmp_path / "o2" / "hierarchy.json").read_text())
    assert h["nodes"][0]["original"].startswith("Caf\u00e9")


def test_bad_settings_exit_2(tmp_path):
    proc = invoke("run", CINDERELLA, "--model", "scripted", "-o", tmp_path / "o",
                   "--min-chunk-tokens", "500", "--max-chunk-tokens", "100", check=2)
    assert "max_chunk_tokens" in proc.stderr
    assert not (tmp_path / "o").exists()


def test_resume_of_nothing_is_a_usage_error(tmp_path):
    assert invoke("resume", tmp_path / "nothing", check=2).returncode == 2


INJECTION = Path(__file__).resolve().parent / "fixtures" / "injection.txt"


@pytest.mark.parametrize("name,text", [
    ("crlf", "First line here.\r\nSecond line here.\r\n\r\nNew paragraph.\r\n" * 40),
    ("mixed", "Unix line.\nWindows line.\r\nOld Mac line.\rEnd.\n" * 60),
    ("nopunct", " ".join(["word"] * 3000)),
    ("longline", "x" * 50_000),
    ("unicode", ("Zero\u200bwidth joiner\u200d here. \u05e9\u05dc\u05d5\u05dd \u05e2\u05d5\u05dc\u05dd. "
                 "Emoji \U0001f600\U0001f469\u200d\U0001f469\u200d\U0001f467 and e\u0301 combining. ") * 80),
    ("tiny", "Short."),
    ("injection", INJECTION.read_text(encoding="utf-8") * 3),
])
def test_hard_inputs_succeed_losslessly(tmp_path, name, text):
    doc = tmp_path / f"{name}.txt"
    doc.write_bytes(text.encode("utf-8"))
    out = tmp_path / "out"
    invoke("run", doc, "--model", "scripted:paraphrase=0.3,invalid_json=0.1,bad_groups=0.3", "-o", out,
           "--min-chunk-tokens", "100", "--max-chunk-tokens", "300", "--quiet", check=0)
    h = json.loads((out / "hierarchy.json").read_text(encoding="utf-8"))
    leaves = sorted((n for n in h["nodes"] if n["level"] == 0), key=lambda n: n["span"][0])
    assert "".join(n["original"] for n in leaves) == text
    check_markdown_tree(out)
    if name == "longline":
        assert all(n["forced_split"] for n in leaves[:-1]) and len(leaves) > 10


def test_force_leaves_a_foreign_chunker_folder_alone(tmp_path):
    # a folder that is not a chunker run may still hold a `.chunker/` of someone else's
    out = tmp_path / "mine"
    (out / ".chunker").mkdir(parents=True)
    (out / ".chunker" / "my-settings.txt").write_text("keep me")
    invoke("run", CINDERELLA, "--model", "scripted", "-o", out, "--quiet", "--force", *FAST, check=0)
    assert (out / ".chunker" / "my-settings.txt").read_text() == "keep me"

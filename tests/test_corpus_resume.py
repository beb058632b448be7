"""A corpus run killed in the middle of its third file resumes to the very tree an
uninterrupted run writes; and over generated folders every file stays lossless. The killed run
is a child process; the other commands run in this process (conftest.invoke)."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from chunker.config.settings import ChunkerSettings
from chunker.corpus.discover import discover
from chunker.corpus.runner import corpus_record, execute_corpus
from chunker.runs.rundir import RunDir
from conftest import EMMA, invoke, tree_bytes

MODEL = "scripted:delay_ms=4"


def write_corpus(root: Path) -> None:
    emma = EMMA.read_text(encoding="utf-8")
    root.mkdir()
    (root / "a.md").write_text(emma[:3000], encoding="utf-8")
    (root / "b.txt").write_text(emma[3000:6000], encoding="utf-8")
    (root / "c.md").write_text(emma[6000:40000], encoding="utf-8")  # the long third file
    (root / "d").mkdir()
    (root / "d" / "e.md").write_text(emma[40000:44000], encoding="utf-8")
    (root / "d" / "f.md").write_text(emma[44000:47000], encoding="utf-8")


def cli(*args) -> list[str]:
    return [sys.executable, "-m", "chunker.cli.app", *map(str, args)]


def threads_started(out: Path) -> int:
    db = out / ".chunker" / "checkpoints.sqlite"
    if not db.exists():
        return 0
    try:
        return sqlite3.connect(db, timeout=0.05).execute(
            "SELECT COUNT(DISTINCT thread_id) FROM checkpoints").fetchone()[0]
    except sqlite3.OperationalError:  # locked or not created yet
        return 0


def done_so_far(out: Path) -> int:
    try:
        return documents_done(out)
    except sqlite3.OperationalError:  # not created yet, or busy
        return 0


def documents_done(out: Path) -> int:
    con = sqlite3.connect(out / ".chunker" / "store.sqlite")
    return con.execute("SELECT COUNT(*) FROM store WHERE prefix LIKE 'corpus.%.documents'").fetchone()[0]


@pytest.mark.slow
def test_sigkill_in_the_third_file_then_resume(tmp_path):
    root = tmp_path / "corpus"
    write_corpus(root)
    args = ["--model", MODEL, "--quiet", "--min-chunk-tokens", "120", "--max-chunk-tokens", "400"]
    invoke("run", root, "-o", tmp_path / "ref", *args, check=0)
    reference = tree_bytes(tmp_path / "ref")

    out = tmp_path / "out"
    proc = subprocess.Popen(cli("run", root, "-o", out, *args))
    deadline = time.time() + 120
    # two documents done (their threads dropped) and the third one's thread begun
    while not (done_so_far(out) >= 2 and threads_started(out) >= 1) and proc.poll() is None \
            and time.time() < deadline:
        time.sleep(0.01)
    time.sleep(1.0)  # well into the third file (it takes several seconds)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert documents_done(out) == 2, "the kill was meant to land inside the third file"
    assert RunDir(out).status() == "unfinished"
    shown = json.loads(invoke("inspect", out, "--json", check=0).stdout)
    assert (shown["documents"], shown["documents_done"], shown["status"]) == (5, 2, "unfinished")
    invoke("resume", out, "--quiet", check=0)
    assert tree_bytes(out) == reference


names = st.text(alphabet="abcdefgh xyz\u00e9\u65e5-_", min_size=1, max_size=8).map(str.strip).filter(
    lambda s: s and not s.startswith((".", "-")))
bodies = st.lists(st.sampled_from(["Hello there. ", "\r\n", "\n\n# Head\n\n", "caf\u00e9 ", "\u200b",
                                   "A long sentence that goes on for a while, and on. ", "| a | b |\n",
                                   "```\ncode\n```\n", "\U0001f600", "x" * 50]),
                  min_size=1, max_size=30).map("".join).filter(lambda t: t.strip())
folders = st.dictionaries(st.tuples(st.sampled_from(["", "one", "one/two", "three"]), names),
                          bodies, min_size=1, max_size=7)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files=folders, suffix=st.sampled_from([".md", ".txt"]))
def test_every_file_is_lossless_over_generated_folders(tmp_path_factory, files, suffix):
    base = tmp_path_factory.mktemp("gen")
    root = base / "src"
    written = {}
    for (folder, name), body in files.items():
        path = root / folder / f"{name}{suffix}"
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            continue
        path.write_bytes(body.encode("utf-8"))
        written[path.relative_to(root).as_posix()] = body
    run = RunDir(base / "out")
    ctx = ChunkerSettings(model="scripted", min_chunk_tokens=20, max_chunk_tokens=80)
    discovery = discover([root], out_dir=run.path)
    run.prepare_new(False)
    run.write_record(corpus_record(discovery, ctx, {"min_chunk_tokens": 20, "max_chunk_tokens": 80},
                                   paths=[root]))
    h = execute_corpus(run, ctx).hierarchy
    assert sorted(h.sources()) == sorted(written)
    for rel, body in written.items():
        leaves = h.leaves(rel)
        assert "".join(leaf.original for leaf in leaves) == body
        assert [leaf.span for leaf in leaves] == sorted(leaf.span for leaf in leaves)
    assert os.path.exists(run.path / "index.md")

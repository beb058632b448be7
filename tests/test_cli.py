"""The CLI as a user runs it: real subprocesses, real files, real SQLite."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CINDERELLA, check_markdown_tree

FAST = ["--min-chunk-tokens", "150", "--max-chunk-tokens", "500"]


def chunker(*args, env=None, check=None):
    full_env = {**os.environ, **(env or {})}
    proc = subprocess.run([sys.executable, "-m", "chunker.cli.app", *map(str, args)],
                          capture_output=True, text=True, env=full_env, timeout=300)
    if check is not None:
        assert proc.returncode == check, proc.stderr + proc.stdout
    return proc


def tree_files(out: Path) -> dict[str, bytes]:
    files = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*")
             if p.is_file() and ".chunker" not in p.parts}
    h = json.loads(files.pop("hierarchy.json"))
    h["meta"].pop("finished_at")
    files["hierarchy.json"] = json.dumps(h, sort_keys=True).encode()
    return files


def test_run_writes_a_linked_tree(tmp_path):
    out = tmp_path / "out"
    proc = chunker("run", CINDERELLA, "--model", "scripted", "-o", out, *FAST, "--json", check=0)
    stats = json.loads(proc.stdout)["stats"]
    assert stats["leaves"] >= 5
    check_markdown_tree(out)
    h = json.loads((out / "hierarchy.json").read_text())
    assert "".join(n["original"] for n in sorted((n for n in h["nodes"] if n["level"] == 0),
                                                  key=lambda n: n["span"][0])) == CINDERELLA.read_text()
    index = (out / "index.md").read_text()
    root = next(n for n in h["nodes"] if n["id"] == h["root"])
    assert root["summary"] in index
    insp = chunker("inspect", out, "--json", check=0)
    assert json.loads(insp.stdout)["status"] == "finished"
    calls = chunker("inspect", out, "--calls", "--limit", "100000", "--json", check=0)
    assert len(json.loads(calls.stdout)) == stats["calls.total"]


def test_refuses_existing_output_unless_forced(tmp_path):
    out = tmp_path / "out"
    chunker("run", CINDERELLA, "--model", "scripted", "-o", out, "--quiet", *FAST, check=0)
    again = chunker("run", CINDERELLA, "--model", "scripted", "-o", out, "--quiet", *FAST, check=2)
    assert "--force" in again.stderr
    chunker("run", CINDERELLA, "--model", "scripted", "-o", out, "--quiet", "--force", *FAST, check=0)
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    proc = chunker("run", CINDERELLA, "--model", "scripted", "-o", foreign, "--quiet", *FAST, check=2)
    assert "not created by chunker" in proc.stderr
    chunker("run", CINDERELLA, "--model", "scripted", "-o", foreign, "--quiet", "--force", *FAST, check=0)
    assert (foreign / "notes.txt").read_text() == "keep me"


def test_failure_then_resume_equals_uninterrupted_run(tmp_path):
    ref = tmp_path / "ref"
    chunker("run", CINDERELLA, "--model", "scripted", "-o", ref, "--quiet", *FAST, check=0)
    out = tmp_path / "out"
    counter = tmp_path / "calls.txt"
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("llm_max_attempts: 2\nllm_retry_initial_s: 0.01\n")
    env = {"CHUNKER_SCRIPTED_COUNTER": str(counter), "CHUNKER_SCRIPTED_FAIL_AT": "9-10"}
    failed = chunker("run", CINDERELLA, "--model", "scripted", "-o", out, "--quiet", "--config", cfg,
                     *FAST, env=env, check=1)
    assert "chunker resume" in failed.stderr and len(failed.stderr.strip().splitlines()) == 1
    assert not (out / "hierarchy.json").exists()
    unfinished = chunker("run", CINDERELLA, "--model", "scripted", "-o", out, "--quiet", *FAST, check=2)
    assert "resume" in unfinished.stderr
    assert json.loads(chunker("inspect", out, "--json", check=0).stdout)["status"] == "unfinished"
    chunker("resume", out, "--quiet", env=env, check=0)
    ref_files, out_files = tree_files(ref), tree_files(out)
    ref_h, out_h = json.loads(ref_files.pop("hierarchy.json")), json.loads(out_files.pop("hierarchy.json"))
    ref_h["meta"]["config"].pop("llm_max_attempts"), out_h["meta"]["config"].pop("llm_max_attempts")
    ref_h["meta"]["config"].pop("llm_retry_initial_s"), out_h["meta"]["config"].pop("llm_retry_initial_s")
    assert out_h == ref_h and out_files == ref_files
    # exactly one call (the failed one's node) was issued again
    total = ref_h["meta"]["stats"]["calls.total"]
    assert len(counter.read_text().splitlines()) == total + 2  # the two failed attempts


def test_second_process_on_same_output_is_refused(tmp_path):
    out = tmp_path / "out"
    first = subprocess.Popen([sys.executable, "-m", "chunker.cli.app", "run", str(CINDERELLA),
                              "--model", "scripted:delay_ms=200", "-o", str(out), "--quiet"],
                             stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(100):
            if (out / ".chunker" / "run.json").exists():
                break
            import time
            time.sleep(0.1)
        second = chunker("run", CINDERELLA, "--model", "scripted", "-o", out, "--quiet", "--force", check=2)
        assert "another chunker process" in second.stderr
        resumed = chunker("resume", out, "--quiet", check=2)
        assert "another chunker process" in resumed.stderr
    finally:
        first.kill()
        first.wait()


@pytest.mark.parametrize("content,message", [
    (None, "no such file"),
    ("DIR", "is a directory"),
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
    proc = chunker("run", doc, "--model", "scripted", "-o", out, check=2)
    assert message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_size_limit_and_encoding_option(tmp_path):
    doc = tmp_path / "latin.txt"
    doc.write_bytes("Caf\u00e9 cr\u00e8me. Na\u00efve r\u00e9sum\u00e9.".encode("latin-1"))
    proc = chunker("run", doc, "--model", "scripted", "-o", tmp_path / "o1", "--max-bytes", "10", check=2)
    assert "over the limit" in proc.stderr
    chunker("run", doc, "--model", "scripted", "-o", tmp_path / "o2", "--encoding", "latin-1", "--quiet", check=0)
    h = json.loads((tmp_path / "o2" / "hierarchy.json").read_text())
    assert h["nodes"][0]["original"].startswith("Caf\u00e9")


def test_bad_settings_exit_2(tmp_path):
    proc = chunker("run", CINDERELLA, "--model", "scripted", "-o", tmp_path / "o",
                   "--min-chunk-tokens", "500", "--max-chunk-tokens", "100", check=2)
    assert "max_chunk_tokens" in proc.stderr
    assert not (tmp_path / "o").exists()


def test_resume_of_nothing_is_a_usage_error(tmp_path):
    assert chunker("resume", tmp_path / "nothing", check=2).returncode == 2


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
    chunker("run", doc, "--model", "scripted:paraphrase=0.3,invalid_json=0.1,bad_groups=0.3", "-o", out,
            "--min-chunk-tokens", "100", "--max-chunk-tokens", "300", "--quiet", check=0)
    h = json.loads((out / "hierarchy.json").read_text(encoding="utf-8"))
    leaves = sorted((n for n in h["nodes"] if n["level"] == 0), key=lambda n: n["span"][0])
    assert "".join(n["original"] for n in leaves) == text
    check_markdown_tree(out)
    if name == "longline":
        assert all(n["forced_split"] for n in leaves[:-1]) and len(leaves) > 10

"""`--max-concurrency`: a corpus's documents run at once through a server that batches, the
calls in flight never exceed the cap, and the tree is the same at every concurrency.

The server is the OpenAI-compatible stub with a latency per call and slots (it serves the
scripted model's answers, so its tree is `--model scripted`'s); it counts the most calls it had
in flight, which is what the cap is about. Commands run in-process (conftest.invoke), except the
run that the server's failure stops while this test watches it: a child process.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time

import pytest

from chunker.config.settings import ChunkerSettings
from chunker.llm.registry import (SERVED_TASKS_PER_SLOT, SERVER_CONCURRENCY, default_concurrency,
                                  default_tasks_per_slot)
from chunker.testing.openai_stub import OpenAIStub
from conftest import CINDERELLA, RUST, invoke, tree_bytes


@pytest.fixture
def corpus(tmp_path):
    root = tmp_path / "docs"
    (root / "book").mkdir(parents=True)
    for name in ("rust-book-ch03-02-data-types.md", "rust-book-ch08-02-strings.md"):
        text = (RUST / name).read_text(encoding="utf-8")
        (root / "book" / name).write_text(text[:6000], encoding="utf-8")
    shutil.copy(CINDERELLA, root / "cinderella.txt")
    (root / "note.md").write_text("# A note\n\nShort, and one leaf.\n", encoding="utf-8")
    return root


@pytest.fixture
def config(tmp_path):
    """The settings `--model scripted` resolves, for the served model too (not the cap)."""
    flat = ChunkerSettings(model="scripted", embeddings="lexical").flat_dict()
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({k: v for k, v in flat.items() if k not in ("model", "max_concurrency")}),
                    encoding="utf-8")
    return path


def _run(stub, corpus, out, config, *extra):
    invoke("run", corpus, "-o", out, "--model", "openai:stub-model", "--config", config, "-q", *extra,
            env=stub.env(), check=0)


def test_documents_run_at_once_under_the_cap_and_the_tree_does_not_change(tmp_path, corpus, config):
    seen = {}
    for n in (1, 3):
        with OpenAIStub(latency_ms=60, slots=8, scripted=True) as stub:
            _run(stub, corpus, tmp_path / f"c{n}", config, "--max-concurrency", n)
            seen[n] = stub.stats()
    assert seen[1]["max_in_flight"] == 1  # one at a time, as asked
    assert 1 < seen[3]["max_in_flight"] <= 3  # documents at once, never over the cap
    assert seen[1]["served"] == seen[3]["served"]  # the same calls ...
    assert tree_bytes(tmp_path / "c1") == tree_bytes(tmp_path / "c3")  # ... and the same tree
    h = json.loads((tmp_path / "c3" / "hierarchy.json").read_text())
    assert "max_concurrency" not in h["meta"]["config"]  # how fast is no part of what


def test_a_server_backend_defaults_to_eight_calls_at_once(tmp_path, corpus, config):
    with OpenAIStub(latency_ms=60, slots=8, scripted=True) as stub:
        _run(stub, corpus, tmp_path / "out", config)
        assert stub.stats()["max_in_flight"] > 1
    assert default_concurrency("openai:anything") == SERVER_CONCURRENCY == 8


def test_each_backend_says_its_default(monkeypatch):
    monkeypatch.delenv("OLLAMA_NUM_PARALLEL", raising=False)
    assert default_concurrency("scripted") == default_concurrency("local") == 1  # in-process
    assert default_concurrency("llamacpp:/m.gguf") == 1
    assert default_concurrency("qwen3:8b") == default_concurrency("ollama:qwen3:8b") == 1
    monkeypatch.setenv("OLLAMA_NUM_PARALLEL", "4")
    assert default_concurrency("qwen3:8b") == 4
    monkeypatch.setenv("OLLAMA_NUM_PARALLEL", "lots")  # unreadable: the safe default
    assert default_concurrency("qwen3:8b") == 1
    assert ChunkerSettings(model="scripted", max_concurrency=3).llm.max_concurrency == 3
    # tasks read at once for each call slot: a served model's slot is kept busy by a second task
    assert default_tasks_per_slot("scripted") == default_tasks_per_slot("local") == 1
    assert default_tasks_per_slot("openai:m") == default_tasks_per_slot("qwen3:8b") == SERVED_TASKS_PER_SLOT == 2


def test_resume_takes_a_new_cap_and_finishes_to_the_same_tree(tmp_path, corpus, config):
    settings = json.loads(config.read_text())
    config.write_text(json.dumps({**settings, "llm_max_attempts": 1}), encoding="utf-8")
    with OpenAIStub(latency_ms=20, slots=8, scripted=True) as stub:
        _run(stub, corpus, tmp_path / "whole", config, "--max-concurrency", 2)
    with OpenAIStub(latency_ms=20, slots=8, scripted=True) as stub:
        proc = subprocess.Popen([sys.executable, "-m", "chunker.cli.app", "run", str(corpus), "-o",
                                 str(tmp_path / "cut"), "--model", "openai:stub-model", "--config", str(config),
                                 "-q", "--max-concurrency", "2"], env={**os.environ, **stub.env()},
                                stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 120
        while stub.stats()["served"] < 6 and proc.poll() is None and time.time() < deadline:
            time.sleep(0.01)
        stub.down = True  # the server fails every call from now on: the run stops, resumable
        assert proc.wait(timeout=120) == 1, proc.stderr.read()
        assert "chunker resume" in proc.stderr.read()
        stub.down = False
        invoke("resume", tmp_path / "cut", "--max-concurrency", 3, "-q", env=stub.env(), check=0)
        assert stub.stats()["max_in_flight"] <= 3
    meta = json.loads((tmp_path / "cut" / ".chunker" / "run.json").read_text())
    assert meta["config"]["max_concurrency"] == meta["settings"]["max_concurrency"] == 3
    assert tree_bytes(tmp_path / "cut") == tree_bytes(tmp_path / "whole")


@pytest.mark.parametrize("per_slot", [1, None])  # None: a served model's default, 2
def test_more_documents_than_slots_are_read_at_once_and_the_calls_stay_capped(
        tmp_path, corpus, config, monkeypatch, per_slot):
    """`tasks_per_slot`: documents read at once for each call slot. Between two calls a document
    does chunker's own work, and another's call keeps the slot busy; the calls in flight never
    pass `--max-concurrency`."""
    from chunker.corpus.discover import discover
    from chunker.corpus.runner import corpus_record, execute_corpus
    from chunker.runs.rundir import RunDir

    settings = json.loads(config.read_text())
    ctx = ChunkerSettings(**{**settings, "model": "openai:stub-model", "max_concurrency": 2,
                             "tasks_per_slot": per_slot})
    run = RunDir(tmp_path / "out")
    run.prepare_new(False)
    run.write_record(corpus_record(discover([corpus], out_dir=run.path), ctx, {}, paths=[corpus]))
    reading, most = set(), 0

    def on_event(event: dict) -> None:
        nonlocal most
        if event.get("event") == "document" and event.get("phase") in ("start", "done"):
            (reading.add if event["phase"] == "start" else reading.discard)(event["source"])
            most = max(most, len(reading))

    with OpenAIStub(latency_ms=60, slots=8, scripted=True) as stub:
        for key, value in stub.env().items():
            monkeypatch.setenv(key, value)
        execute_corpus(run, ctx, on_event=on_event)
        assert stub.stats()["max_in_flight"] <= 2
    assert most == (2 if per_slot == 1 else 4)  # 4 documents: all at once with 2 slots of 2 tasks

"""Candidates mode against Ollama (through the HTTP stub): the request carries the
candidate-number schema; and a run killed while the document is being embedded resumes
without embedding the finished batches again, into the same tree."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from chunker.config.settings import ChunkerSettings
from chunker.llm.invoke import call_llm
from chunker.testing.ollama_stub import OllamaStub
from conftest import CINDERELLA, tree_bytes


@pytest.fixture
def stub(monkeypatch):
    with OllamaStub(models=["qwen3:8b", "all-minilm:latest"]) as s:
        monkeypatch.setenv("OLLAMA_HOST", s.url)
        yield s


def test_the_candidates_request_carries_the_number_schema(stub):
    cfg = ChunkerSettings(model="ollama:qwen3:8b", embeddings="lexical")
    user = ("<window>\nA first topic ends here. [1] A second one begins.\n</window>\n"
            "<lookahead>\nMore of it.\n</lookahead>")
    result = call_llm(cfg.llm, node="check_completeness", task="completeness_candidates", user=user,
                      background="")
    request = stub.chat_requests()[-1]
    schema = request["format"]
    assert schema["title"] == "CandidateBoundary" and set(schema["required"]) == {"complete"}
    number = next(opt for opt in schema["properties"]["boundary"]["anyOf"] if opt.get("type") == "integer")
    assert number["minimum"] == 1 and number["maximum"] == 9
    assert request["options"]["temperature"] == 0 and "[1] A second one begins." in request["messages"][-1]["content"]
    assert result.parsed is not None and result.parsed.boundary == 1


def _cli(*args, env):
    return [sys.executable, "-m", "chunker.cli.app", *map(str, args)]


def test_a_kill_while_embedding_resumes_without_embedding_finished_batches(tmp_path, stub):
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("embed_batch_size: 8\nmin_chunk_tokens: 150\nmax_chunk_tokens: 500\n")
    args = ["--model", "scripted", "--embeddings", "ollama:all-minilm", "--config", cfg, "--quiet"]
    env = {**os.environ, "OLLAMA_HOST": stub.url}
    subprocess.run(_cli("run", CINDERELLA, "-o", tmp_path / "ref", *args, env=env), env=env, check=True)
    batches = len(stub.embed_requests())
    assert batches >= 8
    stub.requests.clear()
    stub.embed_delay_s = 0.4
    proc = subprocess.Popen(_cli("run", CINDERELLA, "-o", tmp_path / "out", *args, env=env), env=env)
    deadline = time.time() + 120
    while len(stub.embed_requests()) < 4 and proc.poll() is None and time.time() < deadline:
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = len(stub.embed_requests())
    assert 4 <= before < batches  # killed in the middle of embedding
    stub.embed_delay_s = 0.0
    subprocess.run(_cli("resume", tmp_path / "out", "--quiet", env=env), env=env, check=True)
    again = len(stub.embed_requests()) - before
    # only the batches not stored before the kill (plus the one in flight) are embedded again
    assert again <= batches - before + 2, (batches, before, again)
    assert tree_bytes(tmp_path / "out") == tree_bytes(tmp_path / "ref")

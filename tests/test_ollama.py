"""The Ollama path, checked against a local HTTP stub (no Ollama can run here)."""

import json
import os
import socket
import subprocess
import sys

import pytest

from chunker.config.context import ChunkerContext
from chunker.llm.invoke import call_llm
from chunker.llm.ollama import check_ollama
from chunker.llm.registry import ModelUnavailable
from chunker.llm.schemas import Completeness
from chunker.testing.ollama_stub import OllamaStub
from conftest import CINDERELLA, check_markdown_tree


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def stub(monkeypatch):
    with OllamaStub(models=["qwen3:8b"]) as s:
        monkeypatch.setenv("OLLAMA_HOST", s.url)
        yield s


def test_request_sent_to_ollama(stub):
    ctx = ChunkerContext(model="ollama:qwen3:8b", llm_timeout_s=5).resolve()
    result = call_llm(ctx, node="check_completeness", task="completeness",
                      user="<window>\nText.\n</window>", context_text="")
    assert result.parsed == Completeness(complete=True, boundary_phrase=None)
    req = stub.chat_requests()[-1]
    assert req["model"] == "qwen3:8b"
    assert req["format"] == Completeness.model_json_schema()
    assert req["options"]["num_ctx"] == ctx.context_window == 8192
    assert req["options"]["temperature"] == 0
    assert req["think"] is False
    assert result.stats["tokens.prompt"] == 11 and result.stats["tokens.completion"] == 7


def test_bare_name_means_ollama(stub):
    ctx = ChunkerContext(model="qwen3:8b").resolve()
    call_llm(ctx, node="n", task="completeness", user="x", context_text="")
    assert stub.chat_requests()[-1]["model"] == "qwen3:8b"


def test_invalid_json_is_repaired_then_falls_back(stub):
    stub.content = '{"complete": tru'
    ctx = ChunkerContext(model="ollama:qwen3:8b").resolve()
    result = call_llm(ctx, node="n", task="completeness", user="x", context_text="")
    assert result.parsed is None and result.stats["repairs"] == 1
    assert len(stub.chat_requests()) == 2


def test_unreachable_server_message(monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{free_port()}")
    with pytest.raises(ModelUnavailable) as err:
        check_ollama("ollama:qwen3:8b", timeout_s=2)
    msg = str(err.value)
    assert "OLLAMA_HOST" in msg and "ollama serve" in msg and "ollama pull qwen3:8b" in msg
    assert "\n" not in msg


def test_missing_model_message(stub):
    with pytest.raises(ModelUnavailable, match="ollama pull gemma4:latest"):
        check_ollama("gemma4:latest")


def _cli(*args, env):
    return subprocess.run([sys.executable, "-m", "chunker.cli.app", *map(str, args)],
                          capture_output=True, text=True, env={**os.environ, **env}, timeout=300)


def test_cli_refuses_before_work_when_server_is_down(tmp_path):
    out = tmp_path / "out"
    proc = _cli("run", CINDERELLA, "--model", "qwen3:8b", "-o", out,
                env={"OLLAMA_HOST": f"127.0.0.1:{free_port()}"})
    assert proc.returncode == 2
    line = proc.stderr.strip()
    assert len(line.splitlines()) == 1 and "OLLAMA_HOST" in line and "ollama pull qwen3:8b" in line
    assert not out.exists()


def test_cli_full_run_through_the_stub_with_server_errors_and_resume(tmp_path):
    with OllamaStub(models=["qwen3:8b"]) as stub:
        env = {"OLLAMA_HOST": stub.url}
        cfg = tmp_path / "cfg.yaml"
        cfg.write_text("llm_max_attempts: 3\nllm_retry_initial_s: 0.05\nmin_chunk_tokens: 300\n"
                       "max_chunk_tokens: 900\n")
        out = tmp_path / "out"
        stub.fail_next = 2  # transient: retried with backoff, the run goes on
        stub.drop_next = 0
        first = _cli("run", CINDERELLA, "--model", "qwen3:8b", "-o", out, "--config", cfg, "--quiet",
                     env=env)
        assert first.returncode == 0, first.stderr
        check_markdown_tree(out)
        statuses = len(stub.chat_requests())
        assert statuses > 10

        out2 = tmp_path / "out2"
        stub.down = True  # retries exhausted: exit 1, resumable
        failed = _cli("run", CINDERELLA, "--model", "qwen3:8b", "-o", out2, "--config", cfg, "--quiet",
                      env=env)
        assert failed.returncode == 1 and "chunker resume" in failed.stderr
        assert len(failed.stderr.strip().splitlines()) == 1
        stub.down = False  # the server is back
        resumed = _cli("resume", out2, "--quiet", env=env)
        assert resumed.returncode == 0, resumed.stderr
        a = json.loads((out / "hierarchy.json").read_text())
        b = json.loads((out2 / "hierarchy.json").read_text())
        assert [n["span"] for n in a["nodes"]] == [n["span"] for n in b["nodes"]]


def test_timeouts_are_retried_with_backoff(stub):
    from conftest import assert_lossless, run_text

    stub.stall_s, stub.stall_next = 2.0, 2  # the first two requests outlast the client timeout
    text = "A short document about timeouts. It has two sentences."
    out, _ = run_text(text, "ollama:qwen3:8b", attempts=3, llm_timeout_s=0.5)
    assert stub.stalled == 2 and len(stub.chat_requests()) >= 3
    assert_lossless(out["tree"], text)

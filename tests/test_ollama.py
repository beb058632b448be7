"""The Ollama path, checked against a local HTTP stub (no Ollama can run here)."""

import json

import pytest

from chunker.config.settings import ChunkerSettings
from chunker.state.run import RunContext
from chunker.llm.calllog import read_calls
from chunker.llm.invoke import call_llm
from chunker.llm.ollama import check_ollama
from chunker.llm.errors import ModelUnavailable
from chunker.llm.schemas import Completeness
from chunker.testing.ollama_stub import OllamaStub, prompt_words
from conftest import CINDERELLA, check_markdown_tree, free_port, invoke


@pytest.fixture
def stub(serve):
    return serve(OllamaStub(models=["qwen3:8b"]))


def test_request_sent_to_ollama(stub):
    ctx = ChunkerSettings(model="ollama:qwen3:8b", llm_timeout_s=5)
    result = call_llm(ctx.llm, node="check_completeness", task="completeness",
                      user="<window>\nText.\n</window>", background="")
    assert result.parsed == Completeness(complete=True, boundary_phrase=None)
    req = stub.chat_requests()[-1]
    assert req["model"] == "qwen3:8b"
    assert req["format"] == Completeness.model_json_schema()
    assert req["options"]["num_ctx"] == ctx.llm.model_window == 8192
    assert req["options"]["temperature"] == 0
    assert req["think"] is False
    # usage is what the server reported for this request (its word counts), not a guess
    assert result.stats["tokens.prompt"] == prompt_words(req) > 0
    assert result.stats["tokens.completion"] == len(stub.answer_for(req).split())
    longer = call_llm(ctx.llm, node="check_completeness", task="completeness",
                      user="<window>\n" + "Text. " * 40 + "\n</window>", background="")
    assert longer.stats["tokens.prompt"] == prompt_words(stub.chat_requests()[-1])
    assert longer.stats["tokens.prompt"] == result.stats["tokens.prompt"] + 39


def test_bare_name_means_ollama(stub):
    ctx = ChunkerSettings(model="qwen3:8b")
    call_llm(ctx.llm, node="n", task="completeness", user="x", background="")
    assert stub.chat_requests()[-1]["model"] == "qwen3:8b"


def test_invalid_json_is_repaired_then_falls_back(stub):
    stub.content = '{"complete": tru'
    ctx = ChunkerSettings(model="ollama:qwen3:8b")
    result = call_llm(ctx.llm, node="n", task="completeness", user="x", background="")
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


def test_cli_refuses_before_work_when_server_is_down(tmp_path):
    out = tmp_path / "out"
    proc = invoke("run", CINDERELLA, "--model", "qwen3:8b", "-o", out,
                  env={"OLLAMA_HOST": f"127.0.0.1:{free_port()}"})
    assert proc.returncode == 2
    line = proc.stderr.strip()
    assert len(line.splitlines()) == 1 and "OLLAMA_HOST" in line and "ollama pull qwen3:8b" in line
    assert not out.exists()


def test_cli_full_run_through_the_stub_with_server_errors_and_resume(tmp_path, stub_run_config):
    with OllamaStub(models=["qwen3:8b"]) as stub:
        env = stub.env()
        cfg = stub_run_config(attempts=4)
        out = tmp_path / "out"
        stub.drop_next = 1  # the first request loses its connection...
        stub.fail_next = 2  # ...the next two get HTTP 500: all retried, the run goes on
        first = invoke("run", CINDERELLA, "--model", "qwen3:8b", "-o", out, "--config", cfg, "--quiet",
                       env=env)
        assert first.returncode == 0, first.stderr
        check_markdown_tree(out)
        assert stub.dropped == 1 and stub.served_errors == 2
        chats = stub.chat_requests()
        stats = json.loads((out / "hierarchy.json").read_text())["meta"]["stats"]
        # every request the server saw is a counted call, or one of the three failures
        assert len(chats) == stats["calls.total"] + 3 > 10
        assert stats["tokens.prompt"] == sum(prompt_words(r) for r in chats[3:])
        calls = read_calls(out)  # the run's call log records the failed requests too
        assert sum(c["outcome"].startswith("error") for c in calls) == 3
        assert len(calls) == len(chats)

        out2 = tmp_path / "out2"
        stub.down, stub.served_errors = True, 0  # retries exhausted: exit 1, resumable
        failed = invoke("run", CINDERELLA, "--model", "qwen3:8b", "-o", out2, "--config", cfg, "--quiet",
                        env=env)
        assert failed.returncode == 1 and "chunker resume" in failed.stderr
        assert stub.served_errors == 4  # llm_max_attempts, then the run stops
        assert len(failed.stderr.strip().splitlines()) == 1
        stub.down = False  # the server is back
        resumed = invoke("resume", out2, "--quiet", env=env)
        assert resumed.returncode == 0, resumed.stderr
        a = json.loads((out / "hierarchy.json").read_text())
        b = json.loads((out2 / "hierarchy.json").read_text())
        assert [n["span"] for n in a["nodes"]] == [n["span"] for n in b["nodes"]]


def test_timeouts_are_retried(stub):
    from conftest import assert_lossless, run_text

    stub.stall_s, stub.stall_next = 2.0, 2  # the first two requests outlast the client timeout
    text = "A short document about timeouts. It has two sentences."
    out, _ = run_text(text, "ollama:qwen3:8b", attempts=3, llm_timeout_s=0.5)
    assert stub.stalled == 2 and len(stub.chat_requests()) == out["stats"]["calls.total"] + 2
    assert_lossless(out["tree"], text)


def test_server_errors_are_retried_with_exponential_backoff(stub):
    from langgraph.store.memory import InMemoryStore

    from chunker.graph import build_graph
    from chunker.graph.build import llm_retry_policy
    from conftest import assert_lossless

    initial_s = 0.4
    graph = build_graph(store=InMemoryStore(), llm_retry=llm_retry_policy(3, initial_s))
    stub.fail_next = 2
    text = "A short document about backoff. It has two sentences."
    settings = RunContext(model="ollama:qwen3:8b", llm_timeout_s=5)
    out = graph.invoke({"text": text}, context=settings)
    assert stub.served_errors == 2
    first, second, third = (r["_at"] for r in stub.chat_requests()[:3])
    # LangGraph sleeps initial_s * 2**(attempt-1) plus up to 1 s of jitter between attempts
    assert second - first >= initial_s
    assert third - second >= 2 * initial_s
    assert_lossless(out["tree"], text)

"""`openai:NAME` (any OpenAI-compatible server) and other LangChain providers, checked
through the real langchain-openai client against a local stub server."""

import importlib.util
import json
import sys
from importlib.metadata import entry_points

import pytest

from chunker.config.settings import ChunkerSettings, LLMSettings
from chunker.llm import registry
from chunker.llm.errors import ModelUnavailable
from chunker.llm.invoke import call_llm
from chunker.llm.registry import backend_prefix, get_model, preflight
from chunker.llm.schemas import Completeness, Summary
from chunker.testing.openai_stub import OpenAIStub, prompt_words, word_count
from chunker.testing.scripted import ScriptedChatModel
from conftest import CINDERELLA, check_markdown_tree, free_port, invoke


@pytest.fixture
def stub(serve):
    return serve(OpenAIStub(models=["stub-model"]))


def _settings(**kw) -> LLMSettings:
    return ChunkerSettings(model="openai:stub-model", llm_timeout_s=5, **kw).llm


def test_prefixes_route_to_their_backends():
    assert backend_prefix("openai:stub-model") == "openai"
    assert backend_prefix("anthropic:claude-x") == registry.LANGCHAIN
    assert backend_prefix("groq:llama-3") == registry.LANGCHAIN
    # bare Ollama names keep working, and `ollama:` forces Ollama for any name
    assert backend_prefix("qwen3:8b") == backend_prefix("ollama:deepseek:7b") == "ollama"
    assert backend_prefix("scripted:seed=2") == "scripted"


def test_ollama_and_openai_need_no_langchain_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "langchain.chat_models.base", None)  # import fails
    registry.MODELS.rediscover()  # decide afresh, not from the memo
    try:
        assert backend_prefix("qwen3:8b") == "ollama" and backend_prefix("openai:x") == "openai"
    finally:
        registry.MODELS.rediscover()  # no route decided without LangChain outlives the test


def test_scripted_is_an_entry_point_plugin_not_a_built_in():
    names = {ep.name: ep.value for ep in entry_points(group=registry.ENTRY_POINT_GROUP)}
    assert names.get("scripted") == "chunker.testing.scripted:make_scripted_model"
    assert "scripted" not in registry.MODELS.built_ins
    model = get_model(ChunkerSettings(model="scripted:seed=7,delay_ms=0").llm)
    assert isinstance(model, ScriptedChatModel) and model.seed == 7


def test_unset_model_is_an_error():
    with pytest.raises(ValueError, match="no model is set"):  # settings without one cannot exist
        ChunkerSettings(model="")
    with pytest.raises(ModelUnavailable, match="no model set"):
        preflight(ChunkerSettings(model=" ").llm)


def test_request_carries_the_json_schema_and_usage_comes_from_the_server(stub):
    settings = _settings()
    result = call_llm(settings, node="check_completeness", task="completeness",
                      user="<window>\nA short window of text.\n</window>", background="")
    assert result.parsed == Completeness(complete=True, boundary_phrase=None)
    req = stub.chat_requests()[-1]
    assert req["model"] == "stub-model" and req["temperature"] == 0 and not req.get("stream")
    fmt = req["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["name"] == "Completeness"
    assert fmt["json_schema"]["schema"] == Completeness.model_json_schema()
    assert req["_headers"]["x-stainless-retry-count"] == "0"  # chunker's RetryPolicy retries
    # usage is what the server reported for this request (its word counts), not a guess
    canned = stub.answer_for(req)
    assert result.stats["tokens.prompt"] == prompt_words(req) > 0
    assert result.stats["tokens.completion"] == word_count(canned)
    longer = call_llm(settings, node="summarize_chunk", task="summarize",
                      user="<chunk>\n" + "word " * 50 + "\n</chunk>", background="")
    assert isinstance(longer.parsed, Summary)
    assert longer.stats["tokens.prompt"] == prompt_words(stub.chat_requests()[-1])
    assert longer.stats["tokens.prompt"] >= result.stats["tokens.prompt"] + 40


def test_invalid_answer_is_repaired_then_falls_back(stub):
    stub.content = '{"complete": tru'
    result = call_llm(_settings(), node="n", task="completeness", user="x", background="")
    assert result.parsed is None and result.stats["repairs"] == 1
    assert result.stats["invalid_outputs"] == 2 and len(stub.chat_requests()) == 2
    repair = stub.chat_requests()[-1]["messages"]
    assert repair[-2] == {"role": "assistant", "content": '{"complete": tru'}


def test_preflight_passes_on_a_served_model(stub):
    preflight(_settings())
    assert [r["_path"] for r in stub.requests] == ["/v1/models"]


def test_preflight_refuses_an_unreachable_server(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{free_port()}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    with pytest.raises(ModelUnavailable, match="OPENAI_BASE_URL") as err:
        preflight(_settings(temperature=0.01))  # other settings: not a cached model
    assert "\n" not in str(err.value)


def _error_line(stderr: str) -> str:
    """The one line a refusal prints (a profile warning for an unprofiled model aside)."""
    lines = [l for l in stderr.strip().splitlines() if not l.startswith("WARNING")]
    assert len(lines) == 1, stderr
    return lines[0]


def test_cli_full_run_through_the_real_client_with_a_5xx_and_a_dropped_connection(
        tmp_path, stub_run_config):
    with OpenAIStub(models=["stub-model"]) as stub:
        env = stub.env()
        cfg = stub_run_config(attempts=3)
        out = tmp_path / "out"
        stub.fail_next, stub.drop_next = 1, 1  # both transient: retried, the run goes on
        proc = invoke("run", CINDERELLA, "--model", "openai:stub-model", "-o", out, "--config", cfg,
                      "--quiet", env=env)
        assert proc.returncode == 0, proc.stderr
        check_markdown_tree(out)
        assert stub.served_errors == 1 and stub.dropped == 1
        assert stub.requests[0]["_path"] == "/v1/models"  # the preflight came first
        chats = stub.chat_requests()
        assert all(r["response_format"]["type"] == "json_schema" for r in chats)
        stats = json.loads((out / "hierarchy.json").read_text())["meta"]["stats"]
        # every request the server saw is a counted call, or one of the two failures
        assert len(chats) == stats["calls.total"] + 2
        # the dropped request came first, then the 5xx; usage is the server's for the rest
        assert stats["tokens.prompt"] == sum(prompt_words(r) for r in chats[2:])


def test_cli_refuses_before_work_when_the_server_is_down(tmp_path):
    out = tmp_path / "out"
    proc = invoke("run", CINDERELLA, "--model", "openai:stub-model", "-o", out,
                  env={"OPENAI_BASE_URL": f"http://127.0.0.1:{free_port()}/v1", "OPENAI_API_KEY": "k"})
    assert proc.returncode == 2
    line = _error_line(proc.stderr)
    assert "OPENAI_BASE_URL" in line and "cannot reach" in line
    assert not out.exists()


def test_cli_names_a_missing_integration_package(tmp_path, cli):
    # langchain-openai hidden from the child process by a module that fails to import
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "langchain_openai.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'langchain_openai'\", name='langchain_openai')\n")
    out = tmp_path / "out"
    proc = cli("run", CINDERELLA, "--model", "openai:stub-model", "-o", out,
                env={"OPENAI_API_KEY": "k"}, pythonpath=blocker)
    assert proc.returncode == 2 and "pip install langchain-openai" in _error_line(proc.stderr)
    assert not out.exists()
    # a LangChain provider whose integration is really not installed here
    provider, package = next((p, pkg) for p, pkg in (("anthropic", "langchain_anthropic"),
                                                     ("groq", "langchain_groq"),
                                                     ("mistralai", "langchain_mistralai"))
                             if importlib.util.find_spec(pkg) is None)
    proc = invoke("run", CINDERELLA, "--model", f"{provider}:some-model", "-o", out)
    assert proc.returncode == 2
    assert f"pip install {package.replace('_', '-')}" in _error_line(proc.stderr)
    assert not out.exists()


def test_cli_missing_api_key_is_one_line(tmp_path):
    env = {"OPENAI_API_KEY": None, "OPENAI_BASE_URL": f"http://127.0.0.1:{free_port()}/v1"}  # None: unset
    proc = invoke("run", CINDERELLA, "--model", "openai:stub-model", "-o", tmp_path / "out", env=env)
    assert proc.returncode == 2 and "set OPENAI_API_KEY" in _error_line(proc.stderr)

"""The one registry mechanism (`chunker.registry`): spec routing, and third-party plugins of
both groups found through entry points of an installed distribution."""

from __future__ import annotations

import pytest

from chunker.config.settings import ChunkerSettings
from chunker.embeddings import registry as embeddings_registry
from chunker.embeddings import embeddings_prefix, get_embeddings, preflight_embeddings
from chunker.llm import registry as model_registry
from chunker.llm.errors import ModelUnavailable
from chunker.llm.registry import backend_prefix, get_model, preflight
from chunker.registry import ProviderSpec

PLUGIN = '''
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models import FakeListChatModel


def make_chat(spec, settings):
    return FakeListChatModel(responses=[spec])


def make_embeddings(spec):
    return DeterministicFakeEmbedding(size=int(spec.partition(":")[2] or 4))
'''
ENTRY_POINTS = """[chunker.models]
acme = acme_chunker_plugin:make_chat

[chunker.embeddings]
acme-embed = acme_chunker_plugin:make_embeddings
"""


@pytest.mark.parametrize("text, provider, name, options", [
    ("ollama:qwen3:8b", "ollama", "qwen3:8b", {}),
    ("qwen3:8b", "ollama", "qwen3:8b", {}),  # a bare name is an Ollama model
    ("scripted:delay_ms=5,seed=2", "scripted", "delay_ms=5,seed=2", {"delay_ms": "5", "seed": "2"}),
    ("llamacpp:/models/x=1.gguf", "llamacpp", "/models/x=1.gguf", {}),  # a path, not options
    ("openai:gpt-4o-mini", "openai", "gpt-4o-mini", {}),
    ("local", "local", "", {}),
    ("anthropic:claude-x", model_registry.LANGCHAIN, "anthropic:claude-x", {}),
])
def test_model_specs_are_routed(text, provider, name, options):
    assert model_registry.MODELS.route(text) == ProviderSpec(text, provider, name, options)
    assert backend_prefix(text) == provider


def test_embedding_specs_share_the_spec_type():
    assert embeddings_registry.EMBEDDINGS.route("lexical") == ProviderSpec("lexical", "lexical", "")
    assert embeddings_registry.EMBEDDINGS.route("nomic-embed-text").provider == "ollama"
    assert embeddings_prefix("none") == embeddings_registry.NONE


def test_unknown_prefix_keeps_its_message():
    with pytest.raises(ModelUnavailable, match="no backend for model prefix 'nowhere'"):
        model_registry.MODELS.factory("nowhere")
    with pytest.raises(ModelUnavailable, match="no embeddings provider for prefix 'nowhere'"):
        embeddings_registry.EMBEDDINGS.factory("nowhere")


@pytest.fixture
def acme_plugin(tmp_path, monkeypatch):
    """An installed third-party distribution (a `.dist-info` on sys.path) whose entry points
    add a chat model `acme:` and an embeddings provider `acme-embed`."""
    (tmp_path / "acme_chunker_plugin.py").write_text(PLUGIN)
    info = tmp_path / "acme_chunker_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-chunker-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    registries = (model_registry.MODELS, embeddings_registry.EMBEDDINGS)
    for registry in registries:
        registry.rediscover()  # entry points are listed once per process: list them again
    yield
    monkeypatch.undo()
    for registry in registries:
        registry.rediscover()


def test_third_party_entry_points_of_both_groups_are_found(acme_plugin):
    assert backend_prefix("acme:big-model") == "acme"
    settings = ChunkerSettings(model="acme:big-model").llm
    preflight(settings)  # no check registered: building the model is the check
    model = get_model(settings)
    assert model.invoke("hello").content == "acme:big-model"  # the plugin got the spec string
    assert get_model(settings) is model  # built once
    assert embeddings_prefix("acme-embed:6") == "acme-embed"
    preflight_embeddings("acme-embed:6")
    assert len(get_embeddings("acme-embed:6").embed_query("a glass slipper")) == 6


def test_without_the_distribution_the_names_are_ollama_models():
    assert backend_prefix("acme:big-model") == "ollama"
    assert embeddings_prefix("acme-embed:6") == "ollama"

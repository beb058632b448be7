"""Chat-model registry keyed by provider string, with plugin backends.

`--model` takes `ollama:NAME` (a bare `NAME` also means Ollama), `local`,
`llamacpp:/path/model.gguf` or `scripted[:opts]`. Other packages can add a prefix
through the `chunker.models` entry-point group: a callable `(spec, ctx) -> BaseChatModel`.
"""

from __future__ import annotations

import threading
from importlib.metadata import entry_points
from typing import Callable

from langchain_core.language_models.chat_models import BaseChatModel

from chunker.config.context import ChunkerContext

Factory = Callable[[str, ChunkerContext], BaseChatModel]
_BACKENDS: dict[str, Factory] = {}
_INSTANCES: dict[tuple, BaseChatModel] = {}
_LOCK = threading.Lock()


class ModelUnavailable(RuntimeError):
    """The model cannot be used at all (missing extra, server down, model not pulled)."""


def register_backend(prefix: str, factory: Factory) -> None:
    _BACKENDS[prefix] = factory


def register_instance(spec: str, model: BaseChatModel) -> None:
    """Make a ready model answer to `spec` (tests register configured scripted models)."""
    with _LOCK:
        _INSTANCES[("instance", spec)] = model


def backend_prefix(spec: str) -> str:
    head = spec.split(":", 1)[0]
    if head in _BACKENDS or head in _plugin_names():
        return head
    return "ollama"  # bare names such as qwen3:8b are Ollama models


def get_model(ctx: ChunkerContext) -> BaseChatModel:
    """The chat model for a resolved context, built once per process and settings."""
    spec = ctx.model
    with _LOCK:
        if ("instance", spec) in _INSTANCES:
            return _INSTANCES[("instance", spec)]
        key = (spec, ctx.temperature, ctx.context_window, ctx.llm_timeout_s)
        if key not in _INSTANCES:
            _INSTANCES[key] = _factory(backend_prefix(spec))(spec, ctx)
        return _INSTANCES[key]


def _factory(prefix: str) -> Factory:
    if prefix in _BACKENDS:
        return _BACKENDS[prefix]
    for ep in entry_points(group="chunker.models"):
        if ep.name == prefix:
            return ep.load()
    raise ModelUnavailable(f"no backend for model prefix {prefix!r}")


def _plugin_names() -> set[str]:
    return {ep.name for ep in entry_points(group="chunker.models")}


def _scripted(spec: str, ctx: ChunkerContext) -> BaseChatModel:
    from chunker.testing.scripted import ScriptedChatModel

    return ScriptedChatModel.from_spec(spec)


def _ollama(spec: str, ctx: ChunkerContext) -> BaseChatModel:
    from chunker.llm.ollama import make_chat_ollama

    return make_chat_ollama(spec, ctx)


def _local(spec: str, ctx: ChunkerContext) -> BaseChatModel:
    from chunker.llm.llamacpp import make_local_model

    return make_local_model(spec, ctx)


register_backend("scripted", _scripted)
register_backend("ollama", _ollama)
register_backend("local", _local)
register_backend("llamacpp", _local)


def preflight(ctx: ChunkerContext) -> None:
    """Check, before any work starts, that the model can answer (raises ModelUnavailable)."""
    prefix = backend_prefix(ctx.model)
    if prefix == "ollama":
        from chunker.llm.ollama import check_ollama

        check_ollama(ctx.model)
    else:
        get_model(ctx)

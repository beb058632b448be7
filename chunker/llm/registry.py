"""Chat-model registry keyed by provider string, with plugin backends.

`--model` takes `ollama:NAME` (a bare `NAME` such as `qwen3:8b` also means Ollama),
`local`, `llamacpp:/path/model.gguf`, `openai:NAME` (the OpenAI API, or any
OpenAI-compatible server named by `OPENAI_BASE_URL`), or any other `provider:NAME`
that LangChain's `init_chat_model` knows (`anthropic:`, `groq:`, ...). Other packages
add a prefix through the `chunker.models` entry-point group: a callable
`(spec, llm) -> BaseChatModel`, `llm` the run's `LLMSettings`. The deterministic test model `scripted` is
such a plugin (see pyproject.toml). A prefix that is both an entry point and a
LangChain provider goes to the entry point; write `ollama:NAME` for an Ollama model
whose name starts with a LangChain provider's. `MODELS` is an instance of the one
mechanism in `chunker.registry`, which the embedding providers share.
"""

from __future__ import annotations

import os
from typing import Callable

from langchain_core.language_models.chat_models import BaseChatModel

from chunker.config.sections import LLMSettings
from chunker.llm.errors import ModelUnavailable
from chunker.registry import Registry

Factory = Callable[[str, LLMSettings], BaseChatModel]
Check = Callable[[str, LLMSettings], None]
ENTRY_POINT_GROUP = "chunker.models"
LANGCHAIN = "langchain"
"""The backend of every `provider:NAME` that LangChain's `init_chat_model` builds."""


def _langchain_provider(head: str) -> str | None:
    from chunker.llm.openai_compat import langchain_providers

    return LANGCHAIN if head in langchain_providers() else None


MODELS: Registry[BaseChatModel] = Registry(
    ENTRY_POINT_GROUP, default="ollama",  # bare names such as qwen3:8b are Ollama models
    missing="no backend for model prefix {prefix!r}", fallback=_langchain_provider,
    key=lambda llm: (llm.temperature, llm.model_window, llm.timeout_s))


Concurrency = Callable[[], int]
_CONCURRENCY: dict[str, Concurrency] = {}
SERVER_CONCURRENCY = 8
"""Calls in flight for a server that batches (vLLM, llama.cpp's server; LangChain providers):
llama.cpp's batched benchmark peaks at about 8 parallel sequences."""


def register_backend(prefix: str, factory: Factory, check: Check | None = None,
                     env: tuple[str, ...] = (), concurrency: Concurrency | None = None) -> None:
    """Serve `prefix:...` specs with `factory`; `check` runs in `preflight` before any work.

    `env` names the environment variables that point the model at its server: a built
    model is reused only while they are unchanged. `concurrency` says how many calls the
    backend serves at once by default (`default_concurrency`); unsaid: one.
    """
    MODELS.register(prefix, factory, check, env)
    if concurrency is not None:
        _CONCURRENCY[prefix] = concurrency


def default_concurrency(spec: str) -> int:
    """The backend's calls in flight when `llm.max_concurrency` is unset: one for a model in
    this process (or a plugin that says nothing), `OLLAMA_NUM_PARALLEL` for Ollama (one
    unless it says more), `SERVER_CONCURRENCY` for an OpenAI-compatible or LangChain server."""
    provider = backend_prefix(spec)
    if provider == LANGCHAIN:
        return SERVER_CONCURRENCY
    return max(1, _CONCURRENCY.get(provider, lambda: 1)())


SERVED_TASKS_PER_SLOT = 2
"""Tasks read at once for each call slot of a served model: while one waits for its answer,
the other does chunker's own work (about 50 ms a call over Emma), so the slot seldom waits on it."""


def default_tasks_per_slot(spec: str) -> int:
    """`llm.tasks_per_slot` when unset: `SERVED_TASKS_PER_SLOT` for a model a server answers (a
    backend that says its concurrency, a LangChain provider), 1 for a model in this process (or
    a plugin that says nothing), whose calls use the cores chunker's own work would."""
    provider = backend_prefix(spec)
    return SERVED_TASKS_PER_SLOT if provider == LANGCHAIN or provider in _CONCURRENCY else 1


def _ollama_parallel() -> int:
    try:
        return int(os.environ.get("OLLAMA_NUM_PARALLEL", "") or 1)
    except ValueError:
        return 1


def register_instance(spec: str, model: BaseChatModel) -> None:
    """Make a ready model answer to `spec` (tests register configured scripted models)."""
    MODELS.register_instance(spec, model)


def backend_prefix(spec: str) -> str:
    """The backend that serves `spec`: a built-in prefix, a plugin, LangChain or Ollama."""
    return MODELS.route(spec).provider


def get_model(llm: LLMSettings) -> BaseChatModel:
    """The chat model for a run's LLM settings, built once per process and settings."""
    return MODELS.get(_require_model(llm), llm)


def with_model(llm: LLMSettings, model: str) -> LLMSettings:
    """`llm` for another model (the vision model), called the same way (window, temperature,
    timeout); validated like any `LLMSettings`."""
    return LLMSettings.model_validate({**llm.model_dump(), "model": model})


def preflight(llm: LLMSettings) -> None:
    """Check, before any work starts, that the model can answer (raises ModelUnavailable):
    the backend's package is installed, the model can be built, its server answers."""
    MODELS.preflight(_require_model(llm), llm)


def _require_model(llm: LLMSettings) -> str:
    spec = (llm.model or "").strip()
    if not spec:
        raise ModelUnavailable("no model set: pass --model (for example ollama:qwen3:8b, "
                               "openai:NAME or local)")
    return spec


def _ollama(spec: str, llm: LLMSettings) -> BaseChatModel:
    from chunker.llm.ollama import make_chat_ollama

    return make_chat_ollama(spec, llm)


def _check_ollama(spec: str, llm: LLMSettings) -> None:
    from chunker.llm.ollama import check_ollama

    check_ollama(spec)


def _local(spec: str, llm: LLMSettings) -> BaseChatModel:
    from chunker.llm.llamacpp import make_local_model

    return make_local_model(spec, llm)


def _openai(spec: str, llm: LLMSettings) -> BaseChatModel:
    from chunker.llm.openai_compat import make_openai_model

    return make_openai_model(spec, llm)


def _check_openai(spec: str, llm: LLMSettings) -> None:
    from chunker.llm.openai_compat import check_openai_server

    check_openai_server(get_model(llm), spec)


def _langchain(spec: str, llm: LLMSettings) -> BaseChatModel:
    from chunker.llm.openai_compat import make_langchain_model

    return make_langchain_model(spec, llm)


register_backend("ollama", _ollama, _check_ollama, env=("OLLAMA_HOST",), concurrency=_ollama_parallel)
register_backend("local", _local)
register_backend("llamacpp", _local)
register_backend("openai", _openai, _check_openai,
                 env=("OPENAI_BASE_URL", "OPENAI_API_BASE", "OPENAI_API_KEY"),
                 concurrency=lambda: SERVER_CONCURRENCY)
MODELS.register(LANGCHAIN, _langchain, as_prefix=False)  # reached through `fallback` only

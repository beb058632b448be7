"""Any LangChain chat model by `provider:NAME`, and OpenAI-compatible servers in particular.

`openai:NAME` talks to the OpenAI API, or, with `OPENAI_BASE_URL` set, to any server
that speaks it (vLLM, llama.cpp's `llama-server`, LM Studio): what users run when one
Ollama box is not enough. Every other provider LangChain's `init_chat_model` knows
(`anthropic:`, `groq:`, `mistralai:`, ...) is built by `init_chat_model` itself.

Structured output for `openai:` sends the task's JSON schema as `response_format`
(the same schema Ollama receives as `format`) and parses the answer here. ChatOpenAI's
own `with_structured_output` hands a pydantic schema to the OpenAI SDK's `parse()`,
which raises on an answer that does not validate; chunker needs such an answer back as
a parsing error, so that it can ask for a repair and then fall back (`llm/invoke.py`).

Retries: chunker's LangGraph `RetryPolicy` is the one retry layer (`max_retries=0`
here), so a transient failure is retried with chunker's backoff and counted once.
"""

from __future__ import annotations

import functools
import logging
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.runnables import Runnable, RunnableLambda
from pydantic import BaseModel

from chunker.config.sections import LLMSettings
from chunker.llm.errors import ModelUnavailable
from chunker.llm.structured import schema_dict, structured_parser

log = logging.getLogger(__name__)

PREFLIGHT_TIMEOUT_S = 5.0
"""How long the before-any-work check waits for the server's model list."""
OPENAI_INSTALL = "pip install langchain-openai"


def langchain_providers() -> frozenset[str]:
    """Provider prefixes that LangChain's `init_chat_model` builds by itself.

    `_BUILTIN_PROVIDERS` is the one list LangChain keeps of them (it is how
    `init_chat_model("anthropic:...")` parses a prefix); a prefix outside it is not a
    LangChain provider, so a bare `qwen3:8b` stays an Ollama model. Without the
    `langchain` package there are none: Ollama, local and openai: models need only
    their own integrations.
    """
    try:
        from langchain.chat_models.base import _BUILTIN_PROVIDERS
    except ImportError:
        return frozenset()
    return frozenset(_BUILTIN_PROVIDERS)


def _standard_params(llm: LLMSettings) -> dict[str, Any]:
    """LangChain's standard chat-model parameters, which every integration accepts."""
    return {"temperature": llm.temperature, "timeout": llm.timeout_s, "max_retries": 0}


def make_langchain_model(spec: str, llm: LLMSettings) -> BaseChatModel:
    """`provider:NAME` through `init_chat_model`; a missing integration is ModelUnavailable."""
    from langchain.chat_models import init_chat_model

    provider, _, name = spec.partition(":")
    try:
        return init_chat_model(name, model_provider=provider, **_standard_params(llm))
    except ImportError as exc:  # LangChain's message names the package to install
        raise ModelUnavailable(f"model {spec!r}: {exc}") from exc
    except Exception as exc:  # missing credentials and bad options fail at construction
        raise ModelUnavailable(f"model {spec!r} cannot be built: {_one_line(exc)}") from exc


def make_openai_model(spec: str, llm: LLMSettings) -> BaseChatModel:
    """`openai:NAME` (OPENAI_BASE_URL and OPENAI_API_KEY as the OpenAI SDK reads them)."""
    cls = _compat_class()
    name = spec.partition(":")[2]
    if not name:
        raise ModelUnavailable(f"model {spec!r}: name the served model, as in openai:NAME")
    try:
        return cls(model=name, **_standard_params(llm))
    except Exception as exc:
        if "OPENAI_API_KEY" in str(exc):  # the OpenAI SDK names the variable it wanted
            raise ModelUnavailable(f"model {spec!r} needs an API key: set OPENAI_API_KEY (any value, "
                                   f"e.g. EMPTY, for a local server without keys)") from exc
        raise ModelUnavailable(f"model {spec!r} cannot be built: {_one_line(exc)}") from exc


def check_openai_server(model: BaseChatModel, spec: str, timeout_s: float = PREFLIGHT_TIMEOUT_S) -> None:
    """Fail before any work when the server cannot be reached (GET /models, which vLLM,
    llama.cpp and LM Studio serve). A model missing from the list is only a warning:
    llama.cpp's server answers to any name."""
    import openai

    client = model.root_client.with_options(timeout=timeout_s, max_retries=0)
    url = str(client.base_url).rstrip("/")
    try:
        served = [m.id for m in client.models.list()]
    except openai.APIStatusError as exc:
        raise ModelUnavailable(
            f"the OpenAI-compatible server at {url} (OPENAI_BASE_URL) refused to list its models: "
            f"HTTP {exc.status_code}; check OPENAI_API_KEY and the URL") from exc
    except openai.APIError as exc:
        raise ModelUnavailable(
            f"cannot reach the OpenAI-compatible server at {url} (OPENAI_BASE_URL): "
            f"{type(exc).__name__}; start the server or point OPENAI_BASE_URL at it") from exc
    if served and model.model_name not in served:
        log.warning("model %r is not among those the server at %s lists (%s); "
                    "sending requests anyway", model.model_name, url, ", ".join(served[:5]))


@functools.cache
def _compat_class() -> type[BaseChatModel]:
    try:
        from langchain_openai import ChatOpenAI
    except ImportError as exc:
        raise ModelUnavailable(f"openai: models need the langchain-openai package: {OPENAI_INSTALL}") from exc

    class OpenAICompatibleChat(ChatOpenAI):
        """ChatOpenAI whose JSON-schema structured output returns a bad answer as a parsing
        error (with the raw message) instead of raising."""

        def with_structured_output(self, schema: type[BaseModel] | dict, *,
                                   method: str = "json_schema", include_raw: bool = False,
                                   **kwargs: Any) -> Runnable:
            if method != "json_schema":
                return super().with_structured_output(schema, method=method, include_raw=include_raw,
                                                      **kwargs)
            body = schema_dict(schema)
            response_format = {"type": "json_schema",
                               "json_schema": {"name": body.get("title", "answer"), "schema": body,
                                               "strict": False}}
            bound = self.bind(response_format=response_format)
            return bound | RunnableLambda(structured_parser(schema, include_raw))

    return OpenAICompatibleChat


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300]

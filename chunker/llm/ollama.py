"""The Ollama backend (production): langchain-ollama's ChatOllama.

Structured output uses Ollama's `format` = JSON schema; `num_ctx` comes from the model
profile, temperature 0 and reasoning off make runs repeatable and fast.
"""

from __future__ import annotations

import os

from langchain_core.language_models.chat_models import BaseChatModel

from chunker.config.sections import LLMSettings

DEFAULT_HOST = "http://127.0.0.1:11434"


def ollama_name(spec: str) -> str:
    return spec[len("ollama:"):] if spec.startswith("ollama:") else spec


def ollama_host() -> str:
    host = os.environ.get("OLLAMA_HOST", "").strip() or DEFAULT_HOST
    if "://" not in host:
        host = "http://" + host
    return host


def make_chat_ollama(spec: str, llm: LLMSettings) -> BaseChatModel:
    from langchain_ollama import ChatOllama

    return ChatOllama(
        model=ollama_name(spec),
        base_url=ollama_host(),
        temperature=llm.temperature,
        num_ctx=llm.model_window,
        reasoning=False,
        client_kwargs={"timeout": llm.timeout_s},
    )


def check_ollama(spec: str, timeout_s: float = 5.0) -> None:
    """Fail fast, before any work, when the server is down or the model is not pulled."""
    import httpx

    from chunker.llm.errors import ModelUnavailable

    name = ollama_name(spec)
    host = ollama_host()
    try:
        response = httpx.get(f"{host}/api/tags", timeout=timeout_s)
        response.raise_for_status()
        models = {m.get("name") for m in response.json().get("models", [])}
        models |= {m.get("model") for m in response.json().get("models", [])}
    except (httpx.HTTPError, ValueError) as exc:
        raise ModelUnavailable(
            f"cannot reach the Ollama server at {host} (OLLAMA_HOST): {type(exc).__name__}; "
            f"start it with `ollama serve`, then `ollama pull {name}`"
        ) from exc
    candidates = {name, f"{name}:latest"} if ":" not in name else {name}
    if not models & candidates:
        raise ModelUnavailable(
            f"model {name!r} is not available on the Ollama server at {host} (OLLAMA_HOST); "
            f"run `ollama pull {name}` (is `ollama serve` the right server?)"
        )

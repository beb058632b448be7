"""LLM errors: a model that cannot be used at all, and which failures are transient
(retried with backoff by LangGraph's RetryPolicy)."""

from __future__ import annotations


class ModelUnavailable(RuntimeError):
    """The model cannot be used at all (missing extra, server down, model not pulled)."""


def is_transient(exc: BaseException) -> bool:
    """Connection refused or dropped, timeouts and HTTP 5xx: worth retrying."""
    if isinstance(exc, (ConnectionError, TimeoutError)):
        return True
    # LangChain integrations (langchain-openai, ...) raise these provider-neutral types;
    # ModelAPIError is a provider's HTTP 5xx.
    from langchain_core.exceptions import ModelAPIError, ModelConnectionError, ModelTimeoutError

    if isinstance(exc, (ModelConnectionError, ModelTimeoutError, ModelAPIError)):
        return True
    try:
        import httpx

        if isinstance(exc, httpx.TransportError):
            return True
        if isinstance(exc, httpx.HTTPStatusError):
            return exc.response.status_code >= 500
    except ImportError:  # pragma: no cover - httpx comes with langchain-ollama
        pass
    try:
        from ollama import ResponseError

        if isinstance(exc, ResponseError):
            return getattr(exc, "status_code", 0) >= 500
    except ImportError:  # pragma: no cover
        pass
    return False

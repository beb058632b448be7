"""Which LLM failures are transient (retried with backoff by LangGraph's RetryPolicy)."""

from __future__ import annotations


def is_transient(exc: BaseException) -> bool:
    """Connection refused or dropped, timeouts and HTTP 5xx: worth retrying."""
    if isinstance(exc, (ConnectionError, TimeoutError)):
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

"""The `ollama:NAME` provider: langchain-ollama's OllamaEmbeddings against OLLAMA_HOST.

The preflight is the chat models' own (`chunker.llm.ollama.check_ollama`), so a missing
embedding model reads exactly like a missing chat model: one line naming OLLAMA_HOST,
`ollama serve` and `ollama pull NAME`.
"""

from __future__ import annotations

from langchain_core.embeddings import Embeddings

from chunker.llm.ollama import check_ollama, ollama_host, ollama_name

OLLAMA_EMBED_TIMEOUT_S = 120.0
"""Seconds one /api/embed request (one batch) may take: a cold model load included."""


def make_ollama_embeddings(spec: str, timeout_s: float = OLLAMA_EMBED_TIMEOUT_S) -> Embeddings:
    from langchain_ollama import OllamaEmbeddings

    return OllamaEmbeddings(model=ollama_name(spec), base_url=ollama_host(),
                            client_kwargs={"timeout": timeout_s})


def check_ollama_embeddings(spec: str) -> None:
    """Fail fast (ModelUnavailable) when the server is down or the model is not pulled."""
    check_ollama(spec)

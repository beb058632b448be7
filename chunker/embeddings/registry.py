"""Embedding providers keyed by provider string: an instance of `chunker.registry`, as the chat
models in `chunker.llm.registry` are.

`--embeddings` takes `local` (all-MiniLM-L6-v2 in-process), `lexical` (hashed content-stem
counts, no model), `none` (no signal: `get_embeddings` returns None), or `ollama:NAME`
(a bare `NAME` also means Ollama, as for `--model`). Other packages can add a prefix
through the `chunker.embeddings` entry-point group: a callable `(spec) -> Embeddings`.
"""

from __future__ import annotations

from collections.abc import Callable

from langchain_core.embeddings import Embeddings

from chunker.llm.errors import ModelUnavailable
from chunker.registry import Registry

Factory = Callable[[str], Embeddings]
ENTRY_POINT_GROUP = "chunker.embeddings"
NONE = "none"
EMBEDDINGS: Registry[Embeddings | None] = Registry(
    ENTRY_POINT_GROUP, default="ollama",  # bare names such as nomic-embed-text are Ollama models
    missing="no embeddings provider for prefix {prefix!r}")


def register_embeddings(prefix: str, factory: Factory) -> None:
    EMBEDDINGS.register(prefix, factory)


def register_embeddings_instance(spec: str, embeddings: Embeddings) -> None:
    """Make a ready provider answer to `spec` (tests register counting wrappers)."""
    EMBEDDINGS.register_instance(spec, embeddings)


def embeddings_prefix(spec: str) -> str:
    """The provider prefix of `spec`."""
    return EMBEDDINGS.route(spec).provider


def get_embeddings(spec: str) -> Embeddings | None:
    """The provider for `spec`, built once per process and `OLLAMA_HOST`; None for `none`."""
    return EMBEDDINGS.get(spec.strip())


def preflight_embeddings(spec: str) -> None:
    """Check, before any work starts, that the provider can embed (raises ModelUnavailable)."""
    EMBEDDINGS.preflight(spec.strip())


def _none(spec: str) -> None:
    return None  # no signal: the graph runs without embeddings


def _local(spec: str) -> Embeddings:
    if spec != "local":
        raise ModelUnavailable(f"`local` embeddings take no options, got {spec!r}")
    from chunker.embeddings.local import MiniLMEmbeddings

    return MiniLMEmbeddings()


def _lexical(spec: str) -> Embeddings:
    if spec != "lexical":
        raise ModelUnavailable(f"`lexical` embeddings take no options, got {spec!r}")
    from chunker.embeddings.lexical import LexicalEmbeddings

    return LexicalEmbeddings()


def _ollama(spec: str) -> Embeddings:
    from chunker.embeddings.ollama import make_ollama_embeddings

    return make_ollama_embeddings(spec)


def _check_ollama(spec: str) -> None:
    from chunker.embeddings.ollama import check_ollama_embeddings

    check_ollama_embeddings(spec)


register_embeddings(NONE, _none)
register_embeddings("local", _local)
register_embeddings("lexical", _lexical)
EMBEDDINGS.register("ollama", _ollama, _check_ollama, env=("OLLAMA_HOST",))

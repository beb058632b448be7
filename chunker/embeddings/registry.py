"""Embedding providers keyed by provider string, like the chat models in `chunker.llm.registry`.

`--embeddings` takes `local` (all-MiniLM-L6-v2 in-process), `lexical` (hashed content-stem
counts, no model), `none` (no signal: `get_embeddings` returns None), or `ollama:NAME`
(a bare `NAME` also means Ollama, as for `--model`). Other packages can add a prefix
through the `chunker.embeddings` entry-point group: a callable `(spec) -> Embeddings`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from importlib.metadata import entry_points

from langchain_core.embeddings import Embeddings

from chunker.llm.errors import ModelUnavailable

Factory = Callable[[str], Embeddings]
NONE = "none"
_BACKENDS: dict[str, Factory] = {}
_INSTANCES: dict[str, Embeddings] = {}
_LOCK = threading.Lock()


def register_embeddings(prefix: str, factory: Factory) -> None:
    _BACKENDS[prefix] = factory


def register_embeddings_instance(spec: str, embeddings: Embeddings) -> None:
    """Make a ready provider answer to `spec` (tests register counting wrappers)."""
    with _LOCK:
        _INSTANCES[spec] = embeddings


def embeddings_prefix(spec: str) -> str:
    """The provider prefix of `spec`, memoised (listing entry points is slow)."""
    if spec not in _PREFIXES:
        _PREFIXES[spec] = _embeddings_prefix(spec)
    return _PREFIXES[spec]


_PREFIXES: dict[str, str] = {}


def _embeddings_prefix(spec: str) -> str:
    head = spec.split(":", 1)[0]
    if head == NONE or head in _BACKENDS or head in _plugin_names():
        return head
    return "ollama"  # bare names such as nomic-embed-text are Ollama models


def get_embeddings(spec: str) -> Embeddings | None:
    """The provider for `spec`, built once per process; None for `none`."""
    spec = spec.strip()
    if embeddings_prefix(spec) == NONE:
        return None
    with _LOCK:
        if spec not in _INSTANCES:
            _INSTANCES[spec] = _factory(embeddings_prefix(spec))(spec)
        return _INSTANCES[spec]


def preflight_embeddings(spec: str) -> None:
    """Check, before any work starts, that the provider can embed (raises ModelUnavailable)."""
    spec = spec.strip()
    prefix = embeddings_prefix(spec)
    if prefix == NONE:
        return
    if prefix == "ollama":
        from chunker.embeddings.ollama import check_ollama_embeddings

        check_ollama_embeddings(spec)
    else:
        get_embeddings(spec)


def _factory(prefix: str) -> Factory:
    if prefix in _BACKENDS:
        return _BACKENDS[prefix]
    for ep in entry_points(group="chunker.embeddings"):
        if ep.name == prefix:
            return ep.load()
    raise ModelUnavailable(f"no embeddings provider for prefix {prefix!r}")


def _plugin_names() -> set[str]:
    return {ep.name for ep in entry_points(group="chunker.embeddings")}


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


register_embeddings("local", _local)
register_embeddings("lexical", _lexical)
register_embeddings("ollama", _ollama)

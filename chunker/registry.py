"""One registry mechanism for everything chosen by a provider string: chat models, embeddings.

A spec is what `--model` or `--embeddings` takes: `ollama:qwen3:8b`, `scripted:delay_ms=5`,
`llamacpp:/path/x.gguf`, `openai:NAME`, `local`, `lexical`. Its head (the text before the
first colon) names the provider when that is a built-in or an entry point of the registry's
group (`chunker.models`, `chunker.embeddings`); a registry may route other heads itself
(`fallback`: LangChain's providers for chat models), and anything else goes to its default
provider (Ollama: a bare `qwen3:8b` is an Ollama model). A plugin is a callable
`(spec, *context) -> T` named by an entry point; it gets the spec string as written.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Generic, TypeVar

from chunker.llm.errors import ModelUnavailable

T = TypeVar("T")
Factory = Callable[..., Any]
"""`(spec, *context) -> provider`: what a built-in or an entry point builds a spec with."""
Check = Callable[..., None]
"""`(spec, *context) -> None`: raises ModelUnavailable when the provider cannot serve."""


@dataclass(frozen=True)
class ProviderSpec:
    """A spec string, routed. `provider` serves it; `name` is what follows `provider:` (the
    whole text where the provider is implied: a bare Ollama name, `anthropic:NAME` for
    LangChain); `options` are the name's `key=value` items (`scripted:seed=2,delay_ms=5`),
    empty when the name is not such a list (`llamacpp:/path/x.gguf`)."""

    text: str
    provider: str
    name: str
    options: dict[str, str] = field(default_factory=dict, hash=False)

    @classmethod
    def routed(cls, text: str, provider: str) -> "ProviderSpec":
        head, _, rest = text.partition(":")
        name = rest if head == provider else text
        return cls(text, provider, name, _options(name))


def _options(name: str) -> dict[str, str]:
    items = [item.partition("=") for item in name.split(",")] if name else []
    if not items or not all(eq and key.strip().isidentifier() for key, eq, _ in items):
        return {}  # a model name or a path, not an option list
    return {key.strip(): value for key, _, value in items}


class Registry(Generic[T]):
    """Providers of one kind: built-ins registered in code, plugins from the entry points of
    `group` (listed once: listing takes tens of milliseconds and every LLM call routes), and
    ready instances registered by tests. What a spec builds is kept per spec, per `key` of the
    context and per value of the provider's `env` variables."""

    def __init__(self, group: str, *, default: str, missing: str,
                 fallback: Callable[[str], str | None] = lambda head: None,
                 key: Callable[..., tuple] = lambda *context: ()) -> None:
        self.group = group
        self._default = default
        self._missing = missing  # the error for a prefix nothing serves, with {prefix!r}
        self._fallback = fallback
        self._key = key
        self._factories: dict[str, Factory] = {}
        self._prefixed: set[str] = set()
        self._checks: dict[str, Check] = {}
        self._env: dict[str, tuple[str, ...]] = {}
        self._instances: dict[str, T] = {}
        self._built: dict[tuple, T] = {}
        self._routes: dict[str, ProviderSpec] = {}
        self._plugins: dict[str, EntryPoint] | None = None
        self._lock = threading.Lock()

    def register(self, prefix: str, factory: Factory, check: Check | None = None,
                 env: tuple[str, ...] = (), as_prefix: bool = True) -> None:
        """Serve `prefix:...` specs with `factory`; `check` runs in `preflight` before any work.

        `env` names the environment variables that point the provider at its server: what it
        built is reused only while they are unchanged. `as_prefix=False`: only specs that
        `fallback` routes here reach it (`langchain:` is no spelling of a LangChain model)."""
        self._factories[prefix] = factory
        self._env[prefix] = env
        if as_prefix:
            self._prefixed.add(prefix)
        if check is not None:
            self._checks[prefix] = check

    def register_instance(self, spec: str, provider: T) -> None:
        """Make a ready provider answer to `spec` (tests register configured ones)."""
        with self._lock:
            self._instances[spec] = provider

    @property
    def built_ins(self) -> frozenset[str]:
        return frozenset(self._factories)

    def plugins(self) -> dict[str, EntryPoint]:
        """The group's entry points by name, listed once per process (see `rediscover`)."""
        if self._plugins is None:
            self._plugins = {ep.name: ep for ep in entry_points(group=self.group)}
        return self._plugins

    def rediscover(self) -> None:
        """Forget the listed entry points and the routes decided from them."""
        self._plugins = None
        self._routes = {}

    def route(self, spec: str) -> ProviderSpec:
        """Which provider serves `spec`: a built-in prefix, a plugin, the fallback's, or the default."""
        if spec not in self._routes:
            self._routes[spec] = ProviderSpec.routed(spec, self._provider(spec))
        return self._routes[spec]

    def _provider(self, spec: str) -> str:
        head, colon, _ = spec.partition(":")
        if head in self._prefixed or head in self.plugins():
            return head
        return (self._fallback(head) if colon else None) or self._default

    def get(self, spec: str, *context: Any) -> T:
        """What `spec` builds, once per spec, context key and endpoint."""
        with self._lock:
            if spec in self._instances:
                return self._instances[spec]
            provider = self.route(spec).provider
            endpoint = tuple(os.environ.get(name) for name in self._env.get(provider, ()))
            key = (spec, *self._key(*context), endpoint)
            if key not in self._built:
                self._built[key] = self.factory(provider)(spec, *context)
            return self._built[key]

    def preflight(self, spec: str, *context: Any) -> None:
        """Check, before any work starts, that `spec` can serve (raises ModelUnavailable): the
        provider's own check where it has one, else building it."""
        with self._lock:
            if spec in self._instances:
                return
        check = self._checks.get(self.route(spec).provider)
        if check is not None:
            check(spec, *context)
        else:
            self.get(spec, *context)

    def factory(self, provider: str) -> Factory:
        if provider in self._factories:
            return self._factories[provider]
        plugin = self.plugins().get(provider)
        if plugin is None:
            raise ModelUnavailable(self._missing.format(prefix=provider))
        return plugin.load()

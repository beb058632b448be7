"""A stub of an OpenAI-compatible chat server for tests: `/v1/models` and `/v1/chat/completions`.

This is what vLLM, llama.cpp's server and LM Studio expose, and what `openai:NAME` with
`OPENAI_BASE_URL` talks to through the real langchain-openai client. Like the Ollama
stub it is honest about what it is: every response carries `X-Chunker-Stub: 1` and a
`chatcmpl-stub-N` id; it answers with canned JSON chosen by the name of the JSON schema
in the request's `response_format` (it does not read the prompt, it is not a model);
it records every request (`chunker.testing.http_stub`, as the Ollama stub's). Its token
counts are derived from the request (whitespace-separated words of all message contents)
and from the answer, so a test can tell reported usage from a constant. It fails on
demand: HTTP 500, a dropped connection, or a stall.
Streaming is not served (chunker's nodes never stream); a streamed request gets HTTP 400.
"""

from __future__ import annotations

import threading
import time

from chunker.testing.http_stub import HTTPStub, Reply, json_reply, prompt_words, word_count

__all__ = ["OpenAIStub", "prompt_words", "word_count"]
CHAT_PATH = "/v1/chat/completions"
MODELS_PATH = "/v1/models"


class OpenAIStub(HTTPStub):
    """Serve on 127.0.0.1 (a free port) while used as a context manager; `base_url` ends in /v1."""

    def __init__(self, models=("stub-model",)):
        super().__init__(models)
        self._ids = 0
        self._lock = threading.Lock()

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

    def get(self, path: str) -> Reply:
        if path == MODELS_PATH:
            data = [{"id": m, "object": "model", "owned_by": "chunker-stub"} for m in self.models]
            return json_reply(200, {"object": "list", "data": data})
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
        return json_reply(200, self._completion(request))

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

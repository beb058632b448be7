"""A stub of Ollama's HTTP API for tests: just enough of `/api/tags`, `/api/chat` and `/api/embed`.

It lists one model per name it was told to serve and answers chat requests with canned JSON
chosen by the schema title in the request's `format`; what it shares with the OpenAI stub
(recording, faults on demand: HTTP 500, a dropped connection, a stall longer than the
client's timeout) is `chunker.testing.http_stub`'s. Its token counts are not constants:
`prompt_eval_count` is the number of whitespace-separated words in the request's messages,
`eval_count` that of the answer.
"""

from __future__ import annotations

import hashlib
import json
import time

from chunker.testing.http_stub import CANNED, HTTPStub, Reply, json_reply, prompt_words, word_count

__all__ = ["CANNED", "OllamaStub", "prompt_words"]
CHAT_PATH = "/api/chat"
EMBED_PATH = "/api/embed"
_TIMINGS = ("total_duration", "load_duration", "prompt_eval_duration", "eval_duration")


class OllamaStub(HTTPStub):
    def __init__(self, models=("qwen3:8b",)):
        super().__init__(models)
        self.embed_delay_s = 0.0    # sleep this long before each /api/embed answer

    def env(self) -> dict[str, str]:
        return {"OLLAMA_HOST": self.url}

    def serves(self, name: str | None) -> bool:
        """Like Ollama: a name without a tag means its `:latest`."""
        return bool(name) and (name in self.models or f"{name}:latest" in self.models)

    def chat_requests(self) -> list[dict]:
        return self.requests_to(CHAT_PATH)

    def embed_requests(self) -> list[dict]:
        return self.requests_to(EMBED_PATH)

    def schema_name(self, request: dict) -> str:
        fmt = request.get("format")
        return fmt.get("title", "") if isinstance(fmt, dict) else ""

    def error(self, code: int, message: str) -> Reply:
        return json_reply(code, {"error": message})

    def get(self, path: str) -> Reply:
        if path == "/api/tags":
            return json_reply(200, {"models": [{"name": m, "model": m} for m in self.models]})
        return super().get(path)

    def post(self, path: str, request: dict) -> Reply:
        if path == EMBED_PATH:
            time.sleep(self.embed_delay_s)
            return self._embed(request)
        if path != CHAT_PATH:
            return super().post(path, request)
        fault = self.fault()
        if fault is not None:
            return fault
        if not self.serves(request.get("model")):
            return self.error(404, f"model '{request.get('model')}' not found")
        return self._chat(request)

    def _embed(self, request: dict) -> Reply:
        """A fixed pseudo-vector per input text (8 bytes of its SHA-256 scaled to [-1, 1]);
        equal texts get equal vectors, nothing else is meant by them."""
        if not self.serves(request.get("model")):
            return self.error(404, f"model '{request.get('model')}' not found")
        texts = request.get("input") or []
        texts = [texts] if isinstance(texts, str) else texts
        vectors = [[b / 127.5 - 1.0 for b in hashlib.sha256(t.encode()).digest()[:8]] for t in texts]
        return json_reply(200, {"model": request["model"], "embeddings": vectors,
                                "prompt_eval_count": sum(word_count(t) for t in texts)})

    def _chat(self, request: dict) -> Reply:
        content = self.answer_for(request)
        final = {"model": request["model"], "created_at": "2026-01-01T00:00:00Z",
                 "message": {"role": "assistant", "content": content},
                 "done": True, "done_reason": "stop", "prompt_eval_count": prompt_words(request),
                 "eval_count": word_count(content), **dict.fromkeys(_TIMINGS, 1)}
        if not request.get("stream", True):
            return json_reply(200, final)
        # streamed: the text in a first line, the counts in the final one (as Ollama does)
        first = {key: value for key, value in final.items()
                 if key not in ("done_reason", "prompt_eval_count", "eval_count", *_TIMINGS)}
        first["done"] = False
        final["message"] = {"role": "assistant", "content": ""}
        body = (json.dumps(first) + "\n" + json.dumps(final) + "\n").encode()
        return 200, body, "application/x-ndjson"

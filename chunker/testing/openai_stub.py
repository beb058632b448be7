"""A stub of an OpenAI-compatible chat server for tests: `/v1/models` and `/v1/chat/completions`.

This is what vLLM, llama.cpp's server and LM Studio expose, and what `openai:NAME` with
`OPENAI_BASE_URL` talks to through the real langchain-openai client. Like the Ollama
stub it is honest about what it is: every response carries `X-Chunker-Stub: 1` and a
`chatcmpl-stub-N` id; it answers with canned JSON chosen by the name of the JSON schema
in the request's `response_format` (it does not read the prompt, it is not a model);
it records every request. Its token counts are derived from the request (whitespace-
separated words of all message contents) and from the answer, so a test can tell
reported usage from a constant. It fails on demand: HTTP 500, or a dropped connection.
Streaming is not served (chunker's nodes never stream); a streamed request gets HTTP 400.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from chunker.testing.ollama_stub import CANNED

CHAT_PATH = "/v1/chat/completions"
MODELS_PATH = "/v1/models"


def word_count(text: str) -> int:
    """The stub's token count: whitespace-separated words."""
    return len(text.split())


def prompt_words(request: dict) -> int:
    """Words in every message of a chat request (the stub's `prompt_tokens`)."""
    total = 0
    for message in request.get("messages", []):
        content = message.get("content") or ""
        if isinstance(content, list):  # content parts
            content = " ".join(p.get("text", "") for p in content if isinstance(p, dict))
        total += word_count(content)
    return total


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        pass  # a dropped connection is the point of some tests


class OpenAIStub:
    """Serve on 127.0.0.1 (a free port) while used as a context manager; `base_url` ends in /v1."""

    def __init__(self, models=("stub-model",)):
        self.models = list(models)
        self.requests: list[dict] = []
        self.fail_next = 0          # answer this many chat requests with HTTP 500
        self.drop_next = 0          # close this many chat connections without answering
        self.served_errors = 0      # HTTP 5xx answers given
        self.dropped = 0            # connections closed without an answer
        self.content: str | None = None  # override the answer text (e.g. invalid JSON)
        self._ids = 0
        self._lock = threading.Lock()
        self._server = _QuietServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> "OpenAIStub":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def chat_requests(self) -> list[dict]:
        return [r for r in self.requests if r.get("_path") == CHAT_PATH]

    def answer_for(self, request: dict) -> str:
        """The canned answer text for a request (by its JSON schema's name)."""
        if self.content is not None:
            return self.content
        fmt = request.get("response_format") or {}
        name = (fmt.get("json_schema") or {}).get("name", "") if isinstance(fmt, dict) else ""
        return json.dumps(CANNED.get(name, {}))

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

    def _handler(self):
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def _send(self, code: int, payload: dict) -> None:
                body = json.dumps(payload).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("X-Chunker-Stub", "1")
                self.end_headers()
                self.wfile.write(body)

            def _error(self, code: int, message: str) -> None:
                self._send(code, {"error": {"message": f"stub: {message}", "type": "stub_error",
                                            "code": code}})

            def do_GET(self):
                stub.requests.append({"_path": self.path, "_at": time.monotonic()})
                if self.path == MODELS_PATH:
                    data = [{"id": m, "object": "model", "owned_by": "chunker-stub"} for m in stub.models]
                    return self._send(200, {"object": "list", "data": data})
                self._error(404, f"no route {self.path}")

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                request = json.loads(self.rfile.read(length) or b"{}")
                request["_path"] = self.path
                request["_at"] = time.monotonic()
                request["_headers"] = dict(self.headers)
                stub.requests.append(request)
                if self.path != CHAT_PATH:
                    return self._error(404, f"no route {self.path}")
                if stub.drop_next > 0:
                    stub.drop_next -= 1
                    stub.dropped += 1
                    self.close_connection = True
                    self.connection.close()
                    return
                if stub.fail_next > 0:
                    stub.fail_next -= 1
                    stub.served_errors += 1
                    return self._error(500, "simulated server error")
                if request.get("stream"):
                    return self._error(400, "streaming is not served by this stub")
                if request.get("model") not in stub.models:
                    return self._error(404, f"model {request.get('model')!r} not found")
                return self._send(200, stub._completion(request))

        return Handler

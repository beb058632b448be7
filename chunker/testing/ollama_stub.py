"""A stub of Ollama's HTTP API for tests: just enough of `/api/tags` and `/api/chat`.

It is honest about what it is: every response carries `X-Chunker-Stub: 1`, it lists
one model per name it was told to serve, and it answers with canned JSON chosen by
the schema title in the request's `format` (it does not read the prompt, it is not a
model). It records every request (with its arrival time), so tests can check what the
real langchain-ollama client sent and when, and it can fail on demand: HTTP 500, a
dropped connection, or a stall longer than the client's timeout; it counts the failures
it served. Its token counts are not constants: `prompt_eval_count` is the number of
whitespace-separated words in the request's messages, `eval_count` that of the answer.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CANNED = {
    "Completeness": {"complete": True, "boundary_phrase": None},
    "CandidateBoundary": {"complete": True, "boundary": 1},
    "Rewrite": {"rewritten": "A canned self-sufficient context from the Ollama stub."},
    "RewriteWithSummary": {"rewritten": "A canned self-sufficient context from the Ollama stub.",
                           "summary": "A canned summary from the Ollama stub.", "slug": "stub-summary"},
    "Summary": {"summary": "A canned summary from the Ollama stub.", "slug": "stub-summary"},
    "Grouping": {"groups": []},  # invalid on purpose: the graph falls back to even groups
    "Synthesis": {"rewritten": "A canned block context.", "summary": "A canned block summary.",
                  "slug": "stub-block"},
}


def prompt_words(request: dict) -> int:
    """The stub's prompt token count: whitespace-separated words of every message."""
    return sum(len(str(m.get("content") or "").split()) for m in request.get("messages", []))


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        pass  # a client that gave up (timeout test) closes the socket mid-answer


class OllamaStub:
    def __init__(self, models=("qwen3:8b",)):
        self.models = list(models)
        self.requests: list[dict] = []
        self.fail_next = 0          # answer this many chat requests with HTTP 500
        self.down = False           # answer every chat request with HTTP 500
        self.drop_next = 0          # close the connection without answering
        self.stall_s = 0.0          # sleep before answering...
        self.stall_next = 0         # ...this many chat requests (0: all of them)
        self.stalled = 0
        self.served_errors = 0      # HTTP 5xx answers given
        self.dropped = 0            # connections closed without an answer
        self.content: str | None = None  # override the answer text (e.g. invalid JSON)
        self.embed_delay_s = 0.0    # sleep this long before each /api/embed answer
        self._server = _QuietServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> "OllamaStub":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def serves(self, name: str | None) -> bool:
        """Like Ollama: a name without a tag means its `:latest`."""
        return bool(name) and (name in self.models or f"{name}:latest" in self.models)

    def chat_requests(self) -> list[dict]:
        return [r for r in self.requests if r.get("_path") == "/api/chat"]

    def embed_requests(self) -> list[dict]:
        return [r for r in self.requests if r.get("_path") == "/api/embed"]

    def _embed(self, request: dict) -> tuple[int, bytes]:
        """`/api/embed`: a fixed pseudo-vector per input text (8 bytes of its SHA-256 scaled to
        [-1, 1]); equal texts get equal vectors, nothing else is meant by them."""
        import hashlib

        if not self.serves(request.get("model")):
            return 404, json.dumps({"error": f"model '{request.get('model')}' not found"}).encode()
        texts = request.get("input") or []
        texts = [texts] if isinstance(texts, str) else texts
        vectors = [[b / 127.5 - 1.0 for b in hashlib.sha256(t.encode()).digest()[:8]] for t in texts]
        return 200, json.dumps({"model": request["model"], "embeddings": vectors,
                                "prompt_eval_count": sum(len(t.split()) for t in texts)}).encode()

    def _answer(self, request: dict) -> str:
        if self.content is not None:
            return self.content
        fmt = request.get("format")
        title = fmt.get("title", "") if isinstance(fmt, dict) else ""
        return json.dumps(CANNED.get(title, {}))

    def _handler(self):
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def _send(self, code: int, body: bytes, ctype="application/json"):
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("X-Chunker-Stub", "1")
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                stub.requests.append({"_path": self.path})
                if self.path == "/api/tags":
                    models = [{"name": m, "model": m} for m in stub.models]
                    self._send(200, json.dumps({"models": models}).encode())
                else:
                    self._send(404, b'{"error": "not found"}')

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                request = json.loads(self.rfile.read(length) or b"{}")
                request["_path"] = self.path
                request["_at"] = time.monotonic()
                stub.requests.append(request)
                if self.path == "/api/embed":
                    time.sleep(stub.embed_delay_s)
                    return self._send(*stub._embed(request))
                if self.path != "/api/chat":
                    return self._send(404, b'{"error": "not found"}')
                if stub.drop_next > 0:
                    stub.drop_next -= 1
                    stub.dropped += 1
                    self.close_connection = True
                    self.connection.close()
                    return
                if stub.stall_s and (stub.stall_next == 0 or stub.stalled < stub.stall_next):
                    stub.stalled += 1
                    time.sleep(stub.stall_s)
                if stub.down or stub.fail_next > 0:
                    stub.fail_next = max(0, stub.fail_next - 1)
                    stub.served_errors += 1
                    return self._send(500, b'{"error": "stub: simulated server error"}')
                if not stub.serves(request.get("model")):
                    return self._send(404, json.dumps(
                        {"error": f"model '{request.get('model')}' not found"}).encode())
                content = stub._answer(request)
                final = {"model": request["model"], "created_at": "2026-01-01T00:00:00Z",
                         "message": {"role": "assistant", "content": "" if request.get("stream") else content},
                         "done": True, "done_reason": "stop", "prompt_eval_count": prompt_words(request),
                         "eval_count": len(content.split()),
                         "total_duration": 1, "load_duration": 1, "prompt_eval_duration": 1,
                         "eval_duration": 1}
                if request.get("stream", True):
                    first = {**final, "done": False, "message": {"role": "assistant", "content": content}}
                    for key in ("done_reason", "prompt_eval_count", "eval_count", "total_duration",
                                "load_duration", "prompt_eval_duration", "eval_duration"):
                        first.pop(key)
                    body = (json.dumps(first) + "\n" + json.dumps(final) + "\n").encode()
                    return self._send(200, body, "application/x-ndjson")
                final["message"]["content"] = content
                return self._send(200, json.dumps(final).encode())

        return Handler

"""The server under the Ollama and OpenAI-compatible test stubs: a quiet threaded HTTP server
on a free port of 127.0.0.1, request recording, faults on demand, canned answers.

A stub says what it is: every response carries `X-Chunker-Stub: 1`. It answers with canned
JSON chosen by the name of the JSON schema in the request (it does not read the prompt, it
is not a model) and records every request with its path (`_path`), arrival time (`_at`) and
headers (`_headers`). Faults for the requests a stub passes through `fault()`: a dropped
connection (`drop_next`), a stall (`stall_s` for the next `stall_next` requests, 0: all) and
HTTP 500 (`fail_next`, or every request while `down`); it counts what it served of them.
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

Reply = tuple[int, bytes, str]
"""An answer: HTTP status, body, content type."""
DROP: Reply = (0, b"", "")
"""Close the connection without answering."""


def json_reply(code: int, payload: object) -> Reply:
    return code, json.dumps(payload).encode(), "application/json"


def word_count(text: str) -> int:
    """The stubs' token count: whitespace-separated words."""
    return len(text.split())


def prompt_words(request: dict) -> int:
    """Words in every message of a chat request (the stubs' prompt token count)."""
    total = 0
    for message in request.get("messages", []):
        content = message.get("content") or ""
        if isinstance(content, list):  # OpenAI content parts
            content = " ".join(p.get("text", "") for p in content if isinstance(p, dict))
        total += word_count(str(content))
    return total


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # a client that gave up (timeout, dropped connection) closes the socket mid-answer


class HTTPStub:
    """Serve on 127.0.0.1 (a free port) while used as a context manager. A stub subclass
    answers `get(path)` and `post(path, request)` and names the environment (`env`) that
    points a client at it."""

    def __init__(self, models, port: int = 0) -> None:
        """`port` 0: a free one."""
        self.models = list(models)
        self.requests: list[dict] = []
        self.content: str | None = None  # override the answer text (e.g. invalid JSON)
        self.fail_next = 0          # answer this many requests with HTTP 500
        self.down = False           # answer every request with HTTP 500
        self.drop_next = 0          # close the connection without answering
        self.stall_s = 0.0          # sleep before answering...
        self.stall_next = 0         # ...this many requests (0: all of them)
        self.stalled = 0
        self.served_errors = 0      # HTTP 5xx answers given
        self.dropped = 0            # connections closed without an answer
        self._server = _QuietServer(("127.0.0.1", port), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def env(self) -> dict[str, str]:
        """The environment variables that point a client at this stub."""
        raise NotImplementedError

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def requests_to(self, path: str) -> list[dict]:
        return [r for r in self.requests if r.get("_path") == path]

    def answer_for(self, request: dict) -> str:
        """The canned answer text for a request (by its JSON schema's name)."""
        if self.content is not None:
            return self.content
        return json.dumps(CANNED.get(self.schema_name(request), {}))

    def schema_name(self, request: dict) -> str:
        raise NotImplementedError

    def error(self, code: int, message: str) -> Reply:
        """An error answer in the served API's shape."""
        raise NotImplementedError

    def fault(self) -> Reply | None:
        """The fault this request meets, if any, in this order: drop, stall, HTTP 500."""
        if self.drop_next > 0:
            self.drop_next -= 1
            self.dropped += 1
            return DROP
        if self.stall_s and (self.stall_next == 0 or self.stalled < self.stall_next):
            self.stalled += 1
            time.sleep(self.stall_s)
        if self.down or self.fail_next > 0:
            self.fail_next = max(0, self.fail_next - 1)
            self.served_errors += 1
            return self.error(500, "stub: simulated server error")
        return None

    def get(self, path: str) -> Reply:
        return self.error(404, f"stub: no route {path}")

    def post(self, path: str, request: dict) -> Reply:
        return self.error(404, f"stub: no route {path}")


def _handler(stub: HTTPStub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # keep test output clean
            pass

        def _record(self, request: dict) -> dict:
            request.update(_path=self.path, _at=time.monotonic(), _headers=dict(self.headers))
            stub.requests.append(request)
            return request

        def _send(self, reply: Reply) -> None:
            code, body, ctype = reply
            if reply == DROP:
                self.close_connection = True
                self.connection.close()
                return
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("X-Chunker-Stub", "1")
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            self._record({})
            self._send(stub.get(self.path))

        def do_POST(self):
            length = int(self.headers.get("Content-Length", 0))
            request = self._record(json.loads(self.rfile.read(length) or b"{}"))
            self._send(stub.post(self.path, request))

    return Handler

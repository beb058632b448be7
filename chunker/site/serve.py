"""`chunker serve OUT`: the site on 127.0.0.1 (the standard library's threading HTTP server),
kept current: a watcher rebuilds it whenever `hierarchy.json` changes (after `chunker update`,
or a new run with --force). A rebuild is written beside the site and swapped in whole
(build.py), so a request sees the old site or the new one, never half of one.
"""

from __future__ import annotations

import functools
import logging
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from chunker.site.build import SiteReport, write_site

log = logging.getLogger(__name__)

WATCH_INTERVAL_S = 1.0  # how often hierarchy.json's size and time are looked at


class _Handler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the standard library's name
        log.debug("%s %s", self.address_string(), format % args)


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


class SiteServer:
    """One served site: its server, its watcher, and the last build's report."""

    def __init__(self, out: Path, to: Path | None = None, port: int = 8000,
                 on_build=lambda report: None):
        self.out, self.to = Path(out), to
        self.on_build = on_build
        self.report: SiteReport = write_site(self.out, self.to)
        self.on_build(self.report)
        self._seen = _stamp(self.out / "hierarchy.json")
        handler = functools.partial(_Handler, directory=str(self.report.path))
        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self.httpd.daemon_threads = True
        self._stop = threading.Event()
        self._watcher = threading.Thread(target=self._watch, name="site-watch", daemon=True)

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/"

    def _watch(self) -> None:
        while not self._stop.wait(WATCH_INTERVAL_S):
            now = _stamp(self.out / "hierarchy.json")
            if now is None or now == self._seen:
                continue
            try:
                self.report = write_site(self.out, self.to)
                self._seen = now
                self.on_build(self.report)
            except Exception as exc:  # a tree half-written by a run in progress: try again later
                log.warning("could not rebuild the site yet: %s", exc)

    def serve_forever(self) -> None:
        self._watcher.start()
        try:
            self.httpd.serve_forever()
        finally:
            self._stop.set()
            self.httpd.server_close()

    def shutdown(self) -> None:
        self._stop.set()
        self.httpd.shutdown()

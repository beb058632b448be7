"""A throwaway PostgreSQL server for tests and benchmarks, from the installed binaries.

`with ThrowawayPostgres() as pg:` runs `initdb` and `pg_ctl start` in a fresh temporary
folder, the server listening only on a Unix socket in that folder (no TCP port, so nothing
else on the machine can reach it and two servers never collide), with durability turned
off (fsync, synchronous_commit: a test database need not survive a power cut). At exit the
server is stopped with `-m immediate` (nothing to flush worth waiting for) and the folder
removed. PostgreSQL refuses to run as root, so as root every server command runs as the
`postgres` user through `runuser`, and the folder is handed to that user.

    with ThrowawayPostgres() as pg:
        url = pg.create_database("bench")   # postgresql://postgres@/bench?host=SOCK&port=P

`stop(keep=True)` stops the server but keeps its folder, and `start()` then brings the same
server back (its data, socket and port): how a test loses the database mid-run and gets it back.

psycopg is imported only by `create_database`, so this module loads without the
[postgres] extra (the test fixture can then skip with a reason instead of failing to import).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from urllib.parse import quote

_SEARCH = ("/usr/local/bin", "/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin",
           "/usr/lib/postgresql/17/bin")
"""Where the binaries lie when they are not on PATH (Debian keeps them per major version)."""
_SETTINGS = ("-c listen_addresses='' -c fsync=off -c synchronous_commit=off "
             "-c full_page_writes=off -c max_connections=200")


class PostgresUnavailable(RuntimeError):
    """The server could not be set up here (no binaries, no `postgres` user, initdb failed)."""


def _binary(name: str) -> str:
    found = shutil.which(name) or next(
        (str(Path(d) / name) for d in _SEARCH if (Path(d) / name).is_file()), None)
    if found is None:
        raise PostgresUnavailable(f"{name} not found (on PATH or in {', '.join(_SEARCH)})")
    return found


def _free_port() -> int:
    # Only names the socket file (.s.PGSQL.PORT); a free TCP port keeps it unsurprising.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ThrowawayPostgres:
    """One PostgreSQL server in a temporary folder under `base_dir` (default: the system's
    temporary folder, which the `postgres` user can traverse, unlike pytest's per-user one)."""

    def __init__(self, base_dir: str | Path | None = None, *, start_timeout_s: int = 60):
        self.base_dir = base_dir
        self.start_timeout_s = start_timeout_s
        self.root: Path | None = None
        self.port = _free_port()
        self._as_postgres: list[str] = []

    @property
    def socket_dir(self) -> Path:
        assert self.root is not None, "the server is not started"
        return self.root / "sock"

    @property
    def data_dir(self) -> Path:
        assert self.root is not None, "the server is not started"
        return self.root / "data"

    def url(self, dbname: str = "postgres") -> str:
        """A libpq URL for `dbname` on this server, through its socket, as user postgres."""
        return (f"postgresql://postgres@/{quote(dbname)}"
                f"?host={quote(str(self.socket_dir), safe='/')}&port={self.port}")

    def create_database(self, name: str) -> str:
        """CREATE DATABASE `name`; returns its URL."""
        import psycopg
        from psycopg import sql

        with psycopg.connect(self.url(), autocommit=True, connect_timeout=10) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return self.url(name)

    def _run(self, *argv: str) -> subprocess.CompletedProcess:
        proc = subprocess.run([*self._as_postgres, *argv], capture_output=True, text=True,
                              timeout=self.start_timeout_s)
        if proc.returncode != 0:
            log = self.root / "server.log" if self.root else None
            tail = log.read_text(errors="replace")[-2000:] if log and log.exists() else ""
            raise PostgresUnavailable(f"{Path(argv[0]).name} failed (exit {proc.returncode}): "
                                      f"{(proc.stderr or proc.stdout).strip()[-2000:]}\n{tail}".strip())
        return proc

    def start(self) -> ThrowawayPostgres:
        """Set up and start a new server, or start again the one `stop(keep=True)` stopped."""
        if self.root is not None:  # kept by stop(keep=True): the same data, socket and port
            self._pg_ctl_start()
            return self
        initdb, _ = _binary("initdb"), _binary("pg_ctl")  # both there, before anything is made
        self.root = Path(tempfile.mkdtemp(prefix="chunker-pg-", dir=self.base_dir))
        try:
            self.socket_dir.mkdir()
            if os.geteuid() == 0:
                try:
                    shutil.chown(self.root, user="postgres")
                    shutil.chown(self.socket_dir, user="postgres")
                except LookupError as exc:
                    raise PostgresUnavailable("running as root and there is no `postgres` user "
                                              "to run the server as") from exc
                self._as_postgres = ["runuser", "-u", "postgres", "--"]
            self._run(initdb, "-D", str(self.data_dir), "--auth=trust", "-U", "postgres",
                      "-E", "UTF8", "--no-sync", "--no-instructions")
            self._pg_ctl_start()
        except BaseException:
            self._remove()
            raise
        return self

    def _pg_ctl_start(self) -> None:
        self._run(_binary("pg_ctl"), "-D", str(self.data_dir), "-l", str(self.root / "server.log"),
                  "-w", "-t", str(self.start_timeout_s),
                  "-o", f"{_SETTINGS} -k {self.socket_dir} -p {self.port}", "start")

    def stop(self, *, keep: bool = False) -> None:
        """Stop the server at once (its clients see their connections drop); with `keep`, its
        folder stays for `start()` to bring it back, else the folder is removed."""
        if self.root is None:
            return
        try:
            if (self.data_dir / "postmaster.pid").exists():
                subprocess.run([*self._as_postgres, _binary("pg_ctl"), "-D", str(self.data_dir),
                                "stop", "-m", "immediate", "-w"], capture_output=True, timeout=60)
        finally:
            if not keep:
                self._remove()

    def _remove(self) -> None:
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None

    def __enter__(self) -> ThrowawayPostgres:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

"""Every LLM call, logged to the run's SQLite (`.chunker/calls.sqlite`), or to PostgreSQL.

One row per request: node, task, the full prompt and response, tokens, duration and
outcome, so that `chunker inspect OUT --calls` can show why a boundary or a summary
came out as it did. A resumed run appends: a request re-issued after a crash shows
up twice, which is exactly what one wants to see.

A log target is the run's folder, or `postgresql://...#LOGNAME` for a run whose store is
PostgreSQL (`call_log_target`): the rows then go to that database's `chunker_calls` table
under LOGNAME (calllog_pg.py), imported only then, so that the CLI starts without psycopg.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

from chunker.persistence.store_url import is_store_url

_SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    ts REAL NOT NULL,
    node TEXT NOT NULL,
    task TEXT NOT NULL,
    prompt TEXT NOT NULL,
    response TEXT,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    duration_ms REAL,
    outcome TEXT NOT NULL,
    grounding TEXT
)
"""
_CONNECTIONS: dict[str, sqlite3.Connection] = {}
_LOCK = threading.Lock()


def call_log_target(url: str, name: str) -> str:
    """The log target of the run `name` in the PostgreSQL database `url`."""
    return f"{url}#{name}"


def _on_postgres(target: str | Path | None) -> bool:
    return isinstance(target, str) and is_store_url(target)


def calls_path(calls_dir: str | Path) -> Path:
    """Where the log of the run in `calls_dir` (its output folder) lies."""
    return Path(calls_dir) / ".chunker" / "calls.sqlite"


def _connection(path: Path) -> sqlite3.Connection:
    key = str(path)
    with _LOCK:
        if key not in _CONNECTIONS:
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(key, check_same_thread=False, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(_SCHEMA)
            columns = {row[1] for row in conn.execute("PRAGMA table_info(calls)")}
            if "grounding" not in columns:  # a log written by an older version
                conn.execute("ALTER TABLE calls ADD COLUMN grounding TEXT")
            _CONNECTIONS[key] = conn
        return _CONNECTIONS[key]


def log_call(calls_dir: str | None, *, node: str, task: str, prompt: str, response: str | None,
             prompt_tokens: int, completion_tokens: int, duration_ms: float, outcome: str) -> int | None:
    """Append one call to the log `calls_dir` (a folder or a PostgreSQL log target); returns
    its id (for `annotate`). No target (a served or embedded run): nothing is logged."""
    if not calls_dir:
        return None
    if _on_postgres(calls_dir):
        from chunker.llm import calllog_pg

        return calllog_pg.log_call(calls_dir, node=node, task=task, prompt=prompt, response=response,
                                   prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                                   duration_ms=duration_ms, outcome=outcome)
    conn = _connection(calls_path(calls_dir))
    with _LOCK:
        cursor = conn.execute(
            "INSERT INTO calls (ts, node, task, prompt, response, prompt_tokens, completion_tokens,"
            " duration_ms, outcome) VALUES (?,?,?,?,?,?,?,?,?)",
            (time.time(), node, task, prompt, response, prompt_tokens, completion_tokens,
             duration_ms, outcome),
        )
        return cursor.lastrowid


def annotate(calls_dir: str | None, call_id: int | None, grounding: str) -> None:
    """Record why the answer of a logged call was kept or rejected by the grounding check."""
    if not calls_dir or call_id is None:
        return
    if _on_postgres(calls_dir):
        from chunker.llm import calllog_pg

        calllog_pg.annotate(calls_dir, call_id, grounding)
        return
    conn = _connection(calls_path(calls_dir))
    with _LOCK:
        # one call can carry several texts (combined mode: rewrite, summary, slug)
        conn.execute("UPDATE calls SET grounding = COALESCE(grounding || '; ', '') || ? WHERE id = ?",
                     (grounding, call_id))


def read_calls(calls_dir: str | Path, limit: int | None = None) -> list[dict]:
    """The log's calls in the order they were made, the first `limit` of them if given."""
    if _on_postgres(calls_dir):
        from chunker.llm import calllog_pg

        return calllog_pg.read_calls(str(calls_dir), limit)
    path = calls_path(calls_dir)
    if not path.exists():
        return []
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        conn.row_factory = sqlite3.Row
        sql = "SELECT * FROM calls ORDER BY id" + (f" LIMIT {int(limit)}" if limit else "")
        return [dict(row) for row in conn.execute(sql)]
    finally:
        conn.close()

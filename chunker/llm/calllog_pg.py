"""The LLM call log in PostgreSQL: the half of `calllog` for a `postgresql://...#LOGNAME` target.

Many runs share one database, so every row carries the name of its run's log (the URL's
fragment) in `log`, and one table `chunker_calls` holds them all, with the SQLite `calls`
table's columns otherwise. Ids are the table's, so one log's ids are increasing but not
consecutive. One small connection pool per database, created on first use (with the table,
if missing) and kept for the process: a run logs from several threads at once. calllog
imports this module only when a target is a URL, so the CLI starts without psycopg.
"""

from __future__ import annotations

import atexit
import threading
import time

from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from chunker.persistence.store_url import connect, open_pool, setup_lock

TABLE = "chunker_calls"
COLUMNS = ("id", "ts", "node", "task", "prompt", "response", "prompt_tokens", "completion_tokens",
           "duration_ms", "outcome", "grounding")
"""What `read_calls` returns for each row: the SQLite log's columns, in its order."""
_SCHEMA = (f"""
CREATE TABLE IF NOT EXISTS {TABLE} (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    log TEXT NOT NULL,
    ts DOUBLE PRECISION NOT NULL,
    node TEXT NOT NULL,
    task TEXT NOT NULL,
    prompt TEXT NOT NULL,
    response TEXT,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    duration_ms DOUBLE PRECISION,
    outcome TEXT NOT NULL,
    grounding TEXT
)""", f"CREATE INDEX IF NOT EXISTS {TABLE}_log_id ON {TABLE} (log, id)")
_POOLS: dict[str, ConnectionPool] = {}
_LOCK = threading.Lock()


def split_target(target: str) -> tuple[str, str]:
    """`postgresql://...#NAME` -> (the database URL, the log's name)."""
    url, sep, name = target.rpartition("#")
    if not sep or not url or not name:
        raise ValueError("a PostgreSQL call log is named by its URL's fragment: postgresql://...#NAME")
    return url, name


def _pool(url: str) -> ConnectionPool:
    with _LOCK:
        pool = _POOLS.get(url)
        if pool is None:
            with connect(url) as conn, setup_lock(conn):  # StoreUnavailable, with the reason
                for statement in _SCHEMA:
                    conn.execute(statement)
            pool = open_pool(url, name="chunker-calllog", max_size=4)
            if not _POOLS:
                atexit.register(close_pools)
            _POOLS[url] = pool
        return pool


def close_pools() -> None:
    """Close every pool (at exit; a test may call it to let its databases go)."""
    with _LOCK:
        pools = list(_POOLS.values())
        _POOLS.clear()
    for pool in pools:
        pool.close()


def log_call(target: str, *, node: str, task: str, prompt: str, response: str | None,
             prompt_tokens: int, completion_tokens: int, duration_ms: float, outcome: str) -> int:
    url, log = split_target(target)
    with _pool(url).connection() as conn:
        row = conn.execute(
            f"INSERT INTO {TABLE} (log, ts, node, task, prompt, response, prompt_tokens,"
            " completion_tokens, duration_ms, outcome) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)"
            " RETURNING id",
            (log, time.time(), node, task, prompt, response, prompt_tokens, completion_tokens,
             duration_ms, outcome)).fetchone()
    return int(row[0])


def annotate(target: str, call_id: int, grounding: str) -> None:
    url, log = split_target(target)
    with _pool(url).connection() as conn:
        conn.execute(f"UPDATE {TABLE} SET grounding = COALESCE(grounding || '; ', '') || %s"
                     " WHERE id = %s AND log = %s", (grounding, call_id, log))


def read_calls(target: str, limit: int | None = None) -> list[dict]:
    url, log = split_target(target)
    sql = f"SELECT {', '.join(COLUMNS)} FROM {TABLE} WHERE log = %s ORDER BY id"
    with _pool(url).connection() as conn, conn.cursor(row_factory=dict_row) as cur:
        cur.execute(sql + (" LIMIT %s" if limit else ""), (log, int(limit)) if limit else (log,))
        return cur.fetchall()

"""A `--store` URL: what one is, how it is shown, the one error an unreachable store raises,
connecting to it, and the lock every schema set-up in its database takes.

Kept apart from `postgres.py` because the CLI calls `is_store_url` while parsing its
options, before any command runs: importing psycopg and LangGraph's PostgreSQL saver then
would cost every `chunker --help` (tests/test_startup.py). psycopg is imported here only by
`connect`, when a URL is actually used.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

if TYPE_CHECKING:
    import psycopg

SCHEMES = ("postgresql://", "postgres://")
CONNECT_TIMEOUT_S = 5
"""libpq's connect_timeout: an unreachable host fails in seconds, not the OS's minutes."""


class StoreUnavailable(Exception):
    """The store cannot be used; the message is one line, naming the URL without its password."""


def is_store_url(value: str | None) -> bool:
    return bool(value) and value.strip().lower().startswith(SCHEMES)


def redact(url: str) -> str:
    """`url` without its password (neither `user:PASSWORD@` nor `?password=`), for messages."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, hosts = netloc.rpartition("@")
        netloc = f"{userinfo.partition(':')[0]}@{hosts}"
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                       if k.lower() != "password"], safe="/")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _reason(exc: BaseException, url: str) -> str:
    """What libpq says went wrong, on one line: of 'connection failed: connection to server
    at "h", port 1 failed: Connection refused' (and a hint on the next line) only
    'connection refused'; the password scrubbed, should a message ever echo it."""
    first = next((line.strip() for line in str(exc).splitlines() if line.strip()), "")
    reason = re.sub(r"^(FATAL|ERROR):\s*", "", first.rpartition("failed: ")[2].strip()).strip()
    reason = reason[:1].lower() + reason[1:] if reason else type(exc).__name__
    password = urlsplit(url).password
    for secret in {password, unquote(password)} if password else ():
        reason = reason.replace(secret, "***")
    return reason


def unavailable(url: str, exc: BaseException, *, doing: str = "reach") -> StoreUnavailable:
    """The StoreUnavailable for `exc`: "cannot {doing} the store URL: reason"."""
    return StoreUnavailable(f"cannot {doing} the store {redact(url)}: {_reason(exc, url)}")


def connect(url: str, *, timeout_s: float = CONNECT_TIMEOUT_S, **kwargs) -> psycopg.Connection:
    """One psycopg connection to `url` (autocommit), or StoreUnavailable saying why not."""
    import psycopg

    try:
        return psycopg.connect(url, autocommit=True, connect_timeout=max(1, round(timeout_s)),
                               **kwargs)
    except psycopg.Error as exc:
        raise unavailable(url, exc) from None


SETUP_LOCK = 0x43484E4B  # "CHNK": one advisory lock for every schema set-up in the database


@contextmanager
def setup_lock(conn: psycopg.Connection, *, timeout_s: float = 120.0) -> Iterator[None]:
    """Hold the database's set-up lock on `conn` (autocommit) while the body creates tables:
    two workers starting on a fresh database would otherwise both run the same migrations
    and one fail on a duplicate. It is polled with pg_try_advisory_lock rather than waited
    for, because a session blocked in pg_advisory_lock sits in an open transaction, and
    LangGraph's migrations run CREATE INDEX CONCURRENTLY, which waits for every open
    transaction of the database: that would be a deadlock no detector sees."""
    deadline = time.monotonic() + timeout_s
    while not conn.execute("SELECT pg_try_advisory_lock(%s)", (SETUP_LOCK,)).fetchone()[0]:
        if time.monotonic() > deadline:
            raise TimeoutError(f"another process held the set-up lock for {timeout_s:.0f} s")
        time.sleep(0.05)
    try:
        yield
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (SETUP_LOCK,))


def open_pool(url: str, *, name: str, max_size: int, timeout_s: float = CONNECT_TIMEOUT_S, **kwargs):
    """A psycopg pool of autocommit connections to `url`, open and checked (a worker outlives
    server restarts: it hands out only connections that still answer), or StoreUnavailable
    when no connection comes within twice `timeout_s`. `kwargs`: the connections' own."""
    from psycopg_pool import ConnectionPool, PoolTimeout

    pool = ConnectionPool(url, min_size=1, max_size=max_size, open=False, name=name,
                          kwargs={"autocommit": True, "connect_timeout": max(1, round(timeout_s)), **kwargs},
                          check=ConnectionPool.check_connection)
    try:
        pool.open(wait=True, timeout=2 * timeout_s)
    except PoolTimeout as exc:
        pool.close()
        raise unavailable(url, exc) from None
    return pool

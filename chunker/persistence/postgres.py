"""The run's checkpoints and store in PostgreSQL (`--store postgresql://...`).

`open_postgres(url)` gives what `persistent_graph` builds from SQLite today, for a database
that many runs and workers share: a LangGraph PostgresSaver that prunes its history and a
PostgresStore, both over one psycopg connection pool, since parallel documents run in
threads and one connection cannot serve two of them at once. LangGraph's PostgresSaver
still takes a lock of its own around every query (PostgresStore around every batch), so one
saver runs its threads' queries one at a time; the pool lets the saver and the store work
at once, and savers built over the same pool would not wait for each other. The pool's
connections are autocommit, with prepared statements off and dict rows, which is what
LangGraph's PostgreSQL classes expect (their `setup` runs CREATE INDEX CONCURRENTLY, which
cannot run in a transaction). An unreachable server, a wrong password or a missing database
raise StoreUnavailable within seconds, its message naming the URL without the password.

Pruning, as in the SQLite saver (`pruning_saver.py`): LangGraph writes one checkpoint per
step, and resuming needs only the latest, so after every `put` the thread keeps its newest
`keep` checkpoints; older ones go with their pending writes and with the blobs (channel
values, keyed by channel and version) that only they referenced. All of it is one SQL
statement, so it is atomic even on an autocommit connection: a crash mid-prune cannot leave
a kept checkpoint without its blobs. Only blobs a deleted checkpoint referenced and no kept
one does are removed; a blob a concurrent `put` has just written is referenced by no
deleted checkpoint, so it is never touched.

What pruning does to the disk, honestly: PostgreSQL's DELETE only marks rows dead. Their
space is reused once VACUUM has run over the table, which autovacuum does on its own after
enough changes (by default a fifth of the table's rows plus 50); the files never shrink
unless someone runs VACUUM FULL. So the tables plateau at the live checkpoints plus the dead
rows between two autovacuum passes, rather than growing with the document's step count;
they do not stay byte-for-byte constant the way SQLite's reused pages make them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.store.postgres import PostgresStore
import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from chunker.llm.calllog_pg import TABLE as CALLS_TABLE
from chunker.persistence.pruning_saver import KEEP_CHECKPOINTS, below
from chunker.persistence.store_url import (CONNECT_TIMEOUT_S, StoreUnavailable, connect, is_store_url,
                                           open_pool, redact, setup_lock, unavailable)

__all__ = ["PgBackend", "PruningPostgresSaver", "StoreUnavailable", "database_bytes", "is_store_url",
           "open_postgres", "redact"]

TABLES = ("checkpoints", "checkpoint_blobs", "checkpoint_writes", "checkpoint_migrations",
          "store", "store_migrations", "store_vectors", "vector_migrations", CALLS_TABLE)
"""Every table chunker (through LangGraph) keeps in the database; those absent are skipped."""

_PRUNE_SQL = """
WITH bound AS (
    SELECT checkpoint_id FROM checkpoints
    WHERE thread_id = %(thread_id)s AND checkpoint_ns = %(ns)s
    ORDER BY checkpoint_id DESC LIMIT 1 OFFSET %(offset)s
), old_writes AS (
    DELETE FROM checkpoint_writes w USING bound
    WHERE w.thread_id = %(thread_id)s AND w.checkpoint_ns = %(ns)s
      AND w.checkpoint_id < bound.checkpoint_id
), dropped AS (
    DELETE FROM checkpoints c USING bound
    WHERE c.thread_id = %(thread_id)s AND c.checkpoint_ns = %(ns)s
      AND c.checkpoint_id < bound.checkpoint_id
    RETURNING c.checkpoint -> 'channel_versions' AS versions
), freed AS (
    SELECT DISTINCT v.key AS channel, v.value AS version
    FROM dropped CROSS JOIN LATERAL jsonb_each_text(dropped.versions) AS v
), kept AS (
    SELECT DISTINCT v.key AS channel, v.value AS version
    FROM checkpoints c CROSS JOIN bound
    CROSS JOIN LATERAL jsonb_each_text(c.checkpoint -> 'channel_versions') AS v
    WHERE c.thread_id = %(thread_id)s AND c.checkpoint_ns = %(ns)s
      AND c.checkpoint_id >= bound.checkpoint_id
)
DELETE FROM checkpoint_blobs b USING freed
WHERE b.thread_id = %(thread_id)s AND b.checkpoint_ns = %(ns)s
  AND b.channel = freed.channel AND b.version = freed.version
  AND NOT EXISTS (SELECT 1 FROM kept WHERE kept.channel = freed.channel
                                       AND kept.version = freed.version)
"""
# Checkpoint ids are uuid6, time-ordered, so their string order is step order (as in SQLite).
# Every CTE reads the snapshot from before the statement, so `kept` names its rows by the
# bound rather than by "not deleted". Writes go by checkpoint id, not by the deleted rows:
# LangGraph saves a step's writes in the background, and they may land before their
# checkpoint does; those belong to a newer checkpoint and stay.


_PRUNE_ENDED_SQL = """
WITH ended AS (
    SELECT checkpoint_ns FROM checkpoints
    WHERE thread_id = %(thread_id)s AND checkpoint_ns > %(low)s AND checkpoint_ns < %(high)s
    GROUP BY checkpoint_ns HAVING max(checkpoint_id) < %(checkpoint_id)s
), old_writes AS (
    DELETE FROM checkpoint_writes
    WHERE thread_id = %(thread_id)s AND checkpoint_ns IN (SELECT checkpoint_ns FROM ended)
), old_blobs AS (
    DELETE FROM checkpoint_blobs
    WHERE thread_id = %(thread_id)s AND checkpoint_ns IN (SELECT checkpoint_ns FROM ended)
)
DELETE FROM checkpoints
WHERE thread_id = %(thread_id)s AND checkpoint_ns IN (SELECT checkpoint_ns FROM ended)
"""
"""The checkpoints of the subgraphs' runs that ended (`pruning_saver.py` says why): the
namespaces below the one just put whose every checkpoint is older than it (the regions still
running beside one another, and the subgraphs of the step it starts, keep theirs)."""


class PruningPostgresSaver(PostgresSaver):
    """A PostgresSaver keeping only the newest `keep` checkpoints of each thread and namespace,
    and none of the subgraphs' runs that ended (as `PruningSqliteSaver`)."""

    def __init__(self, conn, *, keep: int = KEEP_CHECKPOINTS, **kwargs):
        super().__init__(conn, **kwargs)
        self.keep = max(1, keep)

    def put(self, config, checkpoint, metadata, new_versions):
        result = super().put(config, checkpoint, metadata, new_versions)
        conf = result["configurable"]
        thread_id, ns = str(conf["thread_id"]), conf["checkpoint_ns"]
        # _cursor takes the saver's lock and a pooled connection, as every other call does.
        with self._cursor() as cur:
            cur.execute(_PRUNE_SQL, {"thread_id": thread_id, "ns": ns, "offset": self.keep - 1})
            low, high = below(ns)
            cur.execute(_PRUNE_ENDED_SQL, {"thread_id": thread_id, "low": low, "high": high,
                                           "checkpoint_id": checkpoint["id"]})
        return result


@dataclass
class PgBackend:
    """What a run persists to: the checkpointer, the store, and the pool under both."""

    saver: PruningPostgresSaver
    store: PostgresStore
    pool: ConnectionPool
    url: str = field(repr=False)  # holds the password; `redact(url)` to show it


@contextmanager
def open_postgres(url: str, *, pool_size: int = 8,
                  connect_timeout_s: float = CONNECT_TIMEOUT_S) -> Iterator[PgBackend]:
    """The saver and store on `url`, their tables created or migrated; the pool is closed at
    exit. Raises StoreUnavailable (within about `connect_timeout_s`) when the database cannot
    be reached. The database itself must exist: creating one is the administrator's call."""
    # A first plain connection says *why* a server is unreachable (the pool only times out),
    # then holds the set-up lock while both classes create their tables.
    with connect(url, timeout_s=connect_timeout_s) as probe:
        pool = open_pool(url, name="chunker-store", max_size=max(2, pool_size), timeout_s=connect_timeout_s,
                         prepare_threshold=0, row_factory=dict_row)
        try:
            saver, store = PruningPostgresSaver(pool), PostgresStore(pool)
            with setup_lock(probe):
                saver.setup()
                store.setup()
        except psycopg.Error as exc:  # e.g. no right to create tables: one line, as above
            pool.close()
            raise unavailable(url, exc, doing="set up") from None
        except BaseException:
            pool.close()
            raise
    try:
        yield PgBackend(saver=saver, store=store, pool=pool, url=url)
    finally:
        pool.close()


def database_bytes(url: str) -> int:
    """Bytes on disk of chunker's tables in `url`'s database, indexes and TOAST included (of
    every run in it, and dead rows until VACUUM reclaims them)."""
    with connect(url) as conn:
        row = conn.execute(
            "SELECT COALESCE(SUM(pg_total_relation_size(to_regclass(t))), 0)::bigint "
            "FROM unnest(%s::text[]) AS t WHERE to_regclass(t) IS NOT NULL", (list(TABLES),)
        ).fetchone()
    return int(row[0])

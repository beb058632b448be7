"""The corpus's documents as jobs in procrastinate's PostgreSQL queue (`--workers`).

One job per document (`chunker.document`, arguments: the corpus key and the document's index
in run.json's list), on the `chunker` queue, with a queueing lock per document so that
enqueuing again (a resume, a second `chunker run --workers 0`) never queues it twice.
procrastinate claims a job for one worker at a time (`SELECT ... FOR UPDATE SKIP LOCKED`),
keeps each worker's heartbeat, and retries a failed job up to `RETRIES` times. A worker
killed mid-document stops beating: once it has been silent for `STALLED_AFTER_S` its job
is put back in the queue (`requeue_stalled`) and another worker resumes the document from
its checkpoint, repeating at most the calls that were in flight.

The corpus itself (its run.json record and where OUT is) is kept in the store beside the
documents' records, so a worker on another machine needs only the database's URL.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from chunker.runs.record import CorpusRun, dump

QUEUE = "chunker"
TASK = "chunker.document"
RETRIES = 2
"""A document's job is tried `RETRIES + 1` times before the document is marked failed."""
HEARTBEAT_S = 2.0
"""How often a worker says it is alive (procrastinate's `update_heartbeat_interval`)."""
STALLED_AFTER_S = 10.0
"""A worker silent this long is taken for dead: its job goes back to the queue."""
CORPUS_NS = ("corpus_jobs",)
"""Where the store keeps each queued corpus's meta and OUT, by corpus key."""

Job = Callable[..., None]


def make_app(url: str, job: Job | None = None):
    """procrastinate's App on the database, with the document task (`job`, for a worker)."""
    import procrastinate

    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=url))

    def document(context, corpus_key: str, index: int) -> None:
        if job is None:
            raise RuntimeError("this process only enqueues")
        job(context, corpus_key=corpus_key, index=index)

    app.task(name=TASK, queue=QUEUE, pass_context=True,
             retry=procrastinate.RetryStrategy(max_attempts=RETRIES))(document)
    return app


def ensure_schema(url: str, app) -> None:
    """procrastinate's tables, created once per database (under a lock: workers may start together)."""
    from chunker.persistence.store_url import connect, setup_lock

    with connect(url) as conn, setup_lock(conn):
        exists = conn.execute("SELECT to_regclass('procrastinate_jobs') IS NOT NULL").fetchone()[0]
        if not exists:
            conn.execute(app.schema_manager.get_schema())


def save_corpus(store, record: CorpusRun, out: Path) -> None:
    """The corpus's record beside its queue, for workers that have no OUT of their own."""
    store.put(CORPUS_NS, record.corpus_key, {"meta": dump(record), "out": str(out)}, index=False)


def load_corpus(store, corpus_key: str) -> tuple[CorpusRun, Path]:
    item = store.get(CORPUS_NS, corpus_key)
    if item is None:
        raise LookupError(f"no corpus {corpus_key} in the store")
    return CorpusRun.model_validate(item.value["meta"]), Path(item.value["out"])


def enqueue(url: str, record: CorpusRun, indices: list[int]) -> int:
    """Queue the documents at `indices`; returns how many were new to the queue."""
    from procrastinate.exceptions import AlreadyEnqueued

    app = make_app(url)
    queued = 0
    ensure_schema(url, app)
    with app.open():
        task = app.tasks[TASK]
        for i in indices:
            unit = record.documents[i]
            try:
                task.configure(queueing_lock=f"{record.corpus_key}:{unit.key}").defer(
                    corpus_key=record.corpus_key, index=i)
                queued += 1
            except AlreadyEnqueued:
                pass  # waiting in the queue already
    return queued


@dataclass(frozen=True)
class QueueStatus:
    queued: int
    running: int
    done: int
    failed: int


_STATUS = {"todo": "queued", "doing": "running", "succeeded": "done", "failed": "failed",
           "cancelled": "failed", "aborted": "failed"}


def queue_status(conn, corpus_key: str) -> QueueStatus:
    """The corpus's document jobs by state (each document's latest job counts once)."""
    rows = conn.execute(
        "SELECT DISTINCT ON (args->>'index') status::text FROM procrastinate_jobs "
        "WHERE task_name = %s AND args->>'corpus_key' = %s ORDER BY args->>'index', id DESC",
        (TASK, corpus_key)).fetchall()
    counts = {"queued": 0, "running": 0, "done": 0, "failed": 0}
    for (status,) in rows:
        counts[_STATUS.get(status, "failed")] += 1
    return QueueStatus(**counts)


async def requeue_stalled(app) -> int:
    """Put back in the queue the jobs of workers silent for `STALLED_AFTER_S`."""
    jobs = await app.job_manager.get_stalled_jobs(seconds_since_heartbeat=STALLED_AFTER_S)
    for job in jobs:
        await app.job_manager.retry_job(job)
    return len(jobs)


async def unfinished(app) -> int:
    """Jobs of the queue still waiting or running."""
    row = await app.connector.execute_query_one_async(
        "SELECT count(*) AS n FROM procrastinate_jobs WHERE queue_name = %(queue)s "
        "AND status IN ('todo', 'doing')", queue=QUEUE)
    return int(row["n"])

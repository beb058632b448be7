"""`chunker worker` and `chunker run FOLDER --store URL --workers N`: a corpus's documents
through the PostgreSQL job queue (chunker/corpus/queue.py, chunker/corpus/worker.py).

The URL travels to the worker processes in the environment (`CHUNKER_STORE`), never on
their command line, where `ps` would show its password.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from typing import Optional

import typer

from chunker.cli.common import EXIT_FAILED, checked_store, err, fail, report, setup_logging

STORE_ENV = "CHUNKER_STORE"
POLL_S = 2.0
"""How often `run --workers N` reads the queue's state while its workers run."""


def worker_command(
    store: Optional[str] = typer.Option(None, "--store", envvar=STORE_ENV,
                                        help="The database the corpus was queued in (postgresql://...; "
                                             f"or the {STORE_ENV} environment variable)."),
    exit_when_idle: bool = typer.Option(False, "--exit-when-idle", help="Stop once no document is "
                                        "queued or being worked on (else wait for more, forever)."),
    quiet: bool = typer.Option(False, "--quiet", "-q"),
    verbose: bool = typer.Option(False, "--verbose", "-v"),
) -> None:
    """Work on queued corpus documents (`chunker run FOLDER --store URL --workers 0` queues them).

    Any machine that reaches the database can join; each document is claimed by one worker
    at a time, resumed from its checkpoint if a worker died on it, and the worker that
    finishes the last one writes the corpus's tree to its OUT."""
    from chunker.corpus.worker import work
    from chunker.persistence.store_url import redact

    setup_logging(quiet, verbose)
    if not verbose:  # the queue's and the pools' own retries and tracebacks: one line says it
        for name in ("procrastinate", "psycopg", "asyncio"):  # psycopg: its pools and its pipelines
            logging.getLogger(name).setLevel(logging.CRITICAL)
    if store is None:
        raise fail(f"--store URL (or {STORE_ENV}) is required", 2)
    url = checked_store(store)

    def lost(reason: str) -> None:
        # at once: the pools would wait out their timeouts one after another; the document
        # in hand keeps its checkpoint and its job is requeued once the database is back
        fail(f"lost the store {redact(url)}: {reason}; start `chunker worker` again once it is back "
             "(documents resume from their checkpoints)", EXIT_FAILED)
        sys.stderr.flush()
        os._exit(EXIT_FAILED)

    try:
        work(url, exit_when_idle=exit_when_idle, on_lost=lost, name=f"chunker-{os.getpid()}")
    except KeyboardInterrupt:
        raise fail("interrupted; the document in hand resumes from its checkpoint on the next worker",
                   EXIT_FAILED)
    except Exception as exc:
        if not _lost_database(exc):
            raise
        from chunker.persistence.store_url import redact

        raise fail(f"lost the store {redact(url)}: {' '.join(str(exc).split())[:200]}; start "
                   "`chunker worker` again once it is back (documents resume from their checkpoints)",
                   EXIT_FAILED)


def _lost_database(exc: BaseException) -> bool:
    import psycopg
    from procrastinate.exceptions import ConnectorException

    return isinstance(exc, (psycopg.OperationalError, ConnectorException)) or (
        exc.__cause__ is not None and _lost_database(exc.__cause__))


def queue_corpus(run_dir, record, workers: int, *, started: float, quiet: bool, as_json: bool) -> None:
    """Queue the corpus's documents; with `workers` > 0, run that many workers here and wait
    for the tree."""
    from chunker.corpus import queue
    from chunker.persistence.postgres import open_postgres
    from chunker.persistence.store_url import redact

    url = run_dir.store_url
    left_out = {s.rel for s in record.skipped}
    # the longest first, as a local run orders them: no long chain left to run alone at the end
    indices = sorted((i for i, d in enumerate(record.documents) if d.rel not in left_out),
                     key=lambda i: -record.documents[i].size)
    with open_postgres(url) as pg:
        queue.save_corpus(pg.store, record, run_dir.path)
    queued = queue.enqueue(url, record, indices)
    if workers == 0:
        if not quiet:
            err.print(f"queued {queued} documents of {run_dir.path} in {redact(url)}; start workers with "
                      f"`chunker worker --store URL --exit-when-idle` (or {STORE_ENV}=URL chunker worker)",
                      highlight=False)
        return
    env = {**os.environ, STORE_ENV: url}
    procs = [subprocess.Popen([sys.executable, "-m", "chunker.cli.app", "worker", "--exit-when-idle", "-q"],
                              env=env) for _ in range(workers)]
    try:
        _wait(procs, run_dir, record.corpus_key, url, quiet)
    except KeyboardInterrupt:
        for p in procs:
            p.terminate()
        raise fail(f"interrupted; the queued documents wait in {redact(url)}: `chunker worker --store URL`",
                   EXIT_FAILED)
    record = run_dir.read_record()
    if record.status != "finished":
        codes = sorted({p.returncode for p in procs})
        raise fail(f"the workers stopped (exit {codes}) before the corpus finished; see `chunker inspect "
                   f"--store URL {run_dir.path}`, then start `chunker worker --store URL` again", EXIT_FAILED)
    report(run_dir, record.to_settings(), record.stats, started, quiet, as_json, skipped=record.skipped)


def _wait(procs, run_dir, corpus_key: str, url: str, quiet: bool) -> None:
    from chunker.corpus.queue import queue_status
    from chunker.persistence.store_url import connect

    last = None
    while any(p.poll() is None for p in procs):
        time.sleep(POLL_S)
        if quiet:
            continue
        try:
            with connect(url) as conn:
                s = queue_status(conn, corpus_key)
        except Exception:  # the workers will say what went wrong
            continue
        line = f"documents: {s.done} done, {s.running} running, {s.queued} queued, {s.failed} failed"
        if line != last:
            err.print(line, highlight=False)
            last = line

"""A worker: takes the corpus's document jobs from the queue (`chunker/corpus/queue.py`),
runs each from its checkpoint in the shared database, and the last to finish writes the tree.

A document's job opens the database, reads the corpus it belongs to from the store, and runs
the document as a local run would (`document_run.run_document`: its own thread, resumed
from its checkpoint when another worker was killed on it). Its outcome goes to the store: the
finished record, or a skip (the file cannot be read as found), or, after the last retry, a
failure with its error. Then, under an advisory lock per corpus, the worker counts the
outcomes: when every document has one, it assembles the corpus (the upper levels, one tree
over all the documents, run.json finished) and writes it to OUT. Losing the database is not a
document's failure: the job stops, and the document is taken up again once it is back.
"""

from __future__ import annotations

import asyncio
import logging
import zlib
from pathlib import Path
from typing import Callable

from chunker.corpus import queue

Emit = Callable[[dict], None]
log = logging.getLogger(__name__)


def document_job(url: str, emit: Emit | None = None):
    """The queue's task for this worker process: (context, corpus_key, index) -> None."""

    def job(context, *, corpus_key: str, index: int) -> None:
        import psycopg

        from chunker.corpus.document_run import DocumentSkipped, document_settings, run_document
        from chunker.corpus.store import CorpusStore
        from chunker.graph.build import build_graph, llm_retry_policy
        from chunker.persistence.postgres import open_postgres
        from chunker.runs.rundir import RunDir
        from chunker.runs.runner import concurrency_of
        from chunker.state.slots import CallSlots

        with open_postgres(url) as pg:
            record, out = queue.load_corpus(pg.store, corpus_key)
            ctx = record.to_settings()
            graph = build_graph(pg.saver, pg.store,
                                llm_retry=llm_retry_policy(ctx.llm.max_attempts, ctx.llm.retry_initial_s))
            run = RunDir(out, store_url=url)
            unit = record.documents[index]
            cs = CorpusStore(graph.store, corpus_key)
            doc_ctx = document_settings(unit, record.settings, record.model)
            try:
                run_document(graph, unit, doc_ctx, cs, out_dir=out, corpus_key=corpus_key, on_event=emit,
                             slots=CallSlots(concurrency_of(ctx)), calls=run.calls_target(corpus_key))
            except DocumentSkipped as exc:
                cs.put_value("skipped", unit.key, {"rel": unit.rel, "reason": str(exc)})
            except psycopg.OperationalError:
                raise  # the database, not the document: taken up again once it is back
            except Exception as exc:
                if context.job.attempts < queue.RETRIES:
                    raise  # procrastinate retries it
                msg = " ".join(str(exc).split())[:300]
                cs.put_value("failed", unit.key, {"rel": unit.rel,
                                                  "reason": f"failed: {type(exc).__name__}: {msg}"})
                log.warning("%s failed %d times, the last with %s: %s", unit.rel, queue.RETRIES + 1,
                            type(exc).__name__, msg)
                finish_if_last(run, ctx, record, graph, emit)
                raise
            finish_if_last(run, ctx, record, graph, emit)

    return job


def outcomes(cs, corpus) -> tuple[dict[str, dict], list, int]:
    """The finished records by file, the skips (discovery's, then the documents' in run.json
    order, failures included), and how many documents have no outcome yet."""
    from chunker.runs.record import SkippedEntry

    records, skipped, missing = {}, list(corpus.skipped), 0
    left_out = {s.rel for s in corpus.skipped}
    for d in corpus.documents:
        if d.rel in left_out:
            continue
        record = cs.document(d.key)
        if record is not None:
            records[d.rel] = record
            continue
        said = cs.get_value("skipped", d.key) or cs.get_value("failed", d.key)
        if said is None:
            missing += 1
        else:
            skipped.append(SkippedEntry.model_validate(said))
    return records, skipped, missing


def finish_if_last(run, ctx, corpus, graph, emit: Emit | None) -> bool:
    """Assemble and write the corpus if every document has its outcome and no worker has yet
    (one at a time: an advisory lock per corpus). Returns whether this call wrote it."""
    from chunker.corpus.runner import Generation, assemble
    from chunker.corpus.store import CorpusStore
    from chunker.persistence.store_url import connect
    from chunker.runs.record import now

    key = zlib.crc32(corpus.corpus_key.encode()) & 0x7FFFFFFF
    cs = CorpusStore(graph.store, corpus.corpus_key)
    with connect(run.store_url) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (key,))
        try:
            if cs.get_value("assembly", "done") is not None:
                return False
            records, skipped, missing = outcomes(cs, corpus)
            if missing:
                return False
            if not run.meta_file.exists():  # a worker on another machine: OUT is made here
                run.write_record(corpus)
            generation = Generation(run=run, record=run.read_record())
            units = list(corpus.documents)
            if records:
                result = assemble(run, ctx, generation, units, records, skipped, graph.store, cs,
                                  None, emit or (lambda event: None))
                stats = result.stats
            else:
                stats = {"documents": 0, "skipped": len(skipped)}
            generation.save(status="finished" if records else "failed", finished_at=now(),
                            skipped=skipped, stats=stats)
            cs.put_value("assembly", "done", {"at": now(), "documents": len(records)})
            return True
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (key,))


LOST_AFTER = 2
"""Heartbeats in a row the database must miss before the worker takes it for lost."""


def work(url: str, *, exit_when_idle: bool, on_lost: Callable[[str], None], emit: Emit | None = None,
         name: str | None = None) -> None:
    """Take jobs until the queue is empty and no worker is on one (`exit_when_idle`), or forever.
    `on_lost(reason)` is called (and must not return) when the database stops answering."""
    app = queue.make_app(url, document_job(url, emit))
    queue.ensure_schema(url, app)
    asyncio.run(_work(app, url, exit_when_idle, name, on_lost))


async def _work(app, url: str, exit_when_idle: bool, name: str | None, on_lost) -> None:
    watch = asyncio.create_task(_watch(url, on_lost))
    try:
        async with app.open_async():
            await _take_jobs(app, exit_when_idle, name)
    finally:
        watch.cancel()


async def _watch(url: str, on_lost) -> None:
    """Every heartbeat, ask the database for a trivial answer; when it has missed
    `LOST_AFTER` in a row, the worker is lost without it: `on_lost` ends it at once. Its
    document keeps its checkpoint, and its job goes back to the queue (as a killed worker's)
    once the database is back; waiting on the pools' own timeouts would take minutes."""
    from chunker.persistence.store_url import StoreUnavailable, connect

    def probe() -> None:
        with connect(url, timeout_s=queue.HEARTBEAT_S) as conn:
            conn.execute("SELECT 1")

    missed = 0
    while True:
        await asyncio.sleep(queue.HEARTBEAT_S)
        try:
            await asyncio.to_thread(probe)
            missed = 0
        except Exception as exc:  # StoreUnavailable, or the connection dropped mid-query
            missed += 1
            if missed >= LOST_AFTER:
                on_lost(str(exc) if isinstance(exc, StoreUnavailable) else " ".join(str(exc).split())[:200])


async def _take_jobs(app, exit_when_idle: bool, name: str | None) -> None:
    while True:
        await queue.requeue_stalled(app)
        reaper = asyncio.create_task(_reap(app))
        try:
            await app.run_worker_async(
                queues=[queue.QUEUE], wait=not exit_when_idle, concurrency=1, name=name,
                update_heartbeat_interval=queue.HEARTBEAT_S,
                stalled_worker_timeout=queue.STALLED_AFTER_S, fetch_job_polling_interval=1.0,
                install_signal_handlers=True)
        finally:
            reaper.cancel()
        # idle: done, unless a job is still running somewhere (it may be a dead worker's,
        # which goes back to the queue once its heartbeat is old enough)
        if not exit_when_idle or not await queue.unfinished(app):
            return
        await asyncio.sleep(queue.HEARTBEAT_S)


async def _reap(app) -> None:
    """While this worker works, put dead workers' jobs back in the queue."""
    while True:
        await asyncio.sleep(queue.STALLED_AFTER_S / 2)
        await queue.requeue_stalled(app)

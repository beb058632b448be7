"""Running and resuming the graph against a run directory, with SQLite persistence.

Durability is "sync": each step's checkpoint is committed before the next step starts,
so a SIGKILL loses at most the step in flight (for an LLM node, one call).
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from langgraph.store.sqlite import SqliteStore

from chunker.runs.record import DocumentRun, now
from chunker.runs.rundir import RunDir, RunDirError
from chunker.config.settings import ChunkerSettings
from chunker.document.loader import BadInput, read_document
from chunker.graph.build import build_graph, llm_retry_policy
from chunker.persistence.pruning_saver import PruningSqliteSaver
from chunker.state.run import RunContext
from chunker.state.slots import CallSlots

RECURSION_LIMIT = 1_000_000_000
"""Steps grow with the document (about 6 per leaf); the limit must never bind."""


@contextmanager
def persistent_graph(run: RunDir, ctx: ChunkerSettings) -> Iterator:
    """The graph compiled with the run's persistence: OUT's SQLite, or the database of
    `run.store_url` (LangGraph's PostgreSQL checkpointer and store)."""
    retry = llm_retry_policy(ctx.llm.max_attempts, ctx.llm.retry_initial_s)
    from chunker.grounding.extractive import warm_up_in_background

    warm_up_in_background()  # sumy and nltk, imported while the document is read
    if run.store_url is not None:
        from chunker.persistence.postgres import open_postgres

        with open_postgres(run.store_url, pool_size=tasks_of(ctx) + 2) as pg:
            yield build_graph(pg.saver, pg.store, llm_retry=retry)
        return
    run.meta_dir.mkdir(parents=True, exist_ok=True)
    ck = sqlite3.connect(str(run.checkpoints), check_same_thread=False)
    st = sqlite3.connect(str(run.store), check_same_thread=False, isolation_level=None)
    try:
        st.execute("PRAGMA journal_mode=WAL")
        # WAL with synchronous NORMAL: a commit survives the process being killed (what a
        # resume needs), without an fsync per step; only a power cut may lose the last ones
        for conn in (ck, st):
            conn.execute("PRAGMA synchronous=NORMAL")
        saver = PruningSqliteSaver(ck)
        store = SqliteStore(st)
        store.setup()
        yield build_graph(saver, store, llm_retry=retry)
    finally:
        ck.close()
        st.close()


def concurrency_of(ctx: ChunkerSettings) -> int:
    """The run's cap on LLM calls in flight: the setting, else its backend's default."""
    from chunker.llm.registry import default_concurrency

    return ctx.llm.max_concurrency or default_concurrency(ctx.llm.model)


def tasks_of(ctx: ChunkerSettings, limit: int | None = None) -> int:
    """Tasks read at once (a corpus's documents, a document's regions): `llm.tasks_per_slot`
    (else its backend's default) for each of the run's call slots (`limit`, default
    `concurrency_of`)."""
    from chunker.llm.registry import default_tasks_per_slot

    per_slot = ctx.llm.tasks_per_slot or default_tasks_per_slot(ctx.llm.model)
    return (concurrency_of(ctx) if limit is None else limit) * per_slot


def stream_config(thread_id: str, tasks: int) -> dict:
    """The config of a streamed invocation: its thread, and at most `tasks` parallel tasks.
    While a graph streams, LangGraph keeps one of its pool's workers waiting on the stream
    (`Pregel.stream`'s `get_waiter`), so the pool gets one worker more than the tasks it
    runs: `max_concurrency` 1 alone would leave none for the task and never finish."""
    return {"configurable": {"thread_id": thread_id}, "recursion_limit": RECURSION_LIMIT,
            "max_concurrency": tasks + 1}


def new_record(doc_path: str, doc_sha256: str, ctx: ChunkerSettings, thread_id: str,
               store: str | None = None) -> DocumentRun:
    """The record of a new document run (`store`: the database, without its password)."""
    return DocumentRun(source=doc_path, source_sha256=doc_sha256, model=ctx.llm.model,
                       config=ctx.flat_dict(), thread_id=thread_id, store=store, started_at=now())


def check_source(run: RunDir, record: DocumentRun, moved_to: Path | None, ctx: ChunkerSettings) -> None:
    """Before a resume: the source (where it was, or `--source`) must be the very text the
    run started on; a changed one is refused, never mixed into the tree. A source that
    is gone is fine once its text is in the checkpointed store. A round-1 record holds no
    hash to compare: the text found is taken, and its hash recorded for later resumes."""
    path = Path(moved_to) if moved_to is not None else Path(record.source)
    if not path.exists():
        if moved_to is not None:
            raise RunDirError(f"no such file: {path}")
        return  # `execute` needs it only when no checkpoint holds the text yet
    text = read_document(path, encoding=ctx.input.encoding, max_bytes=ctx.input.max_bytes)
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    if record.source_sha256 is not None and digest != record.source_sha256:
        raise RunDirError(f"{path} has changed since the run started (its content hash differs); "
                          f"start a new run with `chunker run {path} -o OUT --force`")
    if moved_to is not None or record.source_sha256 is None:
        run.update_record(source=str(path.resolve()), source_sha256=digest)


def execute(run: RunDir, ctx: ChunkerSettings, graph_input: dict | None, thread_id: str,
            on_event: Callable[[dict], None] | None = None) -> dict:
    """Run (graph_input given) or continue (None) the thread; returns the final state values."""
    def restart() -> dict:  # killed before the first checkpoint: start over from the source
        source = run.read_record().source
        if not Path(source).exists():
            raise BadInput(f"the source {source} is gone; pass its new place with "
                           f"`chunker resume {run.path} --source PATH`")
        return {"path": source}

    values, elapsed = stream_thread(run, ctx, graph_input, thread_id, restart, on_event)
    record = run.read_record()
    run.update_record(status="finished", finished_at=now(), wall_s=round(record.wall_s + elapsed, 3),
                      stats=values.get("stats", {}))
    return values


def stream_thread(run: RunDir, ctx: ChunkerSettings, graph_input: dict | None, thread_id: str,
                  restart: Callable[[], dict], on_event: Callable[[dict], None] | None = None
                  ) -> tuple[dict, float]:
    """Run or continue one thread of OUT's graph; `restart()` is the input when a thread to
    continue has no checkpoint yet. Returns the final values and the seconds it took."""
    limit = concurrency_of(ctx)
    config = stream_config(thread_id, tasks_of(ctx, limit))
    # the invocation's folder, where the nodes write the tree, its call log and its cap
    context = RunContext.of(ctx, out_dir=str(run.path), calls_dir=run.calls_target(thread_id),
                            slots=CallSlots(limit))
    started = time.perf_counter()
    with persistent_graph(run, ctx) as graph:
        if graph_input is None and not graph.get_state(config).values:
            graph_input = restart()
        # With input None, LangGraph continues from the last checkpoint: a task whose
        # writes were saved before the crash is not run again; a finished thread is a no-op.
        # subgraphs=True: the events of the nodes inside the subgraphs (graph/), where they all are
        for _, event in graph.stream(graph_input, config, context=context, stream_mode="custom",
                                     durability="sync", subgraphs=True):
            if on_event is not None:
                on_event(event)
        values = graph.get_state(config).values
    return values, time.perf_counter() - started

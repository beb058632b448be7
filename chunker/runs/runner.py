"""Running and resuming the graph against a run directory, with SQLite persistence.

Durability is "sync": each step's checkpoint is committed before the next step starts,
so a SIGKILL loses at most the step in flight (for an LLM node, one call).
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterator

from langgraph.store.sqlite import SqliteStore

from chunker import __version__
from chunker.runs.rundir import RunDir, RunDirError
from chunker.config.keys import FLAT_KEYS, LEGACY_KEYS, SECTION_NAMES
from chunker.config.settings import ChunkerSettings, as_recorded
from chunker.document.loader import BadInput, read_document
from chunker.graph.build import build_graph, llm_retry_policy
from chunker.persistence.pruning_saver import PruningSqliteSaver
from chunker.state.slots import CallSlots

RECURSION_LIMIT = 1_000_000_000
"""Steps grow with the document (about 6 per leaf); the limit must never bind."""


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@contextmanager
def persistent_graph(run: RunDir, ctx: ChunkerSettings) -> Iterator:
    """The graph compiled with the run's persistence: OUT's SQLite, or the database of
    `run.store_url` (LangGraph's PostgreSQL checkpointer and store)."""
    retry = llm_retry_policy(ctx.llm.max_attempts, ctx.llm.retry_initial_s)
    from chunker.grounding.extractive import warm_up

    warm_up()  # sumy and nltk imported on this thread, before the run's tasks start on several
    if run.store_url is not None:
        from chunker.persistence.postgres import open_postgres

        with open_postgres(run.store_url, pool_size=concurrency_of(ctx) + 2) as pg:
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


def stream_config(thread_id: str, limit: int) -> dict:
    """The config of a streamed invocation: its thread, and at most `limit` parallel tasks.
    While a graph streams, LangGraph keeps one of its pool's workers waiting on the stream
    (`Pregel.stream`'s `get_waiter`), so the pool gets one worker more than the tasks it
    runs: `max_concurrency` 1 alone would leave none for the task and never finish."""
    return {"configurable": {"thread_id": thread_id}, "recursion_limit": RECURSION_LIMIT,
            "max_concurrency": limit + 1}


def with_concurrency(meta: dict, limit: int) -> dict:
    """The changes to run.json that make a resumed run (a document's or a corpus's) keep up
    to `limit` calls in flight: a setting of how fast, not of what, so the tree stays the same."""
    changes = {"config": {**meta["config"], "max_concurrency": limit}}
    if "settings" in meta:  # a corpus: its documents' settings as given
        changes["settings"] = {**meta["settings"], "max_concurrency": limit}
    return changes


def settings_from_meta(meta: dict) -> ChunkerSettings:
    """The run's settings as run.json records them (flat, as every version wrote them).
    A setting this version no longer has is dropped, as it always was; one it did not have
    yet means what that version did (`as_recorded`: no `reading`, one cursor)."""
    known = {*FLAT_KEYS, *LEGACY_KEYS, *SECTION_NAMES}  # a legacy name still means what it meant
    config = {k: v for k, v in as_recorded(meta["config"]).items() if k in known}
    return ChunkerSettings(**config)


def new_meta(doc_path: str, doc_sha256: str, ctx: ChunkerSettings, thread_id: str,
             store: str | None = None) -> dict:
    config = ctx.flat_dict()
    return {**({"store": store} if store else {}),  # the database, without its password
            "status": "running", "source": doc_path, "source_sha256": doc_sha256, "model": ctx.llm.model,
            "config": config, "thread_id": thread_id, "tool_version": __version__,
            "started_at": now(), "finished_at": None}


def check_source(run: RunDir, meta: dict, moved_to: Path | None, ctx: ChunkerSettings) -> None:
    """Before a resume: the source (where it was, or `--source`) must be the very text the
    run started on; a changed one is refused, never mixed into the tree. A source that
    is gone is fine once its text is in the checkpointed store."""
    path = Path(moved_to) if moved_to is not None else Path(meta["source"])
    if not path.exists():
        if moved_to is not None:
            raise RunDirError(f"no such file: {path}")
        return  # `execute` needs it only when no checkpoint holds the text yet
    text = read_document(path, encoding=ctx.input.encoding, max_bytes=ctx.input.max_bytes)
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    if digest != meta.get("source_sha256"):
        raise RunDirError(f"{path} has changed since the run started (its content hash differs); "
                          f"start a new run with `chunker run {path} -o OUT --force`")
    if moved_to is not None:
        run.update_meta(source=str(path.resolve()))


def execute(run: RunDir, ctx: ChunkerSettings, graph_input: dict | None, thread_id: str,
            on_event: Callable[[dict], None] | None = None) -> dict:
    """Run (graph_input given) or continue (None) the thread; returns the final state values."""
    def restart() -> dict:  # killed before the first checkpoint: start over from the source
        source = run.read_meta()["source"]
        if not Path(source).exists():
            raise BadInput(f"the source {source} is gone; pass its new place with "
                           f"`chunker resume {run.path} --source PATH`")
        return {"path": source}

    values, elapsed = stream_thread(run, ctx, graph_input, thread_id, restart, on_event)
    meta = run.read_meta()
    run.update_meta(status="finished", finished_at=now(),
                    wall_s=round(meta.get("wall_s", 0) + elapsed, 3),
                    stats=values.get("stats", {}))
    return values


def stream_thread(run: RunDir, ctx: ChunkerSettings, graph_input: dict | None, thread_id: str,
                  restart: Callable[[], dict], on_event: Callable[[dict], None] | None = None
                  ) -> tuple[dict, float]:
    """Run or continue one thread of OUT's graph; `restart()` is the input when a thread to
    continue has no checkpoint yet. Returns the final values and the seconds it took."""
    limit = concurrency_of(ctx)
    config = stream_config(thread_id, limit)
    runs = ctx.run_registry()
    # the invocation's folder, where the nodes write the tree and the call log (RunStore.out_dir)
    runs.out_dir = str(run.path)
    runs.calls_dir = run.calls_target(thread_id)
    runs.slots = CallSlots(limit)
    started = time.perf_counter()
    with persistent_graph(run, ctx) as graph:
        if graph_input is None and not graph.get_state(config).values:
            graph_input = restart()
        # With input None, LangGraph continues from the last checkpoint: a task whose
        # writes were saved before the crash is not run again; a finished thread is a no-op.
        # subgraphs=True: the events of the nodes inside the subgraphs (graph/), where they all are
        for _, event in graph.stream(graph_input, config, context=ctx, stream_mode="custom",
                                     durability="sync", subgraphs=True):
            if on_event is not None:
                on_event(event)
        values = graph.get_state(config).values
    return values, time.perf_counter() - started

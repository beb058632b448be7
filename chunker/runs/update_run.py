"""`chunker update OUT` on a one-document run: its own thread, recorded in run.json.

While an update runs, run.json keeps the finished tree's description at its top level
(the old tree stays valid and readable) and the update's under `update`: its thread, the
source and settings it brings the tree to, the store key of its reuse index. A killed
update is continued from that thread's checkpoint (`chunker resume OUT`, or `chunker update
OUT` again). When it finishes, the update's description becomes the run's, and the old
thread's checkpoints are dropped (the tree, hierarchy.json, is what the next update reads).
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Callable

from chunker.config.settings import ChunkerSettings
from chunker.document.loader import BadInput
from chunker.runs.record import DocumentRun, DocumentUpdate, DocumentUpdateEntry, now
from chunker.runs.rundir import RunDir, changed
from chunker.runs.runner import persistent_graph, stream_thread
from chunker.update.cleanup import drop_namespaces
from chunker.update.index import NAMESPACE, put_index


def start_document_update(run: RunDir, record: DocumentRun, ctx: ChunkerSettings, *, source: str,
                          sha256: str, index: dict | None, mode: str, extra: dict | None = None
                          ) -> DocumentUpdate:
    """Record the update in run.json (and its reuse index in the store); returns its record.
    `extra`: what the run records besides, once the update is done (an original's path and hash)."""
    n = len(record.updates) + 1
    # a database is shared by many runs: the update's thread (and reuse key) is this run's own
    thread_id = f"{sha256[:16]}-u{n}" + (f"-{uuid.uuid4().hex[:8]}" if run.store_url else "")
    if index is not None:
        with persistent_graph(run, ctx) as graph:
            put_index(graph.store, thread_id, index)
    update = DocumentUpdate(thread_id=thread_id, source=source, source_sha256=sha256, model=ctx.llm.model,
                            config=ctx.flat_dict(), mode=mode, reuse_key=thread_id if index is not None else None,
                            started_at=now(), extra=extra or {})
    run.update_record(update=update)
    return update


def execute_document_update(run: RunDir, ctx: ChunkerSettings, on_event: Callable[[dict], None] | None = None
                            ) -> dict:
    """Run (or continue) the update run.json describes; returns the final state values."""
    record = run.read_record()
    update = record.update

    def first_input() -> dict:
        if not Path(update.source).exists():
            raise BadInput(f"the source {update.source} is gone; pass its new place with "
                           f"`chunker resume {run.path} --source PATH`")
        graph_input = {"path": update.source}
        if update.reuse_key:
            graph_input["reuse_key"] = update.reuse_key
        return graph_input

    values, elapsed = stream_thread(run, ctx, None, update.thread_id, first_input, on_event)
    old_thread = record.thread_id
    with persistent_graph(run, ctx) as graph:
        if old_thread and old_thread != update.thread_id:
            # the tree that was updated is superseded: its run's records and checkpoints go
            old = graph.get_state({"configurable": {"thread_id": old_thread}}).values
            if old.get("run_key") and old["run_key"] != values.get("run_key"):
                drop_namespaces(graph.store, ("chunker", old["run_key"]))
                drop_namespaces(graph.store, ("chunker", f"{old['run_key']}/final"))
            graph.checkpointer.delete_thread(old_thread)
        if update.reuse_key:
            drop_namespaces(graph.store, (NAMESPACE, update.reuse_key))
    record = run.read_record()
    done = DocumentUpdateEntry(at=now(), source_sha256=update.source_sha256, mode=update.mode,
                               wall_s=round(elapsed, 3))
    run.write_record(changed(record, status="finished", finished_at=now(), source=update.source,
                             source_sha256=update.source_sha256, model=update.model, config=update.config,
                             thread_id=update.thread_id, stats=values.get("stats", {}), **update.extra,
                             wall_s=round(record.wall_s + elapsed, 3), updates=[*record.updates, done],
                             update=None))
    return values

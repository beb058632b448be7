"""The PostgreSQL persistence layer (issue 20) against a real, throwaway PostgreSQL: a looping
graph checkpointed through PruningPostgresSaver keeps at most `keep` checkpoints and still
resumes from them, the store outlives its backend, the call log keeps runs apart, and an
unreachable store fails at once with the password kept out of the message."""

from __future__ import annotations

import json
import operator
import os
import subprocess
import sys
import threading
import time
from typing import Annotated, TypedDict

import pytest

import psycopg
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from chunker.llm.calllog import annotate, call_log_target, log_call, read_calls
from chunker.persistence.postgres import (StoreUnavailable, database_bytes, is_store_url,
                                          open_postgres, redact)


class LoopState(TypedDict, total=False):
    target: int
    n: int
    items: Annotated[list[str], operator.add]  # a list: stored as a blob, not inline
    meta: dict  # set once by the input: every checkpoint refers to its first blob
    last: str


def step(state: LoopState, runtime: Runtime) -> dict:
    n = state.get("n", 0)
    if runtime.store is not None:
        runtime.store.put(("loop",), f"step-{n}", {"n": n})
    return {"n": n + 1, "items": [f"s{n}"]}


def tally(state: LoopState) -> dict:
    return {"last": state["items"][-1]}


def loop_graph(backend):
    builder = StateGraph(LoopState)
    builder.add_node("step", step)
    builder.add_node("tally", tally)
    builder.add_edge(START, "step")
    builder.add_edge("step", "tally")
    builder.add_conditional_edges("tally", lambda s: "step" if s["n"] < s["target"] else END)
    return builder.compile(checkpointer=backend.saver, store=backend.store)


def rows(url: str, sql: str, *params) -> list[tuple]:
    with psycopg.connect(url) as conn:
        return conn.execute(sql, params).fetchall()


def assert_pruned(url: str, saver, thread: str, keep: int) -> None:
    """At most `keep` checkpoints, each loading its blobs; no write or blob that only a
    deleted checkpoint used."""
    for saved in saver.list({"configurable": {"thread_id": thread}}):
        values = saved.checkpoint["channel_values"]
        assert values["meta"] == {"doc": thread} and values["items"], saved.config
    where = "FROM {} WHERE thread_id = %s"
    kept = [r[0] for r in rows(url, "SELECT checkpoint_id " + where.format("checkpoints"), thread)]
    assert 1 <= len(kept) <= keep
    writes = rows(url, "SELECT checkpoint_id " + where.format("checkpoint_writes"), thread)
    assert {w[0] for w in writes} <= set(kept)
    referenced = {(ch, v) for (versions,) in rows(
        url, "SELECT checkpoint -> 'channel_versions' " + where.format("checkpoints"), thread)
        for ch, v in versions.items()}
    blobs = set(rows(url, "SELECT channel, version " + where.format("checkpoint_blobs"), thread))
    assert blobs and blobs <= referenced, f"blobs no kept checkpoint uses: {blobs - referenced}"


def test_a_loop_keeps_only_the_last_checkpoints_and_resumes_from_them(pg_url):
    config = {"configurable": {"thread_id": "doc-1"}}
    with open_postgres(pg_url) as backend:
        graph = loop_graph(backend)
        # 10 rounds of two nodes: 21 checkpoints written, 3 kept
        graph.invoke({"target": 10, "meta": {"doc": "doc-1"}}, config)
        values = graph.get_state(config).values
        assert values["n"] == 10 and values["items"] == [f"s{i}" for i in range(10)]
        assert values["last"] == "s9"
        assert_pruned(pg_url, backend.saver, "doc-1", backend.saver.keep)

    with open_postgres(pg_url) as backend:  # a new process, as it were: only the database remains
        graph = loop_graph(backend)
        graph.invoke({"target": 15}, config)  # goes on from n = 10 and the kept items blob
        values = graph.get_state(config).values
        assert values["items"] == [f"s{i}" for i in range(15)] and values["last"] == "s14"
        assert values["meta"] == {"doc": "doc-1"}
        assert_pruned(pg_url, backend.saver, "doc-1", backend.saver.keep)


def test_parallel_documents_share_one_backend(pg_url):
    errors: list[BaseException] = []
    with open_postgres(pg_url, pool_size=4) as backend:
        graph = loop_graph(backend)

        def run(thread: str) -> None:
            try:
                graph.invoke({"target": 6, "meta": {"doc": thread}},
                             {"configurable": {"thread_id": thread}})
            except BaseException as exc:  # noqa: BLE001  (reported below)
                errors.append(exc)

        workers = [threading.Thread(target=run, args=(f"doc-{i}",)) for i in range(4)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(timeout=60)
        assert not errors, errors
        for i in range(4):
            values = graph.get_state({"configurable": {"thread_id": f"doc-{i}"}}).values
            assert values["items"] == [f"s{j}" for j in range(6)]
            assert_pruned(pg_url, backend.saver, f"doc-{i}", backend.saver.keep)


def test_workers_starting_together_on_a_fresh_database_all_set_it_up(pg_url):
    # Without the set-up lock two of them run the same migration: a duplicate-key error.
    errors: list[BaseException] = []

    def start() -> None:
        try:
            with open_postgres(pg_url, pool_size=2):
                pass
        except BaseException as exc:  # noqa: BLE001  (reported below)
            errors.append(exc)

    workers = [threading.Thread(target=start) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=60)
    assert not errors, errors


def test_what_a_node_puts_in_the_store_outlives_the_backend(pg_url):
    with open_postgres(pg_url) as backend:
        loop_graph(backend).invoke({"target": 3, "meta": {}}, {"configurable": {"thread_id": "doc-s"}})
    with open_postgres(pg_url) as backend:
        assert [backend.store.get(("loop",), f"step-{n}").value for n in range(3)] == \
            [{"n": 0}, {"n": 1}, {"n": 2}]
        assert backend.store.get(("loop",), "step-3") is None


def test_the_call_log_keeps_each_run_to_its_own_name(pg_url):
    a, b = call_log_target(pg_url, "run-a"), call_log_target(pg_url, "run-b")
    assert a == f"{pg_url}#run-a"
    fields = dict(task="boundary", response="{}", prompt_tokens=3, completion_tokens=2,
                  duration_ms=1.5, outcome="ok")
    first = log_call(a, node="chunk", prompt="p1", **fields)
    second = log_call(a, node="rewrite", prompt="p2", **fields)
    other = log_call(b, node="chunk", prompt="elsewhere", **fields)
    annotate(a, second, "rewrite: kept (support 0.90)")
    annotate(a, second, "summary: kept (support 0.80)")
    annotate(b, second, "not run-b's call: ignored")

    calls = read_calls(a)
    assert [c["id"] for c in calls] == [first, second] and first < second
    assert [c["prompt"] for c in calls] == ["p1", "p2"]
    assert calls[0]["grounding"] is None
    assert calls[1]["grounding"] == "rewrite: kept (support 0.90); summary: kept (support 0.80)"
    assert set(calls[0]) == {"id", "ts", "node", "task", "prompt", "response", "prompt_tokens",
                             "completion_tokens", "duration_ms", "outcome", "grounding"}
    assert [c["id"] for c in read_calls(b)] == [other] and read_calls(b)[0]["grounding"] is None
    assert [c["prompt"] for c in read_calls(a, limit=1)] == ["p1"]
    assert read_calls(call_log_target(pg_url, "never-logged")) == []


def test_a_folder_still_logs_to_sqlite(tmp_path):
    call = log_call(str(tmp_path), node="chunk", task="t", prompt="p", response=None,
                    prompt_tokens=1, completion_tokens=0, duration_ms=0.1, outcome="error")
    assert (tmp_path / ".chunker" / "calls.sqlite").is_file()
    assert [c["id"] for c in read_calls(tmp_path)] == [call]


@pytest.mark.parametrize("url", [
    "postgresql://chunker:s3cret-pw@127.0.0.1:1/db",
    "postgresql://chunker:s3cret-pw@/db?host=/nonexistent-socket-dir&port=5432",
], ids=["refused port", "socket dir without a server"])
def test_an_unreachable_store_fails_at_once_without_the_password(url):
    started = time.monotonic()
    with pytest.raises(StoreUnavailable) as caught:
        with open_postgres(url):
            pass
    assert time.monotonic() - started < 10
    message = str(caught.value)
    assert "s3cret-pw" not in message and "\n" not in message
    assert message.startswith(f"cannot reach the store {redact(url)}: ")
    with pytest.raises(StoreUnavailable):
        log_call(call_log_target(url, "run"), node="n", task="t", prompt="p", response=None,
                 prompt_tokens=0, completion_tokens=0, duration_ms=0.0, outcome="ok")


def test_a_missing_database_is_named_in_the_error(pg_server):
    with pytest.raises(StoreUnavailable, match='database "no_such_db" does not exist'):
        with open_postgres(pg_server.url("no_such_db")):
            pass


def test_database_bytes_counts_the_tables_once_written(pg_url):
    with open_postgres(pg_url) as backend:
        loop_graph(backend).invoke({"target": 2, "meta": {}}, {"configurable": {"thread_id": "doc-b"}})
    log_call(call_log_target(pg_url, "run"), node="n", task="t", prompt="p" * 5000, response=None,
             prompt_tokens=0, completion_tokens=0, duration_ms=0.0, outcome="ok")
    assert database_bytes(pg_url) > 0


def test_urls_are_recognised_and_shown_without_password():
    assert is_store_url("postgresql://u@h/db") and is_store_url("postgres://u@h/db")
    assert not is_store_url("out/dir") and not is_store_url(None) and not is_store_url("")
    assert redact("postgresql://u:pw@host:5432/db") == "postgresql://u@host:5432/db"
    assert redact("postgresql://u@/db?host=/tmp/s&password=pw&port=5") == \
        "postgresql://u@/db?host=/tmp/s&port=5"


def test_the_call_log_imports_no_psycopg_until_a_url_is_used():
    code = ("import json, sys, chunker.llm.calllog, chunker.persistence.store_url\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('psycopg', 'psycopg_pool', 'langgraph'))))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []

"""Several runs in one process: per-run state never leaks between runs or threads.

The served graph (`langgraph dev`) runs many threads through one compiled graph and one
store; a parent agent may run the chunker subgraph twice at once. Every derived value
(units, depths, peaks, structure) lives in the run's own memo (`state/run.py`), so runs
started together give the trees they give alone, and each computes its depths once.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
from langgraph.store.memory import InMemoryStore

import chunker.chunking.candidates as candidates
from chunker.state.run import RunContext
from chunker.graph import build_graph
from chunker.graph.build import llm_retry_policy
from chunker.state.run import RunMemo
from conftest import CINDERELLA, EMMA, RUST, assert_lossless

CONFIG = {"recursion_limit": 10**9}


def _documents(tmp_path) -> dict[str, str]:
    """Plain text and Markdown (structure by file name), small enough for a test."""
    emma = EMMA.read_text(encoding="utf-8")
    (tmp_path / "emma-part.md").write_text(emma[:30_000], encoding="utf-8")
    # plain text: a later stretch of the novel as .txt (its `##` lines are no headings there)
    (tmp_path / "emma-late.txt").write_text(emma[400_000:440_000], encoding="utf-8")
    return {"cinderella": str(CINDERELLA),
            "rust-ops": str(RUST / "rust-book-appendix-02-operators.md"),
            "emma-part": str(tmp_path / "emma-part.md"),
            "emma-late": str(tmp_path / "emma-late.txt")}


def _tree(out: dict) -> dict:
    tree = dict(out["tree"])
    tree["meta"] = {k: v for k, v in tree["meta"].items() if k != "finished_at"}
    return tree


@pytest.mark.slow
def test_runs_started_together_on_threads_give_the_trees_they_give_alone(tmp_path, monkeypatch):
    docs = _documents(tmp_path)
    depth_calls: Counter = Counter()
    lock = threading.Lock()
    real = candidates.document_signal

    def counted(store, namespace, *args, **kwargs):
        with lock:
            depth_calls[namespace] += 1  # the namespace holds the run's key
        return real(store, namespace, *args, **kwargs)

    monkeypatch.setattr(candidates, "document_signal", counted)
    retry = llm_retry_policy(1, 0.0)

    def settings() -> RunContext:
        return RunContext(model="scripted", min_chunk_tokens=60, max_chunk_tokens=300)

    # alone: one run after another, each with a fresh graph and store
    alone = {}
    for name, path in docs.items():
        out = build_graph(store=InMemoryStore(), llm_retry=retry).invoke(
            {"path": path}, context=settings(), config=CONFIG)
        alone[name] = _tree(out)
    assert sum(depth_calls.values()) == len(docs)
    depth_calls.clear()

    # together: one compiled graph and one store, as `langgraph dev` serves them; every
    # document twice, and one settings object shared by the two runs of one document
    graph = build_graph(store=InMemoryStore(), llm_retry=retry)
    shared = settings()
    jobs = [(name, path, shared if name == "cinderella" else settings())
            for name, path in docs.items() for _ in range(2)]
    start = threading.Barrier(len(jobs))

    def run(job):
        name, path, ctx = job
        start.wait()
        return name, graph.invoke({"path": path}, context=ctx, config=CONFIG)

    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        results = list(pool.map(run, jobs))
    identical = sum(_tree(out) == alone[name] for name, out in results)
    assert identical == len(jobs), f"{identical} of {len(jobs)} trees identical to their runs alone"
    for name, out in results:
        text = open(docs[name], encoding="utf-8").read()
        assert_lossless(out["tree"], text)
    # each run computed its document's depths exactly once
    assert len(depth_calls) == len(jobs) and set(depth_calls.values()) == {1}


def test_a_memo_computes_each_value_once_under_concurrent_readers():
    memo, calls = RunMemo(), Counter()

    def slow(key):
        def compute():
            calls[key] += 1
            time.sleep(0.05)  # long enough that every reader arrives while it runs
            return key * 2
        return compute

    start = threading.Barrier(16)

    def read(i):
        start.wait()
        return memo.get(i % 2, slow(i % 2))

    with ThreadPoolExecutor(max_workers=16) as pool:
        values = list(pool.map(read, range(16)))
    assert values == [(i % 2) * 2 for i in range(16)]
    assert calls == Counter({0: 1, 1: 1}) and memo.computed == Counter({0: 1, 1: 1})

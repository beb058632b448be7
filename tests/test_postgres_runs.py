"""Whole runs through `--store postgresql://...` (issue 20) against a real, throwaway PostgreSQL:
a document and a corpus build the very trees a local SQLite run builds, a killed run resumes
through the store, an unreachable store is refused before any work, and corpus workers share
the queue: a worker killed mid-document is replaced, a document that always fails is marked
failed while the rest finishes, and a worker that loses the database says so and stops. Runs
and workers are child processes (their connection pools end with them); the refusals before
any work run in this process (conftest.invoke)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import psycopg

from chunker.corpus import queue
from chunker.persistence.store_url import CONNECT_TIMEOUT_S, redact
from chunker.testing.postgres_server import ThrowawayPostgres
from conftest import CINDERELLA, RUST, chunker, invoke, tree_bytes

pytestmark = pytest.mark.slow

MODEL = "scripted:delay_ms=150"
"""Every run's model (it is part of the tree): slow enough for a kill to land inside a call."""
PASSWORD = "s3cret-Pw0rd"
"""Put in the URLs given to chunker: the throwaway server trusts every local connection, so
libpq accepts the password and chunker must keep it out of everything it writes or prints."""
DEAD_STORE = "postgresql://x@127.0.0.1:1/db"
WAIT_S = 120


def with_password(url: str) -> str:
    assert "postgresql://postgres@" in url
    return url.replace("postgresql://postgres@", f"postgresql://postgres:{PASSWORD}@", 1)


def cli(*args) -> list[str]:
    return [sys.executable, "-m", "chunker.cli.app", *map(str, args)]


def counter_env(counter: Path, **extra: str) -> dict[str, str]:
    return {"CHUNKER_SCRIPTED_COUNTER": str(counter), **extra}


def lines(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


def scalar(url: str, sql: str, *params):
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(sql, params).fetchone()[0]


def logged_calls(url: str, log: str | None = None) -> int:
    """Rows of the call log (chunker_calls): one per call that returned, of `log` or of all."""
    if not scalar(url, "SELECT to_regclass('chunker_calls') IS NOT NULL"):
        return 0
    if log is None:
        return scalar(url, "SELECT count(*) FROM chunker_calls")
    return scalar(url, "SELECT count(*) FROM chunker_calls WHERE log = %s", log)


def start_worker(url: str, counter: Path, *args: str) -> subprocess.Popen:
    """`chunker worker --exit-when-idle`, its store given in the environment only."""
    env = {**os.environ, **counter_env(counter, CHUNKER_STORE=url)}
    return subprocess.Popen(cli("worker", "--exit-when-idle", *args), env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finish(proc: subprocess.Popen, what: str, timeout: float = WAIT_S) -> tuple[str, str]:
    """Wait for `proc`; killed (and the test failed, with its stderr) if it outlives `timeout`."""
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"{what} was still running after {timeout:.0f} s; stderr:\n{err[-3000:]}")
    return out, err


def kill(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
    proc.communicate()


def wait_until(predicate, proc: subprocess.Popen, what: str, timeout: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert proc.poll() is None, f"the process ended before {what}: {proc.communicate()[1][-3000:]}"
        assert time.monotonic() < deadline, f"no {what} within {timeout:.0f} s"
        time.sleep(0.02)


def one_line(stderr: str) -> str:
    said = stderr.strip().splitlines()
    assert len(said) == 1 and "Traceback" not in stderr, f"not one line:\n{stderr[-3000:]}"
    return said[0]


def meta_of(out: Path) -> dict:
    return json.loads((out / ".chunker" / "run.json").read_text(encoding="utf-8"))


# -- the inputs and the local SQLite runs they are compared with ------------------------------
@pytest.fixture(scope="module")
def doc(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("doc") / "cinderella.txt"
    path.write_text((CINDERELLA).read_text(encoding="utf-8")[:7000],
                    encoding="utf-8")
    return path


def make_corpus(root: Path) -> Path:
    """Three short files in two folders (the heads of tests/data's texts)."""
    (root / "book").mkdir(parents=True)
    (root / "tales").mkdir()
    for src, dst in ((RUST / "rust-book-ch03-02-data-types.md", "book/data-types.md"),
                     (RUST / "rust-book-ch08-02-strings.md", "book/strings.md"),
                     (CINDERELLA, "tales/cinderella.txt")):
        (root / dst).write_text(src.read_text(encoding="utf-8")[:3000], encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    return make_corpus(tmp_path_factory.mktemp("corpus") / "notes")


class Reference:
    """A local SQLite run: its OUT, its tree's bytes and how many calls it made. Started at
    once, waited for when first used (the two references run side by side)."""

    def __init__(self, source: Path, out: Path):
        self.out, self._counter = out, out.parent / f"{out.name}-calls.txt"
        self._proc = subprocess.Popen(cli("run", source, "-o", out, "--model", MODEL, "-q"),
                                      env={**os.environ, **counter_env(self._counter)},
                                      stderr=subprocess.PIPE, text=True)

    def done(self) -> Reference:
        if self._proc is not None:
            _, err = finish(self._proc, f"the SQLite run into {self.out}")
            assert self._proc.returncode == 0, err
            self._proc = None
            self.tree = tree_bytes(self.out)
            self.calls = lines(self._counter)
            stats = json.loads(self.tree["hierarchy.json"])["meta"]["stats"]
            assert self.calls == stats["calls.total"] > 0
        return self


@pytest.fixture(scope="module")
def references(doc, corpus, tmp_path_factory) -> Iterator[dict[str, Reference]]:
    refs = tmp_path_factory.mktemp("ref")
    started = {"doc": Reference(doc, refs / "doc"), "corpus": Reference(corpus, refs / "corpus")}
    yield started
    for ref in started.values():
        if ref._proc is not None:
            kill(ref._proc)


@pytest.fixture
def doc_ref(references) -> Reference:
    return references["doc"].done()


@pytest.fixture
def corpus_ref(references) -> Reference:
    return references["corpus"].done()


# -- 1. one document -----------------------------------------------------------------------------
def test_a_document_through_the_store_builds_the_sqlite_tree(doc, doc_ref, pg_url, tmp_path):
    url = with_password(pg_url)
    out = tmp_path / "out"
    proc = chunker("run", doc, "-o", out, "--model", MODEL, "--store", url, check=0)
    assert tree_bytes(out) == doc_ref.tree
    kept = {p.name for p in (out / ".chunker").iterdir()}
    assert "run.json" in kept and not kept & {"checkpoints.sqlite", "store.sqlite", "calls.sqlite"}
    meta = meta_of(out)
    assert meta["store"] == redact(url) == pg_url
    for path in out.rglob("*"):
        if path.is_file():
            assert PASSWORD not in path.read_text(encoding="utf-8", errors="replace"), path
    assert PASSWORD not in proc.stdout + proc.stderr
    assert logged_calls(pg_url, meta["thread_id"]) == doc_ref.calls
    assert scalar(pg_url, "SELECT count(*) FROM chunker_calls WHERE outcome <> 'ok'") == 0


# -- 2. killed, then resumed through the store ---------------------------------------------------
def test_a_killed_run_resumes_through_the_store_only(doc, doc_ref, pg_url, tmp_path):
    out, counter = tmp_path / "out", tmp_path / "calls.txt"
    proc = subprocess.Popen(cli("run", doc, "-o", out, "--model", MODEL, "--store", pg_url, "-q"),
                            env={**os.environ, **counter_env(counter)}, stderr=subprocess.PIPE, text=True)
    wait_until(lambda: lines(counter) >= 3, proc, "third call")
    kill(proc)
    assert meta_of(out)["status"] == "running"

    # the checkpoints are in the database: not without it, and an SQLite run not with one
    no_store = invoke("resume", out, check=2)
    said = one_line(no_store.stderr)
    assert pg_url in said and "pass --store" in said, said
    wrong_kind = invoke("resume", doc_ref.out, "--store", pg_url, check=2)
    assert "leave out --store" in " ".join(wrong_kind.stderr.split())
    assert tree_bytes(doc_ref.out) == doc_ref.tree  # refused before any work

    chunker("resume", out, "--store", pg_url, "-q", env=counter_env(counter), check=0)
    assert tree_bytes(out) == doc_ref.tree
    assert 0 <= lines(counter) - doc_ref.calls <= 1, "more than the call in flight was asked again"


# -- 3. the database down at the start -----------------------------------------------------------
def test_an_unreachable_store_is_refused_before_any_work(doc, tmp_path):
    out = tmp_path / "out"
    run = invoke("run", doc, "-o", out, "--model", MODEL, "--store", DEAD_STORE, check=2)
    assert "127.0.0.1" in one_line(run.stderr)
    assert not out.exists()
    worker = invoke("worker", "--store", DEAD_STORE, "--exit-when-idle", check=2)
    assert "127.0.0.1" in one_line(worker.stderr)
    from_env = invoke("worker", "--exit-when-idle", env={"CHUNKER_STORE": DEAD_STORE}, check=2)
    assert "127.0.0.1" in one_line(from_env.stderr)


# -- 4. workers ----------------------------------------------------------------------------------
def test_workers_build_the_sqlite_tree(corpus, corpus_ref, pg_url, tmp_path):
    out = tmp_path / "out"
    chunker("run", corpus, "-o", out, "--model", MODEL, "--store", pg_url, "--workers", "2", "-q", check=0)
    assert tree_bytes(out) == corpus_ref.tree

    # only queued; two workers from elsewhere (the store in their environment) finish it
    queued, counter = tmp_path / "queued", tmp_path / "calls.txt"
    said = chunker("run", corpus, "-o", queued, "--model", MODEL, "--store", pg_url, "--workers", "0",
                   check=0)
    assert "queued 3 documents" in " ".join(said.stderr.split())
    assert meta_of(queued)["status"] == "running" and not (queued / "hierarchy.json").exists()
    workers = [start_worker(pg_url, counter, "-q") for _ in range(2)]
    for worker in workers:
        _, err = finish(worker, "a worker")
        assert worker.returncode == 0, err
    assert tree_bytes(queued) == corpus_ref.tree
    assert lines(counter) == corpus_ref.calls


# -- 5. a worker killed mid-document -------------------------------------------------------------
def test_a_worker_killed_mid_document_is_replaced(corpus, corpus_ref, pg_url, tmp_path):
    out, counter = tmp_path / "out", tmp_path / "calls.txt"
    chunker("run", corpus, "-o", out, "--model", MODEL, "--store", pg_url, "--workers", "0", "-q", check=0)
    corpus_key = meta_of(out)["corpus_key"]
    first = start_worker(pg_url, counter, "-q")
    try:  # killed inside its third call or later: asked (the counter), not yet answered (the log)
        wait_until(lambda: lines(counter) >= 3 and lines(counter) > logged_calls(pg_url), first,
                   "a call in flight")
    finally:
        kill(first)
    in_flight = lines(counter) - logged_calls(pg_url)
    assert in_flight == 1, "the kill was to land inside a call"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert queue.queue_status(conn, corpus_key).running == 1  # the dead worker's, for now

    second = start_worker(pg_url, counter, "-q")
    _, err = finish(second, "the second worker")
    assert second.returncode == 0, err
    assert tree_bytes(out) == corpus_ref.tree
    repeated = lines(counter) - corpus_ref.calls
    assert 0 <= repeated <= in_flight, f"{repeated} calls asked again, {in_flight} were in flight"
    assert logged_calls(pg_url, corpus_key) == lines(counter) - in_flight  # all but the killed call
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert queue.queue_status(conn, corpus_key) == queue.QueueStatus(queued=0, running=0, done=3,
                                                                          failed=0)


# -- 6. a document that fails on every try --------------------------------------------------------
def test_a_document_failing_every_try_is_marked_failed_and_the_rest_finishes(pg_url, tmp_path):
    root = make_corpus(tmp_path / "notes")
    marker = "XYZZY-BREAKS-THE-MODEL"
    (root / "tales" / "broken.txt").write_text(
        f"The tale of the broken model. It holds {marker} in its first lines. Whatever it is "
        "asked, the model fails on it, and it fails again on every try.\n", encoding="utf-8")
    out = tmp_path / "out"
    chunker("run", root, "-o", out, "--model", f"scripted:raise_on={marker}", "--store", pg_url,
            "--workers", "1", "-q", check=0)
    h = json.loads((out / "hierarchy.json").read_text(encoding="utf-8"))
    skipped = {s["source"]: s["reason"] for s in h["meta"]["corpus"]["skipped"]}
    assert list(skipped) == ["tales/broken.txt"]
    assert skipped["tales/broken.txt"].startswith("failed: ScriptedPermanentError: ")
    assert sorted(d["source"] for d in h["meta"]["corpus"]["documents"]) == \
        ["book/data-types.md", "book/strings.md", "tales/cinderella.txt"]
    meta = meta_of(out)
    assert meta["status"] == "finished"
    index = next(i for i, d in enumerate(meta["documents"]) if d["rel"] == "tales/broken.txt")
    with psycopg.connect(pg_url, autocommit=True) as conn:
        jobs = conn.execute("SELECT status::text, attempts FROM procrastinate_jobs WHERE args->>'index' = %s "
                            "AND args->>'corpus_key' = %s", (str(index), meta["corpus_key"])).fetchall()
    assert jobs == [("failed", queue.RETRIES + 1)]


# -- 7. the database lost mid-run -----------------------------------------------------------------
LOST_S = queue.STALLED_AFTER_S + 2 * CONNECT_TIMEOUT_S
"""How long a worker may take to notice that its database is gone and stop: by then the
queue takes it for dead anyway, and a connection has had two chances to come."""


@pytest.fixture
def own_server(pg_server):
    """A server of this test's own, to be stopped and started again (pg_server: skipped, or
    failed under CI, where no server can run)."""
    server = ThrowawayPostgres().start()
    try:
        yield server
    finally:
        server.stop()


def test_a_worker_losing_the_store_stops_and_the_next_finishes(corpus, corpus_ref, own_server, tmp_path):
    url = own_server.create_database("lost")
    out, counter = tmp_path / "out", tmp_path / "calls.txt"
    chunker("run", corpus, "-o", out, "--model", MODEL, "--store", url, "--workers", "0", "-q", check=0)
    worker = start_worker(url, counter)  # not quiet: what a user sees
    try:
        wait_until(lambda: logged_calls(url) >= 2, worker, "the second call")
    except BaseException:
        kill(worker)
        raise
    own_server.stop(keep=True)
    lost = time.monotonic()
    try:
        _, err = worker.communicate(timeout=LOST_S)
        stopped = True
    except subprocess.TimeoutExpired:
        worker.kill()
        _, err = worker.communicate()
        stopped = False
    took = time.monotonic() - lost

    own_server.start()
    second = start_worker(url, counter, "-q")
    _, err2 = finish(second, "the worker after the store came back")
    assert second.returncode == 0, err2
    assert tree_bytes(out) == corpus_ref.tree

    assert stopped, (f"the worker was still running {LOST_S:.0f} s after its store went away; "
                     f"its stderr ({len(err.splitlines())} lines) ends:\n{err[-1500:]}")
    assert worker.returncode == 1, err[-3000:]
    said = one_line(err)
    assert said.startswith("error: lost the store ") and redact(url) in said, said
    print(f"\nthe worker stopped {took:.1f} s after the store went away")

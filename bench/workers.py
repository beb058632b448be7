"""Corpus workers through PostgreSQL (issue 20): wall time of a corpus at 1, 2 and 4 worker
processes, a worker SIGKILLed mid-document, and the database's bytes per source byte.

    python bench/workers.py [--quick] [--files N (60)] [--latency-ms 300] [--worktree]

Every run goes through `python -m chunker.testing.openai_stub --latency-ms L --slots 8` (a fresh
one each, bench/concurrency.py's Stub) with the settings `--model scripted --embeddings lexical`
resolves (bench/concurrency.py's settings file), on N files of ../shared/corpus/folders/fastapi-docs
(evenly spaced in path order), at --max-concurrency 1: each process makes one call at a time, so a
speed-up is the workers' own. One throwaway PostgreSQL server (ThrowawayPostgres), a fresh
database for each run.

1. reference: `chunker run SUBSET -o OUT --max-concurrency 1 --json` (SQLite, one process).
   workers: `chunker run SUBSET -o OUT_n --store URL_n --workers n --max-concurrency 1 --json`
   for n = 1, 2, 4: wall time (the child, timed here), speed-up vs 1, CPU of the run and its
   workers (os.wait4), and the tree against the reference (hierarchy.json less its `*_at`
   fields, every Markdown file byte for byte).
2. kill: `--workers 0` queues; two `chunker worker --exit-when-idle -q` (CHUNKER_STORE in their
   environment) start; once the corpus's rows in chunker_calls reach KILL_AT of the reference's
   calls and both workers hold a document, the first is SIGKILLed; the other finishes alone
   (the dead one's document returns to the queue once its heartbeat is STALLED_AFTER_S old).
   Calls repeated: the corpus's rows in chunker_calls less the reference's calls.total (the
   killed call in flight was never logged, so the stub's served count is given too).
3. bytes: `database_bytes` of the 1-worker database, then after VACUUM FULL; the reference's
   OUT/.chunker/*.sqlite* files; each per source byte (the subset's file sizes).

`--quick`: 5 files, latency 100 ms (a smoke run). Results: bench/results/workers/[quick-]corpus.json
and [quick-]summary.md. The children import a snapshot of the committed HEAD (or with
--worktree, of the working tree at start), as bench/concurrency.py's do.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import concurrency as cc  # noqa: E402  (beside this script: the stub, the settings, the subset)
from concurrency_report import compare_trees  # noqa: E402
from corpus import snapshot  # noqa: E402
from update import git_head, snapshot_commit  # noqa: E402
from chunker.runs.rundir import RunDir  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "workers"
LEVELS = (1, 2, 4)
KILL_AT = 0.3
"""The share of the reference's calls logged before the kill: well inside the corpus."""
TMP = ""


def child_env(stub: cc.Stub, **extra: str) -> dict[str, str]:
    return os.environ | {"PYTHONPATH": str(cc.CODE), "OPENAI_BASE_URL": stub.url, "OPENAI_API_KEY": "EMPTY",
                         **extra}


def timed(cmd: list[str], env: dict[str, str], log: Path, limit_s: float) -> dict[str, Any]:
    """Run `cmd` to its end (killed past `limit_s`): exit, wall, CPU (its own and its waited-for
    children's: `run --workers n` waits for its workers), its --json output if it printed one."""
    started = time.perf_counter()
    with open(log.with_suffix(".stdout"), "wb") as out, open(log.with_suffix(".stderr"), "wb") as err:
        child = subprocess.Popen(cmd, cwd=cc.CODE, stdout=out, stderr=err, env=env, start_new_session=True)
        timed_out = False
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            if not timed_out and time.perf_counter() - started > limit_s:
                os.killpg(child.pid, signal.SIGKILL)
                timed_out = True
            time.sleep(0.05)
    result: dict[str, Any] = {
        "command": "chunker " + " ".join(cmd[3:]).replace(TMP, "$TMP"),
        "exit": os.waitstatus_to_exitcode(status), "timed_out": timed_out,
        "wall_s": round(time.perf_counter() - started, 2), "cpu_s": round(usage.ru_utime + usage.ru_stime, 2)}
    printed = log.with_suffix(".stdout").read_text()
    if result["exit"] != 0 or timed_out or not printed.strip():
        return result | {"stderr_tail": log.with_suffix(".stderr").read_text(errors="replace")[-2000:]}
    report = json.loads(printed)
    return result | {"calls": report["stats"]["calls.total"], "chunker_wall_s": round(report["wall_s"], 2)}


def run_cmd(src: Path, out: Path, config: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "chunker.cli.app", "run", str(src), "-o", str(out),
            "--model", "openai:stub-model", "--config", str(config), "--max-concurrency", "1", *extra]


def served_run(cmd: list[str], log: Path, latency_ms: float, limit_s: float) -> dict[str, Any]:
    """`cmd` through a fresh stub: `timed`'s figures and the calls the stub served."""
    with cc.Stub(latency_ms) as stub:
        before = stub.stats()
        result = timed(cmd, child_env(stub), log, limit_s)
        after = stub.stats()
    return result | {"served": after["served"] - before["served"], "max_in_flight": after["max_in_flight"],
                     "stub_cpu_s": stub.cpu_s}


def corpus_rows(url: str, corpus_key: str) -> int:
    from chunker.persistence.store_url import connect

    with connect(url) as conn:
        if not conn.execute("SELECT to_regclass('chunker_calls') IS NOT NULL").fetchone()[0]:
            return 0
        return conn.execute("SELECT count(*) FROM chunker_calls WHERE log = %s", (corpus_key,)).fetchone()[0]


def running(url: str, corpus_key: str) -> int:
    from chunker.corpus.queue import queue_status
    from chunker.persistence.store_url import connect

    try:
        with connect(url) as conn:
            return queue_status(conn, corpus_key).running
    except Exception:  # the queue's tables are made by the first worker
        return 0


def exp_kill(src: Path, tmp: Path, config: Path, url: str, ref: dict[str, Any], latency_ms: float,
             limit_s: float) -> dict[str, Any]:
    """Two workers, one SIGKILLed mid-document; the other finishes the corpus."""
    out = tmp / "out-kill"
    record: dict[str, Any] = {}
    with cc.Stub(latency_ms) as stub:
        queued = timed(run_cmd(src, out, config, "--store", url, "--workers", "0", "-q"),
                       child_env(stub), tmp / "kill-queue", limit_s)
        record["queue"] = {k: queued[k] for k in ("command", "exit", "wall_s")}
        record["queue"]["command"] = queued["command"].replace(url, "URL")
        if queued["exit"] != 0:
            return record | {"queue_stderr": queued.get("stderr_tail")}
        corpus_key = RunDir(out).read_record().corpus_key
        env = child_env(stub, CHUNKER_STORE=url)
        worker = [sys.executable, "-m", "chunker.cli.app", "worker", "--exit-when-idle", "-q"]
        record["worker_command"] = "CHUNKER_STORE=URL chunker worker --exit-when-idle -q"
        before = stub.stats()
        started = time.perf_counter()
        procs = [subprocess.Popen(worker, cwd=cc.CODE, env=env, stderr=open(tmp / f"worker-{i}.stderr", "wb"),
                                  stdout=subprocess.DEVNULL, start_new_session=True) for i in range(2)]
        target = max(3, int(ref["calls"] * KILL_AT))
        while time.perf_counter() - started < limit_s and procs[0].poll() is None:
            if corpus_rows(url, corpus_key) >= target and running(url, corpus_key) == 2:
                break
            time.sleep(0.2)
        killed_at = time.perf_counter() - started
        at_kill = {"after_s": round(killed_at, 2), "rows_logged": corpus_rows(url, corpus_key),
                   "documents_running": running(url, corpus_key),
                   "stub_served": stub.stats()["served"] - before["served"],
                   "killed_worker_alive": procs[0].poll() is None}
        os.kill(procs[0].pid, signal.SIGKILL)
        procs[0].wait()
        try:
            procs[1].wait(timeout=max(1.0, limit_s - killed_at))
        except subprocess.TimeoutExpired:
            procs[1].kill()
            procs[1].wait()
        wall = time.perf_counter() - started
        after = stub.stats()
    status = RunDir(out).read_record().status
    rows = corpus_rows(url, corpus_key)
    record |= {"at_kill": at_kill, "survivor_exit": procs[1].returncode, "wall_s": round(wall, 2),
               "after_kill_s": round(wall - killed_at, 2), "status": status,
               "rows_logged": rows, "calls_repeated": rows - ref["calls"],
               "served": after["served"] - before["served"],
               "served_repeated": after["served"] - before["served"] - ref["served"],
               "survivor_stderr_tail": (tmp / "worker-1.stderr").read_text(errors="replace")[-1000:]}
    if (out / "hierarchy.json").exists():
        record["tree_vs_reference"] = compare_trees(tmp / "out-ref", out)
    return record


def exp_bytes(url: str, ref_out: Path, source_bytes: int) -> dict[str, Any]:
    """PostgreSQL's bytes after the 1-worker run, and pruned (VACUUM FULL), against SQLite's files."""
    from chunker.persistence.postgres import database_bytes
    from chunker.persistence.store_url import connect

    raw = database_bytes(url)
    with connect(url) as conn:
        whole_db = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]
        conn.execute("VACUUM FULL")
        whole_db_vacuumed = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]
    vacuumed = database_bytes(url)
    files = {p.name: p.stat().st_size for p in sorted((ref_out / ".chunker").glob("*.sqlite*"))}
    sqlite = sum(files.values())
    return {"source_bytes": source_bytes, "postgres_bytes": raw, "postgres_per_source_byte": round(raw / source_bytes, 1),
            "postgres_vacuum_full_bytes": vacuumed,
            "postgres_vacuum_full_per_source_byte": round(vacuumed / source_bytes, 1),
            "database_size_all_tables": whole_db, "database_size_all_tables_vacuum_full": whole_db_vacuumed,
            "sqlite_files": files, "sqlite_bytes": sqlite, "sqlite_per_source_byte": round(sqlite / source_bytes, 1)}


def experiment(tmp: Path, files: int, latency_ms: float, limit_s: float) -> dict[str, Any]:
    from chunker.testing.postgres_server import ThrowawayPostgres

    config = tmp / "settings.json"
    cc.write_settings(config)
    src, picked = cc.fastapi_subset(tmp / "fastapi-docs", files)
    source_bytes = sum(p.stat().st_size for p in src.rglob("*.md"))
    record: dict[str, Any] = {"input": {"source": f"folders/fastapi-docs, {len(picked)} of its 154 files",
                                        "files": len(picked), "bytes": source_bytes, "picked": picked}}
    ref = served_run(run_cmd(src, tmp / "out-ref", config, "-q", "--json"), tmp / "ref", latency_ms, limit_s)
    record["reference"] = ref
    print("reference:", json.dumps({k: ref.get(k) for k in ("exit", "wall_s", "calls", "served")}), flush=True)
    if ref["exit"] != 0:
        return record
    runs: dict[str, Any] = {}
    with ThrowawayPostgres() as pg:
        urls = {n: pg.create_database(f"w{n}") for n in LEVELS}
        for n in LEVELS:
            out = tmp / f"out-w{n}"
            run = served_run(run_cmd(src, out, config, "--store", urls[n], "--workers", str(n), "-q", "--json"),
                             tmp / f"w{n}", latency_ms, limit_s)
            run["command"] = run["command"].replace(urls[n], f"URL_{n}")
            if run["exit"] == 0:
                run["tree_vs_reference"] = compare_trees(tmp / "out-ref", out)
            runs[str(n)] = run
            print(f"workers {n}:", json.dumps({k: run.get(k) for k in ("exit", "wall_s", "calls", "served")}),
                  flush=True)
        base = runs[str(LEVELS[0])]
        for run in runs.values():
            if run["exit"] == 0 and base["exit"] == 0:
                run["speedup"] = round(base["wall_s"] / run["wall_s"], 2)
                run["speedup_chunker_wall"] = round(base["chunker_wall_s"] / run["chunker_wall_s"], 2)
        record["workers"] = runs
        record["bytes"] = exp_bytes(urls[1], tmp / "out-ref", source_bytes)
        print("bytes:", json.dumps(record["bytes"]), flush=True)
        record["kill"] = exp_kill(src, tmp, config, pg.create_database("kill"), ref, latency_ms, limit_s)
        print("kill:", json.dumps({k: record["kill"].get(k) for k in ("wall_s", "status", "calls_repeated")}),
              flush=True)
    for n, run in runs.items():  # the floor: the calls alone, n at once
        run["floor_s"] = round(run["served"] * latency_ms / 1000 / int(n), 1)
    return record


# -- the summary ---------------------------------------------------------------------------

def _same(run: dict[str, Any]) -> Any:
    t = run.get("tree_vs_reference")
    return "-" if t is None else (str(t["identical"]).lower() + ("" if t["identical"] else
                                  f" ({t['markdown_differ']} .md differ, hierarchy equal: {t['hierarchy_equal']})"))


def summary(r: dict[str, Any]) -> str:
    ref, runs, b, k = r["reference"], r.get("workers", {}), r.get("bytes", {}), r.get("kill", {})
    lines = [f"# Corpus workers through PostgreSQL{' (quick)' if r['quick'] else ''}", "",
             f"{r['input']['source']}, {r['input']['bytes']} bytes; stub latency {r['stub']['latency_ms']:g} ms, "
             f"{r['stub']['slots']} slots; --max-concurrency 1; {r['cores']} cores; load average "
             f"{r['load_start']} at start, {r['load_end']} at end; code {r['code']['commit'][:10]}{' + uncommitted ' + str(r['code']['uncommitted']) if r['code']['uncommitted'] else ''}; {r['date']}", "",
             "| run | wall s | speed-up vs 1 worker | chunker wall s | calls | served by the stub | floor s "
             "| CPU s (run + workers) | CPU s (stub) | tree identical to the SQLite run |",
             "|---|---|---|---|---|---|---|---|---|---|",
             f"| SQLite, one process | {ref['wall_s']} | - | {ref.get('chunker_wall_s')} | {ref.get('calls')} "
             f"| {ref['served']} | {round(ref['served'] * r['stub']['latency_ms'] / 1000, 1)} | {ref['cpu_s']} "
             f"| {ref['stub_cpu_s']} | (reference) |"]
    for n, run in runs.items():
        lines.append(f"| --store, {n} worker{'s' if n != '1' else ''} | {run['wall_s']} | {run.get('speedup', '-')} "
                     f"| {run.get('chunker_wall_s', '-')} | {run.get('calls', '-')} | {run['served']} "
                     f"| {run.get('floor_s', '-')} | {run['cpu_s']} | {run['stub_cpu_s']} | {_same(run)} |")
    if k.get("at_kill"):
        a = k["at_kill"]
        lines += ["", "| SIGKILL of one of 2 workers | |", "|---|---|",
                  f"| killed after | {a['after_s']} s, {a['rows_logged']} calls logged, "
                  f"{a['documents_running']} documents running |",
                  f"| corpus status | {k['status']} (survivor exit {k['survivor_exit']}) |",
                  f"| wall s (workers' start to the survivor's exit) | {k['wall_s']} "
                  f"({k['after_kill_s']} after the kill) |",
                  f"| calls repeated (rows in chunker_calls - the reference's calls.total) | "
                  f"{k['calls_repeated']} ({k['rows_logged']} - {ref.get('calls')}) |",
                  f"| calls served again by the stub (the killed one in flight included) | {k['served_repeated']} |",
                  f"| tree identical to the SQLite run | {_same(k)} |"]
    if b:
        lines += ["", "| store | bytes | per source byte |", "|---|---|---|",
                  f"| PostgreSQL after the 1-worker run (database_bytes) | {b['postgres_bytes']} "
                  f"| {b['postgres_per_source_byte']} |",
                  f"| PostgreSQL after VACUUM FULL | {b['postgres_vacuum_full_bytes']} "
                  f"| {b['postgres_vacuum_full_per_source_byte']} |",
                  f"| SQLite (the reference's .chunker/*.sqlite*) | {b['sqlite_bytes']} | {b['sqlite_per_source_byte']} |",
                  "", f"Source: {b['source_bytes']} bytes. The whole database (queue tables too): "
                  f"{b['database_size_all_tables']} bytes, {b['database_size_all_tables_vacuum_full']} after VACUUM FULL."]
    lines += ["", "wall s: the child, start-up included, timed here; chunker wall s: what it reports (`wall_s` of "
              "--json); floor s: calls served x latency / workers (the calls alone); CPU s (run + workers): os.wait4 "
              "of `chunker run`, which waits for its workers (PostgreSQL's own CPU is not in it); tree identical: "
              "hierarchy.json less its `*_at` fields, and every Markdown file byte for byte.", "",
              "Commands:", "", *[f"- `{x}`" for x in (
                  ref["command"], *(run["command"] for run in runs.values()),
                  k.get("queue", {}).get("command", ""), k.get("worker_command", "")) if x]]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="5 files, latency 100 ms")
    ap.add_argument("--files", type=int, help="fastapi-docs files to run (default 60: 1 worker ~3.5 min)")
    ap.add_argument("--latency-ms", type=float, help="the stub's time per call (default 300)")
    ap.add_argument("--limit-min", type=float, default=15, help="stop a run after this long")
    ap.add_argument("--worktree", action="store_true", help="measure the working tree, not HEAD")
    args = ap.parse_args(argv)
    cc.corpus_root(needs=["folders/fastapi-docs"])  # $CHUNKER_CORPUS, else ../shared/corpus
    files = args.files or (5 if args.quick else 60)
    latency = args.latency_ms or (100.0 if args.quick else 300.0)
    global TMP
    code_dir = tempfile.TemporaryDirectory(prefix="bench-workers-code-")
    cc.CODE = Path(code_dir.name)
    code = snapshot(cc.CODE) if args.worktree else snapshot_commit(cc.CODE, git_head())
    sys.path.insert(0, str(cc.CODE))  # this process's own imports (the queue, the server) too
    load_start = os.getloadavg()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-workers-") as tmp:
        TMP = tmp
        result = experiment(Path(tmp), files, latency, args.limit_min * 60)
    record = {"quick": args.quick, "code": code, "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "stub": {"latency_ms": latency, "slots": cc.SLOTS}, "cores": os.cpu_count(),
              "load_start": [round(x, 2) for x in load_start], "load_end": [round(x, 2) for x in os.getloadavg()],
              "bench_wall_s": round(time.perf_counter() - started, 1), **result}
    RESULTS.mkdir(parents=True, exist_ok=True)
    prefix = "quick-" if args.quick else ""
    (RESULTS / f"{prefix}corpus.json").write_text(json.dumps(record, indent=1) + "\n")
    text = summary(record)
    (RESULTS / f"{prefix}summary.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main(sys.argv[1:])

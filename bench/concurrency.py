"""Concurrent LLM calls (issue 20): wall time of a run at --max-concurrency 1, 2, 4, 8 through a
stub that behaves like a batching server, and whether the trees stay the same.

    python bench/concurrency.py [--quick] [--only corpus|emma|pdf] [--files N] [--emma-chars N]
        [--latency-ms 300] [--contexts written,source] [--worktree]

Every run is `chunker run SRC -o OUT --model openai:stub-model --config settings.json
--set background_context=C --max-concurrency N -q --json` as a child process (timed here with
perf_counter, CPU time from os.wait4), talking to `python -m chunker.testing.openai_stub
--latency-ms L --slots 8` (also a child), which answers as the scripted model does.
settings.json holds the settings `--model scripted --embeddings lexical` resolves, less `model`,
`max_concurrency` and `background_context`, which the command line sets. The stub is started
afresh for each run, so its `max_in_flight` is that run's; its /stats is read before and after
(served delta). "Average in flight" is served * latency / wall: the share of the wall time the
stub's slots were busy, in calls.

corpus: ../shared/corpus/folders/fastapi-docs (or N of its files, evenly spaced in path order)
  at 1, 2, 4, 8, under background_context=written (a corpus's documents run at once).
emma: ../shared/corpus/emma/emma.md (or its first N characters, cut at a paragraph) alone, at 1
  and 8, under the default settings (`background_context=written`; `--contexts written,source`
  adds source). A book is read in regions (issue 34), its chapters at once.
pdf: ../shared/corpus/pdf/four-lectures.pdf alone, at 1 and 8 (its extraction, PyMuPDF's layout
  model, runs before the graph and does not change with the concurrency: `chunker_wall_s` is the
  graph's own wall time, from the run's JSON).
For emma and pdf, the calls of the same document read in one cursor (`reading=one_cursor`,
`--model scripted` in process: the stub answers as it does, so the calls are the same) are
counted too: `calls_vs_one_cursor` is the regions run's calls over them.
Trees: each run's OUT against the run at 1 of the same settings: hierarchy.json equal once the
wall-clock fields (any key ending in `_at`) are removed, and every Markdown file equal byte for
byte. Each run's call log (OUT/.chunker/calls.sqlite) gives its timeline: how many calls were
asked at once (served or waiting for a slot), and when each task's calls ran, to tell the time
the cap was reached from the time the run had nothing more to ask.
`--quick`: 20 files, a 40 KB prefix, latency 100 ms (a smoke run).

The children import a snapshot of the package: the committed HEAD (`git archive`), or with
`--worktree` the working tree at start. Results: bench/results/concurrency/[quick-]<part>.json;
the Markdown table is printed (bench/concurrency_report.py, which also tables an earlier
measurement kept by hand as <part>-<commit>.json).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from concurrency_report import call_timeline, compare_trees, table  # noqa: E402  (beside this script)
from corpus import copy_tree, snapshot  # noqa: E402
from update import git_head, snapshot_commit  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
from corpus_path import corpus_root, default_root  # noqa: E402  (bench/: an argument or $CHUNKER_CORPUS)
SHARED = default_root()
FASTAPI = SHARED / "folders" / "fastapi-docs"
EMMA = SHARED / "emma" / "emma.md"
PDF = SHARED / "pdf" / "four-lectures.pdf"
RESULTS = ROOT / "bench" / "results" / "concurrency"
SLOTS = 8
CORPUS_LEVELS = (1, 2, 4, 8)
EMMA_LEVELS = (1, 8)
CONTEXTS = ("written",)
CODE = ROOT
TMP = ""


class Stub:
    """`python -m chunker.testing.openai_stub` as a child for one run: its URL, /stats, and on
    exit its CPU time (os.wait4), since it shares the machine's cores with the run it serves."""

    def __init__(self, latency_ms: float, slots: int = SLOTS):
        self.cmd = [sys.executable, "-m", "chunker.testing.openai_stub", "--port", "0",
                    "--latency-ms", str(latency_ms), "--slots", str(slots)]
        self.cpu_s = 0.0

    def __enter__(self) -> "Stub":
        self.proc = subprocess.Popen(self.cmd, cwd=CODE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True, env=os.environ | {"PYTHONPATH": str(CODE)})
        line = self.proc.stderr.readline()  # "serving stub-model on URL (OPENAI_BASE_URL=URL)"
        if " on " not in line:
            self.proc.kill()
            raise RuntimeError(f"the stub did not start: {line!r}")
        self.url = line.split(" on ", 1)[1].split(" ", 1)[0]
        return self

    def stats(self) -> dict[str, Any]:
        with urllib.request.urlopen(self.url.removesuffix("/v1") + "/stats", timeout=30) as resp:
            return json.loads(resp.read())

    def __exit__(self, *exc: object) -> None:
        self.proc.send_signal(signal.SIGTERM)
        _, _, usage = os.wait4(self.proc.pid, 0)
        self.cpu_s = round(usage.ru_utime + usage.ru_stime, 2)


def run_once(src: Path, out: Path, level: int, context: str, config: Path, latency_ms: float,
             limit_s: float) -> dict[str, Any]:
    """One `chunker run` through a fresh stub: wall and CPU time, calls, slots busy."""
    cmd = [sys.executable, "-m", "chunker.cli.app", "run", str(src), "-o", str(out),
           "--model", "openai:stub-model", "--config", str(config),
           "--set", f"background_context={context}", "--max-concurrency", str(level), "-q", "--json"]
    log, err = out.parent / f"{out.name}.stdout", out.parent / f"{out.name}.stderr"
    with Stub(latency_ms) as stub:
        before = stub.stats()
        env = os.environ | {"PYTHONPATH": str(CODE), "OPENAI_BASE_URL": stub.url, "OPENAI_API_KEY": "EMPTY"}
        with open(log, "wb") as stdout, open(err, "wb") as stderr:
            started = time.perf_counter()
            child = subprocess.Popen(cmd, cwd=CODE, stdout=stdout, stderr=stderr, env=env,
                                     start_new_session=True)
            timed_out = False
            while True:  # wait4: this child's own rusage; polled so that a limit can stop it
                pid, status, usage = os.wait4(child.pid, os.WNOHANG)
                if pid:
                    break
                if not timed_out and time.perf_counter() - started > limit_s:
                    os.killpg(child.pid, signal.SIGKILL)
                    timed_out = True
                time.sleep(0.05)
            wall = time.perf_counter() - started
        after = stub.stats()
    served = after["served"] - before["served"]
    result: dict[str, Any] = {
        "command": "chunker " + " ".join(cmd[3:]).replace(TMP, "$TMP"), "level": level, "context": context,
        "exit": os.waitstatus_to_exitcode(status), "timed_out": timed_out, "wall_s": round(wall, 2),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 2), "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
        "served": served, "avg_in_flight": round(served * latency_ms / 1000 / wall, 2),
        "max_in_flight": after["max_in_flight"], "queued_at_stub": after["queued"] - before["queued"],
        "stub_wait_s_total": round(after["wait_s_total"] - before["wait_s_total"], 3), "stub_cpu_s": stub.cpu_s}
    if result["exit"] != 0 or timed_out:
        return result | {"stderr_tail": err.read_text(errors="replace")[-2000:]}
    printed = json.loads(log.read_text())
    result["calls"] = printed["stats"]["calls.total"]
    result["chunker_wall_s"] = round(printed["wall_s"], 2)  # its own work, without the start-up
    result["avg_in_flight_chunker_wall"] = round(served * latency_ms / 1000 / printed["wall_s"], 2)
    result["floor_s"] = round(served * latency_ms / 1000 / min(level, SLOTS), 1)  # the calls alone, at N
    result["timeline"] = call_timeline(out, level)
    return result


# -- experiments ---------------------------------------------------------------------------

def fastapi_subset(dest: Path, n: int | None) -> tuple[Path, list[str] | None]:
    """A copy of fastapi-docs, or of n of its files evenly spaced in path order (their folders kept)."""
    if n is None:
        return copy_tree(FASTAPI, dest), None
    rels = sorted(p.relative_to(FASTAPI).as_posix() for p in FASTAPI.rglob("*.md"))
    picked = [rels[i * len(rels) // n] for i in range(n)]
    for rel in picked:
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(FASTAPI / rel, dest / rel)
    return dest, picked


def emma_prefix(dest: Path, chars: int | None) -> dict[str, Any]:
    """Emma, or its first `chars` characters cut back to the last paragraph break."""
    text = EMMA.read_text(encoding="utf-8")
    whole = len(text)
    if chars is not None and chars < whole:
        text = text[:text.rfind("\n\n", 0, chars) + 1]
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(text, encoding="utf-8")
    return {"source": "emma/emma.md" + ("" if len(text) == whole else f", first {len(text)} characters "
                                        "(cut at a paragraph break)"), "chars": len(text), "whole_chars": whole}


def series(src: Path, tmp: Path, name: str, levels: tuple[int, ...], context: str, config: Path,
           latency_ms: float, limit_s: float) -> dict[str, Any]:
    """The runs of one source and settings at each level, with speed-up and tree identity vs the first."""
    runs: dict[str, Any] = {}
    for level in levels:
        run = run_once(src, tmp / f"out-{name}-{level}", level, context, config, latency_ms, limit_s)
        runs[str(level)] = run
        print(f"{name} @{level}:", json.dumps({k: run.get(k) for k in (
            "exit", "wall_s", "calls", "avg_in_flight", "max_in_flight")}), flush=True)
    base = runs[str(levels[0])]
    for level, run in runs.items():
        if run["exit"] == 0 and base["exit"] == 0:
            run["speedup"] = round(base["wall_s"] / run["wall_s"], 2)
            run["speedup_chunker_wall"] = round(base["chunker_wall_s"] / run["chunker_wall_s"], 2)
            if level != str(levels[0]):
                run["tree_vs_first"] = compare_trees(tmp / f"out-{name}-{levels[0]}", tmp / f"out-{name}-{level}")
    return runs


def exp_corpus(tmp: Path, files: int | None, config: Path, latency_ms: float, limit_s: float) -> dict[str, Any]:
    src, picked = fastapi_subset(tmp / "fastapi-docs", files)
    n = len(list(src.rglob("*.md")))
    return {"input": {"source": "folders/fastapi-docs" + (f", {n} of its 154 files" if picked else ""),
                      "files": n, "bytes": sum(p.stat().st_size for p in src.rglob("*.md")), "picked": picked},
            "written": series(src, tmp, "corpus", CORPUS_LEVELS, "written", config, latency_ms, limit_s)}


def exp_emma(tmp: Path, chars: int | None, config: Path, latency_ms: float, limit_s: float) -> dict[str, Any]:
    src = tmp / "emma" / "emma.md"
    record: dict[str, Any] = {"input": emma_prefix(src, chars)}
    return record | exp_document(tmp, src, "emma", config, latency_ms, limit_s)


def exp_pdf(tmp: Path, config: Path, latency_ms: float, limit_s: float) -> dict[str, Any]:
    src = tmp / "pdf" / PDF.name
    src.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(PDF, src)
    return {"input": {"source": "pdf/four-lectures.pdf", "bytes": src.stat().st_size}} | exp_document(
        tmp, src, "pdf", config, latency_ms, limit_s)


def exp_document(tmp: Path, src: Path, name: str, config: Path, latency_ms: float, limit_s: float) -> dict[str, Any]:
    """One document at 1 and 8 under each context, and its calls read in one cursor."""
    record: dict[str, Any] = {}
    for context in CONTEXTS:
        record[context] = series(src, tmp, f"{name}-{context}", EMMA_LEVELS, context, config, latency_ms, limit_s)
    if len(CONTEXTS) > 1:
        a, b = (tmp / f"out-{name}-{c}-1" for c in CONTEXTS)
        if a.exists() and b.exists():
            record["written_vs_source_at_1"] = compare_trees(a, b)
    one = one_cursor_calls(src, tmp / f"out-{name}-one-cursor", config)
    record["one_cursor"] = one
    for context in CONTEXTS:
        for run in record[context].values():
            if run.get("calls") and one.get("calls"):
                run["calls_vs_one_cursor"] = round(run["calls"] / one["calls"], 4)
    return record


def one_cursor_calls(src: Path, out: Path, config: Path) -> dict[str, Any]:
    """The document read in one cursor (`--model scripted`, in process: the stub's answers are
    the scripted model's, so are its calls): its calls, and its wall and CPU time."""
    cmd = [sys.executable, "-m", "chunker.cli.app", "run", str(src), "-o", str(out), "--model", "scripted",
           "--config", str(config), "--set", "reading=one_cursor", "-q", "--json"]
    started = time.perf_counter()
    child = subprocess.Popen(cmd, cwd=CODE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=os.environ | {"PYTHONPATH": str(CODE)})
    stdout, stderr = child.communicate()
    if child.returncode != 0:
        return {"exit": child.returncode, "stderr_tail": stderr.decode(errors="replace")[-2000:]}
    stats = json.loads(stdout)["stats"]
    return {"command": "chunker " + " ".join(cmd[3:]).replace(TMP, "$TMP"), "calls": stats["calls.total"],
            "leaves": stats.get("leaves"), "wall_s": round(time.perf_counter() - started, 2)}


def write_settings(dest: Path) -> None:
    """The settings `--model scripted --embeddings lexical` resolves, as the snapshot has them."""
    code = ("import json,sys; from chunker.config.settings import ChunkerSettings as S; "
            "d=S(model='scripted', embeddings='lexical').flat_dict(); "
            "[d.pop(k) for k in ('model','max_concurrency','background_context')]; "
            "open(sys.argv[1],'w').write(json.dumps(d))")
    subprocess.run([sys.executable, "-c", code, str(dest)], cwd=CODE, check=True,
                   env=os.environ | {"PYTHONPATH": str(CODE)})


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="20 files, a 40 KB Emma prefix, latency 100 ms")
    ap.add_argument("--only", choices=("corpus", "emma", "pdf"), help="one part (default: all three)")
    ap.add_argument("--contexts", default="written", help="background contexts to run emma and pdf under")
    ap.add_argument("--files", type=int, help="fastapi-docs files to run (default: all 154)")
    ap.add_argument("--emma-chars", type=int, help="characters of Emma to run (default: all)")
    ap.add_argument("--latency-ms", type=float, help="the stub's time per call (default 300)")
    ap.add_argument("--limit-min", type=float, default=30, help="stop a run after this long")
    ap.add_argument("--worktree", action="store_true", help="measure the working tree, not HEAD")
    args = ap.parse_args(argv)
    corpus_root(needs=[p.relative_to(SHARED).as_posix() for p in (FASTAPI, EMMA, PDF)])
    global CONTEXTS
    CONTEXTS = tuple(args.contexts.split(","))
    files = args.files or (20 if args.quick else None)
    chars = args.emma_chars or (40_000 if args.quick else None)
    latency = args.latency_ms or (100.0 if args.quick else 300.0)
    global CODE, TMP  # noqa: PLW0603
    code_dir = tempfile.TemporaryDirectory(prefix="bench-concurrency-code-")
    CODE = Path(code_dir.name)
    code = snapshot(CODE) if args.worktree else snapshot_commit(CODE, git_head())
    RESULTS.mkdir(parents=True, exist_ok=True)
    written = []
    for part in (args.only,) if args.only else ("corpus", "emma", "pdf"):
        load_start = os.getloadavg()
        with tempfile.TemporaryDirectory(prefix=f"bench-concurrency-{part}-") as tmp:
            TMP = tmp
            config = Path(tmp) / "settings.json"
            write_settings(config)
            started = time.perf_counter()
            if part == "corpus":
                result = exp_corpus(Path(tmp), files, config, latency, args.limit_min * 60)
            elif part == "pdf":
                result = exp_pdf(Path(tmp), config, latency, args.limit_min * 60)
            else:
                result = exp_emma(Path(tmp), chars, config, latency, args.limit_min * 60)
        record = {"part": part, "quick": args.quick, "code": code,
                  "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                  "stub": {"latency_ms": latency, "slots": SLOTS}, "cores": os.cpu_count(),
                  "load_start": [round(x, 2) for x in load_start],
                  "load_end": [round(x, 2) for x in os.getloadavg()],
                  "bench_wall_s": round(time.perf_counter() - started, 1), **result}
        path = RESULTS / f"{'quick-' if args.quick else ''}{part}.json"
        path.write_text(json.dumps(record, indent=1) + "\n")
        written.append(record)
    print(table(written))


if __name__ == "__main__":
    main(sys.argv[1:])

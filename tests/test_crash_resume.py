"""SIGKILL at random points, then `chunker resume`: the tree is byte-identical to an
uninterrupted run's, and each crash costs at most one LLM call per region in flight. The runs are
child processes (a SIGKILL needs one); each resume runs in this process (conftest.invoke), which
never held the killed run's memory, so it can only go on from what the killed process left on disk."""

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chunker.runs.rundir import RunDir
from conftest import EMMA, invoke, tree_bytes as snapshot

MODEL = "scripted:delay_ms=4"
ARGS = ["--min-chunk-tokens", "120", "--max-chunk-tokens", "400", "--summary-count-threshold", "4",
        "--quiet"]


def cli(*args, env):
    return [sys.executable, "-m", "chunker.cli.app", *map(str, args)]


def in_flight(out: Path) -> str:
    """The steps the killed process was in: the next nodes of the last checkpoint of each
    namespace (a document read in regions has a step in flight in each running region)."""
    import sqlite3

    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    db = out / ".chunker" / "checkpoints.sqlite"
    if not db.exists():
        return "start"
    try:
        rows = sqlite3.connect(db).execute(
            "SELECT type, checkpoint FROM checkpoints c WHERE checkpoint_id = (SELECT max(checkpoint_id) "
            "FROM checkpoints d WHERE d.checkpoint_ns = c.checkpoint_ns) ORDER BY checkpoint_id DESC").fetchall()
    except sqlite3.OperationalError:  # killed after the file was made, before the saver's tables
        return "start"
    if not rows:
        return "start"
    waiting = [k.split(":", 2)[-1] for row in rows
               for k in JsonPlusSerializer().loads_typed((row[0], row[1]))["channel_values"]
               if k.startswith("branch:to:")]
    if waiting:
        return ",".join(dict.fromkeys(waiting))
    return "write_outputs" if (out / ".chunker" / "staging").exists() else "end"


def wait_for(path: Path, proc, poll: float = 0.002) -> None:
    deadline = time.time() + 120
    while not path.exists() and proc.poll() is None and time.time() < deadline:
        time.sleep(poll)


@pytest.mark.slow
def test_sigkill_anywhere_then_resume(tmp_path):
    # Plain text (Emma's headings as plain lines): a Markdown document's blocks follow its
    # sections without a grouping call, and a kill must land inside one of those too.
    doc = tmp_path / "doc.txt"
    text = EMMA.read_text(encoding="utf-8")[:30_000]
    doc.write_text("\n".join(line.lstrip("#").lstrip() for line in text.split("\n")), encoding="utf-8")
    base_env = {**os.environ}

    ref_counter = tmp_path / "ref-calls.txt"
    ref = subprocess.Popen(cli("run", doc, "--model", MODEL, "-o", tmp_path / "ref", *ARGS, env=None),
                           env={**base_env, "CHUNKER_SCRIPTED_COUNTER": str(ref_counter)})
    wait_for(tmp_path / "ref" / ".chunker" / "run.json", ref)
    started = time.perf_counter()
    assert ref.wait() == 0
    ref_wall = time.perf_counter() - started  # from the run's start to its end
    ref_calls = len(ref_counter.read_text().splitlines())
    reference = snapshot(tmp_path / "ref")

    rng = random.Random(20261129)
    # aimed kills, one inside each kind of LLM call, then random ones, then one while
    # the tree is being written
    # (the default profile answers rewrite, summary and slug in one call)
    plan = ["CandidateBoundary", "RewriteWithSummary", "Grouping", "Synthesis"] + ["random"] * 7 + ["write"]
    phases, extra_calls = [], []
    for i, aim in enumerate(plan):
        out = tmp_path / f"out{i}"
        counter = tmp_path / f"calls{i}.txt"
        env = {**base_env, "CHUNKER_SCRIPTED_COUNTER": str(counter)}
        proc = subprocess.Popen(cli("run", doc, "--model", MODEL, "-o", out, *ARGS, env=None), env=env)
        if aim == "write":
            wait_for(out / ".chunker" / "staging", proc, poll=0.0005)
        elif aim == "random":
            wait_for(out / ".chunker" / "checkpoints.sqlite", proc)
            time.sleep(rng.uniform(0.0, ref_wall))
        else:  # the scripted model writes the task's name as each call starts
            skip = rng.randrange(3)
            deadline = time.time() + 120
            while proc.poll() is None and time.time() < deadline:
                lines = counter.read_text().split() if counter.exists() else []
                if lines.count(aim) > skip and lines[-1] == aim:
                    break
                time.sleep(0.0005)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        phases.append(in_flight(out))
        if RunDir(out).status() == "finished":
            # a kill can land after the run finished; an OUT that looks finished is finished
            assert snapshot(out) == reference
        invoke("resume", out, "--quiet", env=env, check=0)
        assert snapshot(out) == reference, f"kill {i} ({phases[-1]}) changed the tree"
        extra_calls.append(len(counter.read_text().splitlines()) - ref_calls)

    print(f"\nreference: {ref_calls} calls in {ref_wall:.1f}s; kills landed in {phases}; "
          f"calls issued again per crash: {extra_calls}")
    # the text is read in two regions (its signal's deepest dip), and at --max-concurrency 1
    # LangGraph runs two tasks at once (one more than the cap, for the stream's waiter:
    # `runner.stream_config`), each with a step in flight: at most one call again per region
    regions = json.loads((tmp_path / "ref" / "hierarchy.json").read_text())["meta"]["stats"].get("regions", 1)
    assert regions == 2
    assert all(0 <= n <= regions for n in extra_calls), extra_calls
    landed = {step for phase in phases for step in phase.split(",")}
    for step in ("check_completeness", "rewrite_chunk", "group_summaries", "synthesize_block"):
        assert step in landed, (step, phases)
    assert landed & {"write_outputs", "end"}

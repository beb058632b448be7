"""Work spread over processes (`chunker/document/processes.py`): a long text's sentences come
out the same as segmented in one process, and a caller's script without a `__main__` guard is
not re-run by the workers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from chunker.document import processes, units

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).resolve().parents[1]


def test_map_in_processes_keeps_job_order():
    jobs = [["One. Two."], ["Three? Four!", "no end here"], ["Five."]]
    assert processes.map_in_processes(units.segment_blocks, jobs, 2) == [units.segment_blocks(j) for j in jobs]


def test_idle_workers_between_one_and_the_cores(monkeypatch):
    monkeypatch.setattr(processes.os, "getloadavg", lambda: (50.0, 0, 0))
    assert processes.idle_workers() == 1  # busy cores: work stays in this process
    monkeypatch.setattr(processes.os, "getloadavg", lambda: (0.0, 0, 0))
    assert processes.idle_workers() == processes.cores()


def test_sentences_in_processes_are_the_sentences_in_one(monkeypatch):
    text = (DATA / "emma" / "emma.md").read_text(encoding="utf-8")[:120_000]
    alone = units.sentence_ends(text)
    monkeypatch.setattr(units, "PARALLEL_CHARS", 10_000)
    monkeypatch.setattr(units, "idle_workers", lambda: 2)
    calls = []
    real = units.map_in_processes
    monkeypatch.setattr(units, "map_in_processes", lambda *a: calls.append(a) or real(*a))
    assert units.sentence_ends(text) == alone
    assert calls and len(calls[0][1]) > 1  # the pool did the work, in several batches


def test_a_script_without_a_main_guard_is_not_run_again(tmp_path):
    script = tmp_path / "unguarded.py"
    script.write_text("from chunker.document import processes, units\n"
                      "print('ran', processes.map_in_processes(units.segment_blocks, [['A. B.'], ['C.']], 2))\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path,
                          timeout=120, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("ran") == 1
    assert "process pool unavailable" not in done.stderr and "Traceback" not in done.stderr

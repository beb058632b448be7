"""Start-up (issue 17): `chunker --help`, `import typer`, and time to first progress.

    python bench/startup.py [--runs N] [--before SITE] [--out bench/results/startup.json]

For the code in this checkout ("after") and, with --before, an installed copy of an older
version (`PYTHONPATH=SITE`, its own `bin/chunker` console script), in turn, N runs each:

- `help`: wall seconds of `chunker --help` (the console script, as a user types it);
- `import_typer`: wall seconds of `python -c "import typer"`, the yardstick;
- `run`: `chunker run examples/cinderella.txt --model scripted -o TMP` with its stderr on a
  pseudo-terminal (rich draws the progress bar only on a terminal): `first_progress_s` when
  the bar first appears, `first_advance_s` when it first shows characters done, `exit_s`
  when the process ends.

Each figure is taken twice: wall seconds, and the CPU seconds the process had used by then
(user + system, from the kernel's accounting), which a loaded machine distorts far less.

Every command runs from a scratch working directory, so `python -m`'s current-directory
entry on sys.path can never pick up this checkout in place of SITE. Medians and the ratios
help / import_typer and before / after go to --out as JSON.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import platform
import pty
import re
import resource
import select
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "examples" / "cinderella.txt"
BAR = re.compile(rb"chunking")
ADVANCE = re.compile(rb"[1-9][\d,]*/[\d,]+ chars")
"""The bar's `cursor/total chars` column once the first window is placed (0 before it)."""
RUN_TIMEOUT_S = 300
_TICK = os.sysconf("SC_CLK_TCK")


def _console_script(site: Path | None) -> str:
    if site is not None:
        return str(site / "bin" / "chunker")
    return str(Path(sys.executable).with_name("chunker"))


def _env(site: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if site is not None:
        env["PYTHONPATH"] = str(site)
    return env


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _cpu_so_far(pid: int) -> float | None:
    """User + system seconds the running process `pid` has used (all its threads)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / _TICK  # utime, stime: fields 14 and 15


def time_command(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(wall, cpu) seconds of one run of argv."""
    cpu, started = _children_cpu(), time.perf_counter()
    subprocess.run(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started, _children_cpu() - cpu


def time_run(site: Path | None, cwd: Path) -> dict[str, float | None]:
    """One scripted run, its stderr on a pty 120 columns wide; the three moments, wall and cpu."""
    out = cwd / "out"
    shutil.rmtree(out, ignore_errors=True)
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    argv = [_console_script(site), "run", str(DOC), "--model", "scripted", "-o", str(out)]
    cpu, started = _children_cpu(), time.perf_counter()
    proc = subprocess.Popen(argv, env=_env(site), cwd=cwd, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    seen = b""
    first_progress = first_advance = first_progress_cpu = first_advance_cpu = None
    try:
        while time.perf_counter() - started < RUN_TIMEOUT_S:
            ready, _, _ = select.select([master], [], [], 0.5)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed its end of the pty
                break
            if not chunk:
                break
            now = time.perf_counter() - started
            seen = seen[-4096:] + chunk
            if first_progress is None and BAR.search(seen):
                first_progress, first_progress_cpu = now, _cpu_so_far(proc.pid)
            if first_advance is None and ADVANCE.search(seen):
                first_advance, first_advance_cpu = now, _cpu_so_far(proc.pid)
        code = proc.wait(timeout=RUN_TIMEOUT_S)
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
    if code != 0:
        raise RuntimeError(f"{argv} exited {code}; last output: {seen[-400:]!r}")
    return {"first_progress_s": first_progress, "first_advance_s": first_advance,
            "exit_s": time.perf_counter() - started, "first_progress_cpu_s": first_progress_cpu,
            "first_advance_cpu_s": first_advance_cpu, "exit_cpu_s": _children_cpu() - cpu}


def _median(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return round(statistics.median(known), 4) if known else None


def _ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 3) if a is not None and b else None


RUN_KEYS = ("first_progress_s", "first_advance_s", "exit_s",
            "first_progress_cpu_s", "first_advance_cpu_s", "exit_cpu_s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--before", type=Path, help="site folder of the older version")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "startup.json")
    args = parser.parse_args()
    versions: dict[str, Path | None] = {"after": None}
    if args.before is not None:
        versions = {"before": args.before.resolve(), "after": None}
    samples: dict[str, dict[str, list]] = {name: {} for name in [*versions, "import_typer"]}

    def add(name: str, figures: dict[str, float | None]) -> None:
        for key, value in figures.items():
            samples[name].setdefault(key, []).append(None if value is None else round(value, 4))

    with tempfile.TemporaryDirectory(prefix="startup-") as tmp:
        cwd = Path(tmp)
        for _ in range(args.runs):  # in turn, so drift in the machine's speed hits all alike
            wall, cpu = time_command([sys.executable, "-c", "import typer"], _env(None), cwd)
            add("import_typer", {"wall_s": wall, "cpu_s": cpu})
            for name, site in versions.items():
                wall, cpu = time_command([_console_script(site), "--help"], _env(site), cwd)
                add(name, {"help_s": wall, "help_cpu_s": cpu, **time_run(site, cwd)})
    medians = {name: {key: _median(values) for key, values in figures.items()}
               for name, figures in samples.items()}
    typer = medians["import_typer"]
    for name in versions:
        medians[name]["help_over_import_typer"] = _ratio(medians[name]["help_s"], typer["wall_s"])
        medians[name]["help_over_import_typer_cpu"] = _ratio(medians[name]["help_cpu_s"], typer["cpu_s"])
    result: dict = {"runs": args.runs, "machine": f"{platform.machine()}, {os.cpu_count()} cpus",
                    "load_average_at_end": os.getloadavg(), "python": platform.python_version(),
                    "median": medians}
    if args.before is not None:
        result["before_over_after"] = {key: _ratio(medians["before"][key], medians["after"][key])
                                       for key in ("help_s", "help_cpu_s", *RUN_KEYS)}
    result["samples"] = samples
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    json.dump({k: v for k, v in result.items() if k != "samples"}, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()

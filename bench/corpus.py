"""Folder runs as one tree: cost, memory, store size and agreement with an author's nav.

    python bench/corpus.py [fastapi] [shared] [notes] [summary]   (default: all four)
        [--sizes 200,1000,2000] [--notes-limit-min 20] [--shared-limit-min 15]

Every run is `python -m chunker.cli.app run FOLDER --model scripted --embeddings lexical
--json` as a child process, on a temporary copy of the folder (../shared is never written),
timed here (wall) and measured with `os.wait4` (that child's own peak RSS and CPU time, not
the max over all children that RUSAGE_CHILDREN would give). The children import a snapshot
of the package taken at start, so a run measures one version of the code while others edit
the tree. Each experiment writes its own JSON under bench/results/corpus/, so they can run
apart; `summary` folds them into summary.json/.md.

Nav agreement is measured on our *final* tree (hierarchy.json), not on the plan: for each
section of the nav with at least two of its files in the tree, does some node of the tree
have exactly those files as its document descendants? The plan's own figure
(`toc_section_agreement`) is recorded beside it, to tell the plan's choices from the
LLM grouping's.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from notes_gen import write_notes  # noqa: E402  (beside this script)

ROOT = Path(__file__).resolve().parents[1]
from corpus_path import corpus_root, default_root  # noqa: E402  (bench/: an argument or $CHUNKER_CORPUS)
SHARED = default_root()
FASTAPI = SHARED / "folders" / "fastapi-docs"
NAV = SHARED / "folders" / "fastapi-docs.nav.yml"
RESULTS = ROOT / "bench" / "results" / "corpus"
PACKAGE_DIRS = ("chunker", "graph", "nodes", "prompts", "state")  # pyproject's package-dir map
CODE = ROOT
"""Where the children import chunker from: a snapshot of the working tree (`snapshot`)."""


# -- running one folder -------------------------------------------------------------------

def run_folder(src: Path, out: Path, extra: list[str] = (), limit_s: float | None = None) -> dict[str, Any]:
    """Run chunker on `src` into `out` as a child; its wall time, peak RSS and figures."""
    cmd = [sys.executable, "-m", "chunker.cli.app", "run", str(src), "-o", str(out),
           "--model", "scripted", "--embeddings", "lexical", "--json", *extra]
    log = out.parent / f"{out.name}.stdout"
    started = time.perf_counter()
    with open(log, "wb") as stdout, open(out.parent / f"{out.name}.stderr", "wb") as stderr:
        child = subprocess.Popen(cmd, cwd=CODE, stdout=stdout, stderr=stderr, start_new_session=True,
                                 env=os.environ | {"PYTHONPATH": str(CODE)})
        timed_out = False
        while True:  # wait4 gives this child's own rusage; poll so a limit can stop it
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            if limit_s is not None and time.perf_counter() - started > limit_s:
                os.killpg(child.pid, signal.SIGKILL)
                timed_out = True
            time.sleep(0.2)
    wall = time.perf_counter() - started
    base = {"command": " ".join(cmd[1:]), "wall_s": round(wall, 1),
            "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),  # less swayed by others' load
            "peak_rss_mb": round(usage.ru_maxrss / 1024, 1), "timed_out": timed_out,
            "exit": os.waitstatus_to_exitcode(status)}
    if timed_out or base["exit"] != 0:
        base["stderr_tail"] = (out.parent / f"{out.name}.stderr").read_text(errors="replace")[-2000:]
        return base
    return base | figures(out, json.loads(log.read_text()))


def figures(out: Path, printed: dict[str, Any]) -> dict[str, Any]:
    """What the run's OUT and its --json say: sizes, calls, levels, skipped files."""
    stats = printed["stats"]
    from chunker.runs.rundir import RunDir

    record = RunDir(out).read_record()
    tree = json.loads((out / "hierarchy.json").read_text())
    nodes = {n["id"]: n for n in tree["nodes"]}
    source_bytes = sum(d.size for d in record.documents)
    sqlite = {p.name: p.stat().st_size for p in sorted((out / ".chunker").glob("*.sqlite*"))}
    files, leaves, calls = stats["documents"], stats["leaves"], stats["calls.total"]
    kinds = Counter(n["kind"] for n in nodes.values())
    return {
        "chunker_wall_s": round(printed["wall_s"], 1), "files": files, "leaves": leaves,
        "files_by_kind": dict(Counter(d.kind for d in record.documents)),
        "levels": nodes[tree["root"]]["level"] + 1, "nodes_by_kind": dict(kinds),
        "llm_calls": calls, "calls_per_file": round(calls / files, 2),
        "calls_per_leaf": round(calls / leaves, 2),
        "calls_by_kind": {k[6:]: v for k, v in stats.items() if k.startswith("calls.") and k != "calls.total"},
        "source_bytes": source_bytes, "sqlite_bytes": sqlite,
        "store_mb": round(sum(sqlite.values()) / 2**20, 1),
        "store_bytes_per_source_byte": round(sum(sqlite.values()) / source_bytes, 2),
        "toc": tree["meta"]["corpus"].get("toc"),
        "signals": {k[8:]: v for k, v in stats.items() if k.startswith("signals.")},
        "skipped": printed.get("skipped", []),
    }


# -- agreement with the nav ---------------------------------------------------------------

def nav_agreement(out: Path, nav: Path) -> dict[str, Any]:
    """Share of nav sections (>= 2 of their files in the tree) that are exactly one node's
    document descendants in OUT's hierarchy.json; and the plan's share for the same files."""
    from chunker.corpus.model import DocInfo
    from chunker.corpus.plan import build_plan, toc_section_agreement
    from chunker.corpus.signals import TocEntry, doc_info, find_toc

    tree = json.loads((out / "hierarchy.json").read_text())
    nodes = {n["id"]: n for n in tree["nodes"]}
    rels = [d["source"] for d in tree["meta"]["corpus"]["documents"]]
    with tempfile.TemporaryDirectory() as tmp:  # find_toc reads only ROOT/mkdocs.yml
        shutil.copyfile(nav, Path(tmp) / "mkdocs.yml")
        toc = find_toc(Path(tmp), rels)
    assert toc is not None, "the nav lists none of the tree's files"

    below: dict[str, frozenset[str]] = {}

    def docs_under(node_id: str) -> frozenset[str]:
        n = nodes[node_id]
        own = {n["source"]} if n["kind"] == "document" else set()
        below[node_id] = frozenset(own.union(*(docs_under(c) for c in n["children"])))
        return below[node_id]

    docs_under(tree["root"])
    node_sets, in_tree = set(below.values()), below[tree["root"]]

    def entry_docs(e: TocEntry) -> list[str]:
        return ([e.rel] if e.rel else []) + [r for c in e.children for r in entry_docs(c)]

    def sections(entries: list[TocEntry], path: str) -> list[tuple[str, TocEntry]]:
        out: list[tuple[str, TocEntry]] = []
        for i, e in enumerate(entries, 1):
            if e.children:
                key = f"{path}{i}"
                out += [(key, e), *sections(e.children, f"{key}.")]
        return out

    counted, missed = 0, []
    for key, section in sections(toc.entries, ""):
        docs = frozenset(r for r in entry_docs(section) if r in in_tree)
        if len(docs) >= 2:
            counted += 1
            if docs not in node_sets:
                missed.append({"section": key, "title": section.title, "files": len(docs),
                               "first_file": entry_docs(section)[0]})
    agree = counted - len(missed)
    texts = {r: (Path(tree["meta"]["source"]) / r).read_text(encoding="utf-8") for r in rels}
    infos: dict[str, DocInfo] = {r: doc_info(r, t) for r, t in texts.items()}
    plan_shares = {}
    for name, plan_toc in (("plan_without_toc", None), ("plan_with_toc", toc)):
        plan, _ = build_plan(rels, infos, plan_toc, corpus_title="corpus")
        a, t = toc_section_agreement(toc, plan)
        plan_shares[name] = {"agree": a, "sections": t, "share": round(a / t, 3)}
    return {"tree": {"agree": agree, "sections": counted, "share": round(agree / counted, 3)},
            **plan_shares, "missed_sections": missed}


# -- experiments --------------------------------------------------------------------------

def copy_tree(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest)
    for p in [dest, *dest.rglob("*")]:  # ../shared is read-only; the copy need not be
        p.chmod(p.stat().st_mode | 0o200)
    return dest


def exp_fastapi(tmp: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, with_nav in (("without_nav", False), ("with_nav", True)):
        src = copy_tree(FASTAPI, tmp / f"fastapi-{name}")
        if with_nav:
            shutil.copyfile(NAV, src / "mkdocs.yml")
        run = run_folder(src, tmp / f"out-{name}")
        if "files" in run:
            run["nav_agreement"] = nav_agreement(tmp / f"out-{name}", NAV)
        out[name] = run
        print(name, json.dumps({k: run.get(k) for k in ("wall_s", "files", "leaves", "llm_calls")}), flush=True)
    return out


def exp_shared(tmp: Path, limit_min: float) -> dict[str, Any]:
    src = copy_tree(SHARED, tmp / "corpus")
    out = {"limit_s": limit_min * 60, "all": run_folder(src, tmp / "out-all", limit_s=limit_min * 60)}
    print("all", out["all"]["wall_s"], out["all"]["timed_out"], flush=True)
    if out["all"]["timed_out"] or out["all"]["exit"] != 0:
        out["no_pdf"] = run_folder(src, tmp / "out-nopdf", ["--exclude", "*.pdf"])
    return out


def estimate_s(done: list[dict[str, Any]], n: int) -> float:
    """Wall time for n notes: the last run's time per file, grown by the exponent that time
    per file showed between the first and last runs (0, linear, with a single run)."""
    first, last = done[0], done[-1]
    k = 0.0
    if last["files"] > first["files"]:
        k = max(0.0, math.log(last["s_per_file"] / first["s_per_file"]) / math.log(last["files"] / first["files"]))
    return last["s_per_file"] * n * (n / last["files"]) ** k


def exp_notes(tmp: Path, sizes: list[int], limit_min: float) -> dict[str, Any]:
    src = tmp / "notes-1"  # the fixed cost of a run, apart from the sizes (not in the fit)
    src.mkdir()
    write_notes(src, 1)
    runs: dict[str, Any] = {"1 (baseline)": run_folder(src, tmp / "out-notes-1")}
    for n in sizes:
        done = [r for r in runs.values() if "s_per_file" in r]
        if done:
            estimate = estimate_s(done, n)
            if estimate > limit_min * 60:
                runs[str(n)] = {"skipped": f"estimated {estimate / 60:.1f} min > {limit_min} min"}
                continue
        src = tmp / f"notes-{n}"
        src.mkdir()
        write_notes(src, n)
        run = run_folder(src, tmp / f"out-notes-{n}")
        if "files" in run:
            run["s_per_file"] = round(run["wall_s"] / run["files"], 3)
            run["folders"] = len({p.parent for p in src.rglob("*.md")})
        runs[str(n)] = run
        print(n, json.dumps({k: run.get(k) for k in ("wall_s", "files", "s_per_file", "peak_rss_mb")}), flush=True)
    return runs


# -- summary ------------------------------------------------------------------------------

ROW = ("files", "leaves", "levels", "llm_calls", "calls_per_file", "calls_per_leaf", "wall_s", "cpu_s",
       "peak_rss_mb", "source_bytes", "store_mb", "store_bytes_per_source_byte")


def _row(name: str, r: dict[str, Any]) -> str:
    if "files" not in r:
        return f"| {name} | " + (r.get("skipped") or f"failed (exit {r.get('exit')}, timed out {r.get('timed_out')})") + " |"
    return f"| {name} | " + " | ".join(str(r.get(k, "-")) for k in ROW) + " |"


def summary(parts: dict[str, Any]) -> str:
    code = "; ".join(f"{part}: commit {c['commit']}" + (
        f" plus uncommitted changes to {', '.join(c['uncommitted'])} (diff sha256 {c['uncommitted_diff_sha256']})"
        if c["uncommitted"] else "") for part, c in parts["code"].items())
    lines = ["# Corpus runs (scripted model, lexical embeddings)", "",
             f"Code measured: {code}. Each run imported a snapshot of the package taken when its "
             "invocation of the script started (other agents edit the tree meanwhile).", "",
             "Wall time and peak RSS of each `chunker run FOLDER` child process. The machine is "
             "shared (2 cores, other agents running tests): wall times carry that load. "
             f"Load average (1, 5, 15 min) at start {parts['load_start']}, at end {parts['load_end']}; "
             "by part: " + "; ".join(f"{p} {v['start']} -> {v['end']}" for p, v in parts["load_by_part"].items())
             + ".", "",
             "| run | " + " | ".join(ROW) + " |", "|---" * (len(ROW) + 1) + "|"]
    fa, sh, notes = parts.get("fastapi", {}), parts.get("shared", {}), parts.get("notes", {})
    for name, r in fa.items():
        lines.append(_row(f"fastapi-docs {name}", r))
    for name, r in sh.items():
        if isinstance(r, dict):
            lines.append(_row(f"shared/corpus {name}", r))
    for n, r in notes.items():
        lines.append(_row(f"notes {n}", r))
    lines += ["", "## fastapi-docs: agreement with the site's nav", "",
              "Sections of the nav with >= 2 of their files in the tree; agree: some node of the "
              "final tree has exactly those files as its document descendants. `plan` columns: "
              "`toc_section_agreement` of the plan alone (before LLM grouping), for comparison.", "",
              "| run | final tree | plan without toc | plan with toc | missed sections |", "|---|---|---|---|---|"]
    for name, r in fa.items():
        if a := r.get("nav_agreement"):
            cells = [f"{a[k]['agree']}/{a[k]['sections']} = {a[k]['share']:.0%}"
                     for k in ("tree", "plan_without_toc", "plan_with_toc")]
            missed = ", ".join(f"{m['section']} {m['title'] or 'untitled'} (from `{m['first_file']}`, "
                               f"{m['files']} files)"
                               for m in a["missed_sections"]) or "none"
            lines.append(f"| {name} | " + " | ".join(cells) + f" | {missed} |")
    if sh:
        lines += ["", "## shared/corpus: skipped files", ""]
        for name, r in sh.items():
            if isinstance(r, dict) and "files" in r:
                lines.append(f"- {name}: " + ("; ".join(f"`{s['rel']}`: {s['reason']}" for s in r["skipped"]) or "none"))
    if timed := [r for r in notes.values() if "s_per_file" in r]:
        per = ", ".join(f"{r['files']}: {r['s_per_file']} s" for r in timed)
        lines += ["", "## Generated notes: time per file", "", f"Time per file by size: {per}. "
                  + parts.get("notes_verdict", {}).get("text", "")]
    return "\n".join(lines) + "\n"


def notes_verdict(notes: dict[str, Any]) -> dict[str, Any]:
    """Linear or not: wall = fixed + per_file * files (least squares), and the marginal time
    per file between consecutive sizes; linear when the marginal times agree within 25 %."""
    timed = [r for r in notes.values() if "s_per_file" in r]
    if len(timed) < 2:
        return {"text": "Only one size ran: no growth measured."}
    xs, ys = [r["files"] for r in timed], [r["wall_s"] for r in timed]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    fixed = my - slope * mx
    marginal = [round((b["wall_s"] - a["wall_s"]) / (b["files"] - a["files"]), 3)
                for a, b in zip(timed, timed[1:])]
    cpu = [round((b["cpu_s"] - a["cpu_s"]) / (b["files"] - a["files"]), 3)
           for a, b in zip(timed, timed[1:])] if all("cpu_s" in r for r in timed) else []
    linear = max(cpu or marginal) <= 1.25 * min(cpu or marginal)  # CPU time when measured
    steps = " then ".join(f"{m} s" for m in marginal)
    cpu_steps = f"; CPU {' then '.join(f'{m} s' for m in cpu)}" if cpu else ""
    text = (f"{'Roughly linear' if linear else 'Not linear'}: marginal time per added file "
            f"between sizes, wall {steps}{cpu_steps} (linear when within 25 %, judged on CPU "
            f"time where measured, as wall time carries the other agents' load). Wall fit: "
            f"{fixed:.1f} s fixed + {slope:.3f} s per file.")
    return {"fixed_s": round(fixed, 1), "s_per_file_fit": round(slope, 4), "marginal_s_per_file": marginal,
            "marginal_cpu_s_per_file": cpu, "linear": linear, "text": text}


def snapshot(dest: Path) -> dict[str, Any]:
    """Copy the package as the working tree has it now into `dest` (laid out at its import
    paths) and import it from there: other agents edit chunker/ while this runs, and every
    run of one invocation should measure the same code. Returns what that code is."""
    git = ["git", "-C", str(ROOT)]
    files = subprocess.run([*git, "ls-files", "-co", "--exclude-standard", "--", *PACKAGE_DIRS],
                           capture_output=True, text=True, check=True).stdout.split()
    for rel in files:
        target = dest / (rel if rel.startswith("chunker/") else f"chunker/{rel}")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, target)
    dirty = subprocess.run([*git, "status", "--porcelain", "--", *PACKAGE_DIRS],
                           capture_output=True, text=True, check=True).stdout.splitlines()
    diff = subprocess.run([*git, "diff", "HEAD", "--", *PACKAGE_DIRS], capture_output=True, check=True).stdout
    sys.path.insert(0, str(dest))  # nav_agreement's imports too
    return {"commit": git_head(), "uncommitted": [line.strip() for line in dirty],
            "uncommitted_diff_sha256": hashlib.sha256(diff).hexdigest()[:16] if diff else None}


def git_head() -> str:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout.strip()


def main(argv: list[str]) -> None:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("parts", nargs="*", help="fastapi, shared, notes, summary (default: all)")
    ap.add_argument("--sizes", default="200,1000,2000")
    ap.add_argument("--notes-limit-min", type=float, default=20)
    ap.add_argument("--shared-limit-min", type=float, default=15)
    args = ap.parse_args(argv)
    corpus_root(needs=["folders/fastapi-docs", "folders/fastapi-docs.nav.yml"])
    known = ["fastapi", "shared", "notes", "summary"]
    args.parts = args.parts or known
    if unknown := set(args.parts) - set(known):
        ap.error(f"unknown parts {sorted(unknown)}; choose from {known}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    global CODE
    code_dir = tempfile.TemporaryDirectory(prefix="bench-corpus-code-")
    CODE = Path(code_dir.name)
    code = snapshot(CODE) if set(args.parts) - {"summary"} else None
    for part in args.parts:
        if part == "summary":
            continue
        load_start = os.getloadavg()
        with tempfile.TemporaryDirectory(prefix=f"bench-corpus-{part}-") as tmp:
            if part == "fastapi":
                result = exp_fastapi(Path(tmp))
            elif part == "shared":
                result = exp_shared(Path(tmp), args.shared_limit_min)
            else:
                result = exp_notes(Path(tmp), [int(s) for s in args.sizes.split(",")], args.notes_limit_min)
        record = {"code": code, "load_start": [round(x, 2) for x in load_start],
                  "load_end": [round(x, 2) for x in os.getloadavg()], "runs": result}
        (RESULTS / f"{part}.json").write_text(json.dumps(record, indent=1) + "\n")
    if "summary" in args.parts:
        records = {p: json.loads((RESULTS / f"{p}.json").read_text())
                   for p in ("fastapi", "shared", "notes") if (RESULTS / f"{p}.json").exists()}
        loads = [r["load_start"] for r in records.values()] + [r["load_end"] for r in records.values()]
        parts = {"code": {p: r["code"] for p, r in records.items()}, "load_start": loads[0] if loads else None,
                 "load_end": loads[-1] if loads else None,
                 "load_by_part": {p: {"start": r["load_start"], "end": r["load_end"]} for p, r in records.items()},
                 **{p: r["runs"] for p, r in records.items()}}
        if "notes" in parts:
            parts["notes_verdict"] = notes_verdict(parts["notes"])
        (RESULTS / "summary.json").write_text(json.dumps(parts, indent=1) + "\n")
        (RESULTS / "summary.md").write_text(summary(parts))
        print(summary(parts))


if __name__ == "__main__":
    main(sys.argv[1:])

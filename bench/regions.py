"""Regions against one cursor (issue 34): what reading a document in regions changes.

    python bench/regions.py [--docs emma,manifesto] [--worktree]

Each document is run twice with `chunker run DOC --model scripted --embeddings lexical` (a
child process each, the scripted model answering at once), with `reading: regions` (the
default) and `reading: one_cursor`, and compared:

- leaves, and the leaf boundaries in common (ends of leaves both runs cut, as a share of one
  cursor's), and whether the trees have the same shape (ids, spans, children);
- calls, prompt tokens per call, per task;
- what the background of every call holds (parsed from the call log, `OUT/.chunker/calls.sqlite`):
  its tokens, and the share that is the outline, the level summaries, the passage before
  (predecessor, or the source before a region) and earlier passages' summaries;
- wall and CPU seconds (os.wait4) and the load average around each run.

Results: bench/results/regions/compare.json, and the Markdown table printed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import snapshot  # noqa: E402
from corpus_path import corpus_root, default_root  # noqa: E402
from update import git_head, snapshot_commit  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CORPUS = default_root()
DOCS = {"emma": CORPUS / "emma" / "emma.md", "manifesto": CORPUS / "manifesto" / "61620_201211.txt"}
RESULTS = ROOT / "bench" / "results" / "regions"
READINGS = ("one_cursor", "regions")
_ITEM = re.compile(r"^\[(the document at a glance|overview, level \d+|earlier passage|[^\]]*)\]", re.M)


def run(code: Path, doc: Path, out: Path, reading: str) -> dict:
    cmd = [sys.executable, "-m", "chunker.cli.app", "run", str(doc), "-o", str(out), "--model", "scripted",
           "--embeddings", "lexical", "--set", f"reading={reading}", "-q", "--json", "--force"]
    load = os.getloadavg()
    started = time.perf_counter()
    child = subprocess.Popen(cmd, cwd=code, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=os.environ | {"PYTHONPATH": str(code)})
    stdout, stderr = child.communicate()
    _, status, usage = os.wait4(child.pid, 0) if child.returncode is None else (0, 0, None)
    wall = time.perf_counter() - started
    if child.returncode != 0:
        raise SystemExit(f"{doc.name} {reading}: {stderr.decode()[-500:]}")
    printed = json.loads(stdout)
    return {"wall_s": round(wall, 1), "chunker_wall_s": round(printed["wall_s"], 1),
            "load_before": [round(x, 2) for x in load], "load_after": [round(x, 2) for x in os.getloadavg()],
            "stats": printed["stats"]}


def background(out: Path) -> dict:
    """Tokens of every call's background and their shares by item kind."""
    from chunker.document.tokens import count_tokens

    kinds, total, calls = Counter(), 0, 0
    with sqlite3.connect(out / ".chunker" / "calls.sqlite") as db:
        for (prompt,) in db.execute("SELECT prompt FROM calls"):
            calls += 1
            start, end = prompt.find("<background>"), prompt.find("</background>")
            if start < 0 or end < 0:
                continue
            block = prompt[start + len("<background>"):end]
            total += count_tokens(block)
            marks = list(_ITEM.finditer(block))
            for m, nxt in zip(marks, marks[1:] + [None]):
                text = block[m.start():nxt.start() if nxt else len(block)]
                label = m.group(1)
                kind = ("outline" if label == "the document at a glance" else "level" if label.startswith("overview")
                        else "earlier" if label == "earlier passage" else "predecessor")
                kinds[kind] += count_tokens(text)
    return {"calls": calls, "background_tokens_per_call": round(total / max(1, calls), 1),
            "share": {k: round(v / max(1, total), 3) for k, v in sorted(kinds.items())}}


def compare(one: Path, regions: Path) -> dict:
    a, b = (json.loads((p / "hierarchy.json").read_text()) for p in (one, regions))
    ends = [{n["span"][1] for n in h["nodes"] if not n["children"]} for h in (a, b)]
    shape = [{(n["id"], tuple(n["span"]), tuple(n["children"])) for n in h["nodes"]} for h in (a, b)]
    return {"leaves": [len(e) for e in ends], "ends_in_common": len(ends[0] & ends[1]),
            "ends_in_common_share_of_one_cursor": round(len(ends[0] & ends[1]) / len(ends[0]), 3),
            "same_shape": shape[0] == shape[1], "nodes": [len(s) for s in shape]}


def per_call(stats: dict) -> dict:
    calls = stats.get("calls.total", 0)
    out = {"calls": calls, "prompt_tokens_per_call": round(stats.get("tokens.prompt", 0) / max(1, calls), 1)}
    for key, value in stats.items():
        if key.startswith("tokens.prompt."):
            task = key.removeprefix("tokens.prompt.")
            out[f"prompt_tokens_per_call.{task}"] = round(value / max(1, stats.get(f"calls.{task}", 1)), 1)
    return out


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", default="emma,manifesto")
    ap.add_argument("--worktree", action="store_true", help="measure the working tree, not HEAD")
    args = ap.parse_args(argv)
    names = args.docs.split(",")
    corpus_root(needs=[DOCS[n].relative_to(CORPUS).as_posix() for n in names])
    code_dir = tempfile.TemporaryDirectory(prefix="bench-regions-code-")
    code = Path(code_dir.name)
    version = snapshot(code) if args.worktree else snapshot_commit(code, git_head())
    record: dict = {"code": version, "cores": os.cpu_count(), "documents": {}}
    with tempfile.TemporaryDirectory(prefix="bench-regions-") as tmp:
        for name in names:
            entry: dict = {}
            for reading in READINGS:
                out = Path(tmp) / f"{name}-{reading}"
                result = run(code, DOCS[name], out, reading)
                stats = result.pop("stats")
                entry[reading] = {**result, **per_call(stats), "regions": stats.get("regions", 1),
                                  "background": background(out)}
                print(name, reading, json.dumps(entry[reading]), flush=True)
            entry["compare"] = compare(Path(tmp) / f"{name}-one_cursor", Path(tmp) / f"{name}-regions")
            record["documents"][name] = entry
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / "compare.json"
    if path.exists():  # the documents not run this time keep their last measurement
        earlier = json.loads(path.read_text())
        record["documents"] = {**{k: v | {"code": earlier.get("code")} for k, v in earlier["documents"].items()
                                  if k not in record["documents"]}, **record["documents"]}
    path.write_text(json.dumps(record, indent=1) + "\n")
    print(table(record))


def table(record: dict) -> str:
    lines = ["| document | reading | regions | leaves | ends in common | calls | prompt tokens/call | "
             "background tokens/call | outline / level / predecessor / earlier | wall s | load |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, entry in record["documents"].items():
        c = entry["compare"]
        for reading in READINGS:
            r = entry[reading]
            share = r["background"]["share"]
            parts = " / ".join(f"{share.get(k, 0):.2f}" for k in ("outline", "level", "predecessor", "earlier"))
            common = f"{c['ends_in_common']} ({c['ends_in_common_share_of_one_cursor']:.1%})" if reading == "regions" else "-"
            lines.append(f"| {name} | {reading} | {r['regions']} | {c['leaves'][READINGS.index(reading)]} | {common} | "
                         f"{r['calls']} | {r['prompt_tokens_per_call']} | {r['background']['background_tokens_per_call']} | "
                         f"{parts} | {r['wall_s']} | {r['load_before'][0]} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main(sys.argv[1:])

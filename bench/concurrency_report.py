"""What bench/concurrency.py's runs say: whether two OUTs hold the same tree, the call timeline of
a run's OUT, and the Markdown table of the results (one row a run).

    python bench/concurrency_report.py [--quick]   (reads bench/results/concurrency/, writes summary.md)

The table is kept apart from the runner so that it can be redone from the JSON without running
anything, e.g. after re-running one part (`--only emma`).
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parents[1] / "bench" / "results" / "concurrency"
COLUMNS = ("run", "concurrency", "wall s", "speed-up", "chunker wall s", "speed-up (chunker wall)", "calls",
           "avg in flight", "max in flight", "calls asked (mean)", "share of time at the cap", "floor s", "CPU s (run)", "CPU s (stub)", "calls / one cursor's",
           "tree identical to @1")


def call_timeline(out: Path, cap: int) -> dict[str, Any]:
    """How many calls were asked at once over the run, from OUT's call log. A call's interval is
    [logged - duration, logged]; it includes the wait for a slot (CallSlots), so "asked" counts
    calls served and calls waiting. Time with fewer than `cap` asked is time the run had no more
    calls to make (its own work between calls, or calls that wait on others' answers)."""
    with sqlite3.connect(out / ".chunker" / "calls.sqlite") as db:
        rows = db.execute("SELECT ts - duration_ms / 1000.0, ts, task FROM calls").fetchall()
    if not rows:
        return {"calls": 0}
    events = sorted([(a, 1) for a, _, _ in rows] + [(b, -1) for _, b, _ in rows])
    buckets: dict[str, float] = {}
    asked, prev = 0, events[0][0]
    for t, step in events:
        buckets[_bucket(asked, cap)] = buckets.get(_bucket(asked, cap), 0.0) + t - prev
        asked, prev = asked + step, t
    span = events[-1][0] - events[0][0]
    tasks: dict[str, Any] = {}
    for a, b, task in rows:
        w = tasks.setdefault(task, {"calls": 0, "first_s": a, "last_s": b})
        w["calls"] += 1
        w["first_s"], w["last_s"] = min(w["first_s"], a), max(w["last_s"], b)
    first = events[0][0]
    return {"calls": len(rows), "span_s": round(span, 1),
            "mean_asked": round(sum(b - a for a, b, _ in rows) / span, 2) if span else None,
            "share_of_span_by_asked": {k: round(v / span, 3) for k, v in sorted(buckets.items())} if span else {},
            "tasks": {k: {"calls": w["calls"], "from_s": round(w["first_s"] - first, 1),
                          "to_s": round(w["last_s"] - first, 1)} for k, w in sorted(tasks.items())}}


def strip_clock(value: Any, path: str = "", removed: set[str] | None = None) -> Any:
    """`value` without its wall-clock fields (keys ending in `_at`); their paths go to `removed`."""
    if isinstance(value, dict):
        kept = {}
        for k, v in value.items():
            if k.endswith("_at"):
                if removed is not None:
                    removed.add(f"{path}.{k}".lstrip("."))
            else:
                kept[k] = strip_clock(v, f"{path}.{k}", removed)
        return kept
    if isinstance(value, list):
        return [strip_clock(v, f"{path}[]", removed) for v in value]
    return value


def differences(a: Any, b: Any, path: str = "", limit: int = 5) -> list[str]:
    """Up to `limit` paths where a and b differ (to say what moved, when a tree is not the same)."""
    if type(a) is not type(b) or not isinstance(a, (dict, list)):
        return [] if a == b else [path or "."]
    if isinstance(a, list) and len(a) != len(b):
        return [f"{path} (length {len(a)} vs {len(b)})"]
    found: list[str] = []
    for k in (sorted(set(a) | set(b)) if isinstance(a, dict) else range(len(a))):
        if isinstance(a, dict) and (k not in a or k not in b):
            found.append(f"{path}.{k} (only in one)")
        else:
            found += differences(a[k], b[k], f"{path}.{k}" if isinstance(a, dict) else f"{path}[{k}]", limit)
        if len(found) >= limit:
            break
    return found[:limit]


def compare_trees(a: Path, b: Path) -> dict[str, Any]:
    """Is OUT `b` the tree of OUT `a`: hierarchy.json less wall-clock fields, and every .md file."""
    removed: set[str] = set()
    ha, hb = (strip_clock(json.loads((d / "hierarchy.json").read_text()), "", removed) for d in (a, b))
    md_a, md_b = ({p.relative_to(d).as_posix(): p.read_bytes() for p in d.rglob("*.md")} for d in (a, b))
    md_differ = sorted(k for k in md_a.keys() | md_b.keys() if md_a.get(k) != md_b.get(k))
    return {"identical": ha == hb and not md_differ, "hierarchy_equal": ha == hb,
            "hierarchy_differences": differences(ha, hb), "clock_fields_removed": sorted(removed),
            "markdown_files": len(md_a), "markdown_differ": len(md_differ), "markdown_differ_first": md_differ[:5]}


def _bucket(asked: int, cap: int) -> str:
    """0, 1, 2 to cap - 1, or cap and more (calls asked at once)."""
    top = max(cap, 2)
    return str(asked) if asked <= 1 else f">={top}" if asked >= top else f"2-{top - 1}"


def _row(name: str, r: dict[str, Any]) -> str:
    if r["exit"] != 0 or r["timed_out"]:
        return f"| {name} | {r['level']} | failed: exit {r['exit']}, timed out {r['timed_out']} |"
    same, timeline = r.get("tree_vs_first"), r.get("timeline", {})
    cells = (name, r["level"], r["wall_s"], r.get("speedup", "-"), r["chunker_wall_s"],
             r.get("speedup_chunker_wall", "-"), r["calls"], r["avg_in_flight"], r["max_in_flight"],
             timeline.get("mean_asked", "-"), _at_cap(timeline, r["level"]), r["floor_s"], r["cpu_s"], r["stub_cpu_s"],
             r.get("calls_vs_one_cursor", "-"), "(reference)" if same is None else str(same["identical"]).lower())
    return "| " + " | ".join(str(c) for c in cells) + " |"


def _at_cap(timeline: dict[str, Any], cap: int) -> Any:
    shares = timeline.get("share_of_span_by_asked")
    return "-" if not shares else sum(v for k, v in shares.items() if k == f">={cap}" or (cap == 1 and k != "0"))


def _code(c: dict[str, Any]) -> str:
    extra = f" plus uncommitted changes to {', '.join(c['uncommitted'])}" if c.get("uncommitted") else ""
    return f"{c['commit'][:10]}{extra}"


def table(records: list[dict[str, Any]]) -> str:
    """The runs of each record (a part: corpus or emma) as one Markdown table, with what was run."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|---" * len(COLUMNS) + "|"]
    notes = []
    for rec in records:
        for settings in ("written", "source"):
            for r in rec.get(settings, {}).values():
                lines.append(_row(f"{rec['part']} ({rec['input']['source']}), background_context={settings}, "
                                  f"code {rec['code']['commit'][:7]}", r))
        stub = rec["stub"]
        notes.append(f"- {rec['part']}: code {_code(rec['code'])}; stub latency {stub['latency_ms']:g} ms, "
                     f"{stub['slots']} slots; {rec['cores']} cores, load average {rec['load_start']} at start, "
                     f"{rec['load_end']} at end; {rec['date']}" + (" (quick)" if rec["quick"] else ""))
        hint = rec.get("written_vs_source_at_1")
        if hint is not None:
            where = ", ".join(f"`{d}`" for d in hint["hierarchy_differences"]) or "nowhere"
            notes.append(f"- {rec['part']}: `source` against `written`, both at 1 (does `source` change what "
                         f"the calls see?): {hint['markdown_differ']} of {hint['markdown_files']} Markdown files "
                         f"differ; hierarchy.json differs at {where}")
    legend = ("wall s: the `chunker run` child, start-up included; chunker wall s: what it reports "
              "(`wall_s` of --json, its own work); avg in flight: calls served x latency / wall s; max in "
              "flight: the stub's most at once; calls asked: from OUT's call log, calls served or waiting for "
              "one of the run's slots, over the span from the first call to the last (mean, and the share of "
              "that span with `concurrency` or more asked); floor s: calls x latency / concurrency (the calls alone); "
              "tree identical: hierarchy.json less its `*_at` fields, and every Markdown file byte for byte, "
              "against the run at concurrency 1 of the same settings.")
    return "\n".join([*lines, "", legend, "", *notes]) + "\n"


def main(argv: list[str]) -> None:
    prefix = "quick-" if "--quick" in argv else ""
    paths = [RESULTS / f"{prefix}{part}.json" for part in ("corpus", "emma", "pdf")]
    if not prefix:  # earlier measurements kept beside the latest (PART-COMMIT.json), e.g. before a change
        paths += sorted(RESULTS.glob("corpus-*.json")) + sorted(RESULTS.glob("emma-*.json")) + sorted(
            RESULTS.glob("pdf-*.json"))
    records = [json.loads(p.read_text()) for p in paths if p.exists()]
    text = f"# Concurrent LLM calls through the batching stub{' (quick)' if prefix else ''}\n\n" + table(records)
    (RESULTS / f"{prefix}summary.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main(sys.argv[1:])

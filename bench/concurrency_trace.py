"""Where a run's wall time goes (issue 34): one `chunker run` in process, every graph node's
and every LLM call's start and end, per thread, written as JSON lines and summed up.

    python bench/concurrency_trace.py SRC OUT TRACE.jsonl -- [chunker run options...]

Patched in this process only (nothing in chunker changes): LangGraph's `RunnableCallable.invoke`
(every node of every subgraph: its name, thread, start, end) and `chunker.llm.invoke.call_llm`
(each call's task, thread, start, end, the wait for a slot included), plus the graph's custom
events (a region's progress names its thread). `--summary TRACE.jsonl` prints the breakdown:
the phases (before the first region, the regions, after the last region), each region's span
and its calls, the node time summed per node name, and the time with fewer calls asked than
the cap. Run it through bench/concurrency.py's stub (OPENAI_BASE_URL) to time a served model.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

T0 = time.perf_counter()


def install(trace: Path) -> None:
    out = trace.open("w", buffering=1)
    lock = threading.Lock()

    def write(record: dict) -> None:
        with lock:
            out.write(json.dumps(record) + "\n")

    import chunker.llm.invoke as invoke
    from langgraph._internal import _runnable

    original_call = invoke.call_llm

    def call_llm(*args, **kwargs):
        start = time.perf_counter() - T0
        try:
            return original_call(*args, **kwargs)
        finally:
            write({"kind": "call", "task": kwargs.get("task") or (args[1] if len(args) > 1 else "?"),
                   "thread": threading.get_ident(), "start": start, "end": time.perf_counter() - T0})

    invoke.call_llm = call_llm
    original_invoke = _runnable.RunnableCallable.invoke

    def node_invoke(self, input, config=None, **kwargs):  # noqa: A002
        start = time.perf_counter() - T0
        try:
            return original_invoke(self, input, config, **kwargs)
        finally:
            name = getattr(self, "name", "?")
            if name and not name.startswith("_") and name not in ("ChannelWrite", "RunnableCallable"):
                write({"kind": "node", "name": name, "thread": threading.get_ident(), "start": start,
                       "end": time.perf_counter() - T0,
                       "region": (input or {}).get("region") if isinstance(input, dict) else None})

    _runnable.RunnableCallable.invoke = node_invoke
    import chunker.nodes.common as common

    original_emit = common.emit

    def emit(runtime, event):
        write({"kind": "event", "event": event.get("event"), "region": event.get("region"),
               "thread": threading.get_ident(), "t": time.perf_counter() - T0})
        return original_emit(runtime, event)

    common.emit = emit


def summary(trace: Path) -> dict:
    rows = [json.loads(line) for line in trace.read_text().splitlines() if line.strip()]
    calls = [r for r in rows if r["kind"] == "call"]
    nodes = [r for r in rows if r["kind"] == "node"]
    region_of_thread: dict[int, int] = {}
    per_region: dict[int, dict] = defaultdict(lambda: {"calls": 0, "start": None, "end": None, "call_s": 0.0})
    for n in nodes:
        if n.get("region") is not None:
            w = per_region[n["region"]]
            w["start"] = n["start"] if w["start"] is None else min(w["start"], n["start"])
            w["end"] = n["end"] if w["end"] is None else max(w["end"], n["end"])
    # a region's calls: those made on a thread while it ran one of that region's nodes
    spans = sorted((n["start"], n["end"], n["thread"], n["region"]) for n in nodes if n.get("region") is not None)
    for c in calls:
        for a, b, thread, region in spans:
            if thread == c["thread"] and a <= c["start"] and c["end"] <= b:
                per_region[region]["calls"] += 1
                per_region[region]["call_s"] += c["end"] - c["start"]
                break
    by_name: dict[str, float] = defaultdict(float)
    for n in nodes:
        by_name[n["name"]] += n["end"] - n["start"]
    first_region = min((w["start"] for w in per_region.values()), default=None)
    last_region = max((w["end"] for w in per_region.values()), default=None)
    end = max([r.get("end", r.get("t", 0)) for r in rows] or [0])
    return {"end_s": round(end, 2), "calls": len(calls),
            "first_call_s": round(min((c["start"] for c in calls), default=0), 2),
            "last_call_end_s": round(max((c["end"] for c in calls), default=0), 2),
            "first_region_start_s": first_region and round(first_region, 2),
            "last_region_end_s": last_region and round(last_region, 2),
            "regions": {k: {"calls": w["calls"], "start": round(w["start"], 2), "end": round(w["end"], 2),
                            "wall": round(w["end"] - w["start"], 2), "call_s": round(w["call_s"], 2)}
                        for k, w in sorted(per_region.items())},
            "node_s": {k: round(v, 2) for k, v in sorted(by_name.items(), key=lambda kv: -kv[1])[:30]},
            "calls_by_task_after_regions": _after(calls, last_region)}


def _after(calls: list[dict], t: float | None) -> dict:
    counts: dict[str, int] = defaultdict(int)
    for c in calls:
        if t is not None and c["start"] >= t:
            counts[str(c["task"])] += 1
    return dict(counts)


def main(argv: list[str]) -> None:
    if argv[:1] == ["--summary"]:
        print(json.dumps(summary(Path(argv[1])), indent=1))
        return
    src, out, trace = argv[0], argv[1], Path(argv[2])
    rest = argv[argv.index("--") + 1:] if "--" in argv else []
    install(trace)
    from chunker.cli.app import main as cli

    sys.argv = ["chunker", "run", src, "-o", out, *rest]
    try:
        cli()
    except SystemExit as exc:
        if exc.code:
            raise
    print(json.dumps(summary(trace), indent=1), file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])

"""Overhead and tree-shape benchmark with the scripted (instant) model.

    python bench/overhead.py [--embeddings P] [DOC ...]
                             (default: Emma, its first 10 %, manifesto 61620_201211; lexical)

For each document, in a fresh subprocess (so peak RSS is its own), it runs the full
CLI pipeline into a temporary OUT and prints: wall time, graph steps, ms per leaf,
checkpoint + store bytes per source byte, bytes per leaf, peak RSS, tree levels and
blocks per level, LLM calls per leaf by kind, and prompt tokens per source token.
"""

from __future__ import annotations

import json
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
from corpus_path import corpus_root, default_root  # noqa: E402  (bench/: an argument or $CHUNKER_CORPUS)
CORPUS = default_root()


def measure(doc: Path, fraction: float, model: str, extra: dict) -> dict:
    from chunker.runs.rundir import RunDir
    from chunker.runs.runner import execute, new_record
    from chunker.config.settings import ChunkerSettings
    from chunker.document.tokens import count_tokens

    text = doc.read_text(encoding="utf-8")
    text = text[:int(len(text) * fraction)]
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / doc.name
        src.write_text(text, encoding="utf-8")
        run = RunDir(Path(tmp) / "out")
        run.prepare_new(force=False)
        ctx = ChunkerSettings(model=model, **extra)
        run.write_record(new_record(str(src), "0" * 64, ctx, "bench"))
        started = time.perf_counter()
        values = execute(run, ctx, {"path": str(src)}, "bench")
        wall = time.perf_counter() - started
        ck, st = run.checkpoints, run.store
        ck_bytes = sum(p.stat().st_size for p in ck.parent.glob("checkpoints.sqlite*"))
        st_bytes = sum(p.stat().st_size for p in st.parent.glob("store.sqlite*"))
        calls_bytes = sum(p.stat().st_size for p in st.parent.glob("calls.sqlite*"))
        # only the last checkpoints are kept; the latest one's metadata holds the step count
        meta = sqlite3.connect(ck).execute(
            "SELECT metadata FROM checkpoints ORDER BY checkpoint_id DESC LIMIT 1").fetchone()[0]
        steps = json.loads(meta)["step"] + 1
        h = json.loads((run.path / "hierarchy.json").read_text())
    stats = values["stats"]
    leaves = stats["leaves"]
    source_bytes = len(text.encode("utf-8"))
    levels: dict[int, int] = {}
    for n in h["nodes"]:
        levels[n["level"]] = levels.get(n["level"], 0) + 1
    kinds = {k[6:]: round(v / leaves, 3) for k, v in sorted(stats.items())
             if k.startswith("calls.")}
    return {
        "doc": doc.name, "fraction": fraction, "embeddings": ctx.embedding.provider, "source_bytes": source_bytes,
        "source_tokens": count_tokens(text), "wall_s": round(wall, 2), "graph_steps": steps,
        "leaves": leaves, "ms_per_leaf": round(1000 * wall / leaves, 2),
        "checkpoint_bytes": ck_bytes, "store_bytes": st_bytes, "calls_log_bytes": calls_bytes,
        "ckpt_store_bytes_per_source_byte": round((ck_bytes + st_bytes) / source_bytes, 2),
        "ckpt_store_bytes_per_leaf": round((ck_bytes + st_bytes) / leaves),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "levels": h["nodes"] and max(levels) + 1, "nodes_per_level": levels,
        "llm_calls_per_leaf": kinds,
        "prompt_tokens_per_source_token": round(stats["tokens.prompt"] / count_tokens(text), 2),
        "stats": stats,
    }


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--one":
        doc, fraction, model, extra = Path(sys.argv[2]), float(sys.argv[3]), sys.argv[4], json.loads(sys.argv[5])
        print(json.dumps(measure(doc, fraction, model, extra)))
        return
    model = "scripted"
    args = sys.argv[1:]
    extra = {}
    if args[:1] == ["--embeddings"]:
        extra["embeddings"], args = args[1], args[2:]
    cases = [(CORPUS / "emma" / "emma.md", 0.1), (CORPUS / "emma" / "emma.md", 1.0),
             (CORPUS / "manifesto" / "61620_201211.txt", 1.0)]
    if args:
        cases = [(Path(a), 1.0) for a in args]
    else:
        corpus_root(needs=["emma/emma.md", "manifesto/61620_201211.txt"])
    results = []
    for doc, fraction in cases:
        out = subprocess.run([sys.executable, __file__, "--one", str(doc), str(fraction), model,
                              json.dumps(extra)],
                             capture_output=True, text=True, check=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        results.append(r)
        print(f"\n== {r['doc']} x{fraction}: {r['source_bytes']:,} bytes, {r['source_tokens']:,} tokens, "
              f"embeddings {r['embeddings']}")
        for key in ("wall_s", "graph_steps", "leaves", "ms_per_leaf", "checkpoint_bytes", "store_bytes",
                    "calls_log_bytes", "ckpt_store_bytes_per_source_byte", "ckpt_store_bytes_per_leaf",
                    "peak_rss_mb", "levels", "nodes_per_level", "llm_calls_per_leaf",
                    "prompt_tokens_per_source_token"):
            print(f"  {key}: {r[key]}")
    if len(results) >= 2 and results[0]["doc"] == results[1]["doc"]:
        a, b = results[0]["ckpt_store_bytes_per_leaf"], results[1]["ckpt_store_bytes_per_leaf"]
        print(f"\nbytes per leaf, 10 % vs 100 %: {a} vs {b} ({100 * (b - a) / a:+.1f} %)")
    Path(ROOT / "bench" / "results").mkdir(parents=True, exist_ok=True)
    name = f"overhead-{extra['embeddings']}.json" if extra.get("embeddings") else "overhead.json"
    (ROOT / "bench" / "results" / name).write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()

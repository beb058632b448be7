"""The real local model end to end: wall time against the physical limit.

    python bench/local_model.py [DOC] [--order stable|priority|both]

Runs `--model local` (SmolLM2-135M in-process) on DOC (default: Cinderella) and prints
wall time, LLM calls per leaf by kind, prompt and completion tokens per source token,
the measured prefill and decode speeds, and the ratio of wall time to the physical
limit: the time to prefill every source token once plus decode a rewrite of equal
length once, at the speeds measured in the same run. With `--order both` it runs
twice, with the prefix-stable context order and without it, to show what KV-cache
reuse between consecutive calls saves.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
from corpus_path import corpus_root, default_root  # noqa: E402  (bench/: an argument or $CHUNKER_CORPUS)
DEFAULT_DOC = default_root() / "small" / "cinderella.txt"


def run_once(doc: Path, order: str) -> dict:
    from chunker.runs.rundir import RunDir
    from chunker.runs.runner import execute, new_record
    from chunker.config.settings import ChunkerSettings
    from chunker.document.tokens import count_tokens
    from chunker.llm import llamacpp

    text = doc.read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        run = RunDir(Path(tmp) / "out")
        run.prepare_new(force=False)
        ctx = ChunkerSettings(model="local", background_order=order)
        run.write_record(new_record(str(doc), "0" * 64, ctx, "bench"))
        timings: list[dict] = []
        original = llamacpp.ChatLlamaCppLocal._generate

        def timed(self, *args, **kwargs):  # collect llama.cpp's own per-call timings
            result = original(self, *args, **kwargs)
            timings.append(result.generations[0].message.response_metadata)
            return result

        llamacpp.ChatLlamaCppLocal._generate = timed
        try:
            started = time.perf_counter()
            values = execute(run, ctx, {"path": str(doc)}, "bench")
            wall = time.perf_counter() - started
        finally:
            llamacpp.ChatLlamaCppLocal._generate = original
        calls = sqlite3.connect(run.path / ".chunker" / "calls.sqlite").execute(
            "SELECT task, COUNT(*), SUM(prompt_tokens), SUM(completion_tokens), SUM(duration_ms) "
            "FROM calls GROUP BY task").fetchall()
    stats = values["stats"]
    source_tokens = count_tokens(text)
    prefill_tokens = sum(t.get("prompt_eval_tokens", 0) for t in timings)
    prefill_ms = sum(t.get("prompt_ms", 0) for t in timings)
    decode_tokens = sum(t.get("eval_tokens", 0) for t in timings)
    decode_ms = sum(t.get("eval_ms", 0) for t in timings)
    prefill_tps = prefill_tokens / (prefill_ms / 1000) if prefill_ms else float("nan")
    decode_tps = decode_tokens / (decode_ms / 1000) if decode_ms else float("nan")
    limit_s = source_tokens / prefill_tps + source_tokens / decode_tps
    leaves = stats["leaves"]
    return {
        "doc": doc.name, "background_order": order, "wall_s": round(wall, 1), "leaves": leaves,
        "source_tokens": source_tokens,
        "calls_per_leaf": {k[6:]: round(v / leaves, 2) for k, v in sorted(stats.items())
                           if k.startswith("calls.")},
        "prompt_tokens_per_source_token": round(stats["tokens.prompt"] / source_tokens, 2),
        "completion_tokens_per_source_token": round(stats["tokens.completion"] / source_tokens, 2),
        "prompt_tokens_evaluated_after_cache": prefill_tokens,
        "prompt_tokens_total": stats["tokens.prompt"],
        "kv_cache_reuse_share": round(1 - prefill_tokens / stats["tokens.prompt"], 3),
        "prefill_tok_per_s": round(prefill_tps, 1), "decode_tok_per_s": round(decode_tps, 1),
        "physical_limit_s": round(limit_s, 1), "wall_over_limit": round(wall / limit_s, 2),
        "by_task": [{"task": t, "calls": n, "prompt_tokens": p, "completion_tokens": c,
                     "seconds": round(ms / 1000, 1)} for t, n, p, c, ms in calls],
        "fallbacks": {k: v for k, v in stats.items() if k.startswith(("fallback.", "boundary.", "rewrite.",
                                                                       "truncated", "repairs", "forced"))},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("doc", nargs="?", type=Path, default=DEFAULT_DOC)
    parser.add_argument("--order", choices=["stable", "priority", "both"], default="both")
    args = parser.parse_args()
    if args.doc == DEFAULT_DOC:
        corpus_root(needs=["small/cinderella.txt"])
    elif not args.doc.exists():
        sys.exit(f"error: {args.doc} is missing")
    orders = ["stable", "priority"] if args.order == "both" else [args.order]
    results = [run_once(args.doc, order) for order in orders]
    for r in results:
        print(json.dumps(r, indent=1))
    if len(results) == 2:
        a, b = results
        print(f"\nprefix-stable order: {a['wall_s']} s, {a['prompt_tokens_evaluated_after_cache']} prompt "
              f"tokens evaluated; priority order: {b['wall_s']} s, {b['prompt_tokens_evaluated_after_cache']}")
    out = ROOT / "bench" / "results" / "local_model.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1) + "\n")
    sys.exit(0)


if __name__ == "__main__":
    main()

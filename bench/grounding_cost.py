"""What the grounding check and its fallbacks cost, per call, on realistic sizes.

Cases: a ~400-character summary against a ~6,000-character leaf (its original), against
8 children's summaries (a block), and a whole-chapter rewrite (~6,000 characters against
its original); each first with a fresh evidence (its features computed: the cost of the
first check on a node) and then warm (the evidence cached: the cost of a second check on
the same node, e.g. model output then fallback). Fallbacks: the LexRank extractive summary
of a 6,000-character leaf, the summary of 8 summaries, and a YAKE slug. Compare with an LLM
call: seconds.

Run: python bench/grounding_cost.py   (writes bench/results/grounding/cost.json)
"""

from __future__ import annotations

import json
import platform
import statistics
import sys
import time
from pathlib import Path

from chunker.grounding import (GroundingPolicy, check, extractive_summary, grounded_slug,
                               summary_of_summaries)
from chunker.grounding.check import evidence_of

ROOT = Path(__file__).resolve().parent.parent
from corpus_path import corpus_root, default_root  # noqa: E402  (bench/: an argument or $CHUNKER_CORPUS)
EMMA = default_root() / "emma" / "emma.md"
OUT = Path(__file__).parent / "results" / "grounding" / "cost.json"
REPEAT = 30


def leaves(text: str, size: int, count: int) -> list[str]:
    """`count` consecutive pieces of about `size` characters, cut at paragraph ends."""
    out, start = [], 0
    while len(out) < count:
        end = text.find("\n\n", start + size)
        out.append(text[start:end])
        start = end + 2
    return out


def timed(fn, *, cold: bool) -> dict:
    samples = []
    for _ in range(REPEAT):
        if cold:
            evidence_of.cache_clear()
        t = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t) * 1000)
    return {"median_ms": round(statistics.median(samples), 3), "max_ms": round(max(samples), 3)}


def main() -> int:
    corpus_root(needs=["emma/emma.md"])
    text = EMMA.read_text(encoding="utf-8")
    policy = GroundingPolicy()
    leaf = leaves(text[20000:], 6000, 1)[0]
    children = leaves(text[40000:], 6000, 8)
    summaries = [extractive_summary(c, max_chars=400) for c in children]
    summary = extractive_summary(leaf, max_chars=400)
    block_summary = summary_of_summaries(summaries, max_chars=400)
    model_like = "Emma Woodhouse worries about Miss Taylor, who married Mr. Weston after sixteen years."
    cases = {
        "check: 400-char summary vs 6,000-char leaf": lambda: check(summary, leaf, task="summarize", policy=policy),
        "check: invented summary vs 6,000-char leaf": lambda: check(model_like, leaf, task="summarize", policy=policy),
        "check: 400-char summary vs 8 children's summaries": lambda: check(block_summary, summaries,
                                                                            task="synthesize", policy=policy),
        "check: 6,000-char rewrite vs its 6,000-char original": lambda: check(leaf, leaf, task="rewrite", policy=policy),
    }
    results: dict[str, dict] = {}
    for name, fn in cases.items():
        results[f"{name} (fresh evidence)"] = timed(fn, cold=True)
        results[f"{name} (cached evidence)"] = timed(fn, cold=False)
    results["fallback: extractive_summary of a 6,000-char leaf"] = timed(
        lambda: extractive_summary(leaf, max_chars=400), cold=True)
    results["fallback: summary_of_summaries of 8 summaries"] = timed(
        lambda: summary_of_summaries(summaries, max_chars=400), cold=True)
    results["fallback: grounded_slug, YAKE on a 6,000-char leaf"] = timed(
        lambda: grounded_slug("snippet-of-text-2018-34-slash-sitemap", leaf), cold=True)
    results["fallback: grounded_slug, YAKE on the leaf's summary"] = timed(
        lambda: grounded_slug("snippet-of-text-2018-34-slash-sitemap", leaf, summary=summary), cold=True)
    report = {"python": platform.python_version(), "machine": platform.machine(), "repeat": REPEAT,
              "sizes": {"leaf_chars": len(leaf), "summary_chars": len(summary),
                        "children_summaries_chars": sum(map(len, summaries)),
                        "block_summary_chars": len(block_summary)},
              "results": results}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(report["sizes"]))
    for name, r in results.items():
        print(f"{r['median_ms']:9.3f} ms median {r['max_ms']:9.3f} ms max  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

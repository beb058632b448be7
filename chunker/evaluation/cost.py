"""`eval cost`: what a finished run spent, normalised by what it produced.

From OUT/hierarchy.json (`meta.stats`, `meta.source_chars`, the leaves) and
OUT/.chunker/run.json (`wall_s`):

- LLM calls by kind (`calls.<kind>` stats) per leaf, and in total;
- prompt and completion tokens per source token (prompt tokens also by call kind, from
  the `tokens.prompt.<kind>` stats where the run records them), where source tokens are
  `count_tokens` (cl100k_base) of the concatenated leaf originals, i.e. of the source;
- boundary outcomes per leaf (`boundary.<outcome>`: match, retry_match, window, end,
  fallback), the forced-split rate (`forced_splits` / leaves), and every `fallback.*`
  stat per leaf (rewrite, summary) or per block (synthesize);
- wall time in total, per leaf and per 1,000 source tokens.
"""

from __future__ import annotations

from pathlib import Path

from chunker.document.tokens import count_tokens
from chunker.output.hierarchy import Hierarchy
from chunker.runs.rundir import RunDir, RunDirError


def _ratio(a: float, b: float) -> float | None:
    return a / b if b else None


def evaluate_cost(run_dir: str | Path) -> dict:
    run_dir = Path(run_dir)
    h = Hierarchy.model_validate_json((run_dir / "hierarchy.json").read_text(encoding="utf-8"))
    stats = {k: int(v) for k, v in h.meta.stats.items()}
    leaves = h.leaves()
    blocks = [n for n in h.nodes if n.level > 0]
    n_leaves = len(leaves) or stats.get("leaves", 0)
    source_tokens = count_tokens("".join(leaf.original or "" for leaf in leaves))
    wall_s = None
    run = RunDir(run_dir)
    if run.meta_file.exists():
        try:
            wall_s = run.read_record().wall_s
        except RunDirError:
            wall_s = None
    calls = {k.split(".", 1)[1]: v for k, v in stats.items() if k.startswith("calls.")}
    calls.setdefault("total", sum(calls.values()))
    prompt, completion = stats.get("tokens.prompt", 0), stats.get("tokens.completion", 0)
    by_kind = {k.split(".", 2)[2]: v for k, v in stats.items() if k.startswith("tokens.prompt.")}
    boundary = {k.split(".", 1)[1]: v for k, v in stats.items() if k.startswith("boundary.")}
    fallbacks = {k.split(".", 1)[1]: v for k, v in stats.items() if k.startswith("fallback.")}
    fallback_rates = {}
    for kind, v in fallbacks.items():
        denom = len(blocks) if kind == "synthesize" else (len(h.nodes) if kind == "summary" else n_leaves)
        fallback_rates[kind] = _ratio(v, denom)
    fallback_rates["boundary"] = _ratio(boundary.get("fallback", 0), n_leaves)
    return {
        "kind": "cost", "run_dir": str(run_dir), "model": h.meta.model, "doc_id": h.meta.doc_id,
        "source_chars": h.meta.source_chars, "source_tokens": source_tokens,
        "leaves": n_leaves, "blocks": len(blocks), "stats": stats,
        "calls": calls,
        "calls_per_leaf": {k: _ratio(v, n_leaves) for k, v in calls.items()},
        "tokens": {"prompt": prompt, "completion": completion, "total": prompt + completion},
        "prompt_tokens_per_source_token": _ratio(prompt, source_tokens),
        "completion_tokens_per_source_token": _ratio(completion, source_tokens),
        "prompt_tokens_per_source_token_by_kind": {k: _ratio(v, source_tokens) for k, v in by_kind.items()},
        "boundary_per_leaf": {k: _ratio(v, n_leaves) for k, v in boundary.items()},
        "forced_split_rate": _ratio(stats.get("forced_splits", 0), n_leaves),
        "fallback_rates": fallback_rates,
        "mean_leaf_tokens": _ratio(source_tokens, n_leaves),
        "wall_s": wall_s,
        "wall_s_per_leaf": _ratio(wall_s, n_leaves) if wall_s is not None else None,
        "wall_s_per_1k_source_tokens": (_ratio(wall_s * 1000, source_tokens)
                                         if wall_s is not None else None),
    }


def combine(runs: list[dict]) -> dict:
    """Totals over several runs (sums first, then the same ratios)."""
    leaves = sum(r["leaves"] for r in runs)
    src = sum(r["source_tokens"] for r in runs)
    calls: dict[str, int] = {}
    for r in runs:
        for k, v in r["calls"].items():
            calls[k] = calls.get(k, 0) + v
    prompt = sum(r["tokens"]["prompt"] for r in runs)
    completion = sum(r["tokens"]["completion"] for r in runs)
    walls = [r["wall_s"] for r in runs if r["wall_s"] is not None]
    forced = sum(r["stats"].get("forced_splits", 0) for r in runs)
    fb = sum(r["stats"].get("boundary.fallback", 0) for r in runs)
    return {"runs": len(runs), "leaves": leaves, "source_tokens": src, "calls": calls,
            "calls_per_leaf": {k: _ratio(v, leaves) for k, v in calls.items()},
            "prompt_tokens_per_source_token": _ratio(prompt, src),
            "completion_tokens_per_source_token": _ratio(completion, src),
            "forced_split_rate": _ratio(forced, leaves),
            "boundary_fallback_rate": _ratio(fb, leaves),
            "wall_s": sum(walls) if walls else None}

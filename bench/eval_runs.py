"""The evaluation runs behind bench/results/eval/: segmentation on the shared corpus, then
fidelity and cost of the trees the chunker built along the way.

    python bench/eval_runs.py [--local-budget-s 1500] [--skip-local] [--out bench/results/eval]

Parts (each writes its own report, JSON and plots under OUT; report.md and figures.json
put them together; a hand-written OUT/findings.md, if present, is included verbatim):

1. `seg_scripted`: the chunker with the scripted model (profile defaults) on all 50
   choi-3-5 documents and both manifestos, with all four baselines.
2. `seg_scripted_fine`: the same on choi-3-5 with min/max_chunk_tokens = 100/400, to show
   how much of the error is granularity (gold segments are ~130 tokens).
3. `seg_local_full`: the chunker with `--model local` (SmolLM2-135M in-process), every
   call to the real model, on the first `--full-local-docs` choi-3-5 documents (about
   9 minutes each on this CPU: rewrites run to their 900-token cap).
4. `seg_local`: the same model in boundary-only mode (`chunker.evaluation.hybrid`: only
   the completeness calls, which alone place leaf boundaries, go to SmolLM2; the rest to
   the scripted stand-in) on choi-3-5 documents in order until `--local-budget-s` is spent.
5. References on the same documents: Pk/WindowDiff of "no boundary" and "every sentence
   a boundary", and the embedding and random baselines given the *gold* segment count.
6. `fidelity_local` and `cost_local` on the full local trees; `cost_scripted` on the
   scripted ones; boundary-call cost of the boundary-only runs.

llama.cpp gets one thread (CHUNKER_LLAMACPP_THREADS=1) unless set: on this shared 2-core
box one thread decodes faster than two.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

from chunker.evaluation.baselines import embedding_tiling, random_split
from chunker.evaluation.cost import combine, evaluate_cost
from chunker.evaluation.fidelity import evaluate_fidelity, overall
from chunker.evaluation.gold import load_gold
from chunker.evaluation.hybrid import boundary_only
from chunker.evaluation.metrics import (
    Summary,
    boundary_precision_recall,
    pk,
    window_diff,
    window_size,
)
from chunker.evaluation.report import (
    fmt,
    ms,
    table,
    write_cost,
    write_fidelity,
    write_json,
    write_segmentation,
)
from chunker.evaluation.segmentation import evaluate_segmentation, rescore

ROOT = Path(__file__).resolve().parents[1]
from corpus_path import corpus_root, default_root  # noqa: E402  (bench/: an argument or $CHUNKER_CORPUS)
CORPUS = default_root()
BASELINES = ["fixed-tokens", "recursive", "embedding", "random"]
PARTS = ("seg_scripted", "seg_scripted_fine", "seg_local_full", "seg_local")


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def segmentation_part(name: str, docs, model: str, out: Path, runs: Path, **kw) -> dict:
    log(f"{name}: {len(docs)} documents, model {model} {kw.get('overrides') or ''}")

    def each(rec):
        ch = rec["methods"]["chunker"]
        log(f"  {rec['corpus']}/{rec['name']}: {ch['segments']} segments, Pk {ch['pk']:.3f}, "
            f"{ch['wall_s']:.1f} s")

    result = evaluate_segmentation(docs, model, BASELINES, keep_runs=runs / name, on_doc=each, **kw)
    write_segmentation(result, out, stem=name)
    return result


def references(docs) -> dict:
    """Degenerate segmentations and gold-count baselines: what the numbers are worth."""
    rows: dict[str, dict[str, list[float]]] = {}

    def add(corpus, method, doc, masses):
        k = window_size(doc.masses)
        r = rows.setdefault(f"{corpus}|{method}", {"pk": [], "windowdiff": [], "precision": []})
        r["pk"].append(pk(doc.masses, masses, k))
        r["windowdiff"].append(window_diff(doc.masses, masses, k))
        r["precision"].append(boundary_precision_recall(doc.masses, masses)[0])

    for doc in docs:
        n = len(doc.masses)
        add(doc.corpus, "no boundary", doc, [doc.n_units])
        add(doc.corpus, "every sentence", doc, [1] * doc.n_units)
        add(doc.corpus, "random, gold count", doc, doc.masses_from_chars(random_split(doc, n))[0])
        add(doc.corpus, "embedding, gold count", doc, doc.masses_from_chars(embedding_tiling(doc, n))[0])
    return {key: {m: Summary.of(v).as_dict() for m, v in r.items()} | {"documents": len(r["pk"])}
            for key, r in rows.items()}


def boundary_calls(res: dict) -> dict:
    """Completeness-call cost of a (boundary-only) segmentation run, per document and per leaf."""
    docs = res["documents"]
    leaves = sum(r["methods"]["chunker"]["leaves"] for r in docs)
    calls = sum(r["methods"]["chunker"]["stats"].get(k, 0) for r in docs
                for k in ("calls.completeness", "calls.boundary_retry"))
    prompt = sum(r["methods"]["chunker"]["stats"].get(k, 0) for r in docs
                 for k in ("tokens.prompt.completeness", "tokens.prompt.boundary_retry"))
    wall = sum(r["methods"]["chunker"]["wall_s"] for r in docs)
    stats = [r["methods"]["chunker"]["stats"] for r in docs]
    return {"documents": len(docs), "leaves": leaves, "boundary_calls": calls,
            "boundary_calls_per_leaf": calls / leaves if leaves else None,
            "boundary_prompt_tokens": prompt, "wall_s": wall,
            "wall_s_per_document": wall / len(docs) if docs else None,
            "forced_splits": sum(s.get("forced_splits", 0) for s in stats),
            "boundary_fallback": sum(s.get("boundary.fallback", 0) for s in stats),
            "boundary_match": sum(s.get("boundary.match", 0) + s.get("boundary.retry_match", 0)
                                  for s in stats)}


def headline(parts: dict[str, dict]) -> str:
    rows = []
    for part, res in parts.items():
        for group, methods in res["summary"].items():
            for m, s in methods.items():
                if m == "gold":
                    continue
                rows.append([part, group, m, s["documents"], ms(s["pk"]), ms(s["windowdiff"]),
                             ms(s["precision"], 2), ms(s["segments"], 1), ms(methods["gold"]["segments"], 1)])
    return table(["run", "corpus", "method", "docs", "Pk", "WindowDiff", "boundary precision",
                  "segments / doc", "gold segments / doc"], rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "eval")
    ap.add_argument("--local-budget-s", type=float, default=900.0,
                    help="wall time for the boundary-only local run")
    ap.add_argument("--full-local-docs", type=int, default=1)
    ap.add_argument("--skip-local", action="store_true")
    ap.add_argument("--limit", type=int, default=None, help="documents per folder (smoke runs)")
    ap.add_argument("--from-figures", type=Path, default=None,
                    help="rebuild the reports from this figures.json (its run directories must "
                         "still exist); with --parts, rerun only those parts")
    ap.add_argument("--parts", nargs="*", choices=PARTS, default=None,
                    help="segmentation parts to run (default: all)")
    args = ap.parse_args()
    corpus_root(needs=["choi-3-5", "manifesto"])
    logging.basicConfig(level=logging.ERROR)
    logging.getLogger("chunker").setLevel(logging.ERROR)
    os.environ.setdefault("CHUNKER_LLAMACPP_THREADS", "1")
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    runs = Path(tempfile.mkdtemp(prefix="chunker-eval-runs-"))
    started = time.perf_counter()
    choi = load_gold([CORPUS / "choi-3-5"], limit=args.limit)
    manifesto = load_gold([CORPUS / "manifesto"], limit=args.limit)
    parts: dict[str, dict] = {}
    earlier = 0.0
    todo = set(args.parts or PARTS)
    if args.from_figures:  # keep what was run before; rerun only the parts named by --parts
        saved = json.loads(args.from_figures.read_text(encoding="utf-8"))
        parts = saved["segmentation"]
        earlier = saved.get("environment", {}).get("wall_s", 0.0)
        todo = set(args.parts or [])
        for name, res in parts.items():
            if name not in todo:
                write_segmentation(rescore(res), out, stem=name)
    if args.skip_local:
        todo -= {"seg_local_full", "seg_local"}
    if "seg_scripted" in todo:
        parts["seg_scripted"] = segmentation_part("seg_scripted", choi + manifesto, "scripted", out, runs)
    if "seg_scripted_fine" in todo:
        parts["seg_scripted_fine"] = segmentation_part(
            "seg_scripted_fine", choi, "scripted", out, runs,
            overrides={"min_chunk_tokens": 100, "max_chunk_tokens": 400})
    if "seg_local_full" in todo and args.full_local_docs > 0:
        parts["seg_local_full"] = segmentation_part("seg_local_full", choi[:args.full_local_docs],
                                                    "local", out, runs)
    if "seg_local" in todo:
        spec, settings = boundary_only("local")
        parts["seg_local"] = segmentation_part("seg_local", choi, spec, out, runs, overrides=settings,
                                               time_budget_s=args.local_budget_s)
    parts = {k: parts[k] for k in PARTS if k in parts}
    finish(parts, choi, manifesto, out, earlier + time.perf_counter() - started)


def finish(parts: dict, choi, manifesto, out: Path, run_wall: float) -> None:
    """References, fidelity and cost of the kept trees, figures.json and report.md."""
    started = time.perf_counter()
    log("references")
    refs = references(choi + manifesto)

    figures: dict = {"segmentation": parts, "references": refs, "fidelity": {}, "cost": {}}
    sections = []
    if "seg_local" in parts and parts["seg_local"]["documents"]:
        bc = boundary_calls(parts["seg_local"])
        figures["cost"]["local_boundary_only"] = bc
        sections.append(f"- boundary decisions, local (boundary-only runs, {bc['documents']} documents, "
                        f"{bc['leaves']} leaves): {bc['boundary_calls']} completeness calls, "
                        f"{fmt(bc['boundary_calls_per_leaf'], 2)} per leaf, {bc['boundary_prompt_tokens']} "
                        f"prompt tokens; {fmt(bc['wall_s_per_document'], 1)} s per document; leaves ended by "
                        f"a matched phrase {bc['boundary_match']}, by the fallback {bc['boundary_fallback']}, "
                        f"forced {bc['forced_splits']}")
    for label, part in (("scripted", "seg_scripted"), ("local", "seg_local_full")):
        if part not in parts or not parts[part]["documents"]:
            continue
        dirs = [Path(r["run_dir"]) for r in parts[part]["documents"]]
        costs = [evaluate_cost(d) for d in dirs]
        total = combine(costs)
        write_cost(costs, total, out, stem=f"cost_{label}")
        figures["cost"][label] = {"total": total, "runs": costs}
        sections.append(f"- cost, {label}: {len(dirs)} trees, {fmt(total['calls_per_leaf'].get('total'), 2)} "
                        f"LLM calls per leaf, {fmt(total['prompt_tokens_per_source_token'], 2)} prompt and "
                        f"{fmt(total['completion_tokens_per_source_token'], 2)} completion tokens per source "
                        f"token, forced-split rate {fmt(total['forced_split_rate'])}, boundary fallback rate "
                        f"{fmt(total['boundary_fallback_rate'])}, {fmt(total['wall_s'], 1)} s "
                        f"([cost_{label}.md](cost_{label}.md))")
        if label == "local":
            fids = [evaluate_fidelity(d) for d in dirs]
            write_fidelity(fids, out, stem=f"fidelity_{label}")
            pooled = overall([{**n, "id": f"{i}:{n['id']}"} for i, f in enumerate(fids) for n in f["nodes"]])
            figures["fidelity"][label] = {"pooled": pooled, "runs": fids}
            sections.append(
                f"- fidelity, {label} (pooled over {pooled['leaves']} leaves and {pooled['blocks']} blocks): "
                f"contexts identical to the source (rewrite fallback) {fmt(pooled['context_is_original'])}, "
                f"under half the source's length {fmt(pooled['context_shrunk'])}; "
                f"numbers and names kept {fmt(pooled['retention_micro'])} (numbers "
                f"{fmt(pooled['numbers_retention'])}, names {fmt(pooled['names_retention'])}); contexts "
                f"opening with a pronoun: leaves {fmt(pooled['pronoun_opening_leaves'])}, blocks "
                f"{fmt(pooled['pronoun_opening_blocks'])}; summaries empty {fmt(pooled['summary_empty'])}, "
                f"too long {fmt(pooled['summary_too_long'])}; valid slugs {fmt(pooled['slug_valid'])} "
                f"([fidelity_{label}.md](fidelity_{label}.md))")

    wall = run_wall + time.perf_counter() - started
    figures["environment"] = {"python": platform.python_version(), "machine": platform.machine(),
                              "wall_s": wall}
    write_json(out / "figures.json", figures)
    lines = ["# Evaluation: boundaries, fidelity and cost", "",
             f"Generated by `bench/eval_runs.py`; the segmentation runs took "
             f"{sum(r['wall_s'] for r in parts.values()) / 60:.1f} min in all, on a 2-core CPU shared "
             "with other work (wall times are indicative only). All figures: "
             "[figures.json](figures.json).", ""]
    findings = out / "findings.md"
    if findings.exists():
        lines += [findings.read_text(encoding="utf-8").strip(), ""]
    lines += ["## Coverage", ""]
    for part, res in parts.items():
        covered = {}
        for r in res["documents"]:
            covered.setdefault(r["corpus"], []).append(r["name"])
        desc = "; ".join(f"{c}: {len(n)} docs ({', '.join(n) if len(n) <= 12 else n[0] + '..' + n[-1]})"
                         for c, n in covered.items())
        lines.append(f"- `{part}` (model `{res['model']}`{', ' + str(res['overrides']) if res['overrides'] else ''}):"
                     f" {desc}; failed {len(res['failed'])}; not run for time {len(res['skipped'])}"
                     f"; {res['wall_s']:.0f} s ([{part}.md]({part}.md))")
    lines += ["", "## Pk and WindowDiff (mean ± std over documents)", "", headline(parts), "",
              "References on all documents of each corpus (no chunker involved):", "",
              table(["corpus", "segmentation", "docs", "Pk", "WindowDiff", "boundary precision"],
                    [[*key.split("|"), r["documents"], ms(r["pk"]), ms(r["windowdiff"]), ms(r["precision"], 2)]
                     for key, r in refs.items()]), ""]
    for part in parts:
        lines += [f"### {part}", "", f"![{part} metrics]({part}_metrics.png)", ""]
        for png in sorted(out.glob(f"{part}_strip_*.png")):
            lines += [f"![{png.stem}]({png.name})", ""]
    lines += ["## Fidelity and cost", "", *sections, ""]
    for png in ("cost_local_calls.png", "fidelity_local_overall.png", "fidelity_local_retention.png"):
        if (out / png).exists():
            lines += [f"![{png[:-4]}]({png})", ""]
    (out / "report.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    log(f"done in {wall:.0f} s: {out / 'report.md'}")


if __name__ == "__main__":
    main()

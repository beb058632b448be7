"""Boundaries on topics of every length: Choi-style sets built from the shared corpus.

    python bench/topic_lengths.py generate          # write the sets (seeded) under SETS
    python bench/topic_lengths.py run LABEL [--local-limit N] [--parts signal scripted local] [--only NAME ...]
        [--set KEY=VALUE ...]
    python bench/topic_lengths.py report            # the Markdown table of every label run

`generate` writes `documents` files per topic length (3-5, 6-8, 9-11, 3-11 sentences) with
`chunker.evaluation.synthetic` (seed 22). `run` scores, on each set and on choi-3-5 and both
manifestos, with the issue's settings (`--embeddings local --min-chunk-tokens 60
--max-chunk-tokens 400`):

- `scripted`: `chunker eval segmentation --model scripted` (it takes the first offered cut,
  so this measures the candidates alone);
- `local`: the same with `--model local --boundary-only --set model_tasks=["boundary"]`
  (SmolLM2-135M answers every boundary call; the tiny profile asks it nothing by default),
  on the first `--local-limit` documents of each set (not the manifestos: 30-40 minutes
  each);
- `signal`: the signal alone (no windows, no model), the local maxima of depth on the gold
  sentences: `own` at the document's own cutoff, `gold` the deepest peaks at the gold count
  (the ceiling a model choosing among the peaks could reach), and with the new code `share
  0.4` / `share 0.6` (the cutoff at those `candidate_depth_share` values).

`--set` adds settings to every eval run (issue 34: `--set reading=one_cursor` against the
default, regions). Each run goes to OUT/LABEL/ (`results.json` and the eval reports). Run it from a checkout
of the code to measure: `PYTHONPATH=/path/to/old/checkout python bench/topic_lengths.py run
before` measured the old rule with this script.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
from corpus_path import corpus_root, default_root  # noqa: E402  (bench/: an argument or $CHUNKER_CORPUS)
CORPUS = default_root()
OUT = ROOT / "bench" / "results" / "topic_lengths"
SETS = OUT / "sets"
SEED, DOCUMENTS = 22, 25
SETTINGS = ("embeddings=local", "min_chunk_tokens=60", "max_chunk_tokens=400")
NAMES = ("3-5", "6-8", "9-11", "3-11")


def corpora() -> dict[str, Path]:
    return {**{n: SETS / n for n in NAMES}, "choi-3-5": CORPUS / "choi-3-5",
            "manifesto": CORPUS / "manifesto"}


def generate() -> None:
    from chunker.evaluation.synthetic import write_sets

    written = write_sets(CORPUS, SETS, seed=SEED, documents=DOCUMENTS, names=NAMES)
    print({k: len(v) for k, v in written.items()})


EXTRA: list[str] = []
"""`--set` settings added to every eval run."""


def _eval(folder: Path, out: Path, model: str, extra: list[str]) -> dict:
    cmd = [sys.executable, "-m", "chunker.cli.app", "eval", "segmentation", str(folder), "--model", model,
           "--baseline", "none", "--out", str(out), "-q", *extra]
    for s in (*SETTINGS, *EXTRA):
        cmd += ["--set", s]
    started = time.perf_counter()
    subprocess.run(cmd, check=True, env=os.environ.copy())
    result = json.loads((out / "segmentation.json").read_text())
    summary = next(iter(result["summary"].values()))
    return _figures(summary["chunker"], summary["gold"]) | {"wall_s": round(time.perf_counter() - started, 1)}


def _figures(method: dict, gold: dict) -> dict:
    return {"documents": method["documents"], "pk": round(method["pk"]["mean"], 3),
            "windowdiff": round(method["windowdiff"]["mean"], 3),
            "segments_per_gold": round(method["segments"]["mean"] / gold["segments"]["mean"], 2),
            "precision": round(method["precision"]["mean"], 3)}


def signal_alone(folder: Path) -> dict:
    """Pk, WindowDiff and segments/gold of the peaks alone: at the own cutoff, at the gold count,
    and (new code) at candidate_depth_share 0.4 and 0.6, to show how much that share matters."""
    import numpy as np
    from langgraph.store.memory import InMemoryStore

    from chunker.embeddings import get_embeddings, signal_for
    from chunker.evaluation.gold import load_gold
    from chunker.evaluation.metrics import window_size
    from chunker.evaluation.segmentation import score
    emb = get_embeddings("local")
    rows: dict[str, list[dict]] = {}
    scales: list[tuple[float, int]] = []
    for doc in load_gold([folder]):
        texts = [u.strip() for u in doc.units]
        depths, chosen, scale = _depths_and_rules(InMemoryStore(), texts, emb, signal_for("local"))
        scales.append(scale)
        # `signal.peak_gaps`, written out: the old code measured as "before" does not have it
        peaks = [i for i in range(len(depths)) if depths[i] > 0 and (i == 0 or depths[i] >= depths[i - 1])
                 and (i == len(depths) - 1 or depths[i] > depths[i + 1])]
        chosen["gold"] = sorted(sorted(peaks, key=lambda i: (-depths[i], i))[:len(doc.masses) - 1])
        k = window_size(doc.masses)
        for name, gaps in chosen.items():
            bounds = [0, *[g + 1 for g in sorted(gaps)], doc.n_units]
            masses = [b - a for a, b in zip(bounds, bounds[1:])]
            rows.setdefault(name, []).append(score(doc.masses, masses, k) | {"gold_segments": len(doc.masses)})
    out = {}
    for name, rs in rows.items():
        out[name] = {"documents": len(rs), "pk": round(float(np.mean([r["pk"] for r in rs])), 3),
                     "windowdiff": round(float(np.mean([r["windowdiff"] for r in rs])), 3),
                     "segments_per_gold": round(float(np.mean([r["segments"] for r in rs])
                                                      / np.mean([r["gold_segments"] for r in rs])), 2),
                     "precision": round(float(np.mean([r["precision"] for r in rs])), 3)}
    lives = [h for h, _ in scales if h is not None]
    out["scale"] = {"half_life": round(float(np.mean(lives)), 2) if lives else None,
                    "block": round(float(np.mean([w for _, w in scales])), 2),
                    "gold_sentences_per_segment": round(float(np.mean([
                        doc.n_units / len(doc.masses) for doc in load_gold([folder])])), 2)}
    return out


def _depths_and_rules(store, texts, emb, signal) -> tuple[list[float], dict[str, list[int]], tuple]:
    """Depths, the gaps the run's own rule offers (`own`) and (half-life, block), with
    whichever code is on the path."""
    from chunker.config.settings import ChunkerSettings
    from chunker.embeddings.signal import own_count_gaps
    cfg = ChunkerSettings(model="scripted", embeddings="local").chunking
    try:
        from chunker.embeddings import document_signal
        from chunker.embeddings.adaptive import standout_cutoff
        from chunker.embeddings.signal import standout_gaps
    except ImportError:  # the old code: one fixed block, the peak_std rule
        from chunker.embeddings import document_depths
        depths = document_depths(store, ("bench",), texts, emb, signal=signal)
        return depths, {"own": own_count_gaps(depths, cfg.candidate_peak_std)}, (None, signal.window)
    got = document_signal(store, ("bench",), texts, emb, signal=signal)
    rules = {"own": standout_gaps(got.depths, standout_cutoff(got, cfg.candidate_depth_share))}
    for share in (0.4, 0.6):
        rules[f"share {share}"] = standout_gaps(got.depths, standout_cutoff(got, share))
    return got.depths, rules, (got.half_life, got.window)


def run(label: str, local_limit: int, parts: list[str], only: list[str]) -> None:
    target = OUT / label
    target.mkdir(parents=True, exist_ok=True)
    path = target / "results.json"
    results = json.loads(path.read_text()) if path.exists() else {}
    for name, folder in corpora().items():
        if only and name not in only:
            continue
        entry = results.setdefault(name, {})
        if "signal" in parts:
            entry["signal"] = signal_alone(folder)
        if "scripted" in parts:
            entry["scripted"] = _eval(folder, target / f"scripted-{name}", "scripted", [])
        if "local" in parts and name != "manifesto":
            entry["local"] = _eval(folder, target / f"local-{name}", "local",
                                   ["--boundary-only", "--limit", str(local_limit),
                                    "--set", 'model_tasks=["boundary"]'])
        path.write_text(json.dumps(results, indent=1) + "\n")
        print(name, json.dumps(entry), flush=True)


def report() -> None:
    labels = sorted(p.name for p in OUT.iterdir() if (p / "results.json").exists())
    lines = ["# Boundaries by topic length", "",
             f"Settings: {', '.join(SETTINGS)}. Sets: {DOCUMENTS} documents each, seed {SEED} "
             "(`chunker.evaluation.synthetic`). Each cell: Pk / WindowDiff / segments per gold "
             "segment (boundary precision).", ""]
    for label in labels:
        results = json.loads((OUT / label / "results.json").read_text())
        lines += [f"## {label}", "", "| set | scripted | local (boundary-only) | signal, own cutoff | signal at gold count |",
                  "|---|---|---|---|---|"]
        shares, scales = [], []
        for name, entry in results.items():
            def cell(fig: dict | None) -> str:
                if not fig:
                    return "-"
                return (f"{fig['pk']:.3f} / {fig['windowdiff']:.3f} / {fig['segments_per_gold']:.2f} "
                        f"({fig['precision']:.2f}, {fig['documents']} docs)")
            sig = entry.get("signal", {})
            lines.append(f"| {name} | {cell(entry.get('scripted'))} | {cell(entry.get('local'))} | "
                         f"{cell(sig.get('own'))} | {cell(sig.get('gold'))} |")
            if sig.get("scale", {}).get("half_life") is not None:
                sc = sig["scale"]
                scales.append(f"| {name} | {sc['gold_sentences_per_segment']} | {sc['half_life']} | {sc['block']} |")
            if "share 0.4" in sig:
                shares.append(f"| {name} | {cell(sig['share 0.4'])} | {cell(sig['own'])} | {cell(sig['share 0.6'])} |")
        if scales:
            lines += ["", "The document's own scale (means over the set): gold sentences per segment, "
                      "similarity half-life, block:", "", "| set | gold length | half-life | block |",
                      "|---|---|---|---|", *scales]
        if shares:
            lines += ["", "The signal alone at `candidate_depth_share` 0.4 / 0.5 (the default) / 0.6:", "",
                      "| set | 0.4 | 0.5 | 0.6 |", "|---|---|---|---|", *shares]
        lines.append("")
    (OUT / "report.md").write_text("\n".join(lines))
    print("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("generate")
    r = sub.add_parser("run")
    r.add_argument("label")
    r.add_argument("--local-limit", type=int, default=10)
    r.add_argument("--parts", nargs="*", default=["signal", "scripted", "local"],
                   choices=["signal", "scripted", "local"])
    r.add_argument("--only", nargs="*", default=[])
    r.add_argument("--set", nargs="*", default=[], dest="settings")
    sub.add_parser("report")
    args = parser.parse_args()
    if args.cmd in ("generate", "run"):
        corpus_root(needs=["emma/emma.md", "choi-3-5", "manifesto"])
    if args.cmd == "generate":
        generate()
    elif args.cmd == "run":
        EXTRA.extend(args.settings)
        run(args.label, args.local_limit, args.parts, args.only)
    else:
        report()


if __name__ == "__main__":
    main()

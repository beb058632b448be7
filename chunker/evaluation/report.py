"""Writing eval results: a JSON file of every figure, PNG plots, and a Markdown report embedding them.

Each writer returns the paths it wrote. File names start with a stem (`segmentation`,
`fidelity`, `cost`) so that the three commands can share one output folder.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

from chunker.evaluation import plots


def _clean(obj):
    if isinstance(obj, float):
        return None if math.isnan(obj) or math.isinf(obj) else round(obj, 6)
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    return obj


def write_json(path: Path, data) -> Path:
    path.write_text(json.dumps(_clean(data), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def fmt(x, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if isinstance(x, float):
        return f"{x:.{digits}f}"
    return str(x)


def ms(summary: dict, digits: int = 3) -> str:
    """'mean ± std' of a Summary dict."""
    return f"{fmt(summary.get('mean'), digits)} ± {fmt(summary.get('std'), digits)}"


def table(header: list[str], rows: list[list]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(fmt(c) if not isinstance(c, str) else c for c in row) + " |"
            for row in rows]
    return "\n".join(out)


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "x"


# -- segmentation ------------------------------------------------------------------------

def segmentation_markdown(result: dict, images: dict[str, str], title: str | None = None,
                          level: int = 1) -> str:
    h = "#" * level
    n_docs = len(result["documents"])
    lines = [f"{h} {title or 'Segmentation: chunker vs gold and baselines'}", "",
             f"- chunker model: `{result['model']}`"
             + (f", settings {result['overrides']}" if result["overrides"] else ""),
             f"- documents scored: {n_docs}"
             + (f"; failed: {len(result['failed'])}" if result["failed"] else "")
             + (f"; not run (time budget): {len(result['skipped'])}" if result["skipped"] else ""),
             f"- units: `{result['units']}` (leaf and baseline boundaries snapped to the nearest "
             "sentence unit); k = half the mean gold segment length in units, rounded, at least 2; "
             "boundary precision / recall: exact unit match (precision is blind to coarseness: do the "
             "cuts made fall on gold boundaries?)",
             f"- baselines sized per document to the chunker's segment count: "
             f"{', '.join(result['baselines']) or 'none'} (random seed {result['seed']})",
             f"- wall time: {fmt(result['wall_s'], 1)} s", ""]
    for group, methods in result["summary"].items():
        lines += [f"{h}# {group}", "",
                  table(["method", "docs", "Pk", "WindowDiff", "boundary precision", "boundary recall",
                         "segments / doc", "units / segment"],
                        [[m, s["documents"], ms(s["pk"]), ms(s["windowdiff"]), ms(s.get("precision", {})),
                          ms(s.get("recall", {})), ms(s["segments"], 1), ms(s["segment_units"], 1)]
                         for m, s in methods.items()]), ""]
        ch = methods.get("chunker")
        if ch and ch["documents"]:
            lines += [f"Chunker cost on {group}: {ch['calls.total']['total']} LLM calls "
                      f"({ms(ch['calls.total']['per_document'], 1)} per document), "
                      f"{ch['tokens.prompt']['total']} prompt and {ch['tokens.completion']['total']} "
                      f"completion tokens, {fmt(ch['wall_s']['total'], 1)} s; leaf starts moved "
                      f"{ms(ch['snap_chars_mean'], 1)} characters on average to reach a unit boundary.", ""]
    for label, img in images.items():
        lines += [f"![{label}]({img})", ""]
    if result["failed"]:
        lines += ["Failed documents:", ""] + [f"- {f['corpus']}/{f['name']}: {f['error']}"
                                              for f in result["failed"]] + [""]
    if result["skipped"]:
        lines += [f"Not run (time budget): {', '.join(result['skipped'])}", ""]
    rows = [[f"{r['corpus']}/{r['name']}", r["units"], r["k"]]
            + [f"{fmt(r['methods'][m]['pk'])} / {fmt(r['methods'][m]['windowdiff'])} "
               f"({r['methods'][m]['segments']})" for m in result["methods"][1:]]
            for r in result["documents"]]
    if rows:
        lines += ["<details><summary>Per document: Pk / WindowDiff (segments)</summary>", "",
                  table(["document", "units", "k", *result["methods"][1:]], rows), "", "</details>", ""]
    return "\n".join(lines)


def segmentation_plots(result: dict, out_dir: Path, stem: str = "segmentation",
                       sample: str | None = None) -> dict[str, str]:
    """Plots of a segmentation result; returns {label: file name relative to out_dir}."""
    images: dict[str, str] = {}
    if not result["documents"]:
        return images
    name = f"{stem}_metrics.png"
    plots.metric_bars(result["summary"], out_dir / name,
                      f"Pk and WindowDiff per method (chunker: {result['model']})")
    images["Pk and WindowDiff per method"] = name
    by_corpus: dict[str, dict] = {}
    for r in result["documents"]:
        if sample and r["name"] == sample:
            by_corpus[r["corpus"]] = r
        by_corpus.setdefault(r["corpus"], r)
    for corpus, rec in by_corpus.items():
        name = f"{stem}_strip_{_safe(corpus or 'doc')}.png"
        plots.boundary_strip(rec, out_dir / name, result["methods"])
        images[f"gold vs predicted segments, {corpus}/{rec['name']}"] = name
    return images


def write_segmentation(result: dict, out_dir: str | Path, stem: str = "segmentation",
                       sample: str | None = None) -> dict[str, Path]:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    images = segmentation_plots(result, out, stem, sample)
    md = out / f"{stem}.md"
    md.write_text(segmentation_markdown(result, images) + "\n", encoding="utf-8")
    return {"report": md, "json": write_json(out / f"{stem}.json", result),
            **{k: out / v for k, v in images.items()}}


# -- fidelity ----------------------------------------------------------------------------

FIDELITY_COLUMNS = ("retention_micro", "context_is_original", "retention_rewritten", "context_shrunk",
                    "numbers_retention", "names_retention",
                    "pronoun_opening_leaves", "pronoun_opening_blocks", "summary_empty",
                    "summary_too_long", "slug_valid")


def _label(run: dict) -> str:
    return Path(run["run_dir"]).name or run["run_dir"]


def write_fidelity(runs: list[dict], out_dir: str | Path, stem: str = "fidelity") -> dict[str, Path]:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    bars = plots.share_bars({_label(r): {k: r["overall"][k] for k in
                                         ("retention_micro", "context_is_original", "context_shrunk",
                                          "pronoun_opening_leaves", "summary_bad", "slug_valid")}
                                for r in runs},
                            out / f"{stem}_overall.png", "Fidelity per run (shares)")
    hist = plots.histogram([n["retention"]["share"] for r in runs for n in r["nodes"]
                            if n["level"] == 0], out / f"{stem}_retention.png",
                           "Numbers and names kept in the context, per leaf", "share kept")
    lines = ["# Fidelity of contexts, summaries and slugs", "",
             "Heuristics: see `chunker.evaluation.fidelity` (numbers = digit runs; names = "
             "capitalised words not only sentence-initial; `context_is_original`: the context is the "
             "source text (a rewrite fallback), which keeps every entity trivially; "
             "`retention_rewritten`: retention over the other leaves; `context_shrunk`: context under "
             "half the original's length; pronoun = the context's first word is a third-person "
             "pronoun or demonstrative; a summary is too long past 2 sentences or 400 characters).", "",
             table(["run", "model", "leaves", "blocks", *FIDELITY_COLUMNS],
                   [[_label(r), f"`{r['model']}`", r["overall"]["leaves"], r["overall"]["blocks"],
                     *(r["overall"][c] for c in FIDELITY_COLUMNS)] for r in runs]), "",
             f"![fidelity per run]({bars.name})", "", f"![retention per leaf]({hist.name})", "",
             "## Grounding", "",
             "The grounding check (`chunker.grounding.check`) on each finished summary against its "
             "evidence (a leaf's original; a block's children), slug words absent from the node's "
             "text, and the share of each task's outputs that fell back during the run.", "",
             table(["run", "summaries grounded", "mean support", "unsupported names / summary",
                    "unsupported numbers / summary", "unsupported slug words", "fell back, by task"],
                   [[_label(r), r["overall"]["summary_grounded"], r["overall"]["summary_support_mean"],
                     r["overall"]["unsupported_names_per_summary"],
                     r["overall"]["unsupported_numbers_per_summary"], r["overall"]["unsupported_slug_words"],
                     ", ".join(f"{t} {v:.0%}" for t, v in r["overall"]["fallback_share_by_task"].items())]
                    for r in runs]), ""]
    for r in runs:
        bad = [n for n in r["nodes"] if n["opening_pronoun"] or n["summary_empty"]
               or n["summary_too_long"] or not n["slug_valid"]
               or (n["level"] == 0 and ((n["retention"]["share"] or 1) < 0.5
                                        or n.get("context_ratio", 1) < 0.5))]
        rows = [[n["id"], fmt(n["retention"]["share"]) if n["level"] == 0 else "–",
                 fmt(n["context_ratio"], 2) if n["level"] == 0 else "–",
                 ", ".join(n["retention"]["missing"][:6]) if n["level"] == 0 else "",
                 n["opening_pronoun"] or "", "empty" if n["summary_empty"] else
                 (f"{n['summary_sentences']} sent., {n['summary_chars']} chars"
                  if n["summary_too_long"] else "ok"), "ok" if n["slug_valid"] else f"`{n['slug']}`"]
                for n in bad[:50]]
        lines += [f"## {_label(r)}: nodes with a problem ({len(bad)} of {len(r['nodes'])})", ""]
        if rows:
            lines += [table(["node", "kept", "context/original", "missing", "pronoun", "summary", "slug"],
                            rows), ""]
    md = out / f"{stem}.md"
    md.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {"report": md, "json": write_json(out / f"{stem}.json", {"kind": "fidelity", "runs": runs}),
            "overall": bars, "retention": hist}


# -- cost --------------------------------------------------------------------------------

def write_cost(runs: list[dict], total: dict, out_dir: str | Path, stem: str = "cost") -> dict[str, Path]:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    calls = plots.stacked_bars({_label(r): {k: v for k, v in r["calls_per_leaf"].items() if k != "total"}
                                for r in runs}, out / f"{stem}_calls.png",
                               "LLM calls per leaf, by kind", "calls per leaf")
    lines = ["# Cost of chunker runs", "",
             table(["run", "model", "source tokens", "leaves", "calls", "calls / leaf",
                    "prompt tok / source tok", "completion tok / source tok", "forced-split rate",
                    "boundary fallback rate", "wall s", "s / leaf"],
                   [[_label(r), f"`{r['model']}`", r["source_tokens"], r["leaves"], r["calls"]["total"],
                     r["calls_per_leaf"]["total"], r["prompt_tokens_per_source_token"],
                     r["completion_tokens_per_source_token"], r["forced_split_rate"],
                     r["fallback_rates"]["boundary"], r["wall_s"], r["wall_s_per_leaf"]] for r in runs]),
             "", "Calls per leaf by kind:", ""]
    kinds = sorted({k for r in runs for k in r["calls_per_leaf"]})
    lines += [table(["run", *kinds], [[_label(r), *(r["calls_per_leaf"].get(k) for k in kinds)]
                                      for r in runs]), ""]
    pkinds = sorted({k for r in runs for k in r.get("prompt_tokens_per_source_token_by_kind", {})})
    if pkinds:
        lines += ["Prompt tokens per source token, by call kind:", "",
                  table(["run", *pkinds], [[_label(r), *(r["prompt_tokens_per_source_token_by_kind"].get(k)
                                                         for k in pkinds)] for r in runs]), ""]
    outcomes = sorted({k for r in runs for k in r["boundary_per_leaf"]})
    fb = sorted({k for r in runs for k in r["fallback_rates"]})
    lines += ["Boundary outcomes per leaf and fallback rates (rewrite: per leaf; summary: per node; "
              "synthesize: per block):", "",
              table(["run", *outcomes, *(f"fallback.{k}" for k in fb)],
                    [[_label(r), *(r["boundary_per_leaf"].get(k) for k in outcomes),
                      *(r["fallback_rates"].get(k) for k in fb)] for r in runs]), ""]
    if len(runs) > 1:
        lines += [f"All {total['runs']} runs: {total['calls'].get('total', 0)} calls, "
                  f"{fmt(total['calls_per_leaf'].get('total'))} per leaf, "
                  f"{fmt(total['prompt_tokens_per_source_token'])} prompt tokens per source token, "
                  f"forced-split rate {fmt(total['forced_split_rate'])}.", ""]
    lines += [f"![calls per leaf]({calls.name})", ""]
    md = out / f"{stem}.md"
    md.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {"report": md, "json": write_json(out / f"{stem}.json",
                                             {"kind": "cost", "runs": runs, "total": total}),
            "calls": calls}

"""`eval segmentation`: the chunker's leaf boundaries and the baselines' against gold segments.

For every gold document: run the chunker (phase 1 and the tree, in memory) on the plain
text, snap its leaf starts to sentence units, then run each baseline asked for with the
chunker's segment count on that document, and score everything with Pk and WindowDiff
(k from the gold segments, see `metrics.py`). Documents whose chunker run fails are
reported and left out of every method's figures, so that all methods cover the same set.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from chunker.evaluation.baselines import BASELINES
from chunker.evaluation.gold import GoldDoc
from chunker.evaluation.metrics import (
    Summary,
    boundary_precision_recall,
    pk,
    window_diff,
    window_size,
)

log = logging.getLogger(__name__)
CHUNKER = "chunker"
GOLD = "gold"
LLM_KEYS = ("calls.total", "tokens.prompt", "tokens.completion")


def run_chunker(text: str, model: str, overrides: dict | None = None) -> dict:
    """Leaf start offsets, stats and wall time of one in-memory chunker run."""
    from chunker.graph import build_graph
    from chunker.state.run import RunContext
    from langgraph.store.memory import InMemoryStore

    started = time.perf_counter()
    graph = build_graph(store=InMemoryStore())
    cfg = RunContext(model=model, **(overrides or {}))
    out = graph.invoke({"text": text}, context=cfg, config={"recursion_limit": 10**9})
    tree = out["tree"]
    leaves = sorted((n for n in tree["nodes"] if n["level"] == 0), key=lambda n: n["span"][0])
    pos = 0
    for leaf in leaves:  # the chunker promises a lossless tiling; check what is scored
        if leaf["span"][0] != pos:
            raise AssertionError(f"leaf {leaf['id']} starts at {leaf['span'][0]}, expected {pos}")
        pos = leaf["span"][1]
    if pos != len(text):
        raise AssertionError(f"leaves cover {pos} of {len(text)} characters")
    return {"starts": [leaf["span"][0] for leaf in leaves],
            "stats": dict(tree["meta"].get("stats", {})),
            "wall_s": time.perf_counter() - started, "tree": tree}


def save_run(tree: dict, wall_s: float, run_dir: Path) -> Path:
    """Write an in-memory tree as a minimal finished run directory (hierarchy.json and
    .chunker/run.json with `wall_s`), so that `eval fidelity` and `eval cost` can read it."""
    from chunker.runs.record import DocumentRun
    from chunker.runs.rundir import RunDir

    (run_dir / ".chunker").mkdir(parents=True, exist_ok=True)
    (run_dir / "hierarchy.json").write_text(json.dumps(tree, ensure_ascii=False), encoding="utf-8")
    facts = tree["meta"]
    # no source file and no thread: the tree was made in memory
    RunDir(run_dir).write_record(DocumentRun(
        status="finished", source=facts.get("source") or "", model=facts.get("model") or "", thread_id="",
        config=facts.get("config") or {}, wall_s=round(wall_s, 3), stats=facts.get("stats", {}),
        started_at=facts.get("started_at"), finished_at=facts.get("finished_at")))
    return run_dir


def score(gold: list[int], masses: list[int], k: int) -> dict:
    """Every figure of one segmentation (unit masses) against the gold masses."""
    precision, recall = boundary_precision_recall(gold, masses)
    return {"pk": pk(gold, masses, k), "windowdiff": window_diff(gold, masses, k),
            "precision": precision, "recall": recall, "segments": len(masses), "masses": masses}


def _score(doc: GoldDoc, masses: list[int], k: int) -> dict:
    return score(doc.masses, masses, k)


def evaluate_document(doc: GoldDoc, model: str, baselines: Sequence[str],
                      overrides: dict | None = None, seed: int = 0,
                      keep_runs: Path | None = None) -> dict:
    k = window_size(doc.masses)
    record = {"name": doc.name, "corpus": doc.corpus, "path": doc.path, "units": doc.n_units,
              "chars": len(doc.text), "k": k, "methods": {}}
    record["methods"][GOLD] = _score(doc, doc.masses, k)
    run = run_chunker(doc.text, model, overrides)
    if keep_runs is not None:
        record["run_dir"] = str(save_run(run["tree"], run["wall_s"],
                                         Path(keep_runs) / (doc.corpus or "docs") / doc.name))
    masses, moved = doc.masses_from_chars(run["starts"])
    chunk = _score(doc, masses, k)
    chunk.update(leaves=len(run["starts"]), snap_chars_mean=(sum(moved) / len(moved) if moved else 0.0),
                 snap_chars_max=max(moved, default=0), wall_s=run["wall_s"],
                 llm={key: run["stats"].get(key, 0) for key in LLM_KEYS}, stats=run["stats"])
    record["methods"][CHUNKER] = chunk
    n = len(masses)
    for name in baselines:
        started = time.perf_counter()
        if name == "random":
            starts = BASELINES[name](doc, n, seed)
        else:
            starts = BASELINES[name](doc, n)
        b_masses, b_moved = doc.masses_from_chars(starts)
        res = _score(doc, b_masses, k)
        res.update(raw_segments=len(starts), wall_s=time.perf_counter() - started,
                   snap_chars_mean=(sum(b_moved) / len(b_moved) if b_moved else 0.0))
        record["methods"][name] = res
    return record


def _method_summary(records: list[dict], method: str) -> dict:
    rows = [r["methods"][method] for r in records if method in r["methods"]]
    lengths = [m for row in rows for m in row["masses"]]
    out = {"documents": len(rows),
           "pk": Summary.of(r["pk"] for r in rows).as_dict(),
           "windowdiff": Summary.of(r["windowdiff"] for r in rows).as_dict(),
           "precision": Summary.of(r.get("precision") for r in rows).as_dict(),
           "recall": Summary.of(r.get("recall") for r in rows).as_dict(),
           "segments": Summary.of(r["segments"] for r in rows).as_dict(),
           "segment_units": Summary.of(lengths).as_dict()}
    if method == CHUNKER:
        for key in LLM_KEYS:
            vals = [r["llm"].get(key, 0) for r in rows]
            out[key] = {"total": sum(vals), "per_document": Summary.of(vals).as_dict()}
        out["wall_s"] = {"total": sum(r["wall_s"] for r in rows),
                         "per_document": Summary.of(r["wall_s"] for r in rows).as_dict()}
        out["snap_chars_mean"] = Summary.of(r["snap_chars_mean"] for r in rows).as_dict()
    return out


def summarise(records: list[dict], methods: Sequence[str]) -> dict:
    """Per corpus and overall ("all"): every method's Pk, WindowDiff and segment statistics."""
    groups: dict[str, list[dict]] = {}
    for r in records:
        groups.setdefault(r["corpus"] or "-", []).append(r)
    if len(groups) > 1:
        groups["all"] = list(records)
    return {g: {m: _method_summary(rs, m) for m in methods} for g, rs in groups.items()}


def rescore(result: dict) -> dict:
    """Recompute every document's figures and the summary from the stored masses (for
    results saved by an earlier version)."""
    for rec in result["documents"]:
        gold = rec["methods"][GOLD]["masses"]
        for res in rec["methods"].values():
            res.update(score(gold, res["masses"], rec["k"]))
    result["summary"] = summarise(result["documents"], result["methods"])
    return result


def evaluate_segmentation(docs: Iterable[GoldDoc], model: str, baselines: Sequence[str] = tuple(BASELINES),
                          *, overrides: dict | None = None, seed: int = 0,
                          time_budget_s: float | None = None, units: str = "lines",
                          keep_runs: str | Path | None = None,
                          on_doc: Callable[[dict], None] | None = None) -> dict:
    """Score the chunker and the baselines on every document; returns all figures as one dict.

    `time_budget_s`: start no new document once this much wall time has passed (the
    documents not run are listed under `skipped`). `keep_runs`: a folder where every
    chunker tree is saved as a run directory (`<corpus>/<name>/`) for `eval fidelity|cost`.
    """
    unknown = [b for b in baselines if b not in BASELINES]
    if unknown:
        raise ValueError(f"unknown baselines {unknown}; choose from {sorted(BASELINES)}")
    started = time.perf_counter()
    records, failed, skipped = [], [], []
    for doc in docs:
        if time_budget_s is not None and time.perf_counter() - started > time_budget_s:
            skipped.append(doc.name if not doc.corpus else f"{doc.corpus}/{doc.name}")
            continue
        try:
            rec = evaluate_document(doc, model, baselines, overrides, seed,
                                    Path(keep_runs) if keep_runs is not None else None)
        except Exception as exc:  # one bad document must not sink the evaluation
            log.warning("document %s failed: %s: %s", doc.name, type(exc).__name__, exc)
            failed.append({"name": doc.name, "corpus": doc.corpus,
                           "error": f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"})
            continue
        records.append(rec)
        if on_doc is not None:
            on_doc(rec)
    methods = [GOLD, CHUNKER, *baselines]
    return {"kind": "segmentation", "model": model, "overrides": dict(overrides or {}),
            "baselines": list(baselines), "seed": seed, "units": units,
            "wall_s": time.perf_counter() - started, "methods": methods,
            "documents": records, "failed": failed, "skipped": skipped,
            "summary": summarise(records, methods)}

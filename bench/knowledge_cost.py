"""What the knowledge passes add to a run, per 100 leaves (issue 33's cost figure): seconds of
the extractive passes, and seconds and LLM calls with the model asked for terms.

    python bench/knowledge_cost.py [CORPUS] [--work /tmp/chunker-knowledge-cost] [--reuse]

Trees are built once with `chunker run --model scripted --embeddings lexical` (Emma, and the
fastapi-docs folder as a corpus) into --work. Over each finished tree it times, best of
`--repeat`: `annotate` (terms, references, links, checks) and the writer with the knowledge
section on, against the writer with it off (`knowledge_enabled: false`: no Terms lines, no term
pages, links left as they were). With the model asked (`model_tasks` holding `terms`) it runs
the proposer over the leaves with the scripted model and counts its calls, at the medium and the
large profile's windows (8,192 and 16,384 tokens: batches of up to half of it). The scripted
model answers at once, so those seconds are the proposer's own; a real model's time is the
calls' count times its time per call. Results: bench/results/knowledge/cost.json (and .md).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from corpus_path import corpus_root  # noqa: E402

from chunker.config.settings import ChunkerSettings  # noqa: E402
from chunker.knowledge.passes import annotate  # noqa: E402
from chunker.knowledge.proposals import TermProposer  # noqa: E402
from chunker.knowledge.settings import KnowledgeSettings  # noqa: E402
from chunker.llm.registry import register_instance  # noqa: E402
from chunker.output.hierarchy import Hierarchy  # noqa: E402
from chunker.output.writer import write_tree  # noqa: E402
from chunker.testing import ScriptedChatModel  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "knowledge"
COMMAND = "python bench/knowledge_cost.py [--reuse]"


def build(source: Path, out: Path, reuse: bool) -> Hierarchy:
    if not (reuse and (out / "hierarchy.json").is_file()):
        subprocess.run([sys.executable, "-m", "chunker.cli.app", "run", str(source), "--output-dir", str(out),
                        "--model", "scripted", "--embeddings", "lexical", "-q", "--force"], check=True)
    return Hierarchy.model_validate_json((out / "hierarchy.json").read_text(encoding="utf-8"))


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def bare(h: Hierarchy) -> Hierarchy:
    return h.model_copy(update={"terms": [], "edges": [], "unresolved": [], "checks": []})


def extractive(h: Hierarchy, title: str, repeat: int) -> dict:
    on, off = KnowledgeSettings(), KnowledgeSettings(enabled=False)
    annotated = annotate(bare(h), on)
    passes = best(lambda: annotate(bare(h), on), repeat)
    with tempfile.TemporaryDirectory() as tmp:
        def write(tree: Hierarchy, cfg: KnowledgeSettings, name: str) -> None:
            folder = Path(tmp) / name
            shutil.rmtree(folder, ignore_errors=True)
            write_tree(folder, tree, title, cfg)
        write_on = best(lambda: write(annotated, on, "on"), repeat)
        write_off = best(lambda: write(annotate(bare(h), off), off, "off"), repeat)
    added = passes + write_on - write_off
    leaves = len(h.leaves())
    return {"leaves": leaves, "terms": len(annotated.terms), "edges": len(annotated.edges),
            "annotate_s": round(passes, 3), "write_with_s": round(write_on, 3), "write_without_s": round(write_off, 3),
            "added_s": round(added, 3), "added_s_per_100_leaves": round(100 * added / leaves, 3), "llm_calls": 0}


def with_model(h: Hierarchy, window: int) -> dict:
    spec = f"scripted-cost-{window}"
    register_instance(spec, ScriptedChatModel())
    cfg = ChunkerSettings(model=spec, model_window=window,
                          model_tasks=["boundary", "rewrite", "summary", "group", "synthesis", "terms"])
    proposer = TermProposer(cfg.llm, cfg.knowledge)
    started = time.perf_counter()
    proposed, stats = proposer.propose(h)
    annotated = annotate(bare(h), cfg.knowledge, proposed)
    seconds = time.perf_counter() - started
    leaves = len(h.leaves())
    calls = stats.get("calls.propose_terms", 0)
    return {"model_window": window, "batch_tokens": int(cfg.knowledge.propose_window_share * window),
            "llm_calls": calls, "llm_calls_per_100_leaves": round(100 * calls / leaves, 1),
            "prompt_tokens": stats.get("tokens.prompt.propose_terms", 0),
            "proposed_kept": stats.get("proposed_terms.kept", 0),
            "proposed_dropped": sum(n for k, n in stats.items() if k.startswith("proposed_terms.") and k != "proposed_terms.kept"),
            "model_only_terms": sum(t.origin == "model" for t in annotated.terms),
            "seconds_scripted": round(seconds, 3), "seconds_per_100_leaves_scripted": round(100 * seconds / leaves, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", help="the shared corpus (else CHUNKER_CORPUS, else ../shared/corpus)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/chunker-knowledge-cost"))
    parser.add_argument("--reuse", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    corpus = corpus_root(args.corpus, needs=["emma/emma.md", "folders/fastapi-docs"])
    args.work.mkdir(parents=True, exist_ok=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    report = {"command": COMMAND + (f" --repeat {args.repeat}" if args.repeat != 3 else ""),
              "trees": "chunker run --model scripted --embeddings lexical (the scripted profile's sizes)"}
    for name, source in (("emma", corpus / "emma" / "emma.md"), ("fastapi-docs", corpus / "folders" / "fastapi-docs")):
        h = build(source, args.work / name, args.reuse)
        tree_calls = h.meta.stats.get("calls.total", 0)
        report[name] = {"tree": {"leaves": len(h.leaves()), "llm_calls": tree_calls,
                                 "llm_calls_per_100_leaves": round(100 * tree_calls / len(h.leaves()), 1),
                                 "prompt_tokens": h.meta.stats.get("tokens.prompt", 0)},
                        "extractive": extractive(h, name, args.repeat),
                        "model": [with_model(h, window) for window in (8192, 16384)]}
        print(name, json.dumps(report[name]), flush=True)
    (RESULTS / "cost.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    (RESULTS / "cost.md").write_text(markdown(report), encoding="utf-8")


def markdown(report: dict) -> str:
    lines = ["# Knowledge passes: cost per 100 leaves", "", f"Command: `{report['command']}`; trees: "
             f"{report['trees']}.", "",
             "| tree | leaves | extractive s / 100 leaves | LLM calls / 100 leaves (8k window) | (16k window) "
             "| the tree's own calls / 100 leaves | prompt tokens added (8k) |",
             "|---|---|---|---|---|---|---|"]
    for name in ("emma", "fastapi-docs"):
        r = report[name]
        lines.append(f"| {name} | {r['extractive']['leaves']} | {r['extractive']['added_s_per_100_leaves']} | "
                     f"{r['model'][0]['llm_calls_per_100_leaves']} | {r['model'][1]['llm_calls_per_100_leaves']} | "
                     f"{r['tree']['llm_calls_per_100_leaves']} | "
                     f"{100 * r['model'][0]['prompt_tokens'] / max(1, r['tree']['prompt_tokens']):.0f} % |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()

"""How well the embedding boundary signal finds topic shifts, and what it costs.

    python bench/boundary_signals.py [--providers local lexical] [--corpus DIR] [--out DIR]

On Choi 3-5 (50 documents, 10 segments of 3-5 sentences each; gold lines are the sentence
units) every provider embeds each document through `document_signal` (batched, into an
in-memory LangGraph store, exactly as a run would) with its own signal (`signal_for`), then:

- **gold count**: cut at the (gold segments - 1) deepest gaps (an oracle for the count, the
  same protocol as the issue's table);
- **own count**: cut at the gaps the run's own rule picks (no oracle): `standout_gaps` above
  the document's contrast cutoff for a cosine curve, `own_count_gaps` for lexical's ranks;

and scores both with Pk, WindowDiff and exact boundary precision/recall. It also reports
embedding seconds per MB of source (wall time of `document_signal`, model load excluded),
sentences per second, and the store's bytes per sentence. Writes `report.md` and
`results.json` under `--out` (default `bench/results/boundaries/`).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

from langgraph.store.memory import InMemoryStore

from chunker.embeddings import document_signal, get_embeddings, signal_for
from chunker.embeddings.adaptive import standout_cutoff
from chunker.embeddings.settings import CONTRAST_SHARE, EMBED_BATCH_SIZE, OWN_COUNT_STD_FACTOR
from chunker.embeddings.signal import own_count_gaps, standout_gaps, top_gaps
from chunker.evaluation.gold import GoldDoc, load_gold
from chunker.evaluation.metrics import (
    Summary,
    boundaries_to_masses,
    boundary_precision_recall,
    pk,
    window_diff,
)

ROOT = Path(__file__).resolve().parents[1]
from corpus_path import corpus_root, default_root  # noqa: E402  (bench/: an argument or $CHUNKER_CORPUS)
CORPUS = default_root() / "choi-3-5"
OUT = ROOT / "bench" / "results" / "boundaries"


def scores(doc: GoldDoc, gaps: list[int]) -> dict:
    """Gap i lies between units i and i + 1, so the next segment starts at unit i + 1."""
    hyp = boundaries_to_masses([g + 1 for g in gaps], doc.n_units)
    precision, recall = boundary_precision_recall(doc.masses, hyp)
    return {"pk": pk(doc.masses, hyp), "windowdiff": window_diff(doc.masses, hyp),
            "precision": precision, "recall": recall, "segments": len(hyp)}


def store_bytes(store: InMemoryStore, namespace: tuple[str, ...]) -> tuple[int, int]:
    """(vector record bytes, depth record bytes) as JSON, the form a SQLite store keeps."""
    vectors = depths = 0
    for item in store.search(namespace, limit=100000):
        size = len(json.dumps(item.value))
        if item.key.startswith("vectors-"):
            vectors += size
        else:
            depths += size
    return vectors, depths


def run_provider(spec: str, docs: list[GoldDoc]) -> dict:
    t0 = time.perf_counter()
    embeddings = get_embeddings(spec)
    load_s = time.perf_counter() - t0
    signal = signal_for(spec)
    store = InMemoryStore()
    per_doc, embed_s, vec_bytes, depth_bytes = [], 0.0, 0, 0
    for doc in docs:
        texts = [u.strip() for u in doc.units]
        ns = ("bench", spec, doc.name)
        t = time.perf_counter()
        got = document_signal(store, ns, texts, embeddings, signal=signal)
        depths, cutoff = got.depths, standout_cutoff(got, CONTRAST_SHARE)
        embed_s += time.perf_counter() - t
        v, d = store_bytes(store, ns)
        vec_bytes, depth_bytes = vec_bytes + v, depth_bytes + d
        gold = scores(doc, top_gaps(depths, len(doc.masses) - 1))
        # the run's own rule: contrast where the curve has a cosine scale, else peak_std
        own = scores(doc, standout_gaps(depths, cutoff) if cutoff is not None else own_count_gaps(depths))
        per_doc.append({"doc": doc.name, "units": doc.n_units, "gold": gold, "own": own})
    sentences = sum(d.n_units for d in docs)
    mb = sum(len(d.text.encode("utf-8")) for d in docs) / 1e6

    def summary(mode: str, key: str) -> dict:
        return Summary.of(r[mode][key] for r in per_doc).as_dict()

    return {
        "provider": spec, "signal": f"{signal.method}, window {signal.window or 'the half-life'}",
        "load_average": os.getloadavg(), "cpus": os.cpu_count(),
        "load_s": load_s, "embed_s": embed_s, "source_mb": mb, "sentences": sentences,
        "s_per_mb": embed_s / mb, "sentences_per_s": sentences / embed_s if embed_s else None,
        "store_vector_bytes_per_sentence": vec_bytes / sentences,
        "store_depth_bytes_per_sentence": depth_bytes / sentences,
        "gold_count": {k: summary("gold", k) for k in ("pk", "windowdiff", "precision", "recall")},
        "own_count": {k: summary("own", k) for k in ("pk", "windowdiff", "precision", "recall",
                                                      "segments")},
        "documents": per_doc,
    }


def report(results: list[dict], corpus: Path) -> str:
    lines = [
        "# Boundary signals on Choi 3-5", "",
        f"`python bench/boundary_signals.py` on `{corpus.name}` ({results[0]['documents'].__len__()} "
        f"documents, {results[0]['sentences']} sentences, {results[0]['source_mb']:.3f} MB); "
        f"{platform.machine()}, {platform.python_version()}; batch {EMBED_BATCH_SIZE}; the gold lines "
        "are the sentence units. Pk and WindowDiff: lower is better (0.5 is chance); precision and "
        "recall: exact boundary matches. Means over documents (± population std).", "",
        "## Quality", "",
        "| provider | signal | count | Pk | WindowDiff | precision | recall | segments |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        for mode, label in (("gold_count", "gold - 1 deepest"), ("own_count", "own")):
            m = r[mode]
            segs = f"{m['segments']['mean']:.1f}" if "segments" in m else "10"
            lines.append(f"| `{r['provider']}` | {r['signal']} | {label} | {m['pk']['mean']:.3f} ± "
                         f"{m['pk']['std']:.3f} | {m['windowdiff']['mean']:.3f} | "
                         f"{m['precision']['mean']:.3f} | {m['recall']['mean']:.3f} | {segs} |")
    lines += ["", f"Own count: local maxima of depth above {CONTRAST_SHARE} x the document's full-cut "
              "depth on blocks of its similarity half-life (`standout_gaps`, cosine curves), or above "
              f"mean - {OWN_COUNT_STD_FACTOR} x std of the maxima (`own_count_gaps`, lexical).", "",
              "## Cost", "",
              "| provider | model load s | embed + depth s | s per MB of source | sentences/s | "
              "store bytes/sentence (vectors) | (depths) |", "|---|---|---|---|---|---|---|"]
    for r in results:
        sps = f"{r['sentences_per_s']:.0f}" if r["sentences_per_s"] else "-"
        lines.append(f"| `{r['provider']}` | {r['load_s']:.1f} | {r['embed_s']:.1f} | "
                     f"{r['s_per_mb']:.1f} | {sps} | {r['store_vector_bytes_per_sentence']:.0f} | "
                     f"{r['store_depth_bytes_per_sentence']:.1f} |")
    loads = [f"`{r['provider']}` {', '.join(f'{x:.1f}' for x in r['load_average'])}"
             for r in results if r.get("load_average")]
    if loads:
        lines += ["", f"Load average (1, 5, 15 min) when each provider finished, on "
                  f"{results[0].get('cpus')} CPUs: " + "; ".join(loads) + ". Timings are wall "
                  "clock on a shared machine."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--providers", nargs="+", default=["local", "lexical"])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--render", action="store_true",
                        help="only rewrite report.md from the results.json already in --out")
    args = parser.parse_args()
    if args.render:
        results = json.loads((args.out / "results.json").read_text(encoding="utf-8"))
        (args.out / "report.md").write_text(report(results, args.corpus), encoding="utf-8")
        return
    docs = load_gold([corpus_root(args.corpus)])
    results = []
    for spec in args.providers:
        results.append(run_provider(spec, docs))
        r = results[-1]
        print(f"{spec}: Pk {r['gold_count']['pk']['mean']:.3f} (gold count), "
              f"{r['own_count']['pk']['mean']:.3f} (own); {r['s_per_mb']:.1f} s/MB", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    (args.out / "report.md").write_text(report(results, args.corpus), encoding="utf-8")


if __name__ == "__main__":
    main()

"""Choose the grounding check's support threshold from a labelled set.

Positives (faithful): hand-written paraphrases of 13 passages of the shared corpus
(bench/grounding_labels.json) and extractive summaries of them (LexRank, the first
sentence, the middle sentence). Negatives: the faithful summaries and extractive summaries
of the *other* passages of the same document (a summary of the wrong passage), and invented
summaries (plausible, with invented content, some quoted from issue 11).

For each threshold the table gives the share of positives kept and of negatives kept, by
the support ratio alone and by the whole check (names, numbers, meta talk... plus the
threshold). The chosen threshold maximises (positives kept - negatives kept) for the whole
check, the lower threshold on a tie (a faithful summary lost costs more than a weak one kept:
the fallback is extractive anyway).

Run: python bench/grounding_calibrate.py [--corpus DIR] [--without POOL ...]
     (writes bench/results/grounding/calibration.json; the corpus: --corpus, else $CHUNKER_CORPUS,
     else ../shared/corpus; --without manifesto leaves out the passages of that folder)
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from chunker.grounding import GroundingPolicy, check, extractive_summary
from chunker.grounding.extractive import sentences

from corpus_path import corpus_root

LABELS = Path(__file__).with_name("grounding_labels.json")
OUT = Path(__file__).parent / "results" / "grounding" / "calibration.json"
THRESHOLDS = [round(0.30 + 0.05 * i, 2) for i in range(14)]
SUMMARY_MAX_CHARS = 400


@dataclass(frozen=True)
class Case:
    passage: str
    kind: str
    faithful: bool
    text: str


def passages(without: Collection[str] = ()) -> list[dict]:
    """The labelled passages, less those whose document lies in a folder named in `without`."""
    spec = json.loads(LABELS.read_text(encoding="utf-8"))["passages"]
    return [p for p in spec if p["doc"].split("/")[0] not in without]


def passage_text(corpus: Path, doc: str, lines: list[int]) -> str:
    rows = (corpus / doc).read_text(encoding="utf-8").splitlines()[lines[0] - 1:lines[1]]
    return "\n".join(r for r in rows if r.strip() != "==========")


def extractive_positives(text: str) -> list[str]:
    items = sentences(text)
    return [extractive_summary(text, max_chars=SUMMARY_MAX_CHARS), items[0][:SUMMARY_MAX_CHARS],
            items[len(items) // 2][:SUMMARY_MAX_CHARS]]


def build_cases(corpus: Path, without: Collection[str] = ()) -> tuple[dict[str, str], list[Case]]:
    spec = passages(without)
    texts = {p["id"]: passage_text(corpus, p["doc"], p["lines"]) for p in spec}
    own = {p["id"]: p["faithful"] for p in spec}
    extracted = {p["id"]: extractive_positives(texts[p["id"]]) for p in spec}
    cases: list[Case] = []
    for p in spec:
        pid = p["id"]
        cases += [Case(pid, "paraphrase", True, t) for t in own[pid]]
        cases += [Case(pid, "extractive", True, t) for t in extracted[pid]]
        cases += [Case(pid, "invented", False, t) for t in p["invented"]]
        for other in spec:
            if other["doc"] == p["doc"] and other["id"] != pid:
                cases += [Case(pid, "other_passage_paraphrase", False, t) for t in own[other["id"]]]
                cases += [Case(pid, "other_passage_extractive", False, extracted[other["id"]][0])]
    return texts, cases


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", help="the corpus folder (default: $CHUNKER_CORPUS, else ../shared/corpus)")
    ap.add_argument("--without", nargs="*", default=[], help="leave out the passages of these folders")
    args = ap.parse_args(argv)
    corpus = corpus_root(args.corpus, needs=sorted({p["doc"] for p in passages(args.without)}))
    texts, cases = build_cases(corpus, args.without)
    open_policy = GroundingPolicy(grounding_min_support=0.0)
    verdicts = [check(c.text, texts[c.passage], task="summarize", policy=open_policy) for c in cases]
    positives = [i for i, c in enumerate(cases) if c.faithful]
    negatives = [i for i, c in enumerate(cases) if not c.faithful]
    rows = []
    for t in THRESHOLDS:
        kept_by_support = {i for i, v in enumerate(verdicts) if v.support >= t}
        kept_by_check = {i for i in kept_by_support if verdicts[i].ok}
        rows.append({
            "threshold": t,
            "support_only": {"positives_kept": len(kept_by_support & set(positives)) / len(positives),
                             "negatives_kept": len(kept_by_support & set(negatives)) / len(negatives)},
            "whole_check": {"positives_kept": len(kept_by_check & set(positives)) / len(positives),
                            "negatives_kept": len(kept_by_check & set(negatives)) / len(negatives)},
        })
    best = max(rows, key=lambda r: (r["whole_check"]["positives_kept"] - r["whole_check"]["negatives_kept"],
                                    -r["threshold"]))
    chosen = best["threshold"]
    by_kind: dict[str, list[float]] = {}
    for c, v in zip(cases, verdicts):
        by_kind.setdefault(c.kind, []).append(v.support)
    report = {
        "cases": len(cases), "positives": len(positives), "negatives": len(negatives),
        "chosen_threshold": chosen, "table": rows,
        "support_by_kind": {k: {"n": len(s), "min": min(s), "mean": round(sum(s) / len(s), 3), "max": max(s)}
                            for k, s in by_kind.items()},
        "errors_at_chosen": [
            {"passage": c.passage, "kind": c.kind, "faithful": c.faithful, "text": c.text,
             "support": v.support, "reasons": [str(r) for r in v.reasons]}
            for c, v in zip(cases, verdicts)
            if (v.ok and v.support >= chosen) != c.faithful],
        "verdicts": [{"passage": c.passage, "kind": c.kind, "faithful": c.faithful,
                      **{k: (list(x) if isinstance(x, tuple) else x)
                         for k, x in dataclasses.asdict(v).items() if k != "task"}}
                     for c, v in zip(cases, verdicts)],
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(cases)} cases: {len(positives)} faithful, {len(negatives)} not")
    print("threshold | support only: pos kept, neg kept | whole check: pos kept, neg kept")
    for r in rows:
        s, w = r["support_only"], r["whole_check"]
        mark = "  <- chosen" if r["threshold"] == chosen else ""
        print(f"  {r['threshold']:.2f}    | {s['positives_kept']:.2f}  {s['negatives_kept']:.2f}"
              f"                    | {w['positives_kept']:.2f}  {w['negatives_kept']:.2f}{mark}")
    for kind, s in report["support_by_kind"].items():
        print(f"  {kind:26s} n={s['n']:3d} support min {s['min']:.2f} mean {s['mean']:.2f} max {s['max']:.2f}")
    print(f"errors at {chosen}: {len(report['errors_at_chosen'])}")
    for e in report["errors_at_chosen"]:
        print(f"  [{e['passage']} {e['kind']} support={e['support']} {e['reasons']}] {e['text'][:110]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

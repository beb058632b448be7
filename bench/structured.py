"""Structured records (issue 32): tables found and parsed against hand-made gold, targeted
lookup against the collapsed search and flat BM25 at 150 tokens, consistency checks on
corrupted and untouched documents.

    python bench/structured.py [--corpus DIR] [--out bench/results/structured] [--budget 150]

The corpus is `--corpus`, else $CHUNKER_CORPUS, else ../shared/corpus. Gold:
`bench/structured_gold/q1-fy25-earnings.json` (typed by hand from `pdftotext -layout`; the
earnings PDF's licence is unclear: benchmarks only) and, for the Markdown, the pipe lines of the
source split on their pipes here (no Markdown parser). Questions:
`bench/structured_questions.jsonl`, generated from the same gold (`questions`), never from
the parser. Trees are built with `--model scripted --embeddings lexical`.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from structured_checks import hits, prose_corruptions, total_corruptions  # noqa: E402
from structured_parse import compare, markdown_gold, norm, overall, pdf_gold  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
GOLD = ROOT / "bench" / "structured_gold" / "q1-fy25-earnings.json"
QUESTIONS = ROOT / "bench" / "structured_questions.jsonl"
MARKDOWN = ("markdown/rust-book-appendix-02-operators.md", "markdown/rust-book-ch03-02-data-types.md")
PDFS = ("pdf/q1-fy25-earnings.pdf", "pdf/four-lectures.pdf")
SECTIONS = ["summarized financial results", "summarized segment financial results", "Entertainment segment",
            "Linear Networks", "Sports segment", "Experiences segment", "effective income tax rate",
            "investments in parks, resorts and other property"]
"""What each gold table of the earnings release is about, as a question names it (by hand)."""


def extract_pdf(path: Path) -> tuple[str, list[tuple[int, int, int]]]:
    """The PDF's Markdown and its pages (number, start, end)."""
    from chunker.document.pdf import extract
    got = extract(path)
    return got.markdown, [(p.number, p.start, p.end) for p in got.pages]


def records_of(text: str):
    from chunker.document.structure import parse_structure
    from chunker.structured.extract import build_records
    return build_records(text, parse_structure(text))


def make_questions(corpus: Path) -> list[dict]:
    gold = json.loads(GOLD.read_text(encoding="utf-8"))
    out = []
    for g, about in zip(gold["tables"], SECTIONS):
        labels = [r[0] for r in g["rows"]]
        for row in g["rows"]:
            if len(row) < 3 or not row[0] or labels.count(row[0]) > 1:
                continue
            out.append({"question": f"In the {about} table, what was {row[0]} for the quarter ended December 28, 2024?",
                        "file": "q1-fy25-earnings", "label": row[0], "value": row[1]})
    for rel in MARKDOWN:
        for t in markdown_gold((corpus / rel).read_text(encoding="utf-8")):
            labels = [r[0] for r in t["rows"]]
            for row in t["rows"][:6]:
                if labels.count(row[0]) > 1 or len(row) < 2:
                    continue
                if "operators" in rel:
                    q = f"What does {row[0]} mean or do in Rust? Explanation?"
                    value = row[2] if len(row) > 2 else row[1]
                else:
                    q = f"What is the signed integer type of length {row[0]}?" if len(row) == 3 else \
                        f"What is an example of a {row[0]} number literal?"
                    value = row[1]
                out.append({"question": q, "file": Path(rel).stem, "label": row[0], "value": value})
    return out


def holds(text: str, label: str, value: str, window: int = 400) -> bool:
    """The row's label and its value together: the value within `window` characters after the label."""
    t, lab, val = norm(text), norm(label), norm(value)
    for m in re.finditer(re.escape(lab), t):
        if val in t[m.end():m.end() + window]:
            return True
    return False


def build_tree(src: Path, out: Path) -> Path:
    if not (out / "hierarchy.json").exists():
        subprocess.run([sys.executable, "-m", "chunker.cli.app", "run", str(src), "--model", "scripted",
                        "--embeddings", "lexical", "-o", str(out), "--quiet"], check=True, cwd=ROOT)
    return out


def lookup(corpus: Path, work: Path, budget: int) -> dict:
    from chunker.evaluation.navigation_flat import flat_methods, read_within
    from chunker.graph.navigator_ask import ask
    from chunker.navigation.collapsed import collapsed_read
    from chunker.navigation.settings import NavigatorSettings
    from chunker.navigation.tree import open_tree

    trees = {"q1-fy25-earnings": build_tree(corpus / PDFS[0], work / "earnings")}
    for rel in MARKDOWN:
        trees[Path(rel).stem] = build_tree(corpus / rel, work / Path(rel).stem)
    cfg = NavigatorSettings(embeddings="lexical", budget_tokens=budget, cache_embeddings=False)
    flat_cfg = NavigatorSettings(embeddings="bm25", budget_tokens=budget, cache_embeddings=False)
    questions = [json.loads(x) for x in QUESTIONS.read_text(encoding="utf-8").splitlines() if x.strip()]
    score = {m: {"ok": 0, "tokens": 0} for m in ("navigator", "collapsed", "bm25-leaves")}
    routes = {}
    flat = {}
    for q in questions:
        out = trees[q["file"]]
        tree = open_tree(out)
        got = ask(str(out), q["question"], cfg)
        routes[got.route] = routes.get(got.route, 0) + 1
        text = "\n".join(p["text"] for p in got.passages)
        score["navigator"]["ok"] += holds(text, q["label"], q["value"])
        score["navigator"]["tokens"] += got.tokens_read
        reading = collapsed_read(tree, q["question"], cfg)
        score["collapsed"]["ok"] += holds("\n".join(p.text for p in reading.passages), q["label"], q["value"])
        score["collapsed"]["tokens"] += reading.tokens
        if q["file"] not in flat:
            source = out / "source.md" if (out / "source.md").exists() else None
            files = {n.source: (source.read_text(encoding="utf-8") if source else None)
                     for n in tree.hierarchy.nodes if n.kind == "document"}
            files = {k: v if v is not None else "".join(l.original for l in tree.hierarchy.leaves())
                     for k, v in files.items()}
            flat[q["file"]] = flat_methods(tree, files, flat_cfg, wanted=lambda n: n == "bm25-leaves")[0]
        ranked, _ = flat[q["file"]].ranked(q["question"], None)
        read, tokens = read_within(ranked, budget)
        score["bm25-leaves"]["ok"] += holds("\n".join(r.text for r in read), q["label"], q["value"])
        score["bm25-leaves"]["tokens"] += tokens
    n = len(questions)
    return {"questions": n, "budget": budget, "routes": routes,
            **{m: {"success": round(s["ok"] / n, 3), "answered": s["ok"], "mean_tokens": round(s["tokens"] / n, 1)}
               for m, s in score.items()}}


def checks(texts: dict[str, str], pages: dict) -> dict:
    untouched = {name: records_of(text).checks for name, text in texts.items()}
    corruptions = []
    for rel in PDFS:
        name = Path(rel).stem
        gold = pdf_gold(name)
        records = records_of(texts[name])
        corruptions += total_corruptions(name, texts[name], gold["tables"], records, pages[name])
        corruptions += prose_corruptions(name, texts[name], gold.get("prose", []))
    by = []
    for c in corruptions:
        if c.get("missing"):
            by.append({k: c[k] for k in ("kind", "document", "what")} | {"found": False, "findings": ["quote not in the text"]})
            continue
        before = {ch.message for ch in untouched[c["document"]]}
        new = [ch for ch in records_of(c["text"]).checks if ch.message not in before]
        found = [ch.message for ch in new if hits(ch, c["span"])]
        by.append({k: c[k] for k in ("kind", "labelled", "document", "what")} | {"found": bool(found), "findings": found})

    def tally(rows):
        return {"corruptions": len(rows), "caught": sum(r["found"] for r in rows)}

    groups = {"totals labelled as totals": [r for r in by if r["kind"] == "total" and r.get("labelled")],
              "other sums": [r for r in by if r["kind"] == "total" and not r.get("labelled")],
              "prose naming the row": [r for r in by if r["kind"] == "prose" and r.get("labelled")],
              "prose naming it otherwise": [r for r in by if r["kind"] == "prose" and not r.get("labelled")]}
    return {"false_alarms": sum(len(v) for v in untouched.values()),
            "untouched": {k: [c.message for c in v] for k, v in untouched.items()},
            **tally(by), "by_group": {k: tally(v) for k, v in groups.items()}, "by_corruption": by}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", nargs="?", default="all", choices=("all", "questions", "parse", "lookup", "checks"))
    ap.add_argument("--corpus", type=Path, default=Path(os.environ.get("CHUNKER_CORPUS", ROOT.parent / "shared" / "corpus")))
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "structured")
    ap.add_argument("--work", type=Path, default=Path("/tmp/structured-bench"))
    ap.add_argument("--budget", type=int, default=150)
    args = ap.parse_args()
    missing = [p for p in (*PDFS, *MARKDOWN) if not (args.corpus / p).exists()]
    if missing:
        print(f"corpus {args.corpus} lacks {', '.join(missing)}: give --corpus or CHUNKER_CORPUS")
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    if args.what in ("all", "questions"):
        qs = make_questions(args.corpus)
        QUESTIONS.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in qs), encoding="utf-8")
        print(f"{len(qs)} questions -> {QUESTIONS}")
    args.work.mkdir(parents=True, exist_ok=True)
    texts, pages = {}, {}
    for rel in PDFS:  # extracted once, kept in --work (PyMuPDF takes a while on a loaded machine)
        cached = args.work / f"{Path(rel).stem}.source.md"
        cached_pages = cached.with_suffix(".pages.json")
        if not (cached.exists() and cached_pages.exists()):
            markdown, page_map = extract_pdf(args.corpus / rel)
            cached.write_text(markdown, encoding="utf-8")
            cached_pages.write_text(json.dumps(page_map), encoding="utf-8")
        texts[Path(rel).stem] = cached.read_text(encoding="utf-8")
        pages[Path(rel).stem] = [tuple(p) for p in json.loads(cached_pages.read_text(encoding="utf-8"))]
    texts.update({Path(p).stem: (args.corpus / p).read_text(encoding="utf-8") for p in MARKDOWN})
    if args.what in ("all", "parse"):
        gold = {Path(p).stem: pdf_gold(Path(p).stem)["tables"] for p in PDFS}
        gold.update({Path(p).stem: markdown_gold(texts[Path(p).stem]) for p in MARKDOWN})
        result = {name: compare(g, records_of(texts[name]).tables, pages.get(name)) for name, g in gold.items()}
        result = {"overall": overall(result), **result}
        (args.out / "parse.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(json.dumps({name: {k: v for k, v in r.items() if not isinstance(v, list)} for name, r in result.items()},
                         indent=1))
    if args.what in ("all", "checks"):
        result = checks(texts, pages)
        (args.out / "checks.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(json.dumps({k: v for k, v in result.items() if k in ("false_alarms", "corruptions", "caught", "by_group")},
                         indent=1))
    if args.what in ("all", "lookup"):
        result = lookup(args.corpus, args.work, args.budget)
        (args.out / "lookup.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

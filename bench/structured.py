"""Structured records (issue 32): tables found and parsed against hand-made gold, targeted
lookup against the collapsed search and flat BM25 at 150 tokens, consistency checks on
corrupted and untouched documents.

    python bench/structured.py [all|questions|parse|checks|lookup] [--corpus DIR]
        [--work /tmp/structured-bench] [--out bench/results/structured] [--budget 150]

The corpus is `--corpus`, else $CHUNKER_CORPUS, else ../shared/corpus. `--work` keeps the PDFs'
extracted text and the trees (built with `--model scripted --embeddings lexical`); delete it
after changing the code.

- `parse` (parse.json): every table of both shared PDFs against `bench/structured_gold/*.json`
  (by hand from `pdftotext -layout` and the page images, each page's decision recorded; the
  earnings PDF's licence is unclear: benchmarks only) and the Markdown sources' pipe tables;
  found / gold, false tables, cells, header cells and numbers (`structured_parse.py`).
- `questions`: `bench/structured_questions.jsonl` and `..._holdout.jsonl`, generated from the
  same gold, never from the parser (`structured_questions.py`).
- `lookup` (lookup.json): success (the row's label and the value together) and tokens read, by
  document and by phrasing template, for the tuning set and the held-out phrasings.
- `checks` (checks.json): every sum row of the gold one unit off, every prose restatement one
  unit off; findings and false alarms on the untouched documents (`structured_checks.py`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from structured_checks import hits, prose_corruptions, total_corruptions  # noqa: E402
from structured_parse import compare, markdown_gold, overall, pdf_gold  # noqa: E402
from structured_questions import make_holdout, make_questions  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = ROOT / "bench" / "structured_questions.jsonl"
HOLDOUT = ROOT / "bench" / "structured_questions_holdout.jsonl"
"""Questions in phrasings written after the route was tuned, never tuned on (`make_holdout`)."""
MARKDOWN = ("markdown/rust-book-appendix-02-operators.md", "markdown/rust-book-ch03-02-data-types.md")
PDFS = ("pdf/q1-fy25-earnings.pdf", "pdf/four-lectures.pdf")


def extract_pdf(path: Path) -> tuple[str, list[tuple[int, int, int]]]:
    """The PDF's Markdown and its pages (number, start, end)."""
    from chunker.document.pdf import extract
    got = extract(path)
    return got.markdown, [(p.number, p.start, p.end) for p in got.pages]


def records_of(text: str):
    from chunker.document.structure import parse_structure
    from chunker.structured.extract import build_records
    return build_records(text, parse_structure(text))


def holds(text: str, label: str, value: str, window: int = 400) -> bool:
    """The row's label and its value together: the value within `window` characters after the
    label (the label without footnote marks; the value as written, `$` and spacing aside)."""
    def plain(x: str) -> str:
        return " ".join(x.replace("\u2019", "'").replace("$", " ").replace("<br>", " ").lower().split())

    def marks(x: str) -> str:  # footnote marks: `International(2)`; never a figure's `(9) %`
        return re.sub(r"(?<=[^\s(])\(\d\)", " ", x)

    t, lab, val = plain(marks(text)), plain(marks(label)), plain(value)
    for m in re.finditer(re.escape(lab), t):
        if val in t[m.end():m.end() + window]:
            return True
    return False


def build_tree(src: Path, out: Path) -> Path:
    if not (out / "hierarchy.json").exists():
        subprocess.run([sys.executable, "-m", "chunker.cli.app", "run", str(src), "--model", "scripted",
                        "--embeddings", "lexical", "-o", str(out), "--quiet"], check=True, cwd=ROOT)
    return out


def lookup(corpus: Path, work: Path, budget: int, questions_file: Path = QUESTIONS) -> dict:
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
    questions = [json.loads(x) for x in questions_file.read_text(encoding="utf-8").splitlines() if x.strip()]
    methods = ("navigator", "collapsed", "bm25-leaves")
    results, flat, opened = [], {}, {}
    for q in questions:
        out = trees[q["file"]]
        tree = opened.setdefault(q["file"], open_tree(out))
        got = ask(str(out), q["question"], cfg)
        reading = collapsed_read(tree, q["question"], cfg)
        if q["file"] not in flat:
            source = out / "source.md" if (out / "source.md").exists() else None
            files = {n.source: (source.read_text(encoding="utf-8") if source else None)
                     for n in tree.hierarchy.nodes if n.kind == "document"}
            files = {k: v if v is not None else "".join(l.original for l in tree.hierarchy.leaves())
                     for k, v in files.items()}
            flat[q["file"]] = flat_methods(tree, files, flat_cfg, wanted=lambda n: n == "bm25-leaves")[0]
        ranked, _ = flat[q["file"]].ranked(q["question"], None)
        read, tokens = read_within(ranked, budget)
        texts = {"navigator": ("\n".join(p["text"] for p in got.passages), got.tokens_read),
                 "collapsed": ("\n".join(p.text for p in reading.passages), reading.tokens),
                 "bm25-leaves": ("\n".join(r.text for r in read), tokens)}
        results.append({**{k: q[k] for k in ("question", "file", "template", "label", "value")}, "route": got.route,
                        **{m: {"ok": holds(t, q["label"], q["value"]), "tokens": n} for m, (t, n) in texts.items()}})

    def summary(rows: list[dict]) -> dict:
        n = len(rows)
        return {"questions": n, **{m: {"success": round(sum(r[m]["ok"] for r in rows) / n, 3),
                                       "answered": sum(r[m]["ok"] for r in rows),
                                       "mean_tokens": round(sum(r[m]["tokens"] for r in rows) / n, 1)}
                                   for m in methods}}

    def by(key) -> dict:
        keys = sorted({key(r) for r in results})
        return {k: summary([r for r in results if key(r) == k]) for k in keys}

    routes = {}
    for r in results:
        routes[r["route"]] = routes.get(r["route"], 0) + 1
    return {"budget": budget, "routes": routes, **summary(results),
            "by_file": by(lambda r: r["file"]), "by_template": by(lambda r: r["template"].split("+")[0]),
            "questions_detail": results}


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
            by.append({k: c.get(k) for k in ("kind", "labelled", "document", "what")}
                      | {"found": False, "findings": ["not placed: " + c["what"]]})
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
        for path, qs in ((QUESTIONS, make_questions(args.corpus, MARKDOWN)), (HOLDOUT, make_holdout(args.corpus, MARKDOWN))):
            path.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in qs), encoding="utf-8")
            print(f"{len(qs)} questions -> {path}")
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
        result = {"tuning": lookup(args.corpus, args.work, args.budget),
                  "holdout": lookup(args.corpus, args.work, args.budget, HOLDOUT)}
        (args.out / "lookup.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        for name, r in result.items():
            print(f"{name}: {r['questions']} questions, routes {r['routes']}")
            for k, v in [("all", r), *r["by_file"].items(), *r["by_template"].items()]:
                print(f"  {k:34} {v['questions']:4} " + "  ".join(
                    f"{m} {v[m]['success']:.3f} ({v[m]['mean_tokens']:.0f} t)" for m in ("navigator", "collapsed", "bm25-leaves")))
    return 0


if __name__ == "__main__":
    sys.exit(main())

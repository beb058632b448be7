"""Whole `chunker run` on PDFs with the scripted model: the tree against PageIndex's, tables
whole inside one leaf, extraction and rendering speed, and peak RSS of the run.

    python bench/pdf_tree.py                  # the two corpus PDFs and a generated 300-page PDF
    python bench/pdf_tree.py --pages 300      # only the generated PDF

Each `chunker run` is a child process; its peak RSS comes from `os.wait4` (that child alone).
Writes bench/results/pdf/tree.md and tree.json.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "pdf"
_spec = importlib.util.spec_from_file_location("pdf_extract", ROOT / "bench" / "pdf_extract.py")
pdf_extract = importlib.util.module_from_spec(_spec)
sys.modules["pdf_extract"] = pdf_extract  # its dataclasses look their module up
_spec.loader.exec_module(pdf_extract)
CORPUS, NAMES = pdf_extract.CORPUS, pdf_extract.NAMES
RENDER_PAGES = 5


def run_chunker(pdf: Path, out: Path) -> dict:
    """`chunker run PDF` with the scripted model; wall seconds and the child's peak RSS."""
    cmd = [sys.executable, "-m", "chunker.cli.app", "run", str(pdf), "--model", "scripted", "-o", str(out),
           "--force", "--quiet", "--embeddings", "lexical"]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    stderr = proc.stderr.read().decode() if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"chunker run {pdf} failed: {stderr[-500:]}")
    return {"run_s": round(wall, 1), "peak_rss_mb": round(usage.ru_maxrss / 1024)}


def tree_figures(out: Path, pi_starts: list[int] | None, pdf: Path) -> dict:
    from chunker.document.pdf import extract
    from chunker.readers.pdf import fill_scans

    h = json.loads((out / "hierarchy.json").read_text())
    got = extract(pdf)
    _, places = fill_scans(got.markdown, got.pages, {})
    shift = {pg.number: place.start - pg.start for pg, place in zip(got.pages, places)}
    tables = [(t.page, t.start + shift[t.page], t.end + shift[t.page]) for t in got.tables]  # in source.md
    leaves = [n for n in h["nodes"] if n["level"] == 0]
    root = next(n for n in h["nodes"] if n["id"] == h["root"])
    ours = sorted({n["pages"][0] for n in h["nodes"]})
    whole = sum(any(lf["span"][0] <= t[1] and t[2] <= lf["span"][1] for lf in leaves) for t in tables)
    fig = {"nodes": len(h["nodes"]), "leaves": len(leaves), "depth": root["level"] + 1,
           "tables": len(tables), "tables_whole_in_one_leaf": whole,
           "stats_strategy": [k for k in h["meta"]["stats"] if k.startswith("strategy.")]}
    if pi_starts is not None:
        fig.update({
            "pi_starts_matched_same": pdf_extract.share(pi_starts, ours, 0),
            "pi_starts_matched_within_one": pdf_extract.share(pi_starts, ours, 1),
            "ours_starts_matched_same": pdf_extract.share(ours, pi_starts, 0),
            "ours_starts_matched_within_one": pdf_extract.share(ours, pi_starts, 1),
        })
    return fig


def speed(pdf: Path) -> dict:
    from chunker.document.pdf import render_pages
    from chunker.readers.base import ReadSettings
    from chunker.readers.source import Source

    start = time.perf_counter()
    src = Source.open(pdf, ReadSettings(max_bytes=1 << 40))
    extract_s = time.perf_counter() - start
    pages = [p for p in src.places if p.page is not None]
    n = min(RENDER_PAGES, len(pages))
    start = time.perf_counter()
    render_pages(pdf, list(range(1, n + 1)), dpi=150, max_images=n)
    return {"pages": len(pages), "extract_s_per_page": round(extract_s / len(pages), 3),
            "render_s_per_page_150dpi": round((time.perf_counter() - start) / n, 3)}


def corpus(name: str) -> dict:
    pdf = CORPUS / f"{name}.pdf"
    tree = json.loads((CORPUS / f"{name}.pageindex_structure.json").read_text())
    pi_starts, pi_depth = pdf_extract.pageindex_starts(tree["structure"])
    with tempfile.TemporaryDirectory() as tmp:
        run = run_chunker(pdf, Path(tmp) / "out")
        fig = tree_figures(Path(tmp) / "out", pi_starts, pdf)
    return {"name": name, **speed(pdf), **run, **fig,
            "pageindex_nodes": len(pi_starts), "pageindex_depth": pi_depth}


def generated(pages: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        pdf = Path(tmp) / "long.pdf"
        pdf_extract.make_long_pdf(pdf, pages)
        run = run_chunker(pdf, Path(tmp) / "out")
        fig = tree_figures(Path(tmp) / "out", None, pdf)
    return {"name": f"generated-{pages}", "pages": pages, **run, **fig}


def commit() -> str:
    return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True).stdout.strip() or "unknown"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=None, help="only the generated PDF of this many pages")
    parser.add_argument("--corpus-only", action="store_true", help="skip the generated 300-page PDF")
    parser.add_argument("--commit", default=None, help="the commit measured, when the chunker imported "
                                                       "is not this checkout's HEAD")
    args = parser.parse_args()
    if args.pages:
        print(json.dumps(generated(args.pages), indent=1))
        return
    pdf_extract.corpus_root(needs=[f"pdf/{n}{ext}" for n in NAMES for ext in (".pdf", ".pageindex_structure.json")])
    rows = [corpus(n) for n in NAMES] + ([] if args.corpus_only else [generated(300)])
    print(json.dumps(rows, indent=1))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "tree.json").write_text(json.dumps({"commit": args.commit or commit(), "rows": rows},
                                                  indent=1) + "\n")


if __name__ == "__main__":
    main()

"""PDF extraction benchmark: speed, peak memory, tables, and headings against PageIndex's trees.

    python bench/pdf_extract.py                 # corpus PDFs + 300-page memory run, writes the report
    python bench/pdf_extract.py --rss-pages 300 # only the generated-PDF memory run (prints JSON)

Peak RSS is measured in a child process (one run per size), so each figure is that run's own.
Writes bench/results/pdf/report.md and results.json.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
from corpus_path import corpus_root, default_root  # noqa: E402  (bench/: an argument or $CHUNKER_CORPUS)
CORPUS = default_root() / "pdf"
RESULTS = ROOT / "bench" / "results" / "pdf"
NAMES = ("q1-fy25-earnings", "four-lectures")
RENDER_PAGES = 5  # pages rendered per corpus PDF for the rendering speed


def make_long_pdf(path: Path, pages: int) -> None:
    """`pages` pages, each with a heading, three paragraphs and a ruled 4x3 table."""
    import pymupdf

    doc = pymupdf.open()
    for n in range(pages):
        page = doc.new_page()
        page.insert_text((72, 72), f"Section {n + 1}", fontsize=18)
        y = 100
        for _ in range(12):
            page.insert_text((72, y), f"Page {n + 1} reports revenue, costs and margins for one quarter.",
                             fontsize=11)
            y += 14
        for r in range(4):
            for c in range(3):
                rect = pymupdf.Rect(72 + c * 130, y + 20 + r * 20, 202 + c * 130, y + 40 + r * 20)
                page.draw_rect(rect, color=(0, 0, 0), width=0.8)
                page.insert_text((rect.x0 + 4, rect.y1 - 6), f"r{r}c{c}={n * r + c}", fontsize=10)
    doc.save(path)
    doc.close()


def rss_run(pages: int) -> dict:
    """Generate a PDF and extract it in this process; report seconds and peak RSS."""
    from chunker.document.pdf import extract

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "long.pdf"
        make_long_pdf(path, pages)
        base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        start = time.perf_counter()
        text = extract(path)
        seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"pages": pages, "seconds": round(seconds, 1), "s_per_page": round(seconds / pages, 3),
            "tables": len(text.tables), "chars": len(text.markdown),
            "peak_rss_mb": round(peak / 1024), "rss_before_extract_mb": round(base / 1024)}


def rss_in_child(pages: int) -> dict:
    out = subprocess.run([sys.executable, __file__, "--rss-pages", str(pages)],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


@dataclass
class Comparison:
    name: str
    pages: int
    seconds: float
    s_per_page: float
    render_s_per_page: float
    tables: int
    tables_inside_one_page: int
    heading_source: str
    ours_nodes: int
    ours_depth: int
    pageindex_nodes: int
    pageindex_depth: int
    pageindex_starts_matched_same: float
    pageindex_starts_matched_within_one: float
    ours_starts_matched_same: float
    ours_starts_matched_within_one: float


def pageindex_starts(nodes: list[dict], depth: int = 1) -> tuple[list[int], int]:
    """Start pages of every node, and the tree's depth."""
    starts: list[int] = []
    deepest = depth if nodes else depth - 1
    for node in nodes:
        starts.append(node["start_index"])
        sub, d = pageindex_starts(node.get("nodes", []), depth + 1)
        starts += sub
        deepest = max(deepest, d)
    return starts, deepest


def heading_depth(levels: list[int]) -> int:
    """Depth of the tree that heading levels nest into (a `###` under a `#` is depth 2)."""
    stack: list[int] = []
    deepest = 0
    for level in levels:
        while stack and stack[-1] >= level:
            stack.pop()
        stack.append(level)
        deepest = max(deepest, len(stack))
    return deepest


def share(starts: list[int], other: list[int], slack: int) -> float:
    if not starts:
        return 0.0
    return round(sum(any(abs(s - o) <= slack for o in other) for s in starts) / len(starts), 3)


def compare(name: str) -> Comparison:
    from chunker.document.pdf import extract, render_pages

    pdf = CORPUS / f"{name}.pdf"
    start = time.perf_counter()
    text = extract(pdf)
    seconds = time.perf_counter() - start
    start = time.perf_counter()
    render_pages(pdf, list(range(1, RENDER_PAGES + 1)), dpi=150, max_images=RENDER_PAGES)
    render = (time.perf_counter() - start) / RENDER_PAGES
    tree = json.loads((CORPUS / f"{name}.pageindex_structure.json").read_text())
    pi_starts, pi_depth = pageindex_starts(tree["structure"])
    ours = [h.page for h in text.headings]
    inside = sum(any(p.start <= t.start and t.end <= p.end for p in text.pages) for t in text.tables)
    (RESULTS / f"{name}.md").write_text(text.markdown)
    return Comparison(name, len(text.pages), round(seconds, 1), round(seconds / len(text.pages), 3),
                      round(render, 3), len(text.tables), inside, text.heading_source,
                      len(ours), heading_depth([h.level for h in text.headings]),
                      len(pi_starts), pi_depth,
                      share(pi_starts, ours, 0), share(pi_starts, ours, 1),
                      share(ours, pi_starts, 0), share(ours, pi_starts, 1))


def write_report(rows: list[Comparison], rss: list[dict]) -> None:
    lines = ["# PDF extraction: corpus figures and PageIndex comparison", "",
             "Produced by `python bench/pdf_extract.py` (2 shared CPU cores; timings are noisy).", "",
             "| PDF | pages | extract s | s/page | render s/page (150 DPI) | tables | tables inside one page "
             "| headings from | our nodes | our depth | PageIndex nodes | PageIndex depth "
             "| PI starts matched (same page) | (within 1) | our starts matched (same) | (within 1) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r.name} | {r.pages} | {r.seconds} | {r.s_per_page} | {r.render_s_per_page} | "
                     f"{r.tables} | {r.tables_inside_one_page} | {r.heading_source} | {r.ours_nodes} | "
                     f"{r.ours_depth} | {r.pageindex_nodes} | {r.pageindex_depth} | "
                     f"{r.pageindex_starts_matched_same} | {r.pageindex_starts_matched_within_one} | "
                     f"{r.ours_starts_matched_same} | {r.ours_starts_matched_within_one} |")
    lines += ["", "Shares: a PageIndex node's start page counts as matched when one of our headings "
              "starts on the same page (or within one page); the reverse for our headings.", "",
              "## Memory on generated PDFs (heading, 12 lines, a ruled table per page)", "",
              "| pages | extract s | s/page | tables | peak RSS MB | RSS before extract MB |",
              "|---|---|---|---|---|---|"]
    for r in rss:
        lines.append(f"| {r['pages']} | {r['seconds']} | {r['s_per_page']} | {r['tables']} | "
                     f"{r['peak_rss_mb']} | {r['rss_before_extract_mb']} |")
    (RESULTS / "report.md").write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rss-pages", type=int, help="only run the memory measurement on N pages")
    parser.add_argument("--sizes", type=int, nargs="*", default=[30, 300],
                        help="page counts of the generated PDFs for the memory table")
    args = parser.parse_args()
    if args.rss_pages:
        print(json.dumps(rss_run(args.rss_pages)))
        return
    RESULTS.mkdir(parents=True, exist_ok=True)
    corpus_root(needs=[f"pdf/{name}{ext}" for name in NAMES for ext in (".pdf", ".pageindex_structure.json")])
    rows = [compare(name) for name in NAMES]
    rss = [rss_in_child(n) for n in args.sizes]
    (RESULTS / "results.json").write_text(json.dumps(
        {"corpus": [asdict(r) for r in rows], "memory": rss}, indent=2))
    write_report(rows, rss)
    print((RESULTS / "report.md").read_text())


if __name__ == "__main__":
    main()

"""`chunker site` (issue 35): export time and size, and how fast the pages paint in headless
Chromium, on trees of growing size.

    python bench/site.py [cinderella] [emma] [fastapi] [notes-500] [notes-2000]
        [--corpus DIR] [--work DIR] [--screenshots DIR]     (default: all five)

The corpus is DIR, else $CHUNKER_CORPUS, else ../shared/corpus: *Emma* is emma/emma.md,
fastapi-docs is folders/fastapi-docs; Cinderella is the repository's examples/cinderella.txt;
the notes are generated (bench/notes_gen.py). Each tree is built once with `chunker run
--model scripted --embeddings lexical` into --work (default a temporary folder; a tree already
there, finished, is reused: building the 2,000 notes takes minutes). Then, per tree:

- export: `write_site` in this process, best of three (seconds, per 1,000 nodes: linear when
  that stays flat as the tree grows), the site's bytes and files, tree.js and search.js;
- paint, in Debian's chromium driven by Playwright (never `playwright install`), opened from
  file://, three loads each (the first cold): the outline (`CHUNKER_OUTLINE_PAINT_MS`, a timer
  queued from the frame after the outline is drawn: it runs once that frame has painted) on the
  overview and on a leaf page, and the picture page (`CHUNKER_PAINTED_MS`, the same after load),
  with first-contentful-paint beside them; console errors are counted.

Results: bench/results/site/site.json and site.md. `--screenshots DIR` also writes the
overview, the picture, a leaf page and a search result of emma and fastapi as small PNGs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from notes_gen import write_notes  # noqa: E402  (beside this script)

from chunker.runs.rundir import RunDir  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "site"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
FLAGS = ("--model", "scripted", "--embeddings", "lexical", "--quiet")
NAMES = ["cinderella", "emma", "fastapi", "notes-500", "notes-2000"]
PAINT_TARGET_MS = 2000  # the 2,000-note outline must paint within this


def sources(corpus: Path, work: Path) -> dict[str, Path | None]:
    out: dict[str, Path | None] = {"cinderella": ROOT / "examples" / "cinderella.txt",
                                   "emma": corpus / "emma" / "emma.md",
                                   "fastapi": corpus / "folders" / "fastapi-docs"}
    for n in (500, 2000):
        folder = work / f"notes-{n}"
        if not folder.exists():
            write_notes(folder, n)
        out[f"notes-{n}"] = folder
    return {k: (v if v.exists() else None) for k, v in out.items()}


def built(name: str, src: Path, work: Path) -> tuple[Path, float | None]:
    out = work / f"out-{name}"
    if RunDir(out).status() == "finished":
        return out, None
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "chunker.cli.app", "run", str(src), "-o", str(out), *FLAGS,
                    "--force"], check=True)
    return out, time.perf_counter() - started


def export(out: Path) -> dict:
    from chunker.site.build import write_site

    times, report = [], None
    for _ in range(3):
        report = write_site(out)
        times.append(report.seconds)
    data = report.path / "data"
    nodes = report.pages - 3
    best = min(times)
    return {"nodes": nodes, "export_s": round(best, 3), "export_s_all": [round(t, 3) for t in times],
            "ms_per_1000_nodes": round(best * 1e6 / nodes, 1), "bytes": report.bytes,
            "mb": round(report.bytes / 1e6, 2), "files": report.files,
            "tree_js_bytes": (data / "tree.js").stat().st_size,
            "search_js_bytes": (data / "search.js").stat().st_size,
            "picture_html_bytes": (report.path / "picture.html").stat().st_size}


def paint(browser, site: Path, leaf_page: str) -> dict:
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    out: dict = {}
    for label, rel, mark in (("outline_overview", "index.html", "CHUNKER_OUTLINE_PAINT_MS"),
                             ("outline_leaf_page", f"n/{leaf_page}", "CHUNKER_OUTLINE_PAINT_MS"),
                             ("picture", "picture.html", "CHUNKER_PAINTED_MS")):
        runs, fcps = [], []
        for _ in range(3):
            page.goto((site / rel).resolve().as_uri())
            page.wait_for_function(f"window.{mark} !== undefined")
            runs.append(round(page.evaluate(f"window.{mark}")))
            fcps.append(round(page.evaluate(
                "(performance.getEntriesByName('first-contentful-paint')[0] || {startTime: -1}).startTime")))
        out[label] = {"cold_ms": runs[0], "median_ms": statistics.median(runs), "runs_ms": runs,
                      "fcp_cold_ms": fcps[0]}
    out["console_errors"] = len(errors)
    page.close()
    return out


def screenshots(browser, name: str, site: Path, leaf_page: str, word: str, dest: Path) -> list[str]:
    dest.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1200, "height": 720})
    written = []
    for kind, rel in (("overview", "index.html"), ("picture", "picture.html"),
                      ("leaf", f"n/{leaf_page}"), ("search", f"search.html?q={word}")):
        path, _, query = rel.partition("?")
        page.goto((site / path).resolve().as_uri() + (f"?{query}" if query else ""))
        page.wait_for_function("window.CHUNKER_PAINTED_MS !== undefined")
        target = dest / f"{name}-{kind}.png"
        page.screenshot(path=str(target))
        _shrink(target)
        written.append(str(target.relative_to(ROOT)) if target.is_relative_to(ROOT) else str(target))
    page.close()
    return written


def _shrink(path: Path) -> None:
    """A screenshot as a palette PNG (a quarter of the bytes) when Pillow is at hand."""
    try:
        from PIL import Image
    except ImportError:
        return
    Image.open(path).convert("RGB").quantize(colors=64).save(path, optimize=True)


def pick_leaf(out: Path) -> tuple[str, str]:
    """A leaf in the middle of the tree, and a word of its text for a search."""
    from chunker.site.data import tokens
    from chunker.site.tree import load_site_tree, page_name

    t = load_site_tree(out)
    leaves = t.h.leaves()
    leaf = leaves[len(leaves) // 2]
    words = sorted((w for w in tokens(leaf.original) if len(w) > 6 and w.isalpha()), key=len)
    return page_name(leaf.id), (words[-1] if words else "the")


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help=f"trees to measure (default: all of {', '.join(NAMES)})")
    ap.add_argument("--corpus", type=Path, default=Path(os.environ.get("CHUNKER_CORPUS", ROOT.parent / "shared" / "corpus")))
    ap.add_argument("--work", type=Path, default=None, help="where the trees are built (and reused)")
    ap.add_argument("--screenshots", type=Path, default=None, help="write emma's and fastapi's screenshots here")
    args = ap.parse_args(argv)
    names = args.names or NAMES
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-site-"))
    work.mkdir(parents=True, exist_ok=True)
    srcs = sources(args.corpus, work)
    if missing := [n for n in names if srcs.get(n) is None]:
        print(f"missing under {args.corpus}: {', '.join(missing)} (emma/emma.md, folders/fastapi-docs); "
              "measuring the others")
    from playwright.sync_api import sync_playwright

    previous = json.loads((RESULTS / "site.json").read_text()) if (RESULTS / "site.json").exists() else {}
    results: dict = {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                     "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                              capture_output=True, text=True).stdout.strip(),
                     "load_start": list(os.getloadavg()),
                     "trees": previous.get("trees", {})}  # a tree not measured now keeps its figures
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        for name in names:
            if srcs.get(name) is None:
                continue
            out, build_s = built(name, srcs[name], work)
            row = export(out)
            leaf_page, word = pick_leaf(out)
            row["build_s"] = round(build_s, 1) if build_s is not None else "reused"
            row.update(date=results["date"], commit=results["commit"], load=round(os.getloadavg()[0], 1))
            row["paint"] = paint(browser, out / "site", leaf_page)
            if args.screenshots and name in ("emma", "fastapi"):
                row["screenshots"] = screenshots(browser, name, out / "site", leaf_page, word, args.screenshots)
            results["trees"][name] = row
            print(name, json.dumps({k: v for k, v in row.items() if k != "screenshots"}), flush=True)
        browser.close()
    results["load_end"] = list(os.getloadavg())
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "site.json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    (RESULTS / "site.md").write_text(summary(results), encoding="utf-8")
    print(summary(results))


def summary(r: dict) -> str:
    lines = ["# chunker site: export and paint", "",
             f"Last run {r['date']}, commit {r['commit']}; each row's own date, commit and load "
             "(1-minute, 2 shared cores) are in site.json. Trees built with `--model scripted "
             "--embeddings lexical`; export best of three; paint in headless Chromium from file://, "
             "cold load (median of three).", "",
             "| tree | nodes | export s | ms / 1,000 nodes | site MB | tree.js KB | search.js KB | "
             "outline paint ms | outline, leaf page ms | picture paint ms | load |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, t in r["trees"].items():
        p = t["paint"]
        lines.append(f"| {name} | {t['nodes']} | {t['export_s']} | {t['ms_per_1000_nodes']} | {t['mb']} | "
                     f"{t['tree_js_bytes'] // 1000} | {t['search_js_bytes'] // 1000} | "
                     f"{p['outline_overview']['cold_ms']} ({p['outline_overview']['median_ms']:g}) | "
                     f"{p['outline_leaf_page']['cold_ms']} ({p['outline_leaf_page']['median_ms']:g}) | "
                     f"{p['picture']['cold_ms']} ({p['picture']['median_ms']:g}) | {t.get('load', '')} |")
    if big := r["trees"].get("notes-2000"):
        ms = big["paint"]["outline_overview"]["cold_ms"]
        lines += ["", f"2,000 notes: the outline paints in {ms} ms cold (target {PAINT_TARGET_MS} ms): "
                  + ("met." if ms < PAINT_TARGET_MS else "NOT met.")]
    errors = sum(t["paint"]["console_errors"] for t in r["trees"].values())
    lines += ["", f"Console errors over every load: {errors}.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    main(sys.argv[1:])

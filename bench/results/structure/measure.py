"""Markdown structure on the shared corpus: what parse_structure finds, and how fast.

    python bench/results/structure/measure.py

For the three Rust-book chapters, Emma and the every-construct fixture: headings per
level, sections, atomic units per kind, the largest table in tokens, and the parse time
(best of REPEATS runs, so a busy shared machine inflates it less). Writes report.md and
report.json beside this script.
"""

from __future__ import annotations

import json
import statistics
import time
from collections import Counter
from pathlib import Path

from chunker.document.loader import read_document
from chunker.document.structure import kind_of, parse_structure, safe_cut
from chunker.document.tokens import count_tokens

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"
DOCUMENTS = [
    CORPUS / "markdown" / "rust-book-appendix-02-operators.md",
    CORPUS / "markdown" / "rust-book-ch03-02-data-types.md",
    CORPUS / "markdown" / "rust-book-ch08-02-strings.md",
    CORPUS / "emma" / "emma.md",
    ROOT / "tests" / "fixtures" / "structure_all.md",
]
REPEATS = 5


def measure(path: Path) -> dict:
    text = read_document(path)
    times = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        structure = parse_structure(text)
        times.append(time.perf_counter() - t0)
    tables = [text[u.start:u.end] for u in structure.atomic_units if u.kind == "table"]
    sections = structure.sections
    return {
        "document": path.name,
        "chars": len(text),
        "tokens": count_tokens(text),
        "headings_per_level": dict(sorted(Counter(h.level for h in structure.headings).items())),
        "setext_headings": sum(h.style == "setext" for h in structure.headings),
        "sections": len(sections),
        "preamble": bool(sections) and sections[0].heading is None,
        "empty_sections": sum(s.body_start == s.end for s in sections if s.heading),
        "atomic_units": dict(sorted(Counter(u.kind for u in structure.atomic_units).items())),
        "largest_table_tokens": max((count_tokens(t) for t in tables), default=0),
        "largest_section_tokens": max((count_tokens(text[s.start:s.end]) for s in sections), default=0),
        "section_kinds": dict(sorted(Counter(kind_of(s.span, structure) for s in sections).items())),
        "unsafe_line_starts": sum(not safe_cut(i + 1, structure) for i, c in enumerate(text) if c == "\n"),
        "front_matter": structure.front_matter is not None,
        "parse_ms_best": round(min(times) * 1000, 1),
        "parse_ms_median": round(statistics.median(times) * 1000, 1),
    }


def markdown(rows: list[dict]) -> str:
    lines = [
        "# Markdown structure on the shared corpus",
        "",
        "`python bench/results/structure/measure.py` (markdown-it-py + mdit-py-plugins; parse time",
        f"is the best and median of {REPEATS} runs on the shared 2-core machine).",
        "",
        "| document | chars | tokens | headings by level | sections | empty sections | atomic units | largest table (tokens) | largest section (tokens) | section kinds | parse ms (best / median) |",
        "|---|---:|---:|---|---:|---:|---|---:|---:|---|---:|",
    ]
    for r in rows:
        levels = ", ".join(f"h{k}: {v}" for k, v in r["headings_per_level"].items()) or "none"
        if r["setext_headings"]:
            levels += f" ({r['setext_headings']} Setext)"
        units = ", ".join(f"{k}: {v}" for k, v in r["atomic_units"].items()) or "none"
        kinds = ", ".join(f"{k}: {v}" for k, v in r["section_kinds"].items())
        lines.append(
            f"| {r['document']} | {r['chars']:,} | {r['tokens']:,} | {levels} | {r['sections']}"
            f"{' (incl. preamble)' if r['preamble'] else ''} | {r['empty_sections']} | {units} | "
            f"{r['largest_table_tokens']:,} | {r['largest_section_tokens']:,} | {kinds} | "
            f"{r['parse_ms_best']} / {r['parse_ms_median']} |")
    lines += [
        "",
        "`unsafe_line_starts` in report.json counts the line starts at which `safe_cut` is False",
        "(inside a table, code block, formula, Setext heading or front matter): the cuts the",
        "chunking loop must not take.",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    rows = [measure(p) for p in DOCUMENTS]
    (HERE / "report.json").write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    (HERE / "report.md").write_text(markdown(rows), encoding="utf-8")
    print(markdown(rows))


if __name__ == "__main__":
    main()

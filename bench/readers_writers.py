"""The readers on files other writers made: LibreOffice, pandoc with other options, Sphinx,
MkDocs, and python-docx/python-pptx/ebooklib for structures the converters never make
(bench/writers_make.py makes them; bench/writers_build.py says what each holds).

    python bench/readers_writers.py [--work /tmp/readers-work/files] [--keep] [--run]
                                    [--out bench/results/readers/writers.json]
    python bench/readers_writers.py --compare bench/results/readers/writers-before.json

For each file, read through the registry (so sniffing is measured too), against the Markdown
it came from or should read as:
- headings: the share of the reference's headings (level and title; titles only for PPTX)
  found in order among the extracted ones (bench/readers_html_epub.py's measure; `shifted`:
  with all extracted levels moved by the same -2..2, for files that name no level), titles
  compared with straight quotes and without a leading section number (`1.2`); and the share
  of the extracted headings the reference has (precision: a table of contents' title or an
  empty heading lowers it);
- words: the share of the reference's words present (recall), and the share of the
  extraction's words the reference has (precision: navigation, a table of contents or
  boilerplate kept lowers it);
- with `--run`: `chunker run FILE --model scripted --embeddings lexical` and the share of the
  reference's headings that start a node with the same title and level (`run_nodes`).
`--keep` reuses the files already under WORK (LibreOffice is slow to start); the extracted
Markdown of each file is written beside it as `FILE.source.md` for reading by eye.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from readers_html_epub import heading_share, headings, rendered_words, run_nodes, word_share  # noqa: E402


_NUMBER = re.compile(r"^\d+(?:\.\d+)*\.?\s+")
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def titled(markdown: str) -> list[tuple]:
    """(level, title) of each heading, its quotes straightened and a leading section number
    (`1.2.`, which `--number-sections` and outline numbering write) taken off."""
    return [(level, _NUMBER.sub("", title.translate(_QUOTES))) for level, title in headings(markdown)]


def precision(ref: Counter, got: Counter) -> float:
    total = sum(got.values())
    return sum(min(n, ref[w]) for w, n in got.items()) / total if total else 1.0


def reference_text(path: Path) -> str:
    """A reference as Markdown: MyST's `(label)=` targets and directive fences are not prose."""
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"^\(.*\)=\s*$", "", text, flags=re.M)
    text = re.sub(r"^(```+|:::+)\{[^}]*\}.*$", r"\1", text, flags=re.M)
    text = re.sub(r"^:[\w-]+:.*$", "", text, flags=re.M)
    return re.sub(r"\{ *#[\w-]+ *\}", "", text)


def label(path: Path) -> str:
    """The file's path under the work folder (`sphinx-furo/how-to/formats.html`)."""
    parts = path.parts
    for i, part in enumerate(parts):
        if part.startswith(("sphinx-", "mkdocs-", "libreoffice", "pandoc", "built")) and i > 0:
            return "/".join(p for p in parts[i:] if p != "site")
    return path.name


def measure(path: Path, writer: str, ref: Path, run: bool) -> dict:
    from chunker.readers.base import ReadSettings
    from chunker.readers.registry import sniff

    reader = sniff(path)
    got = reader.read(path, ReadSettings())
    got.check()
    path.with_name(path.name + ".source.md").write_text(got.markdown, encoding="utf-8")
    source = reference_text(ref)
    want, have = titled(source), titled(got.markdown)
    if reader.id == "pptx":
        want, have = [(0, t) for _, t in want], [(0, t) for _, t in have]
    # markdown-it renders no `file:` link (LibreOffice makes relative links absolute): its
    # target would count as words
    ref_words = rendered_words(source)
    got_words = rendered_words(re.sub(r"\]\(file:", "](", got.markdown))
    row = {"file": label(path), "writer": writer, "reader": reader.id,
           "reference": ref.name, "bytes": path.stat().st_size, "headings": len(want),
           "heading_share": round(heading_share(want, have), 4),
           # the same with the extracted levels shifted together (the best of -2..2): a book
           # whose files name no level (LibreOffice's EPUB) keeps its relative structure only
           "heading_share_shifted": round(max(heading_share(want, [(lv + d, t) for lv, t in have])
                                              for d in range(-2, 3)), 4),
           "heading_precision": round(sum(1 for t in have if t in want) / len(have), 4) if have else 1.0,
           "missing_headings": [t for t in want if t not in have][:8],
           "extra_headings": [t for t in have if t not in want][:8],
           "word_recall": round(word_share(ref_words, got_words), 4),
           "word_precision": round(precision(ref_words, got_words), 4)}
    if run:
        # the extracted headings the reference has (raw, as the run's tree shows them), their
        # levels moved by the shift that matches best (0 for a file that names its levels)
        ok = set(want)
        shift = max(range(-2, 3), key=lambda d: (heading_share(want, [(lv + d, t) for lv, t in have]), -abs(d)))
        wanted = [raw for raw, norm in zip(headings(got.markdown), titled(got.markdown))
                  if (norm if reader.id != "pptx" else (0, norm[1])) in ok
                  or reader.id != "pptx" and (norm[0] + shift, norm[1]) in ok]
        with tempfile.TemporaryDirectory() as work:
            run_row = run_nodes(path, got.markdown, wanted, Path(work))
        # of all the reference's headings (one the reader lost starts no node either)
        found = round(run_row["start_a_node"] * run_row["headings"])
        run_row["of_reference"] = round(min(found, len(want)) / len(want), 4) if want else 1.0
        row["run"] = run_row
    return row


def compare(before: Path, after: Path) -> str:
    """A Markdown table of two result files, `before → after` where a figure changed."""
    def pc(x):
        return "–" if x is None else f"{x * 100:.0f}" if x in (0, 1) else f"{x * 100:.1f}"

    old = {r["file"]: r for r in json.loads(before.read_text())["files"]}
    lines = ["| file | reader | headings | same title and level | levels shifted | heading precision "
             "| words | word precision | start a node (run) |", "|---|---|---|---|---|---|---|---|---|"]
    for r in json.loads(after.read_text())["files"]:
        o = old.get(r["file"], {})
        cells = []
        for key in ("heading_share", "heading_share_shifted", "heading_precision", "word_recall",
                    "word_precision", "run"):
            new = r.get(key, {}).get("of_reference") if key == "run" else r.get(key)
            was = o.get(key, {}).get("of_reference") if key == "run" else o.get(key)
            cells.append(f"{pc(was)} → {pc(new)}" if was != new and was is not None else pc(new))
        lines.append(f"| `{r['file']}` | {r.get('reader', '?')} | {r.get('headings', '')} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", default="/tmp/readers-work/files")
    ap.add_argument("--keep", action="store_true", help="reuse the files already made under --work")
    ap.add_argument("--run", action="store_true", help="also run chunker (scripted, lexical) on each file")
    ap.add_argument("--only", default="", help="measure only files whose path holds this text")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "readers" / "writers.json"))
    ap.add_argument("--compare", metavar="BEFORE", help="print BEFORE's figures beside --out's as a "
                    "Markdown table (percentages, `before → after` where they differ) and stop")
    args = ap.parse_args()
    if args.compare:
        print(compare(Path(args.compare), Path(args.out)))
        return 0
    work = Path(args.work)
    manifest = work / "manifest.json"
    if args.keep and manifest.exists():
        rows = [(Path(f), w, Path(r)) for f, w, r in json.loads(manifest.read_text())]
    else:
        from writers_make import make

        rows = make(work)
        manifest.write_text(json.dumps([[str(f), w, str(r)] for f, w, r in rows], indent=1))
    report = []
    for path, writer, ref in rows:
        if args.only and args.only not in str(path):
            continue
        try:
            row = measure(path, writer, ref, args.run)
        except Exception as exc:  # a reader that fails on a real file is a finding: say so, go on
            row = {"file": label(path), "writer": writer, "error": f"{type(exc).__name__}: {exc}"}
        report.append(row)
        if "error" in row:
            print(f"{row['file']:60} ERROR {row['error']}")
            continue
        print(f"{row['file']:55} {row['reader']:5} headings {row['heading_share']:6.1%} "
              f"(shifted {row['heading_share_shifted']:6.1%}) of {row['headings']:3}"
              f"  words {row['word_recall']:6.1%} (precision {row['word_precision']:6.1%})"
              + (f"  run {row['run']['of_reference']:6.1%}" if "run" in row else ""))
    out = Path(args.out)
    if args.only and out.exists():  # a partial run updates its rows only
        old = {r["file"]: r for r in json.loads(out.read_text())["files"]}
        old.update({r["file"]: r for r in report})
        report = list(old.values())
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"files": report}, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

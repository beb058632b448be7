"""DOCX, ODT and PPTX readers on the shared corpus (heading fidelity, word recall, speed, install
size, other libraries compared), and OCR of image-only PDF pages against their text layers.

    python bench/readers_office.py [CORPUS] [--out bench/results/readers/office.json] [--run] [--no-ocr]

CORPUS (or $CHUNKER_CORPUS, default ../shared/corpus) holds `formats/` (the Rust-book chapters
as pandoc wrote them to DOCX, ODT and PPTX), `markdown/` (their sources) and `pdf/`.
- headings: the share of the source's headings (level and title; for PPTX the title only) found,
  in order, among the extracted Markdown's headings (measured as bench/readers_html_epub.py does);
- words: the share of the source's words (its rendered text, as a multiset) in the extraction's;
- with `--run`: `chunker run FILE --model scripted --embeddings lexical`, and the share of the
  source's headings (for PPTX the extracted headings whose title the source has) that start a
  node with that title and depth (`run_nodes` of bench/readers_html_epub.py);
- OCR: a page is rendered, kept only as an image in a new PDF page (no text layer), that page is
  rendered again and read by tesseract; the share of the original text layer's words found.
  Old TeX PDFs split words in their text layer (`He ap`), so the words are also counted against
  the layer rebuilt from its characters' positions, and the share of its letters recovered in
  order is given beside them.
Other libraries that return only a string (mammoth, markitdown, odfpy's text) are measured on
the same files when installed; run the script again under an interpreter that has them: each
run merges its candidates into the output file.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from readers_html_epub import (  # noqa: E402  (the same measures as the HTML/EPUB benchmark)
    heading_share, headings, install_size, rendered_words, run_nodes, timed, word_share,
)

OCR_PAGES = [("four-lectures.pdf", 2), ("four-lectures.pdf", 6), ("q1-fy25-earnings.pdf", 1)]
OCR_DPI = 200
DEBIAN_OCR = ["tesseract-ocr", "tesseract-ocr-eng", "libtesseract5", "liblept5"]


def ours():
    from chunker.readers.docx import extract_docx
    from chunker.readers.odt import extract_odt
    from chunker.readers.pptx import extract_pptx

    return {"docx": extract_docx, "odt": extract_odt, "pptx": extract_pptx}


def candidates() -> dict[str, dict[str, object]]:
    """format -> name -> path -> Markdown (or text), for the libraries importable here."""
    out: dict[str, dict[str, object]] = {"docx": {}, "odt": {}, "pptx": {}}
    try:
        import mammoth

        def mammoth_md(path: Path) -> str:
            with open(path, "rb") as f:
                return mammoth.convert_to_markdown(f).value

        out["docx"]["mammoth 1.x (convert_to_markdown)"] = mammoth_md
    except ImportError:
        pass
    try:
        from markitdown import MarkItDown

        md = MarkItDown(enable_plugins=False)
        out["docx"]["markitdown (mammoth + markdownify)"] = lambda p: md.convert(str(p)).text_content
        out["pptx"]["markitdown (python-pptx)"] = lambda p: md.convert(str(p)).text_content
    except ImportError:
        pass
    try:
        from odf import teletype, text as odf_text
        from odf.opendocument import load

        def odfpy_text(path: Path) -> str:
            doc = load(str(path))
            parts = []
            for el in doc.text.childNodes:  # top-level blocks: headings marked by their level
                s = teletype.extractText(el)
                if el.qname == (odf_text.H().qname):
                    s = "#" * int(el.getAttribute("outlinelevel") or 1) + " " + s
                parts.append(s)
            return "\n\n".join(p for p in parts if p.strip())

        out["odt"]["odfpy 1.4 (load + teletype, headings by text:h)"] = odfpy_text
    except ImportError:
        pass
    return out


def titles(heads: list[tuple]) -> list[tuple]:
    return [(0, t) for _, t in heads]


def measure(fn, path: Path, source_md: str, kind: str, run: bool = False) -> dict:
    size = path.stat().st_size
    got, spm = timed(lambda: fn(path), size)
    text = got if isinstance(got, str) else got.markdown
    if not isinstance(got, str):
        got.check()
    want, have = headings(source_md), headings(text)
    extra = {}
    if run:  # `chunker run` on the file: the source's headings that start a node
        import tempfile

        wanted = want if kind != "pptx" else [h for h in have if h[1] in {t for _, t in want}]
        with tempfile.TemporaryDirectory() as work:
            extra = {"run": run_nodes(path, text, wanted, Path(work))}
    if kind == "pptx":
        want, have = titles(want), titles(have)
    return {**extra, "file": path.name, "format": kind, "bytes": size, "source_headings": len(want),
            "heading_share": round(heading_share(want, have), 4),
            "word_share": round(word_share(rendered_words(source_md), rendered_words(text)), 4),
            "seconds_per_mb": spm}


def words(text: str) -> Counter:
    return Counter(w.casefold() for w in re.findall(r"\w+", text))


def letters_recovered(ref: str, got: str) -> float:
    a = re.sub(r"[^0-9a-z]", "", ref.casefold())
    b = re.sub(r"[^0-9a-z]", "", got.casefold())
    blocks = difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks()
    return sum(m.size for m in blocks) / len(a) if a else 1.0


def layer_words(page, gap: float = 0.25) -> Counter:
    """The text layer's words rebuilt from its characters' positions: a word ends at a space, a
    new line (baselines more than a third of a glyph's width apart), or a gap wider than `gap`
    times the glyph's width before it (TeX PDFs draw a word in kerned pieces on slightly different
    baselines, which `get_text()` returns as separate words: `He ap`)."""
    chars = []
    for block in page.get_text("rawdict")["blocks"]:
        for line in block.get("lines", []):
            for span in line["spans"]:
                # sizes by the glyph's width: TeX PDFs scale a tiny font (0.12 pt) by a matrix,
                # so neither the span's size nor the (flat) boxes' heights say how big it is
                chars += [(c["origin"][1], c["bbox"][0], c["bbox"][2], c["c"], c["bbox"][2] - c["bbox"][0])
                          for c in span["chars"]]
    chars.sort()
    lines, prev = [], None
    for ch in chars:  # cluster baselines into lines
        if prev is None or ch[0] - prev > ch[4] / 3:
            lines.append([])
        lines[-1].append(ch)
        prev = ch[0]
    out = []
    for line in lines:
        word, last = "", None
        for _, x0, x1, c, width in sorted(line, key=lambda ch: ch[1]):
            if last is not None and (x0 - last[0] > gap * last[1] or c.isspace()):
                out.append(word)
                word = ""
            word += "" if c.isspace() else c
            last = (x1, width or 1.0)
        out.append(word)
    return words(" ".join(out))


def ocr_page(pdf: Path, number: int) -> dict:
    import pymupdf

    from chunker.readers.ocr import read_image

    src = pymupdf.open(pdf)
    page = src[number - 1]
    reference = page.get_text()
    image_only = pymupdf.open()
    blank = image_only.new_page(width=page.rect.width, height=page.rect.height)
    blank.insert_image(blank.rect, pixmap=page.get_pixmap(dpi=OCR_DPI))
    assert not blank.get_text().strip()  # no text layer left
    png = blank.get_pixmap(dpi=OCR_DPI).tobytes("png")
    t = time.perf_counter()
    text, confidence = read_image(png)
    seconds = time.perf_counter() - t
    return {"file": pdf.name, "page": number, "dpi": OCR_DPI,
            "text_layer_words": sum(words(reference).values()),
            "words_recovered": round(word_share(words(reference), words(text)), 4),
            "words_recovered_rebuilt_layer": round(word_share(layer_words(page), words(text)), 4),
            "letters_recovered_in_order": round(letters_recovered(reference, text), 4),
            "mean_confidence": confidence, "seconds": round(seconds, 1)}


def debian_size(packages: list[str]) -> dict:
    sizes = {}
    for name in packages:
        done = subprocess.run(["dpkg-query", "-W", "-f=${Installed-Size}", name],
                              capture_output=True, text=True)
        sizes[name] = int(done.stdout) * 1024 if done.returncode == 0 and done.stdout.isdigit() else None
    return {"packages": sizes, "total_mb": round(sum(v for v in sizes.values() if v) / 1e6, 2)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus", nargs="?", default=os.environ.get("CHUNKER_CORPUS", str(ROOT.parent / "shared" / "corpus")))
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "readers" / "office.json"))
    ap.add_argument("--run", action="store_true",
                    help="also run chunker (scripted, lexical) on each file and count headings that start a node")
    ap.add_argument("--no-ocr", action="store_true", help="leave the OCR pages out (tesseract is slow)")
    ap.add_argument("--candidates-only", action="store_true",
                    help="only measure the other libraries importable here, merged into --out")
    args = ap.parse_args()
    corpus = Path(args.corpus)
    formats, sources = corpus / "formats", corpus / "markdown"
    if not formats.is_dir() or not sources.is_dir():
        print(f"missing: {formats} or {sources} (give the corpus as an argument or CHUNKER_CORPUS)")
        return 2
    out = Path(args.out)
    report = json.loads(out.read_text()) if out.exists() else {}
    report.setdefault("candidates", {})
    readers = {} if args.candidates_only else ours()
    files = []
    for src in sorted(sources.glob("rust-book-*.md")):
        source_md = src.read_text(encoding="utf-8")
        for kind in ("docx", "odt", "pptx"):
            path = formats / f"{src.stem}.{kind}"
            if not path.exists():
                continue
            if kind in readers:
                files.append(measure(readers[kind], path, source_md, kind, run=args.run))
            for name, fn in candidates()[kind].items():
                try:
                    row = measure(fn, path, source_md, kind)
                except Exception as exc:  # a candidate that fails on a file: say so, go on
                    row = {"file": path.name, "error": f"{type(exc).__name__}: {exc}"}
                report["candidates"].setdefault(kind, {}).setdefault(name, {})[path.name] = row
    if not args.candidates_only:
        report["files"] = files
        report["summary"] = {
            kind: {k: round(sum(r[k] for r in rows) / len(rows), 4)
                   for k in ("heading_share", "word_share", "seconds_per_mb")}
            for kind in ("docx", "odt", "pptx")
            if (rows := [r for r in files if r["format"] == kind])}
        report["install"] = {
            "docx (python-docx, lxml, typing-extensions)": install_size(["python-docx", "lxml", "typing_extensions"]),
            "odt (lxml)": install_size(["lxml"]),
            "pptx (python-pptx, lxml, Pillow, XlsxWriter, typing-extensions)": install_size(
                ["python-pptx", "lxml", "pillow", "XlsxWriter", "typing_extensions"]),
            "ocr (pytesseract, Pillow, packaging)": install_size(["pytesseract", "pillow", "packaging"]),
            "ocr: the tesseract program and English data (Debian)": debian_size(DEBIAN_OCR),
            "not chosen: odfpy (and defusedxml)": install_size(["odfpy", "defusedxml"]),
            "not chosen: mammoth (and cobble)": install_size(["mammoth", "cobble"]),
        }
        if not args.no_ocr:
            from chunker.readers.ocr import missing

            line = missing()
            pdfs = corpus / "pdf"
            report["ocr"] = {"missing": line} if line else [
                ocr_page(pdfs / name, number) for name, number in OCR_PAGES if (pdfs / name).exists()]
    for kind, names in report["candidates"].items():
        for name, rows in names.items():
            ok = [r for r in rows.values() if "error" not in r]
            if ok:
                rows["mean"] = {k: round(sum(r[k] for r in ok) / len(ok), 4)
                                for k in ("heading_share", "word_share", "seconds_per_mb")}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    for row in report.get("files", []):
        print(f"{row['file']:42} headings {row['heading_share']:.1%} of {row['source_headings']:2}"
              f"  words {row['word_share']:.1%}  {row['seconds_per_mb']} s/MB"
              + (f"  run: {row['run']['start_a_node']:.1%} of {row['run']['headings']} headings start a node"
                 f"{' (proxy)' if row['run']['proxy'] else ''}" if "run" in row else ""))
    for kind, names in report["candidates"].items():
        for name, rows in names.items():
            m = rows.get("mean")
            if m:
                print(f"{kind:5} {name:50} headings {m['heading_share']:.1%} words {m['word_share']:.1%}"
                      f" {m['seconds_per_mb']} s/MB")
    for name, v in report.get("install", {}).items():
        print(f"{name}: {v['total_mb']} MB")
    for row in report.get("ocr", []) if isinstance(report.get("ocr"), list) else []:
        print(f"OCR {row['file']} p.{row['page']}: words {row['words_recovered']:.1%} (layer rebuilt: "
              f"{row['words_recovered_rebuilt_layer']:.1%}), letters in order "
              f"{row['letters_recovered_in_order']:.1%}, confidence {row['mean_confidence']}, {row['seconds']} s")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

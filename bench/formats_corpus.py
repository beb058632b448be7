"""One folder holding every format, and a broken file of each, run as one corpus (issue 31).

    python bench/formats_corpus.py [CORPUS] [--out bench/results/readers/formats_corpus.json]

CORPUS (or $CHUNKER_CORPUS, default ../shared/corpus) gives the files: `formats/` (the Rust-book
chapters as DOCX, ODT, HTML, EPUB and PPTX, The Time Machine as EPUB and one chapter as XHTML),
`markdown/` (the chapters' Markdown), `small/` or Cinderella for plain text, `pdf/four-lectures.pdf`,
and a scanned page: page 3 of that PDF rendered to a PNG (no text layer: read by OCR).

Beside each good file the folder holds a broken one of its format, made here from its bytes:
a zip container (DOCX, ODT, PPTX, EPUB) cut in half; an EPUB with `META-INF/rights.xml` (DRM);
a PDF cut in half and a PDF with a user password; a PNG cut in half; a Markdown/text file of
NUL bytes. The corpus must finish, list every broken file as skipped with its reason, and
build one tree of the rest. Run as a user would: `chunker run FOLDER -o OUT --model scripted
--embeddings lexical --json` in a child process (wall time; CPU time from getrusage of the child).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from corpus_path import corpus_root  # noqa: E402  (beside this script)

from chunker.runs.rundir import RunDir  # noqa: E402

NEEDS = ["formats", "markdown", "pdf/four-lectures.pdf"]


def cinderella(corpus: Path) -> Path:
    local = ROOT / "examples" / "cinderella.txt"
    return local if local.exists() else next((corpus / "small").glob("*.txt"))


def scanned_page(pdf: Path, page: int, out: Path) -> None:
    """A page as an image only: what a scanner gives (200 DPI PNG)."""
    import pymupdf  # noqa: PLC0415

    with pymupdf.open(pdf) as doc:
        doc[page].get_pixmap(dpi=200).save(str(out))


def cut_in_half(src: Path, dst: Path) -> None:
    data = src.read_bytes()
    dst.write_bytes(data[: len(data) // 2])


def drm_epub(src: Path, dst: Path) -> None:
    """The book with Adobe's rights file added: a DRM-protected EPUB's mark."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(buffer, "w") as zout:
        for item in zin.infolist():
            zout.writestr(item, zin.read(item.filename))
        zout.writestr("META-INF/rights.xml", "<rights xmlns='http://ns.adobe.com/adept'/>")
    dst.write_bytes(buffer.getvalue())


def encrypted_pdf(src: Path, dst: Path) -> None:
    import pymupdf  # noqa: PLC0415

    with pymupdf.open(src) as doc:
        doc.save(str(dst), encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="secret", owner_pw="owner")


def build_folder(corpus: Path, folder: Path) -> dict[str, str]:
    """The folder; returns each broken file's name and what breaks it."""
    formats = corpus / "formats"
    good = folder / "good"
    bad = folder / "broken"
    good.mkdir(parents=True)
    bad.mkdir()
    for f in sorted(formats.iterdir()):
        if f.suffix in (".docx", ".odt", ".html", ".epub", ".pptx", ".xhtml"):
            shutil.copy(f, good / f.name)
    for f in sorted((corpus / "markdown").glob("rust-book-*.md")):
        shutil.copy(f, good / f.name)
    shutil.copy(cinderella(corpus), good / "cinderella.txt")
    shutil.copy(corpus / "pdf" / "four-lectures.pdf", good / "four-lectures.pdf")
    scanned_page(corpus / "pdf" / "four-lectures.pdf", 2, good / "scanned-page.png")
    broken: dict[str, str] = {}
    for f in sorted(good.iterdir()):
        if f.suffix in (".docx", ".odt", ".pptx", ".epub", ".pdf", ".png") and "time-machine" not in f.name:
            name = f"truncated-{f.name}"
            if (bad / name).exists() or any(k.endswith(f.suffix) for k in broken if k.startswith("truncated-")):
                continue  # one truncated file per format
            cut_in_half(f, bad / name)
            broken[name] = "cut in half"
    drm_epub(good / "the-time-machine.epub", bad / "drm-the-time-machine.epub")
    broken["drm-the-time-machine.epub"] = "META-INF/rights.xml (DRM)"
    encrypted_pdf(good / "four-lectures.pdf", bad / "password-four-lectures.pdf")
    broken["password-four-lectures.pdf"] = "a user password"
    (bad / "nul-bytes.md").write_bytes(b"# Title\n\n\x00\x00\x00 binary\n")
    broken["nul-bytes.md"] = "NUL bytes"
    (bad / "nul-bytes.html").write_bytes(b"<html><body>\x00\x00</body></html>")
    broken["nul-bytes.html"] = "NUL bytes"
    return broken


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("corpus", nargs="?")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "readers" / "formats_corpus.json"))
    args = parser.parse_args()
    corpus = corpus_root(args.corpus, needs=NEEDS)
    work = Path(tempfile.mkdtemp(prefix="formats-corpus-"))
    try:
        folder = work / "docs"
        broken = build_folder(corpus, folder)
        out = work / "out"
        started = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "chunker.cli.app", "run", str(folder), "-o", str(out),
                                 "--model", "scripted", "--embeddings", "lexical", "--json"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        stdout, stderr = proc.communicate()
        wall = time.perf_counter() - started
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # the only child waited for
        if proc.returncode != 0:
            print(stderr, file=sys.stderr)
            sys.exit(f"chunker run exited {proc.returncode}")
        tree = json.loads((out / "hierarchy.json").read_text(encoding="utf-8"))
        run = RunDir(out).read_record()
        files = [f.relative_to(folder).as_posix() for f in sorted(folder.rglob("*")) if f.is_file()]
        docs = [d for d in tree["meta"].get("corpus", {}).get("documents", [])] or run.documents
        leaves = [n for n in tree["nodes"] if n["level"] == 0]
        per_doc: dict[str, int] = {}
        for n in leaves:
            per_doc[n.get("source") or "?"] = per_doc.get(n.get("source") or "?", 0) + 1
        skipped = [s.model_dump() for s in run.skipped]
        report = {
            "files": len(files), "documents": len(docs), "leaves": len(leaves), "nodes": len(tree["nodes"]),
            "leaves_per_document": dict(sorted(per_doc.items())),
            "skipped": sorted(skipped, key=lambda s: s["rel"]),
            "broken_made": broken,
            "broken_all_skipped": all(any(s["rel"].endswith(name) for s in skipped) for name in broken),
            "wall_s": round(wall, 1), "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
            "load_average": os.getloadavg(),
        }
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
        print(json.dumps({k: v for k, v in report.items() if k != "leaves_per_document"}, indent=1))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

"""Figures' images (issue 32): for every PDF and every file of `formats/` in the corpus, the
images its reader extracts, the figures the records pass finds, and how many of them point at
an image taken into the run's media folder with the reader's very bytes.

    python bench/figures.py [--corpus DIR] [--out bench/results/structured/figures.json]

The corpus is `--corpus`, else $CHUNKER_CORPUS, else ../shared/corpus. No run and no model: the
reader, `chunker.structured.media.intake` and the records pass, as `chunker run` calls them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus_path import corpus_root  # noqa: E402


def measure(path: Path) -> dict:
    from chunker.readers.base import ReadSettings
    from chunker.readers.model import ReaderError
    from chunker.readers.source import Source
    from chunker.structured.extract import build_records
    from chunker.structured.media import attach, intake

    started = time.perf_counter()
    try:
        src = Source.open(path, ReadSettings())
    except ReaderError as exc:
        return {"file": path.name, "skipped": str(exc)}
    with tempfile.TemporaryDirectory() as meta:
        images = intake(meta, src.text, src.path, src.images)
        figures = attach(build_records(src.text, None, [i for i in images if i.figure]).figures, images)
        cached = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in (Path(meta) / "media").glob("*")}
    reader = {hashlib.sha256(i.data).hexdigest() for i in src.images}
    with_media = [f for f in figures if f.media]
    return {"file": path.name, "reader": src.reader_id, "reader_images": len(src.images),
            "figures": len(figures), "with_media": len(with_media),
            "with_caption": sum(1 for f in figures if f.caption),
            "media_bytes_are_the_readers": all(cached[Path(f.media).name] in reader for f in with_media
                                               if f.image in {i.name for i in src.images}),
            "remote_or_missing": sum(1 for f in figures if not f.media),
            "seconds": round(time.perf_counter() - started, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus")
    parser.add_argument("--out", default="bench/results/structured/figures.json")
    args = parser.parse_args()
    root = corpus_root(args.corpus, needs=["pdf", "formats"])
    files = sorted((root / "pdf").glob("*.pdf")) + sorted(p for p in (root / "formats").iterdir()
                                                         if p.suffix in (".docx", ".odt", ".pptx", ".epub", ".html", ".xhtml"))
    rows = [measure(p) for p in files]
    total = {k: sum(r.get(k, 0) for r in rows) for k in ("reader_images", "figures", "with_media", "with_caption")}
    result = {"command": "python bench/figures.py", "files": rows, "total": total}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    for r in rows:
        print(r)
    print("total", total)


if __name__ == "__main__":
    main()

"""Rebuild tests/data from the shared corpus: what the tests read, and nothing else.

    python tests/data/regenerate.py [CORPUS]     (default: $CHUNKER_CORPUS, else ../shared/corpus)

Copies the public-domain and MIT/Apache texts the tests use (Emma, three Rust-book chapters,
the FastAPI pages the update tests edit, with the FastAPI licence and nav), reduces every other
FastAPI page to the lines the corpus planner reads (front matter and the first heading: the
site's shape without its bulk), and writes the Choi-style gold sets from those texts alone with
`chunker.evaluation.synthetic` (seeded: the same sources give the same files; `3-5-distinct`
keeps neighbouring segments from different works, as Choi's). Nothing from the
Choi `.ref` files or the manifestos is copied or used. See tests/data/README.md.
"""

from __future__ import annotations

import random
import re
import shutil
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parent
ROOT = DATA.parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from corpus_path import corpus_root  # noqa: E402

from chunker.corpus.signals import doc_info  # noqa: E402
from chunker.evaluation.synthetic import LENGTHS, corpus_units, document, render  # noqa: E402

RUST = ("rust-book-appendix-02-operators.md", "rust-book-ch03-02-data-types.md",
        "rust-book-ch08-02-strings.md")
FULL_PAGES = (  # the FastAPI pages a test reads whole (the update tests run and edit them)
    "history-design-future.md", "project-generation.md",
    "tutorial/body-updates.md", "tutorial/cookie-params.md", "tutorial/extra-data-types.md",
    "tutorial/first-steps.md", "tutorial/header-params.md", "tutorial/path-params.md",
    "tutorial/query-params.md", "tutorial/static-files.md")
FIRST_TUTORIAL_PAGES = 8  # tests/test_update_groups.py takes the first 8 of tutorial/*.md by name
SEED = 30
SETS = {"3-5": ("3-5", 5, False), "9-11": ("9-11", 3, False), "3-5-distinct": ("3-5", 5, True)}
"""Folder: (sentences a topic, documents, neighbours from different works). `write_sets` lets two
Emma chapters meet, which is harder than Choi's sets (each segment from another Brown-corpus
text); `3-5-distinct` keeps neighbouring segments from different works, as Choi's do, for the
short-topic test whose thresholds were set on Choi's."""
_HEADING = re.compile(r"^(#{1,6}\s|={3,}\s*$|-{3,}\s*$)")


def skeleton(text: str) -> str:
    """The page up to and including its first heading (ATX or setext): its front matter and
    title, which is all `chunker.corpus.signals.doc_info` reads."""
    lines = text.splitlines(keepends=True)
    start = 0
    if text.startswith("---\n"):
        start = next(i for i in range(1, len(lines)) if lines[i].rstrip("\n") == "---") + 1
    for i in range(start, len(lines)):
        if _HEADING.match(lines[i]) and (lines[i].startswith("#") or lines[i - 1].strip()):
            return "".join(lines[:i + 1])
    return text


def copy_fastapi(src: Path, dst: Path) -> None:
    tutorial = sorted(p.name for p in (src / "tutorial").glob("*.md"))[:FIRST_TUTORIAL_PAGES]
    full = set(FULL_PAGES) | {f"tutorial/{name}" for name in tutorial}
    for path in sorted(src.rglob("*.md")):
        rel = path.relative_to(src).as_posix()
        text = path.read_text(encoding="utf-8")
        short = text if rel in full else skeleton(text)
        assert doc_info(rel, short) == doc_info(rel, text), rel  # the planner sees the same page
        (dst / rel).parent.mkdir(parents=True, exist_ok=True)
        (dst / rel).write_text(short, encoding="utf-8")


def main(argv: list[str]) -> int:
    corpus = corpus_root(argv[0] if argv else None, needs=["emma/emma.md", "folders/fastapi-docs"])
    for sub in ("emma", "markdown", "folders", "synthetic"):
        shutil.rmtree(DATA / sub, ignore_errors=True)
    (DATA / "emma").mkdir()
    shutil.copyfile(corpus / "emma" / "emma.md", DATA / "emma" / "emma.md")
    (DATA / "markdown").mkdir()
    for name in RUST:
        shutil.copyfile(corpus / "markdown" / name, DATA / "markdown" / name)
    folders = corpus / "folders"
    (DATA / "folders").mkdir()
    copy_fastapi(folders / "fastapi-docs", DATA / "folders" / "fastapi-docs")
    for name in ("fastapi-docs.LICENSE", "fastapi-docs.nav.yml"):
        shutil.copyfile(folders / name, DATA / "folders" / name)
    # gold sets from the copies just made (Emma, Rust book, FastAPI pages): no Choi, no manifesto
    units = corpus_units(DATA)
    pool = {u.name: u.pool for u in units}
    for folder, (lengths, documents, distinct) in SETS.items():
        rng = random.Random(f"{SEED}:{lengths}")  # as write_sets(seed=SEED) seeds the set
        (DATA / "synthetic" / folder).mkdir(parents=True)
        for i in range(documents):
            doc = document(units, LENGTHS[lengths], rng)
            while distinct and any(pool[a.unit] == pool[b.unit] for a, b in zip(doc, doc[1:])):
                doc = document(units, LENGTHS[lengths], rng)
            (DATA / "synthetic" / folder / f"{i}.ref").write_text(render(doc), encoding="utf-8")
    print(f"tests/data rebuilt from {corpus}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

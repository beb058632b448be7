"""Where a benchmark finds its corpus: an argument, else $CHUNKER_CORPUS, else ../shared/corpus
relative to the repository root. A missing corpus is one line on stderr and exit code 2.

    from corpus_path import corpus_root
    CORPUS = corpus_root(needs=["emma/emma.md"])          # at the top of main()

The benchmarks run as scripts (`python bench/NAME.py`), so this module sits beside them and is
imported by its bare name."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENV = "CHUNKER_CORPUS"
DEFAULT = ROOT.parent / "shared" / "corpus"


def default_root() -> Path:
    """The corpus folder without checking it: $CHUNKER_CORPUS, else ../shared/corpus."""
    value = os.environ.get(ENV)
    return Path(value).expanduser() if value else DEFAULT


def corpus_root(given: str | Path | None = None, needs: Iterable[str] = ()) -> Path:
    """The corpus folder (`given`, else `default_root()`), once every path in `needs` (relative
    to it) exists; otherwise exit 2 naming the first missing one and how to point at another."""
    root = Path(given).expanduser() if given else default_root()
    for rel in ["", *needs]:
        if not (root / rel).exists():
            missing = root / rel if rel else root
            print(f"error: corpus not found: {missing} is missing "
                  f"(pass the corpus folder or set {ENV}=/path/to/corpus)", file=sys.stderr)
            sys.exit(2)
    return root


def corpus_file(path: str | Path, given: str | Path | None = None) -> Path:
    """One file or folder: an existing `path` as given, else `path` inside the corpus folder."""
    if Path(path).exists():
        return Path(path)
    return corpus_root(given, needs=[str(path)]) / path

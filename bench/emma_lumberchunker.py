"""Agreement of the chunker's leaf starts with LumberChunker's on Emma.

    python bench/emma_lumberchunker.py [--embeddings lexical|local] [--min-chunk-tokens N] [--max-chunk-tokens N]
                                       [--out FILE]

LumberChunker (gemini-pro) started 476 chunks at the paragraph indices in
`../shared/corpus/emma/lumberchunker_boundaries.json` (0-based, over the novel's 2,287 text
paragraphs: blank-line separated blocks that are neither headings nor the byline). The
chunker runs with the scripted model (which picks the first offered candidate, so this
measures the candidate machinery and the signal) at a similar leaf count; each leaf start is
mapped to the paragraph it falls in (a start on a heading maps to the paragraph after it).
Precision: share of our starts within +-1 paragraph of one of theirs; recall: the reverse.
A fixed-size split at the same count is the reference for what chance agreement looks like.
"""

from __future__ import annotations

import bisect
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
from corpus_path import corpus_root, default_root  # noqa: E402  (bench/: an argument or $CHUNKER_CORPUS)
EMMA = default_root() / "emma"


def paragraph_starts(text: str) -> list[int]:
    """Start offsets of the text paragraphs LumberChunker numbered."""
    starts = []
    for m in re.finditer(r"(?:^|\n\s*\n)(?=\S)", text):
        start = m.end()
        line = text[start:text.find("\n", start) if "\n" in text[start:] else len(text)]
        if not line.lstrip().startswith("#"):
            starts.append(start)
    return starts[1:]  # the byline is not one of theirs


def to_paragraph(starts: list[int], offset: int) -> int:
    i = bisect.bisect_right(starts, offset) - 1
    return max(0, i if i >= 0 and starts[i] == offset else i + (offset > starts[max(i, 0)]))


def agreement(ours: list[int], theirs: list[int], tolerance: int = 1) -> tuple[float, float]:
    def near(x: int, pool: list[int]) -> bool:
        i = bisect.bisect_left(pool, x - tolerance)
        return i < len(pool) and pool[i] <= x + tolerance
    a, b = sorted(set(ours)), sorted(set(theirs))
    return (sum(near(x, b) for x in a) / len(a), sum(near(x, a) for x in b) / len(b))


def main() -> None:
    args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
    corpus_root(needs=["emma/emma.md", "emma/lumberchunker_boundaries.json"])
    embeddings = args.get("--embeddings", "lexical")
    min_tokens = int(args.get("--min-chunk-tokens", 300))
    max_tokens = int(args.get("--max-chunk-tokens", 1200))
    from langgraph.store.memory import InMemoryStore

    from chunker.graph import build_graph
    from chunker.state.run import RunContext

    text = (EMMA / "emma.md").read_text(encoding="utf-8")
    theirs = json.loads((EMMA / "lumberchunker_boundaries.json").read_text())["chunk_start_paragraphs"]
    starts = paragraph_starts(text)
    started = time.perf_counter()
    out = build_graph(store=InMemoryStore()).invoke(
        {"text": text}, config={"recursion_limit": 10**9},
        context=RunContext(model="scripted", embeddings=embeddings, min_chunk_tokens=min_tokens,
                           max_chunk_tokens=max_tokens))
    wall = time.perf_counter() - started
    leaves = sorted((n for n in out["tree"]["nodes"] if n["level"] == 0), key=lambda n: n["span"][0])
    ours = [to_paragraph(starts, n["span"][0]) for n in leaves]
    step = len(starts) / len(leaves)
    fixed = [int(i * step) for i in range(len(leaves))]
    p, r = agreement(ours, theirs)
    fp, fr = agreement(fixed, theirs)
    result = {"embeddings": embeddings, "min_chunk_tokens": min_tokens, "max_chunk_tokens": max_tokens,
              "paragraphs": len(starts), "lumberchunker_chunks": len(theirs), "leaves": len(leaves),
              "precision_pm1": round(p, 3), "recall_pm1": round(r, 3),
              "fixed_precision_pm1": round(fp, 3), "fixed_recall_pm1": round(fr, 3),
              "outcomes": {k: v for k, v in out["stats"].items() if k.startswith("boundary.")},
              "wall_s": round(wall, 1)}
    print(json.dumps(result))
    path = Path(args.get("--out", ROOT / "bench" / "results" / "boundaries" / f"emma_lumberchunker_{embeddings}.json"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()

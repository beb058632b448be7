"""Whether the table route changes what the navigator reads on questions that are not about table
values (issue 32): every question's route and reading, at 300 tokens (bm25, as
bench/knowledge.py asks "what is X?") and at 500 and 1,000 tokens (lexical).

    python bench/structured_navigation.py read TREE QUESTIONS OUT.json
    python bench/structured_navigation.py compare BEFORE.json AFTER.json

QUESTIONS is a JSONL file of {"question"} (bench/navigation_dev/) or a knowledge gold file
(bench/knowledge_gold/*.json, asked as "What is <term>?"). Run `read` once with the code before
(`PYTHONPATH=<an older checkout>`) and once after, on the same tree; a tree without tables
never routes to a table, so only trees that hold some are worth it (the Rust chapters,
fastapi-docs).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path


def questions(path: Path) -> list[str]:
    if path.suffix == ".json":
        return [f"What is {g['term']}?" for g in json.loads(path.read_text(encoding="utf-8"))["terms"]]
    return [json.loads(line)["question"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def read(tree: str, qfile: Path, out: Path) -> None:
    from chunker.graph.navigator_ask import ask
    from chunker.navigation.settings import NavigatorSettings

    rows = []
    for budget, embeddings in ((300, "bm25"), (500, "lexical"), (1000, "lexical")):
        cfg = NavigatorSettings(model=None, embeddings=embeddings, budget_tokens=budget)
        for q in questions(qfile):
            got = ask(tree, q, cfg)
            rows.append({"question": q, "budget": budget, "route": got.route,
                         "text": "\n".join(p["text"] for p in got.passages)})
    out.write_text(json.dumps(rows, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
    print(dict(Counter(f"{r['budget']}:{r['route']}" for r in rows)))


def compare(before: Path, after: Path) -> None:
    a, b = (json.loads(p.read_text(encoding="utf-8")) for p in (before, after))
    same = sum(x["text"] == y["text"] and x["route"] == y["route"] for x, y in zip(a, b))
    print(json.dumps({"readings": len(a), "identical": same,
                      "routes_before": dict(Counter(r["route"] for r in a)),
                      "routes_after": dict(Counter(r["route"] for r in b))}))


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "read":
        read(sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]))
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        compare(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        sys.exit(__doc__)

"""Markup in what people read: count the summaries, titles and labels of a finished tree that
hold markup, and show its root overview and ten folder summaries.

    python bench/markup.py OUT [--json FILE]

The tree is any finished OUT (`chunker run DIR -o OUT`); issue 31 measures fastapi-docs
with the embedded model's profile (`--model local`: every summary extracted), before and
after the readable copy (`chunker/document/readable.py`).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

MARKUP = {
    "html tag": re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>"),
    "html comment": re.compile(r"<!--"),
    "attribute list": re.compile(r"\{:?\s*[#.][\w-]"),
    "include directive": re.compile(r"\{\*|\{\{#|--8<--|\{%|\{\{"),
    "admonition": re.compile(r"(?:^|\s)(?:///|!!!|\?\?\?)(?:\s|$)"),
    "link target": re.compile(r"\]\(|\]\["),
    "wiki-link": re.compile(r"\[\["),
    "front matter": re.compile(r"(?:^|\s)---\s+\w+:"),
    # paired markers around words; code a page quotes (`__init__`, `**kwargs`) is no markup
    "emphasis": re.compile(r"(?<![\w*])\*\*(?=\S)[^*]*?\s[^*]*?(?<=\S)\*\*|(?<!\w)__(?=\S)[^_]*?\s[^_]*?(?<=\S)__(?!\w)"),
    "code span": re.compile(r"`"),
    "heading marker": re.compile(r"(?:^|\s)#{1,6}\s"),
}


def markup_in(text: str) -> list[str]:
    return [name for name, pattern in MARKUP.items() if pattern.search(text or "")]


def measure(out: Path) -> dict:
    tree = json.loads((out / "hierarchy.json").read_text(encoding="utf-8"))
    nodes = tree["nodes"]
    if isinstance(nodes, list):
        nodes = {n["id"]: n for n in nodes}
    found: dict[str, list[dict]] = {"summary": [], "title": []}
    for nid, node in nodes.items():
        for field in found:
            kinds = markup_in(node.get(field) or "")
            if kinds:
                found[field].append({"id": nid, "kinds": kinds, "text": (node.get(field) or "")[:160]})
    root = nodes[tree.get("root") or tree.get("root_id")]
    folders = [n for n in nodes.values() if n.get("kind") == "folder"][:10]
    return {
        "nodes": len(nodes),
        "summaries_with_markup": len(found["summary"]),
        "titles_with_markup": len(found["title"]),
        "by_kind": {k: sum(k in f["kinds"] for v in found.values() for f in v) for k in MARKUP},
        "root_overview": root.get("summary"),
        "folder_summaries": {(n.get("title") or n["id"]): n.get("summary") for n in folders},
        "examples": {k: v[:5] for k, v in found.items()},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    if not (args.out / "hierarchy.json").exists():
        print(f"error: {args.out} holds no finished tree (no hierarchy.json)", file=sys.stderr)
        return 2
    result = measure(args.out)
    text = json.dumps(result, indent=2, ensure_ascii=False)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

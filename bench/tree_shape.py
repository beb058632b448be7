"""Tree shape (issue 21, "a tree shaped for choosing"): depth, fan-out and heading-titled
nodes of built trees, read from their OUT/hierarchy.json files.

    python bench/tree_shape.py before=/tmp/shape-before after=/tmp/shape-after

Each argument is LABEL=DIR, where DIR holds one OUT folder per document (DIR/NAME/hierarchy.json);
documents are matched by NAME across labels. Prints a table and writes
bench/results/tree_shape/shape.json and shape.md (`--out` to write elsewhere).

Figures per tree: `levels` (the root's level + 1: leaves are level 0), `depth` (the longest
root-to-leaf path, in edges), `nodes` and `leaves`, mean/max fan-out over inner nodes, the
share of inner nodes whose fan-out lies in the aimed range (`--range 4-12`, the default
`aggregation.fanout_min`/`fanout_max`), the number of nodes titled by a heading (`title`
set), the number of headings in the document that own text, and the root's children.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results" / "tree_shape"


def shape(hierarchy: Path, lo: int, hi: int) -> dict:
    """The shape figures of one hierarchy.json."""
    data = json.loads(hierarchy.read_text(encoding="utf-8"))
    nodes = {n["id"]: n for n in data["nodes"]}
    root = nodes[data["root"]]

    def depth(nid: str) -> int:
        kids = nodes[nid]["children"]
        return 0 if not kids else 1 + max(depth(k) for k in kids)

    inner = [n for n in nodes.values() if n["children"]]
    fan = [len(n["children"]) for n in inner]
    return {
        "levels": root["level"] + 1,
        "depth": depth(root["id"]),
        "nodes": len(nodes),
        "leaves": len(nodes) - len(inner),
        "inner": len(inner),
        "fanout_mean": round(statistics.fmean(fan), 2) if fan else 0.0,
        "fanout_max": max(fan, default=0),
        "fanout_in_range": round(sum(lo <= f <= hi for f in fan) / len(fan), 2) if fan else 0.0,
        "titled": sum(1 for n in nodes.values() if n.get("title")),
        "titled_inner": sum(1 for n in inner if n.get("title")),
        "root_children": len(root["children"]),
        "smallest_leaf_tokens": min((n["token_count"] for n in nodes.values() if not n["children"]),
                                    default=0),
    }


def collect(runs: list[tuple[str, Path]], lo: int, hi: int) -> dict[str, dict[str, dict]]:
    """{document: {label: figures}} for every DIR/NAME/hierarchy.json."""
    table: dict[str, dict[str, dict]] = {}
    for label, folder in runs:
        for hierarchy in sorted(folder.glob("*/hierarchy.json")):
            table.setdefault(hierarchy.parent.name, {})[label] = shape(hierarchy, lo, hi)
    return table


COLUMNS = ("levels", "depth", "nodes", "leaves", "fanout_mean", "fanout_max", "fanout_in_range",
           "titled", "root_children", "smallest_leaf_tokens")


def markdown(table: dict[str, dict[str, dict]], lo: int, hi: int) -> str:
    lines = [f"Tree shape, `--model scripted`, default settings; in range: share of inner nodes "
             f"with {lo}-{hi} children.", "",
             "| document | run | " + " | ".join(COLUMNS) + " |",
             "|---|---|" + "---|" * len(COLUMNS)]
    for doc, runs in table.items():
        for label, figures in runs.items():
            lines.append(f"| {doc} | {label} | " + " | ".join(str(figures[c]) for c in COLUMNS) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", help="LABEL=DIR, DIR holding NAME/hierarchy.json folders")
    parser.add_argument("--range", default="4-12", help="the aimed fan-out range, LO-HI")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    lo, hi = (int(x) for x in args.range.split("-"))
    runs = [(label, Path(folder)) for label, _, folder in (r.partition("=") for r in args.runs)]
    table = collect(runs, lo, hi)
    text = markdown(table, lo, hi)
    print(text)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "shape.json").write_text(json.dumps({"range": [lo, hi], "trees": table}, indent=2) + "\n",
                                         encoding="utf-8")
    (args.out / "shape.md").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()

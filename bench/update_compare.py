"""bench/update.py's comparisons: OUT's files before and after an update, and an updated
tree next to a fresh run of the edited source (sizes, boundaries, lossless, background)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any, Callable

import yaml

NAV = ("Up: ", "Previous: ", "Next: ")
CONTENTS_LINE = re.compile(r"^- \[\[[^\]]*\]\]$")


def files(out: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under OUT, .chunker included: its bytes and mtime_ns."""
    return {p.relative_to(out).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(out.rglob("*")) if p.is_file()}



def hierarchy(out: Path) -> dict[str, Any]:
    return json.loads((out / "hierarchy.json").read_text(encoding="utf-8"))


def leaves_of(tree: dict[str, Any]) -> dict[str | None, list[dict[str, Any]]]:
    """Each source's leaves (level 0: a one-passage document is its own leaf), in text order."""
    by: dict[str | None, list[dict[str, Any]]] = {}
    for n in tree["nodes"]:
        if n["level"] == 0:
            by.setdefault(n["source"], []).append(n)
    return {s: sorted(ls, key=lambda n: n["span"][0]) for s, ls in by.items()}


def lossless(tree: dict[str, Any], text_of: Callable[[str | None], str]) -> dict[str, Any]:
    """Per source: leaves tile the text from 0, end to start, and concatenate to it."""
    bad = []
    for source, leaves in leaves_of(tree).items():
        text = text_of(source)
        starts = [leaf["span"][0] for leaf in leaves]
        tiled = starts == [0] + [leaf["span"][1] for leaf in leaves[:-1]] and leaves[-1]["span"][1] == len(text)
        if not tiled or "".join(leaf["original"] for leaf in leaves) != text:
            bad.append(source)
    return {"files": len(leaves_of(tree)), "failed": bad, "ok": not bad}


def counts(tree: dict[str, Any]) -> dict[str, int]:
    kinds = Counter(n["kind"] for n in tree["nodes"])
    return {"leaves": sum(len(ls) for ls in leaves_of(tree).values()), "blocks": kinds["block"],
            "documents": kinds["document"], "folders": kinds["folder"], "nodes": len(tree["nodes"])}


def split_file(data: bytes) -> tuple[dict[str, Any], list[str]]:
    text = data.decode("utf-8")
    if not text.startswith("---\n"):
        return {}, text.split("\n")
    end = text.index("\n---\n", 4)
    return yaml.safe_load(text[4:end]) or {}, text[end + 5:].split("\n")


def how_changed(old: bytes, new: bytes) -> str:
    """How a node file changed, its parts joined by `+`: `span` (that frontmatter key), `links`
    (its Up/Previous/Next lines), `contents` (the link lines of a block's Contents list),
    `front:KEYS` (other frontmatter keys), `text` (anything else)."""
    (fo, bo), (fn, bn) = split_file(old), split_file(new)
    front = {k for k in fo.keys() | fn.keys() if fo.get(k) != fn.get(k)}
    nav = [line for line in bo if line.startswith(NAV)] != [line for line in bn if line.startswith(NAV)]
    rest_o, rest_n = ([line for line in b if not line.startswith(NAV)] for b in (bo, bn))
    bare_o, bare_n = ([line for line in r if not CONTENTS_LINE.match(line)] for r in (rest_o, rest_n))
    parts = [("span", "span" in front), ("links", nav), ("contents", rest_o != rest_n and bare_o == bare_n),
             ("front:" + ",".join(sorted(front - {"span"})), bool(front - {"span"})), ("text", bare_o != bare_n)]
    return "+".join(name for name, on in parts if on) or "text"


ONLY_SPAN_OR_LINKS = ("span", "links", "span+links")


def file_changes(before: Path, after: Path) -> dict[str, dict[str, Any]]:
    """OUT's files (not .chunker) before vs after, by the kind of node each holds: unchanged,
    changed (and how), added, removed."""
    a, b = ({k: v[0] for k, v in files(d).items() if not k.startswith(".chunker/")} for d in (before, after))
    kind = {"index.md": "index", "hierarchy.json": "hierarchy"}
    for d in (before, after):
        kind |= {n["filename"]: n["kind"] for n in hierarchy(d)["nodes"]}
    out: dict[str, dict[str, Any]] = {}
    for name in sorted(a.keys() | b.keys()):
        row = out.setdefault(kind.get(name, "other"), {"before": 0, "after": 0, "unchanged": 0, "changed": 0,
                                                       "added": 0, "removed": 0, "how": Counter()})
        row["before"] += name in a
        row["after"] += name in b
        if name not in a or name not in b:
            row["added" if name in b else "removed"] += 1
        elif a[name] == b[name]:
            row["unchanged"] += 1
        else:
            row["changed"] += 1
            if name.endswith(".md"):
                row["how"][how_changed(a[name], b[name])] += 1
    for row in out.values():
        row["only_span_or_links"] = sum(row["how"][k] for k in ONLY_SPAN_OR_LINKS)
        row["how"] = dict(row["how"])
    return out


def versus_fresh(old: dict, updated: dict, fresh: dict, text_of: Callable[[str | None], str]) -> dict[str, Any]:
    """The updated tree next to a fresh run of the edited source: sizes, boundaries, lossless,
    and the background tolerance (same passage, different rewrite or summary)."""
    cuts = [{(s, leaf["span"][1]) for s, ls in leaves_of(t).items() for leaf in ls} for t in (updated, fresh)]
    common = cuts[0] & cuts[1]
    fresh_at = {(s, tuple(leaf["span"]), leaf["original"]): leaf
                for s, ls in leaves_of(fresh).items() for leaf in ls}
    def before(ls: list[dict], i: int) -> tuple[str, str] | None:
        return (ls[i - 1]["id"], ls[i - 1]["original"]) if i else None

    old_ids = {leaf["id"]: (leaf["original"], before(ls, i))
               for ls in leaves_of(old).values() for i, leaf in enumerate(ls)}
    groups: dict[str, list[tuple[dict, dict]]] = {"all_same_passage": [], "copied": [], "copied_after_a_change": []}
    for s, ls in leaves_of(updated).items():
        for i, leaf in enumerate(ls):
            twin = fresh_at.get((s, tuple(leaf["span"]), leaf["original"]))
            if twin is None:
                continue
            groups["all_same_passage"].append((leaf, twin))
            was = old_ids.get(leaf["id"])
            if was and was[0] == leaf["original"]:  # the old passage under its old id: copied
                groups["copied"].append((leaf, twin))
                if was[1] != before(ls, i):  # another passage before it now: another background
                    groups["copied_after_a_change"].append((leaf, twin))
    background = {}
    for name, pairs in groups.items():
        n = len(pairs)
        rw, sm = (sum(a[k] != b[k] for a, b in pairs) for k in ("rewritten", "summary"))
        background[name] = {"leaves": n, "rewrite_differs": rw, "summary_differs": sm,
                            "rewrite_differs_share": round(rw / n, 4) if n else None,
                            "summary_differs_share": round(sm / n, 4) if n else None}
    paths = [{n["filename"]: n["kind"] for n in t["nodes"]} for t in (updated, fresh)]
    return {"updated": counts(updated), "fresh": counts(fresh),
            "node_files_same_path": {"all": len(paths[0].keys() & paths[1].keys()), "of": len(paths[1]),
                                     "folders": sum(paths[1][p] == "folder" for p in paths[0].keys() & paths[1].keys()),
                                     "folders_of": sum(k == "folder" for k in paths[1].values())},
            "boundaries": {"updated": len(cuts[0]), "fresh": len(cuts[1]), "common": len(common),
                           "union": len(cuts[0] | cuts[1]),
                           "common_over_union": round(len(common) / len(cuts[0] | cuts[1]), 4),
                           "common_over_fresh": round(len(common) / len(cuts[1]), 4)},
            "lossless": {"updated": lossless(updated, text_of), "fresh": lossless(fresh, text_of)},
            "background": background}


def control(old: dict, fresh: dict, i: int, j: int, new_len: int) -> dict[str, Any]:
    """The fresh run of the edited text next to the original run, the original's leaf ends
    carried through the edit (old [i, j) became `new_len` characters): how much two fresh runs
    differ by themselves, which the update's figures are to be read against."""
    ends = [leaf["span"][1] for ls in leaves_of(old).values() for leaf in ls]
    carried = {e if e <= i else e + new_len - (j - i) for e in ends if e <= i or e >= j}
    now = {leaf["span"][1] for ls in leaves_of(fresh).values() for leaf in ls}
    return {"common": len(carried & now), "union": len(carried | now), "fresh": len(now),
            "common_over_union": round(len(carried & now) / len(carried | now), 4)}

"""`chunker update` (issue 19): what an edit costs next to a fresh run, what it rewrites in
OUT, and how close the updated tree stays to a fresh run of the edited source.

    python bench/update.py [emma] [fastapi] [summary] [--worktree] [--keep DIR]
        (default: all three; 4 to 10 minutes on the shared machine)

Every command is `python -m chunker.cli.app run|update ...` with `--model scripted
--embeddings lexical` as a child process importing a snapshot of the package: the committed
HEAD (`git archive`: the figures are of the commit recorded), or with `--worktree` the working
tree as it is at start (bench/corpus.py's `snapshot`). Each is timed here (wall, the whole
command) and with `os.wait4` (its CPU time); the scripted model counts its calls
(CHUNKER_SCRIPTED_COUNTER), beside the stats' `calls.total`. The machine is shared: costs are
compared within one invocation, as ratios. The sources are copies in a temporary folder.

emma: a fresh run of ../shared/corpus/emma/emma.md and a no-op update; then, each on a copy of
  that tree, (a) `paragraph`: three words changed in the middle of the prose paragraph nearest
  the text's midpoint, (b) `start`: a sentence added before the title; each edit made to the
  source in place, then `chunker update`, a no-op update, a fresh run of the edited text.
fastapi: a fresh run of a copy of ../shared/corpus/folders/fastapi-docs and a no-op update; one
  update after a file added (a Rust-book chapter), one deleted, one moved to another folder and
  one paragraph edited; a no-op update; a fresh run of the edited folder.

Per case: the update's calls and times as shares of the fresh run's; meta.updates[-1]; OUT's
files before vs after the update (changed, and of those how many only in their frontmatter
`span` and/or their Up/Previous/Next lines; added; removed); against the fresh run of the edited
source: node counts, leaf boundaries (a leaf's end offset) in common, the lossless check of
both; the background tolerance: of the updated tree's leaves holding the same passage as a
fresh-run leaf, the share whose rewrite / summary differ. Results: bench/results/update/.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import PACKAGE_DIRS, copy_tree, snapshot  # noqa: E402  (beside this script)

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "corpus"
EMMA = SHARED / "emma" / "emma.md"
FASTAPI = SHARED / "folders" / "fastapi-docs"
RESULTS = ROOT / "bench" / "results" / "update"
FLAGS = ("--model", "scripted", "--embeddings", "lexical")
NEW_WORDS = "quite other words"  # replaces three words of the edited paragraph
START = "A note before the title: this copy of the novel was edited to measure incremental updates.\n\n"
# fastapi-docs: the four changes of one update (paths relative to the folder)
ADDED = ("learn/rust-book-ch08-02-strings.md", SHARED / "markdown" / "rust-book-ch08-02-strings.md")
DELETED, EDITED = "newsletter.md", "tutorial/header-params.md"
MOVED = ("tutorial/debugging.md", "advanced/debugging.md")
THREE_WORDS = re.compile(r"(?<![\w’‘“'-])[A-Za-z]+ [A-Za-z]+ [A-Za-z]+(?![\w’'-])")
NAV = ("Up: ", "Previous: ", "Next: ")
CONTENTS_LINE = re.compile(r"^- \[\[[^\]]*\]\]$")
CODE = ROOT
TMP = ""


def snapshot_commit(dest: Path, commit: str) -> dict[str, Any]:
    """The package as `commit` has it, laid out at its import paths under `dest` (as `snapshot`
    does for the working tree): what others have not committed is not measured."""
    archive = subprocess.run(["git", "archive", "--format=tar", commit, *PACKAGE_DIRS], cwd=ROOT,
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    for name in PACKAGE_DIRS[1:]:  # graph/, nodes/, ... are chunker.graph, chunker.nodes, ...
        (dest / name).rename(dest / "chunker" / name)
    return {"commit": commit, "uncommitted": [], "uncommitted_diff_sha256": None, "snapshot": "commit"}


def git_head() -> str:
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()


# -- commands ------------------------------------------------------------------------------

def chunker(tmp: Path, name: str, *args: Any) -> dict[str, Any]:
    """`chunker ARGS` as a child: exit, wall and CPU seconds, calls counted, its --json output."""
    counter, stdout, stderr = (tmp / f"{name}.{ext}" for ext in ("calls", "stdout", "stderr"))
    cmd = [sys.executable, "-m", "chunker.cli.app", *map(str, args)]
    started = time.perf_counter()
    with open(stdout, "wb") as out, open(stderr, "wb") as err:
        child = subprocess.Popen(cmd, cwd=CODE, stdout=out, stderr=err, env=os.environ | {
            "PYTHONPATH": str(CODE), "CHUNKER_SCRIPTED_COUNTER": str(counter)})
        _, status, usage = os.wait4(child.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise RuntimeError(f"{' '.join(cmd[3:])} exited {code}: {stderr.read_text()[-2000:]}")
    text = stdout.read_text(encoding="utf-8")
    result = {"command": "chunker " + " ".join(cmd[3:]).replace(TMP, "$TMP"),
              "wall_s": round(time.perf_counter() - started, 2),
              "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
              "calls_counted": len(counter.read_text().split()) if counter.exists() else 0}
    try:
        result["printed"] = json.loads(text)
    except ValueError:
        result["stdout"] = text.strip()[-300:]
    return result


def fresh_run(tmp: Path, name: str, src: Path, out: Path) -> dict[str, Any]:
    run = chunker(tmp, name, "run", src, "-o", out, *FLAGS, "--json")
    printed = run.pop("printed")
    run["calls"], run["chunker_wall_s"] = printed["stats"]["calls.total"], round(printed["wall_s"], 2)
    return run


def files(out: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under OUT, .chunker included: its bytes and mtime_ns."""
    return {p.relative_to(out).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(out.rglob("*")) if p.is_file()}


def noop_update(tmp: Path, name: str, out: Path) -> dict[str, Any]:
    """`chunker update OUT` on an up-to-date tree: its calls, and every file's bytes and mtime."""
    before = files(out)
    run = chunker(tmp, name, "update", out)
    after = files(out)
    both = before.keys() & after.keys()
    return {"calls_counted": run["calls_counted"], "wall_s": run["wall_s"],
            "says_up_to_date": "is up to date" in run.get("stdout", "") and "nothing to do" in run.get("stdout", ""),
            "files": len(before), "bytes_changed": sum(before[k][0] != after[k][0] for k in both),
            "mtime_changed": sum(before[k][1] != after[k][1] for k in both),
            "added": len(after.keys() - before.keys()), "removed": len(before.keys() - after.keys())}


# -- trees -----------------------------------------------------------------------------------

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


def update_figures(fresh: dict[str, Any], update: dict[str, Any], out: Path) -> dict[str, Any]:
    stats = update["printed"]["stats"]
    calls = stats["calls.total"]
    return {"command": update["command"], "calls": calls, "calls_counted": update["calls_counted"],
            "calls_share_of_fresh": round(calls / fresh["calls"], 4),
            "wall_s": update["wall_s"], "wall_share_of_fresh": round(update["wall_s"] / fresh["wall_s"], 4),
            "chunker_wall_s": round(update["printed"]["wall_s"], 2),  # what it reports: its own work, no start-up
            "cpu_s": update["cpu_s"], "cpu_share_of_fresh": round(update["cpu_s"] / fresh["cpu_s"], 4),
            "record": hierarchy(out)["meta"]["updates"][-1],
            "stats": {k: v for k, v in stats.items() if k.startswith(("update.", "boundary.rejoin", "calls."))}}


# -- experiments ---------------------------------------------------------------------------

def prose_paragraphs(text: str) -> list[tuple[int, int]]:
    """Spans of paragraphs of prose (a letter or a quote first, 12 words or more, outside code fences)."""
    spans, fenced = [], False
    for m in re.finditer(r"[^\n](?:[^\n]|\n(?!\n))*", text):
        para = m.group()
        fences = sum(line.lstrip().startswith(("```", "~~~")) for line in para.split("\n"))
        if not fenced and not fences and (para[0].isalpha() or para[0] in "“\"‘'") and len(para.split()) >= 12:
            spans.append(m.span())
        fenced ^= fences % 2 == 1
    return spans


def edit_middle(text: str) -> tuple[str, dict[str, Any]]:
    """`text` with the first three plain words past the middle of the prose paragraph
    nearest its midpoint replaced by NEW_WORDS (punctuation kept); what was replaced, where."""
    start, end = min(prose_paragraphs(text), key=lambda s: abs((s[0] + s[1]) / 2 - len(text) / 2))
    m = THREE_WORDS.search(text, (start + end) // 2, end) or THREE_WORDS.search(text, start, end)
    i, j = m.span()
    return text[:i] + NEW_WORDS + text[j:], {"paragraph": [start, end], "replaced": [i, j],
                                             "old": text[i:j], "new": NEW_WORDS}


def exp_emma(tmp: Path) -> dict[str, dict[str, Any]]:
    src, base = tmp / "emma" / "emma.md", tmp / "out"
    src.parent.mkdir()
    text = EMMA.read_text(encoding="utf-8")
    src.write_text(text, encoding="utf-8")
    fresh = fresh_run(tmp, "fresh", src, base)
    old = hierarchy(base)
    cases = {"emma-fresh": {"source_chars": len(text), "fresh": fresh, "nodes": counts(old),
                            "noop": noop_update(tmp, "noop", base)}}
    print("emma fresh", fresh["wall_s"], "s", fresh["calls"], "calls", flush=True)
    paragraph, edit = edit_middle(text)
    at = next(leaf for leaf in next(iter(leaves_of(old).values())) if leaf["span"][1] > edit["replaced"][0])
    edit["in_leaf"], edit["header_path"] = at["id"], at.get("header_path")
    for name, new_text, what in (("paragraph", paragraph, edit),
                                 ("start", START + text, {"replaced": [0, 0], "old": "", "new": START})):
        out = copy_tree(base, tmp / f"out-{name}")  # the original tree, for each edit
        src.write_text(new_text, encoding="utf-8")
        update = chunker(tmp, f"update-{name}", "update", out, "--json")
        noop = noop_update(tmp, f"noop-{name}", out)
        ref = fresh_run(tmp, f"fresh-{name}", src, tmp / f"fresh-{name}")
        cases[f"emma-{name}"] = {
            "edit": what, "fresh_original": {k: v for k, v in fresh.items() if k != "command"},
            "update": update_figures(fresh, update, out), "files": file_changes(base, out),
            "fresh_edited": ref, "versus_fresh": versus_fresh(old, hierarchy(out), hierarchy(tmp / f"fresh-{name}"),
                                                              lambda _s, t=new_text: t),
            "noop": noop}
        cases[f"emma-{name}"]["versus_fresh"]["fresh_edited_vs_fresh_original"] = control(
            old, hierarchy(tmp / f"fresh-{name}"), *what["replaced"], len(what["new"]))
        print("emma", name, json.dumps({k: cases[f"emma-{name}"]["update"][k] for k in ("calls", "wall_s")}), flush=True)
    return cases


def edit_folder(src: Path) -> dict[str, Any]:
    shutil.copyfile(ADDED[1], src / ADDED[0])
    (src / DELETED).unlink()
    (src / MOVED[0]).rename(src / MOVED[1])
    text, edit = edit_middle((src / EDITED).read_text(encoding="utf-8"))
    (src / EDITED).write_text(text, encoding="utf-8")
    return {"added": {ADDED[0]: str(ADDED[1].relative_to(SHARED))}, "deleted": DELETED,
            "moved": {"from": MOVED[0], "to": MOVED[1]}, "edited": {EDITED: edit}}


def unchanged_documents(old: dict, new: dict, before: Path, after: Path) -> dict[str, Any]:
    """The documents whose file did not change: are their inner files (their blocks' and
    leaves', not the document node's) byte for byte the same under the same names; the ones a
    folder above renamed (same node, new path), compared at their new path; and how their
    document node files changed."""
    a, b = files(before), files(after)
    new_by_id = {n["id"]: n for n in new["nodes"]}
    docs = {n["source"] for n in old["nodes"] if n["kind"] == "document"} - {DELETED, MOVED[0], EDITED}
    inner, renamed, doc_files, moved_docs = Counter(), Counter(), Counter(), 0
    for n in old["nodes"]:
        if n["source"] not in docs:
            continue
        now = new_by_id.get(n["id"])
        if now is None or now["filename"] not in b:
            (doc_files if n["kind"] == "document" else inner)["gone"] += 1
            continue
        was, data = a[n["filename"]][0], b[now["filename"]][0]
        how = "same bytes" if was == data else how_changed(was, data)
        if n["kind"] == "document":
            doc_files[how] += 1
            moved_docs += now["filename"] != n["filename"]
        elif now["filename"] == n["filename"]:
            inner[how] += 1
        else:
            renamed[how] += 1
    checked = sum(inner.values()) + sum(renamed.values())
    return {"documents": len(docs), "inner_files_checked": checked,
            "inner_files_same_name_and_bytes": inner["same bytes"],
            "inner_files_differ": checked - inner["same bytes"], "same_name": dict(inner),
            "renamed_by_a_folder_above": dict(renamed), "documents_under_a_renamed_folder": moved_docs,
            "document_files": dict(doc_files)}


def moved_document(old: dict, new: dict, before: Path, after: Path) -> dict[str, Any]:
    """The moved file's nodes: same ids; their files at the new place vs the old bytes."""
    a, b = files(before), files(after)
    was = {n["id"]: n for n in old["nodes"] if n["source"] == MOVED[0]}
    now = {n["id"]: n for n in new["nodes"] if n["source"] == MOVED[1]}
    how = Counter("same bytes" if a[was[i]["filename"]][0] == b[now[i]["filename"]][0]
                  else how_changed(a[was[i]["filename"]][0], b[now[i]["filename"]][0]) for i in was.keys() & now.keys())
    return {"nodes_before": len(was), "nodes_after": len(now), "same_ids": len(was.keys() & now.keys()),
            "files": dict(how), "old_files_left": sum(was[i]["filename"] in b for i in was)}


def exp_fastapi(tmp: Path) -> dict[str, dict[str, Any]]:
    src, base = copy_tree(FASTAPI, tmp / "docs"), tmp / "out"
    fresh = fresh_run(tmp, "fresh", src, base)
    print("fastapi fresh", fresh["wall_s"], "s", fresh["calls"], "calls", flush=True)
    noop_fresh = noop_update(tmp, "noop", base)
    out = copy_tree(base, tmp / "out-updated")
    edits = edit_folder(src)
    update = chunker(tmp, "update", "update", out, "--json")
    noop = noop_update(tmp, "noop-updated", out)
    ref = fresh_run(tmp, "fresh-edited", src, tmp / "fresh-edited")
    old, new, fresh_tree = hierarchy(base), hierarchy(out), hierarchy(tmp / "fresh-edited")
    figures = update_figures(ref, update, out)  # shares of the fresh run of the *edited* folder
    figures["calls_share_of_fresh_original"] = round(figures["calls"] / fresh["calls"], 4)
    print("fastapi update", figures["calls"], "calls", figures["wall_s"], "s", flush=True)
    return {"fastapi": {
        "edit": edits, "fresh_original": fresh, "fresh_edited": ref, "nodes_original": counts(old),
        "update": figures, "files": file_changes(base, out),
        "unchanged_documents": unchanged_documents(old, new, base, out),
        "moved_document": moved_document(old, new, base, out),
        "versus_fresh": versus_fresh(old, new, fresh_tree, lambda rel: (src / rel).read_text(encoding="utf-8")),
        "noop_fresh": noop_fresh, "noop_updated": noop}}


# -- summary -------------------------------------------------------------------------------

def pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.1%}"


def counts_cell(d: dict[str, int]) -> str:
    return "/".join(str(d.get(k, 0)) for k in ("leaves", "blocks", "documents", "folders"))


def summary(cases: dict[str, dict[str, Any]]) -> str:
    any_case = next(iter(cases.values()))
    lines = ["# `chunker update` (issue 19): cost and fidelity (scripted model, lexical embeddings)", "",
             f"Commit {any_case['head']} (the package as committed"
             + (f", plus uncommitted changes to {', '.join(u)}" if (u := any_case["code"]["uncommitted"]) else "") + "), "
             f"chunker {any_case['tool_version']}, measured {any_case['date']}; `python bench/update.py`. Every "
             "command ran with `--model scripted --embeddings lexical` as its own process on a shared 2-core "
             "machine (others' tests running): times are whole commands, compared as shares within one run.", "",
             "## The edits", ""]
    for name, c in cases.items():
        if name.startswith("emma-") and (e := c.get("edit")):
            where = f" (leaf {e['in_leaf']}, {' / '.join(e['header_path'] or [])})" if "in_leaf" in e else ""
            lines.append(f"- {name}: old text {e['replaced']} {e['old']!r} -> {e['new']!r}{where}.")
    if e := cases.get("fastapi", {}).get("edit"):
        (edited, what), = e["edited"].items()
        lines.append(f"- fastapi: added {', '.join(f'`{k}` (a copy of {v})' for k, v in e['added'].items())}; deleted "
                     f"`{e['deleted']}`; moved `{e['moved']['from']}` -> `{e['moved']['to']}`; edited `{edited}` "
                     f"({what['old']!r} -> {what['new']!r}); all in one update.")
    lines += ["", "## Cost of the update, as a share of a fresh run", "",
             "Emma: the fresh run of the original text; fastapi-docs: the fresh run of the edited folder.", "",
             "Wall: the whole command; `chunker` wall: the time the command reports for its own work (no interpreter "
             "start-up or imports); no-op: `chunker update` of the updated tree when nothing changed, the fixed cost. "
             "The scripted model answers at once, so these times are chunker's own work besides the model's; with "
             "a real model each call costs seconds and the calls' share would weigh most.", "",
             "| case | update calls | fresh calls | calls share (target <= 3 %) | update wall s | fresh wall s | wall share "
             "| CPU share | `chunker` wall update / fresh | no-op wall s |", "|---|---|---|---|---|---|---|---|---|---|"]
    updates = {k: v for k, v in cases.items() if "update" in v}
    for name, c in updates.items():
        u, f = c["update"], c["fresh_edited"] if name == "fastapi" else c["fresh_original"]
        lines.append(f"| {name} | {u['calls']} | {f['calls']} | {pct(u['calls_share_of_fresh'])} | {u['wall_s']} | "
                     f"{f['wall_s']} | {pct(u['wall_share_of_fresh'])} | {pct(u['cpu_share_of_fresh'])} | "
                     f"{u['chunker_wall_s']} / {f['chunker_wall_s']} | {c.get('noop', c.get('noop_updated'))['wall_s']} |")
    if "fastapi" in cases:
        c = cases["fastapi"]
        lines.append(f"\nfastapi-docs: the original folder's fresh run made {c['fresh_original']['calls']} calls in "
                     f"{c['fresh_original']['wall_s']} s; the update's calls are "
                     f"{pct(c['update']['calls_share_of_fresh_original'])} of those.")
    lines += ["", "## What the update kept (meta.updates[-1]) and the files it changed", "",
              "reused / redone / added / removed nodes; files: changed (of those, only in frontmatter `span` and/or "
              "Up/Previous/Next lines) +added -removed, by the kind of node the file holds.", "",
              "| case | leaves r/rd/a/rm | blocks r/rd/a/rm | documents r/rd/a/rm | leaf files | block files | document files | folder files | regrounded kept / redone |",
              "|---|---|---|---|---|---|---|---|---|"]
    for name, c in updates.items():
        rec, st = c["update"]["record"], c["update"]["stats"]
        nodes = [" / ".join(str(rec[p].get(k, 0)) for p in ("reused", "redone", "added", "removed"))
                 for k in ("leaves", "blocks", "documents")]
        fl = [(lambda r: f"{r['changed']} ({r['only_span_or_links']}) +{r['added']} -{r['removed']} of {r['before']}"
               if r else "-")(c["files"].get(k)) for k in ("leaf", "block", "document", "folder")]
        lines.append(f"| {name} | " + " | ".join(nodes + fl) + f" | {st.get('update.leaves.regrounded_kept', 0)} / "
                     f"{st.get('update.leaves.regrounded_redone', 0)} |")
    lines += ["", "How the changed files differ (parts of the file that differ: `span`, `links` = Up/Previous/Next "
              "lines, `contents` = a block's Contents link lines, `front:KEYS` = other frontmatter, `text` = the rest):",
              ""]
    for name, c in updates.items():
        lines.append(f"- {name}: " + "; ".join(f"{k} {r['how']}" for k, r in c["files"].items() if r["how"]))
    lines += ["", "## The updated tree next to a fresh run of the edited source", "",
              "Nodes leaves/blocks/documents/folders. Boundaries: leaves' end offsets (per file).", "",
              "| case | updated nodes | fresh nodes | boundaries common / union | common / fresh | lossless updated, fresh "
              "| node files at the same path (folders) |", "|---|---|---|---|---|---|---|"]
    for name, c in updates.items():
        v = c["versus_fresh"]
        b, ok = v["boundaries"], v["lossless"]
        lines.append(f"| {name} | {counts_cell(v['updated'])} | {counts_cell(v['fresh'])} | {b['common']}/{b['union']} = "
                     f"{pct(b['common_over_union'])} | {b['common']}/{b['fresh']} = {pct(b['common_over_fresh'])} | "
                     f"{ok['updated']['ok']} ({ok['updated']['files']} files), {ok['fresh']['ok']} | "
                     f"{(p := v['node_files_same_path'])['all']}/{p['of']} ({p['folders']}/{p['folders_of']}) |")
    if controls := {n: c["versus_fresh"]["fresh_edited_vs_fresh_original"] for n, c in updates.items()
                    if "fresh_edited_vs_fresh_original" in c["versus_fresh"]}:
        lines += ["", "Control: the fresh run of the edited text next to the fresh run of the original (its leaf ends "
                  "carried through the edit), i.e. how far two fresh runs drift apart by themselves: " + "; ".join(
                      f"{n} {k['common']}/{k['union']} = {pct(k['common_over_union'])} in common" for n, k in controls.items())
                  + "."]
    lines += ["", "## Background tolerance: copied output vs what a fresh run writes", "",
              "Leaves of the updated tree holding the same passage (span and text) as a leaf of the fresh run: how "
              "many have another rewrite / summary there. `copied`: the old leaf under its old id; `after a change`: "
              "copied with another leaf before it than before (its background changed; the grounding gate re-checked "
              "it). With the scripted model the rewrite may not depend on the background: measured, not assumed.", "",
              "| case | group | leaves | rewrite differs | summary differs |", "|---|---|---|---|---|"]
    for name, c in updates.items():
        for group, g in c["versus_fresh"]["background"].items():
            lines.append(f"| {name} | {group.replace('_', ' ')} | {g['leaves']} | {g['rewrite_differs']} "
                         f"({pct(g['rewrite_differs_share'])}) | {g['summary_differs']} ({pct(g['summary_differs_share'])}) |")
    if "fastapi" in cases:
        u, m = cases["fastapi"]["unchanged_documents"], cases["fastapi"]["moved_document"]
        lines += ["", "## fastapi-docs: the documents the update did not touch", "",
                  f"{u['documents']} unchanged documents, {u['inner_files_checked']} inner files (their blocks' and "
                  f"leaves' files): {u['inner_files_same_name_and_bytes']} under the same name with the same bytes, "
                  f"{u['inner_files_differ']} differ (expected 0). Under the same name: {u['same_name']}; renamed because "
                  f"a folder above them was renamed or regrouped ({u['documents_under_a_renamed_folder']} documents), "
                  f"their bytes at the new path: {u['renamed_by_a_folder_above']}. The unchanged documents' node files: "
                  f"{u['document_files']}.", "",
                  f"The moved file ({MOVED[0]} -> {MOVED[1]}): {m['same_ids']}/{m['nodes_before']} nodes keep their "
                  f"ids; its files at the new place vs the old bytes: {m['files']}; old files left: {m['old_files_left']}."]
    lines += ["", "## No-op updates", "", "`chunker update OUT` with the source unchanged: calls, and OUT's files "
              "(.chunker included) whose bytes / mtime changed.", "",
              "| tree | says up to date | calls | files | bytes changed | mtime changed | added | removed |",
              "|---|---|---|---|---|---|---|---|"]
    for name, c in cases.items():
        for key in ("noop", "noop_fresh", "noop_updated"):
            if n := c.get(key):
                tree = {"noop": "fresh tree" if name == "emma-fresh" else "updated tree"}.get(key, key[5:] + " tree")
                lines.append(f"| {name}: {tree} | {n['says_up_to_date']} | {n['calls_counted']} | {n['files']} | "
                             f"{n['bytes_changed']} | {n['mtime_changed']} | {n['added']} | {n['removed']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    global CODE, TMP
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("parts", nargs="*", help="emma, fastapi, summary (default: all)")
    ap.add_argument("--worktree", action="store_true", help="measure the working tree, not HEAD")
    ap.add_argument("--keep", type=Path, help="work in this new folder and keep it (to look at the trees)")
    args = ap.parse_args(argv)
    known = ["emma", "fastapi", "summary"]
    parts = args.parts or known
    if unknown := set(parts) - set(known):
        ap.error(f"unknown parts {sorted(unknown)}; choose from {known}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    code_dir = tempfile.TemporaryDirectory(prefix="bench-update-code-")
    if set(parts) - {"summary"}:
        CODE = Path(code_dir.name)
        head = git_head()
        code = snapshot(CODE) | {"snapshot": "working tree"} if args.worktree else snapshot_commit(CODE, head)
        version = subprocess.run([sys.executable, "-c", "import chunker; print(chunker.__version__)"], cwd=CODE,
                                 env=os.environ | {"PYTHONPATH": str(CODE)}, capture_output=True, text=True,
                                 check=True).stdout.strip()
    for part in (p for p in parts if p != "summary"):
        load = os.getloadavg()
        with tempfile.TemporaryDirectory(prefix=f"bench-update-{part}-") as scratch:
            tmp = args.keep / part if args.keep else Path(scratch)
            tmp.mkdir(parents=True, exist_ok=not args.keep)
            TMP = str(tmp)
            result = exp_emma(tmp) if part == "emma" else exp_fastapi(tmp)
        for name, case in result.items():
            record = {"head": head, "code": code, "tool_version": version,
                      "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                      "load_start": [round(x, 2) for x in load], "load_end": [round(x, 2) for x in os.getloadavg()],
                      "settings": " ".join(FLAGS), **case}
            (RESULTS / f"{name}.json").write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    if "summary" in parts:
        order = ["emma-fresh", "emma-paragraph", "emma-start", "fastapi"]
        cases = {n: json.loads((RESULTS / f"{n}.json").read_text()) for n in order if (RESULTS / f"{n}.json").exists()}
        (RESULTS / "summary.md").write_text(summary(cases))
        print(summary(cases))


if __name__ == "__main__":
    main(sys.argv[1:])

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
from typing import Any


sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import PACKAGE_DIRS, copy_tree, snapshot  # noqa: E402  (beside this script)
from update_compare import (control, counts, file_changes, files, hierarchy, how_changed,  # noqa: E402
                            leaves_of, versus_fresh)
from update_report import summary  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
from corpus_path import corpus_root, default_root  # noqa: E402  (bench/: an argument or $CHUNKER_CORPUS)
SHARED = default_root()
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
    return {"from": MOVED[0], "to": MOVED[1],
            "nodes_before": len(was), "nodes_after": len(now), "same_ids": len(was.keys() & now.keys()),
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

def main(argv: list[str]) -> None:
    global CODE, TMP
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("parts", nargs="*", help="emma, fastapi, summary (default: all)")
    ap.add_argument("--worktree", action="store_true", help="measure the working tree, not HEAD")
    ap.add_argument("--keep", type=Path, help="work in this new folder and keep it (to look at the trees)")
    args = ap.parse_args(argv)
    corpus_root(needs=["emma/emma.md", "folders/fastapi-docs", "markdown/rust-book-ch08-02-strings.md"])
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

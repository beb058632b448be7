"""Trees byte for byte, before and after a refactor (issue 17's "no change a user sees").

    python bench/tree_identity.py capture DIR [DOC,DOC...] [--source DOC,...] [--update DOC,...] [--one-cursor]
    python bench/tree_identity.py compare DIR_A DIR_B [--as-v2]
    python bench/tree_identity.py redigest DIR   # digests.json again from DIR's trees

`capture` runs `chunker run --model scripted` (two at a time, each its own process) on
Cinderella, Emma, a manifesto, the three Rust-book chapters and a PDF, in both boundary
modes and all three strategies, into DIR/<doc>-<mode>-<strategy>/, and writes
DIR/digests.json: for every tree file its SHA-256 (hierarchy.json without its
`finished_at` line, every Markdown file), or the run's exit code and last error line.
With `--source DOCS`, those documents are also run under `background_context: source`
(cases `<doc>-<mode>-<strategy>-source`). With `--update DOCS`, each of those documents' fresh
trees (candidates mode, every strategy, `written` and `source`) is copied and brought up to
date with `chunker update` after a sentence is added at the paragraph nearest the text's
middle: a patch (`...-update`), and with `--set max_group_size=4` a rebuild (`...-rebuild`,
peel only); an update's case digests the updated tree.
With `--one-cursor`, every case sets `reading: one_cursor` (issue 34: a document read in one
cursor, as every version before regions read it): its trees must be byte for byte those of a
version without regions (`compare` against a capture of that version exits 0).
`compare` prints the cases whose digests differ and exits 1 if any does. With `--as-v2` it
digests the trees themselves as schema 2 would have written them (issue 18's additions
undone: each node's `kind` and `source` dropped, the Markdown leaves' `content` named `kind`
again, in hierarchy.json and in every node file's front matter), to show that nothing else moved.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
from corpus_path import corpus_root, default_root  # noqa: E402  (bench/: an argument or $CHUNKER_CORPUS)
CORPUS = default_root()
DOCS = {
    "cinderella": ROOT / "examples" / "cinderella.txt",
    "emma": CORPUS / "emma" / "emma.md",
    "manifesto": CORPUS / "manifesto" / "61620_201211.txt",
    "rust-ops": CORPUS / "markdown" / "rust-book-appendix-02-operators.md",
    "rust-types": CORPUS / "markdown" / "rust-book-ch03-02-data-types.md",
    "rust-strings": CORPUS / "markdown" / "rust-book-ch08-02-strings.md",
    "pdf-earnings": CORPUS / "pdf" / "q1-fy25-earnings.pdf",
}
MODES = ("candidates", "phrase")
STRATEGIES = ("flat", "peel", "full")


def digest_tree(out: Path) -> dict[str, str]:
    files: dict[str, str] = {}
    for path in sorted(out.rglob("*")):
        rel = path.relative_to(out).as_posix()
        if rel.startswith(".chunker/") or not path.is_file():
            continue
        if path.suffix not in (".md", ".json"):
            continue
        data = path.read_bytes()
        if rel == "hierarchy.json":  # the times of the run and of its updates
            data = b"\n".join(line for line in data.split(b"\n")
                              if b'"finished_at"' not in line and not line.lstrip().startswith(b'"at": "'))
        files[rel] = hashlib.sha256(data).hexdigest()
    return files


def as_v2(out: Path) -> dict[str, str]:
    """Digests of the tree as schema 2 wrote it (see the module's docstring)."""
    import yaml

    v3 = json.loads((out / "hierarchy.json").read_text(encoding="utf-8")).get("schema_version") == 3

    def node_v2(data: dict) -> dict:
        if not v3:  # a schema-2 tree as it is (its `kind` is the Markdown leaf type)
            return data
        data = {k: v for k, v in data.items() if k not in ("kind", "source")}
        if "content" in data:
            data["kind"] = data.pop("content")
        return data

    files: dict[str, str] = {}
    for path in sorted(out.rglob("*")):
        rel = path.relative_to(out).as_posix()
        if rel.startswith(".chunker/") or not path.is_file() or path.suffix not in (".md", ".json"):
            continue
        text = path.read_text(encoding="utf-8")
        if rel == "hierarchy.json":
            h = json.loads(text)
            h["schema_version"] = 2 if v3 else h["schema_version"]
            h["meta"].pop("finished_at", None)
            h["nodes"] = [node_v2(n) for n in h["nodes"]]
            canon = json.dumps(h, sort_keys=True)
        elif text.startswith("---\n"):
            end = text.index("\n---\n", 4)
            front = node_v2(yaml.safe_load(text[4:end]))
            canon = json.dumps(front, sort_keys=True) + text[end:]
        else:
            canon = text
        files[rel] = hashlib.sha256(canon.encode("utf-8")).hexdigest()
    return files


SOURCES = Path(tempfile.gettempdir()) / "tree-identity-sources"
UPDATE_SENTENCE = "A sentence added here for the update's check of trees byte for byte."


def _chunker(base: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(  # outside the checkout: PYTHONPATH may point at another version
        [sys.executable, "-m", "chunker.cli.app", *args], capture_output=True, text=True, cwd=base)


def _result(proc: subprocess.CompletedProcess, out: Path) -> dict:
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or [""])[-1]
        return {"exit": proc.returncode, "error": tail[:300]}
    return {"exit": 0, "files": digest_tree(out)}


EXTRA_SETTINGS = ""
"""Settings every case adds (`--one-cursor`: `reading: one_cursor`)."""


def run_case(base: Path, doc: str, mode: str, strategy: str, background: str = "written",
             updates: tuple[str, ...] = ()) -> list[tuple[str, dict]]:
    name = f"{doc}-{mode}-{strategy}" + ("-source" if background == "source" else "")
    out = base / name
    config = base / f"{name}.yaml"
    config.write_text(f"boundary_mode: {mode}\nstrategy: {strategy}\nbackground_context: {background}\n"
                      + EXTRA_SETTINGS, encoding="utf-8")
    source = DOCS[doc]
    if updates:  # the fresh run reads a copy, which each update edits (one path for every capture)
        SOURCES.mkdir(exist_ok=True)
        source = SOURCES / f"{name}{DOCS[doc].suffix}"
        shutil.copyfile(DOCS[doc], source)
    proc = _chunker(base, "run", str(source), "--model", "scripted", "-o", str(out), "--config", str(config),
                    "--quiet", "--force")
    results = [(name, _result(proc, out))]
    if proc.returncode != 0 or not updates:
        return results
    original = source.read_text(encoding="utf-8")
    middle = original.find("\n\n", len(original) // 2)
    source.write_text(original[:middle] + " " + UPDATE_SENTENCE + original[middle:], encoding="utf-8")
    for kind in updates:
        updated = base / f"{name}-{kind}"
        shutil.copytree(out, updated)
        extra = ("--set", "max_group_size=4") if kind == "rebuild" else ()
        proc = _chunker(base, "update", str(updated), "--source", str(source), "--quiet", *extra)
        results.append((f"{name}-{kind}", _result(proc, updated)))
    return results


def capture(base: Path, only: list[str] | None = None, source: list[str] = (),
            update: list[str] = ()) -> None:
    corpus_root(needs=[DOCS[d].relative_to(CORPUS).as_posix() for d in (only or DOCS)
                       if DOCS[d].is_relative_to(CORPUS)])
    base.mkdir(parents=True, exist_ok=True)
    cases = [(d, m, s, "written", ()) for d in (only or DOCS) for m in MODES for s in STRATEGIES
             if not (d in update and m == "candidates")]
    cases += [(d, m, s, "source", ()) for d in source for m in MODES for s in STRATEGIES
              if not (d in update and m == "candidates")]
    cases += [(d, "candidates", s, b, ("update", "rebuild") if s == "peel" else ("update",))
              for d in update for s in STRATEGIES for b in ("written", "source")]
    cases.sort(key=lambda c: c[0] == "manifesto" or c[0] == "emma", reverse=True)  # the long ones first
    with ThreadPoolExecutor(max_workers=int(os.environ.get("TREE_IDENTITY_JOBS", "2"))) as pool:
        results = {name: r for rs in pool.map(lambda c: run_case(base, *c), cases) for name, r in rs}
    (base / "digests.json").write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    for name, r in sorted(results.items()):
        print(name, "ok" if r["exit"] == 0 else f"exit {r['exit']}: {r['error']}",
              len(r.get("files", {})), "files")


def redigest(base: Path) -> None:
    """DIR/digests.json made again from the trees in DIR (after a change to `digest_tree`)."""
    digests = json.loads((base / "digests.json").read_text())
    for name, r in digests.items():
        if r.get("exit") == 0:
            r["files"] = digest_tree(base / name)
    (base / "digests.json").write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")


def compare(a: Path, b: Path, v2: bool = False) -> int:
    da = json.loads((a / "digests.json").read_text())
    db = json.loads((b / "digests.json").read_text())
    if v2:  # digest the trees themselves, as schema 2
        for base, digests in ((a, da), (b, db)):
            for name, r in digests.items():
                if r.get("exit") == 0:
                    r["files"] = as_v2(base / name)
    differ = 0
    for name in sorted(set(da) & set(db)):
        ra, rb = da.get(name), db.get(name)
        if ra == rb:
            continue
        differ += 1
        if ra is None or rb is None:
            print(f"{name}: only in {'B' if ra is None else 'A'}")
            continue
        if ra.get("exit") != rb.get("exit"):
            print(f"{name}: exit {ra.get('exit')} vs {rb.get('exit')}")
            continue
        fa, fb = ra.get("files", {}), rb.get("files", {})
        changed = sorted(k for k in set(fa) | set(fb) if fa.get(k) != fb.get(k))
        print(f"{name}: {len(changed)} files differ, e.g. {changed[:3]}{_explain(a, b, name, changed)}")
    print(f"{len(set(da) & set(db))} cases compared, {differ} differ")
    return 1 if differ else 0


def _explain(a: Path, b: Path, name: str, changed: list[str]) -> str:
    """When only hierarchy.json differs, which of its settings (meta.config) or other parts do."""
    if changed != ["hierarchy.json"]:
        return ""
    try:
        ha, hb = (json.loads((d / name / "hierarchy.json").read_text()) for d in (a, b))
    except OSError:
        return ""
    ca, cb = ha["meta"].pop("config", {}), hb["meta"].pop("config", {})
    for h in (ha, hb):
        h["meta"].pop("finished_at", None)
    keys = sorted(k for k in set(ca) | set(cb) if ca.get(k) != cb.get(k))
    rest = "" if ha == hb else "; and outside meta.config too"
    return f"; in meta.config only: {keys}{rest}"


if __name__ == "__main__":
    if sys.argv[1:2] == ["capture"]:
        args = sys.argv[3:]

        def _docs(flag: str) -> list[str]:
            return args[args.index(flag) + 1].split(",") if flag in args else []

        plain = args[0].split(",") if args and not args[0].startswith("--") else None
        if "--one-cursor" in args:
            EXTRA_SETTINGS = "reading: one_cursor\n"
        capture(Path(sys.argv[2]), plain, source=_docs("--source"), update=_docs("--update"))
    elif sys.argv[1:2] == ["redigest"]:
        redigest(Path(sys.argv[2]))
    elif sys.argv[1:2] == ["compare"]:
        sys.exit(compare(Path(sys.argv[2]), Path(sys.argv[3]), v2="--as-v2" in sys.argv[4:]))
    else:
        sys.exit(__doc__)

"""Trees byte for byte, before and after a refactor (issue 17's "no change a user sees").

    python bench/tree_identity.py capture DIR [DOC,DOC...] [--embeddings lexical]
                                          [--modes candidates] [--strategies peel,full]
    python bench/tree_identity.py compare DIR_A DIR_B [--as-v2]

`capture` runs `chunker run --model scripted` (two at a time, each its own process) on
Cinderella, Emma, a manifesto, the three Rust-book chapters, a PDF and a small mixed
folder (`folder`: Cinderella, a Rust chapter and the lecture-notes PDF in a subfolder, copied
into the same temporary folder by every capture, since the tree records the corpus's root), in both boundary modes and all three strategies (or those given), into DIR/<doc>-<mode>-<strategy>/, and writes
DIR/digests.json: for every tree file its SHA-256 (hierarchy.json without its
`finished_at` line, every Markdown file), or the run's exit code and last error line.
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
CORPUS = Path(os.environ.get("CHUNKER_CORPUS", ROOT.parent / "shared" / "corpus"))
DOCS = {
    "cinderella": ROOT / "examples" / "cinderella.txt",
    "emma": CORPUS / "emma" / "emma.md",
    "manifesto": CORPUS / "manifesto" / "61620_201211.txt",
    "rust-ops": CORPUS / "markdown" / "rust-book-appendix-02-operators.md",
    "rust-types": CORPUS / "markdown" / "rust-book-ch03-02-data-types.md",
    "rust-strings": CORPUS / "markdown" / "rust-book-ch08-02-strings.md",
    "pdf-earnings": CORPUS / "pdf" / "q1-fy25-earnings.pdf",
    "folder": None,  # built by `capture` (see `_folder`)
}
FOLDER = {"cinderella.txt": ROOT / "examples" / "cinderella.txt",
          "rust/operators.md": CORPUS / "markdown" / "rust-book-appendix-02-operators.md",
          "rust/notes/four-lectures.pdf": CORPUS / "pdf" / "four-lectures.pdf"}
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
        if rel == "hierarchy.json":
            data = b"\n".join(line for line in data.split(b"\n") if b'"finished_at"' not in line)
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


FOLDER_ROOT = Path(tempfile.gettempdir()) / "chunker-tree-identity-folder"


def _folder() -> Path:
    """The small mixed folder: the same bytes at the same place in every capture."""
    root = FOLDER_ROOT
    for rel, src in FOLDER.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, root / rel)
    return root


def run_case(base: Path, doc: str, mode: str, strategy: str, extra: list[str]) -> tuple[str, dict]:
    name = f"{doc}-{mode}-{strategy}"
    out = base / name
    config = base / f"{name}.yaml"
    config.write_text(f"boundary_mode: {mode}\nstrategy: {strategy}\n", encoding="utf-8")
    src = FOLDER_ROOT if doc == "folder" else DOCS[doc]
    proc = subprocess.run(  # outside the checkout: PYTHONPATH may point at another version
        [sys.executable, "-m", "chunker.cli.app", "run", str(src), "--model", "scripted",
         "-o", str(out), "--config", str(config), "--quiet", "--force", *extra],
        capture_output=True, text=True, cwd=base)
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or [""])[-1]
        return name, {"exit": proc.returncode, "error": tail[:300]}
    return name, {"exit": 0, "files": digest_tree(out)}


def capture(base: Path, only: list[str] | None = None, *, extra: list[str] = (),
            modes=MODES, strategies=STRATEGIES) -> None:
    base.mkdir(parents=True, exist_ok=True)
    missing = [str(p) for d in (only or DOCS) for p in ([DOCS[d]] if d != "folder" else FOLDER.values())
               if not p.exists()]
    if missing:
        sys.exit(f"missing (set CHUNKER_CORPUS to the shared corpus): {', '.join(missing)}")
    if "folder" in (only or DOCS):
        _folder()
    cases = [(d, m, s) for d in (only or DOCS) for m in modes for s in strategies]
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = dict(pool.map(lambda c: run_case(base, *c, list(extra)), cases))
    (base / "digests.json").write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    for name, r in sorted(results.items()):
        print(name, "ok" if r["exit"] == 0 else f"exit {r['exit']}: {r['error']}",
              len(r.get("files", {})), "files")


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

        def option(flag: str) -> str | None:
            if flag not in args:
                return None
            i = args.index(flag)
            value = args[i + 1]
            del args[i:i + 2]
            return value

        emb, modes, strategies = option("--embeddings"), option("--modes"), option("--strategies")
        capture(Path(sys.argv[2]), args[0].split(",") if args else None,
                extra=["--embeddings", emb] if emb else [],
                modes=tuple(modes.split(",")) if modes else MODES,
                strategies=tuple(strategies.split(",")) if strategies else STRATEGIES)
    elif sys.argv[1:2] == ["compare"]:
        sys.exit(compare(Path(sys.argv[2]), Path(sys.argv[3]), v2="--as-v2" in sys.argv[4:]))
    else:
        sys.exit(__doc__)

"""Measure the knowledge passes (issue 33): terms against hand-written gold lists, references,
fastapi-docs' links between files, a generated vault's links, "what is X?" navigation, and the
passes' cost. Results go to bench/results/knowledge/knowledge.json (and .md).

    python bench/knowledge.py [--work /tmp/chunker-knowledge] [--reuse]

Trees are built with `chunker run --model scripted --embeddings lexical` into --work (kept; with
--reuse an existing tree is read, not rebuilt). The corpus is `CHUNKER_CORPUS` (default
../shared/corpus from the repository root).
"""

from __future__ import annotations

import argparse
import json
import os
import posixpath
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from chunker.knowledge.crawl import dangling_links  # noqa: E402
from chunker.knowledge.passes import annotate  # noqa: E402
from chunker.knowledge.syntax import CodeMap, find_links  # noqa: E402
from chunker.output.hierarchy import Hierarchy  # noqa: E402
from chunker.output.writer import write_tree  # noqa: E402

GOLD = ROOT / "bench" / "knowledge_gold"
RESULTS = ROOT / "bench" / "results" / "knowledge"
BUDGET = 300


def fold(text: str) -> str:
    text = text.replace("\u2019", "'").replace("\u201c", '"').replace("\u201d", '"')
    return " ".join(text.split()).casefold()


def build(source: Path, out: Path, reuse: bool) -> Hierarchy:
    if not (reuse and (out / "hierarchy.json").is_file()):
        subprocess.run([sys.executable, "-m", "chunker.cli.app", "run", str(source), "--output-dir", str(out),
                        "--model", "scripted", "--embeddings", "lexical", "-q", "--force"], check=True)
        return Hierarchy.model_validate_json((out / "hierarchy.json").read_text(encoding="utf-8"))
    # a tree read again: the passes (this checkout's) redone over it and the files rewritten
    h = annotate(Hierarchy.model_validate_json((out / "hierarchy.json").read_text(encoding="utf-8")))
    write_tree(out, h, source.stem)
    return h


def term_figures(h: Hierarchy, gold: dict) -> dict:
    from chunker.navigation.knowledge import TermIndex

    index = TermIndex(h.terms)
    nodes = h.by_id()
    found = right = 0
    missed, wrong = [], []
    for g in gold["terms"]:
        t = index.get(g["term"])
        if t is None:
            missed.append(g["term"])
            continue
        found += 1
        d = next((d for d in t.definitions if d.source == g["file"]), None)
        leaf = nodes[d.node] if d else None
        if leaf is not None and fold(g["contains"]) in fold(leaf.original or ""):
            right += 1
        else:
            wrong.append(g["term"])
    gold_keys = {index.get(g["term"]).id for g in gold["terms"] if index.get(g["term"])}
    ours = [t for t in h.terms if t.definition and t.definition.source in gold["files"]]
    extra = [t.name for t in ours if t.id not in gold_keys]
    n = len(gold["terms"])
    return {"gold": n, "recall": round(found / n, 3), "right_node": round(right / n, 3),
            "right_node_of_found": round(right / found, 3) if found else 0.0,
            "precision": round((len(ours) - len(extra)) / len(ours), 3) if ours else 0.0,
            "registry_terms_in_gold_files": len(ours), "missed": missed, "wrong_node": wrong,
            "not_in_gold": extra, "terms_total": len(h.terms)}


LABEL = {"table": r"table", "figure": r"fig(?:ure|\.)", "listing": r"listing", "section": r"",
         "chapter": r"(?:chapter)?", "appendix": r"appendix", "article": r"article",
         "equation": r"", "footnote": r"\[\^", "page": r""}


def reference_figures(h: Hierarchy) -> dict:
    """Resolved references, and those whose target node holds the numbered item (its caption or
    numbered heading: what "right node" is checked by), unresolved ones by kind."""
    nodes = h.by_id()
    refs = [e for e in h.edges if e.kind == "refers_to"]
    right = 0
    for e in refs:
        target = nodes[e.target]
        text = "".join(n.original or "" for n in h.leaves() if n.source == target.source
                       and target.span and target.span[0] <= n.span[0] < target.span[1])
        rest = e.text.split(None, 1)[-1] if " " in e.text.strip() else e.text
        number = re.search(r"\d+(?:[.\-]\d+)*[a-z]?|\b[IVXLC]+\b|\b[A-Z](?:[.\-]\d+)*\b", rest)
        if e.ref == "page":
            right += bool(number) and bool(target.pages) and target.pages[0] <= int(number.group().split("-")[0].split(".")[0]) <= target.pages[-1]
            continue
        if e.text.lower().startswith(("the ", "this ", "that ", "following", "preceding", "previous")):
            # an unnumbered "the following table": the target holds a table (captioned or not),
            # after the reference when the reference lies in the target itself
            shape = r"^\s*\|" if e.ref == "table" else LABEL.get(e.ref, "")
            if e.target == e.source and target.span and "follow" in e.text.lower():
                text = text[e.span[1] - target.span[0]:]
            right += bool(re.search(shape, text, re.I | re.M))
            continue
        if number is None:
            continue
        right += bool(re.search(LABEL.get(e.ref, "") + r"[^\n]{0,15}?" + re.escape(number.group()), text, re.I))
    gone = [u for u in h.unresolved if u.ref not in ("wiki-link", "markdown-link")]
    return {"references": len(refs) + len(gone), "resolved": len(refs), "resolved_right_node": right,
            "resolved_by_kind": dict(Counter(e.ref for e in refs)),
            "unresolved_by_kind": dict(Counter(u.ref for u in gone)),
            "unresolved_examples": [(u.text, u.reason) for u in gone][:8]}


def fastapi_links(h: Hierarchy, folder: Path) -> dict:
    """Markdown links between the folder's files, found on the files themselves, against the
    tree's links_to edges (by file and span)."""
    files = {p.relative_to(folder).as_posix() for p in folder.rglob("*.md")}
    edges = {(e.file, e.span) for e in h.edges if e.kind == "links_to"}
    expected = missing = 0
    lost = []
    for rel in sorted(files):
        text = (folder / rel).read_text(encoding="utf-8")
        for link in find_links(text, CodeMap(text)):
            if link.kind != "markdown-link" or link.external or not link.target:
                continue
            path = posixpath.normpath(posixpath.join(posixpath.dirname(rel), unquote(link.target)))
            if not path.endswith(".md"):
                continue
            if path not in files:
                missing += 1
                continue
            expected += 1
            if (rel, (link.start, link.end)) not in edges:
                lost.append((rel, link.raw))
    return {"links_between_files": expected, "links_to_edges": expected - len(lost),
            "share": round((expected - len(lost)) / expected, 4) if expected else None,
            "links_to_missing_files": missing, "lost": lost[:10]}


def vault_figures(h: Hierarchy, out: Path, manifest: Path) -> dict:
    links = json.loads(manifest.read_text(encoding="utf-8"))
    edges = Counter((e.file, e.text) for e in h.edges if e.kind == "links_to")
    written = Counter((x["file"], x["raw"]) for x in links if x["resolvable"])
    resolvable = sum(written.values())
    became = sum(min(n, edges[k]) for k, n in written.items())
    wrong_target = 0
    nodes = h.by_id()
    for e in h.edges:
        if e.kind == "links_to":
            want = next((x["target"] for x in links if x["file"] == e.file and x["raw"] == e.text), None)
            wrong_target += want is not None and nodes[e.target].source != want
    seen, dead = dangling_links(out)
    return {"links_written": len(links), "resolvable": resolvable, "became_links_to": became,
            "share": round(became / resolvable, 4), "links_to_wrong_file": wrong_target,
            "listed_unresolved": sum(u.ref == "wiki-link" for u in h.unresolved),
            "links_in_out": seen, "dangling_in_out": len(dead), "dangling_examples": dead[:5]}


def navigation_figures(out: Path, gold: dict) -> dict:
    from chunker.evaluation.navigation_flat import build_units, FlatSearch, read_within
    from chunker.graph.navigator_ask import ask
    from chunker.navigation.collapsed import collapsed_read
    from chunker.navigation.settings import NavigatorSettings
    from chunker.navigation.tree import open_tree

    tree = open_tree(out)
    cfg = NavigatorSettings(model=None, embeddings="bm25", budget_tokens=BUDGET)
    units, indexed = build_units(tree, {}, "leaves", cfg)
    flat = FlatSearch(units, indexed, None, cfg, None)
    hits = Counter()
    rows = []
    for g in gold["terms"]:
        q = f"What is {g['term']}?"
        want = fold(g["contains"])
        routed = ask(str(out), q, cfg)
        searched = collapsed_read(tree, q, cfg)
        reads, _ = read_within(flat.ranked("bm25", q), BUDGET)
        got = {"navigator": want in fold(" ".join(p["text"] for p in routed.passages))
               and routed.tokens_read <= BUDGET,
               "collapsed": want in fold(" ".join(p.text for p in searched.passages)),
               "bm25-leaves": want in fold(" ".join(r.text for r in reads))}
        hits.update(k for k, v in got.items() if v)
        rows.append({"question": q, "route": routed.route, **got})
    n = len(gold["terms"])
    return {"questions": n, "budget": BUDGET, **{k: round(hits[k] / n, 3) for k in
                                                 ("navigator", "collapsed", "bm25-leaves")},
            "definition_route": sum(r["route"] == "definition" for r in rows), "rows": rows}


def cost(h: Hierarchy) -> dict:
    started = time.perf_counter()
    annotate(h.model_copy(update={"terms": [], "edges": [], "unresolved": [], "checks": []}))
    passes = time.perf_counter() - started
    leaves = len(h.leaves())
    return {"leaves": leaves, "seconds": round(passes, 2), "seconds_per_100_leaves": round(100 * passes / leaves, 3),
            "llm_calls": 0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/chunker-knowledge"))
    parser.add_argument("--reuse", action="store_true")
    parser.add_argument("--only", action="append", help="rust, fastapi, pdf, vault (repeat)")
    args = parser.parse_args()
    corpus = Path(os.environ.get("CHUNKER_CORPUS", ROOT.parent / "shared" / "corpus")).resolve()
    if not corpus.is_dir():
        sys.exit(f"no corpus at {corpus}: set CHUNKER_CORPUS")
    args.work.mkdir(parents=True, exist_ok=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    result_file = RESULTS / "knowledge.json"
    report = json.loads(result_file.read_text()) if result_file.is_file() else {}
    wanted = set(args.only or ["rust", "fastapi", "pdf", "vault"])
    if "rust" in wanted:
        gold = json.loads((GOLD / "rust.json").read_text(encoding="utf-8"))
        h = build(corpus / "markdown", args.work / "rust", args.reuse)
        report["rust"] = {"terms": term_figures(h, gold), "references": reference_figures(h),
                          "navigation": navigation_figures(args.work / "rust", gold), "cost": cost(h)}
    if "fastapi" in wanted:
        gold = json.loads((GOLD / "fastapi.json").read_text(encoding="utf-8"))
        folder = corpus / "folders" / "fastapi-docs"
        h = build(folder, args.work / "fastapi", args.reuse)
        report["fastapi"] = {"terms": term_figures(h, gold), "links": fastapi_links(h, folder),
                             "references": reference_figures(h),
                             "navigation": navigation_figures(args.work / "fastapi", gold), "cost": cost(h)}
    if "pdf" in wanted:
        for pdf in sorted((corpus / "pdf").glob("*.pdf")):
            h = build(pdf, args.work / pdf.stem, args.reuse)
            report[f"pdf:{pdf.name}"] = {"references": reference_figures(h), "cost": cost(h),
                                         "terms": len(h.terms)}
    if "vault" in wanted:
        from vault_gen import generate

        vault = args.work / "vault"
        if not (args.reuse and vault.is_dir()):
            links = generate(vault, 40, 7)
            (args.work / "vault.links.json").write_text(json.dumps(links), encoding="utf-8")
        h = build(vault, args.work / "vault-out", args.reuse)
        report["vault"] = {"links": vault_figures(h, args.work / "vault-out", args.work / "vault.links.json"),
                           "cost": cost(h)}
    result_file.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps({k: {kk: {x: y for x, y in vv.items() if not isinstance(y, list)}
                          if isinstance(vv, dict) else vv for kk, vv in v.items()}
                      for k, v in report.items()}, indent=1))


if __name__ == "__main__":
    main()

"""`chunker inspect OUT`: is the run finished, what does the tree look like, why did
the model decide what it did (`--calls`)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import typer
from rich.console import Console
from rich.tree import Tree

from chunker.runs.rundir import RunDir
from chunker.llm.calllog import read_calls

STATUS_TEXT = {
    "finished": "finished: hierarchy.json and the Markdown tree are complete",
    "unfinished": "UNFINISHED: the tree is missing or partial; continue with `chunker resume {path}`",
    "absent": "no such directory",
    "empty": "empty directory: no chunker run here",
    "foreign": "not a chunker run directory",
}


def _stored_nodes(run: RunDir, prefix: str = "chunker.%.nodes") -> int:
    """Records under a store prefix: every document's nodes, or a corpus's finished documents."""
    if not run.store.exists():
        return 0
    conn = sqlite3.connect(f"file:{run.store}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT COUNT(*) FROM store WHERE prefix LIKE ?", (prefix,)).fetchone()[0]
    except sqlite3.Error:
        return 0
    finally:
        conn.close()


def _outline(h: dict, max_children: int) -> Tree:
    nodes = {n["id"]: n for n in h["nodes"]}

    def label(n: dict) -> str:
        summary = " ".join(n["summary"].split())
        return f"[bold]{n['id']}[/] {n['filename']}  {summary[:100]}"

    root = nodes[h["root"]]
    tree = Tree(label(root))

    def add(branch: Tree, node: dict) -> None:
        for cid in node["children"][:max_children]:
            add(branch.add(label(nodes[cid])), nodes[cid])
        if len(node["children"]) > max_children:
            branch.add(f"... {len(node['children']) - max_children} more")

    add(tree, root)
    return tree


def inspect_command(
    output_dir: Path = typer.Argument(..., help="A run directory."),
    calls: bool = typer.Option(False, "--calls", help="List the logged LLM calls."),
    call: int = typer.Option(0, "--call", help="Show one call's full prompt and response."),
    limit: int = typer.Option(50, "--limit", help="How many calls to list."),
    max_children: int = typer.Option(12, "--max-children", help="Children shown per node."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Show whether a run is finished, its tree outline and stats, or its LLM calls."""
    console = Console()
    run = RunDir(output_dir)
    status = run.status()
    if call:
        rows = [r for r in read_calls(run.path) if r["id"] == call]
        if not rows:
            raise typer.Exit(2)
        r = rows[0]
        console.print(f"[bold]call {r['id']}[/] {r['node']} ({r['task']}) {r['outcome']} "
                      f"{r['prompt_tokens']}+{r['completion_tokens']} tokens {r['duration_ms']:.0f} ms")
        console.rule("prompt")
        console.print(r["prompt"], markup=False, highlight=False)
        console.rule("response")
        console.print(r["response"] or "", markup=False, highlight=False)
        if r.get("grounding"):
            console.rule("grounding check")
            console.print(r["grounding"], markup=False, highlight=False)
        return
    if calls:
        rows = read_calls(run.path)[-limit:]
        if as_json:
            print(json.dumps(rows))
            return
        for r in rows:
            response = " ".join((r["response"] or "").split())[:90]
            rejected = " [rejected by the grounding check]" if "rejected" in (r.get("grounding") or "") else ""
            console.print(f"{r['id']:>5} {r['node']:<19} {r['outcome'][:20]:<20} "
                          f"{r['prompt_tokens']:>6}+{r['completion_tokens']:<5} {response}{rejected}",
                          markup=False, highlight=False)
        return
    meta = run.read_meta() if run.meta_file.exists() else {}
    info = {"path": str(run.path), "status": status, "model": meta.get("model"),
            "source": meta.get("source"), "started_at": meta.get("started_at"),
            "finished_at": meta.get("finished_at"), "stored_nodes": _stored_nodes(run)}
    if meta.get("kind") == "corpus":  # a corpus: how far its documents are
        info.update(source=meta.get("root"), documents=len(meta.get("documents", [])),
                    documents_done=_stored_nodes(run, f"corpus.{meta.get('corpus_key', '%')}.documents"),
                    skipped=len(meta.get("skipped", [])))
    if meta.get("update"):  # an update started and not finished: the tree shown is the old one
        info["update"] = {"status": "unfinished", "started_at": meta["update"].get("started_at"),
                          "resume": f"chunker resume {run.path}"}
    if meta.get("updates"):
        info["updates"] = len(meta["updates"])
    hierarchy = None
    if status == "finished":
        hierarchy = json.loads((run.path / "hierarchy.json").read_text(encoding="utf-8"))
    if as_json:
        info["stats"] = (hierarchy or {}).get("meta", {}).get("stats") or meta.get("stats")
        print(json.dumps(info, sort_keys=True))
        return
    console.print(f"[bold]{run.path}[/]: " + STATUS_TEXT[status].format(path=run.path))
    for key in ("source", "documents", "documents_done", "skipped", "model", "started_at", "finished_at",
                "updates", "stored_nodes"):
        if info.get(key) is not None:
            console.print(f"  {key}: {info[key]}")
    if info.get("update"):
        console.print(f"  [yellow]an update was interrupted[/] (started {info['update']['started_at']}); "
                      f"the tree below is the one before it: continue with `chunker resume {run.path}`")
    if hierarchy:
        from chunker.cli.progress import print_stats  # here: it imports the progress bar too

        console.print(_outline(hierarchy, max_children))
        print_stats(console, hierarchy["meta"]["stats"], meta.get("wall_s"), False)
    if status in ("absent", "empty", "foreign"):
        raise typer.Exit(2)

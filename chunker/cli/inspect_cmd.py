"""`chunker inspect OUT`: is the run finished, what does the tree look like, why did
the model decide what it did (`--calls`)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.tree import Tree

from chunker.cli.common import EXIT_USAGE, checked_store, fail
from chunker.runs.rundir import RunDir, RunDirError
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
    if run.store_url is not None:  # the same table in PostgreSQL (LangGraph's PostgresStore)
        from chunker.persistence.store_url import connect

        with connect(run.store_url) as conn:
            return conn.execute("SELECT COUNT(*) FROM store WHERE prefix LIKE %s", (prefix,)).fetchone()[0]
    if not run.store.exists():
        return 0
    conn = sqlite3.connect(f"file:{run.store}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT COUNT(*) FROM store WHERE prefix LIKE ?", (prefix,)).fetchone()[0]
    except sqlite3.Error:
        return 0
    finally:
        conn.close()


def _queue(run: RunDir, corpus_key: str) -> dict:
    """A corpus in the database: its documents' jobs by state, and the failed ones' errors."""
    from chunker.corpus.queue import queue_status
    from chunker.persistence.store_url import connect

    with connect(run.store_url) as conn:
        queued = conn.execute("SELECT to_regclass('procrastinate_jobs') IS NOT NULL").fetchone()[0]
        s = queue_status(conn, corpus_key) if queued else None
        rows = conn.execute("SELECT value FROM store WHERE prefix = %s ORDER BY key",
                            (f"corpus.{corpus_key}.failed",)).fetchall()
    out: dict = {"failed": [r[0] for r in rows]}
    if s is not None:
        out["queue"] = {"queued": s.queued, "running": s.running, "done": s.done, "failed": s.failed}
    return out


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
    store: Optional[str] = typer.Option(None, "--store", help="The database of a run started with "
                                        "--store: its documents' progress (queued, running, done, failed) "
                                        "and its calls."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Show whether a run is finished, its tree outline and stats, or its LLM calls."""
    from chunker.runs.record import CorpusRun

    console = Console()
    run = RunDir(output_dir, store_url=checked_store(store))
    status = run.status()
    try:
        record = run.read_record() if run.meta_file.exists() else None
        if record is not None and store:
            run.check_store(record)
    except RunDirError as exc:
        raise fail(str(exc), EXIT_USAGE)
    log = run.calls_target(record.log_key if record else "")
    if call:
        rows = [r for r in read_calls(log) if r["id"] == call]
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
        rows = read_calls(log)[-limit:]
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
    info = {"path": str(run.path), "status": status, "model": record and record.model,
            "store": record and record.store, "source": record and getattr(record, "source", None),
            "started_at": record and record.started_at, "finished_at": record and record.finished_at,
            # OUT's own store; a database holds many runs', so no such count is this run's
            "stored_nodes": _stored_nodes(run) if run.store_url is None else None}
    if isinstance(record, CorpusRun):  # a corpus: how far its documents are
        info.update(source=record.root, documents=len(record.documents),
                    documents_done=_stored_nodes(run, f"corpus.{record.corpus_key}.documents"),
                    skipped=len(record.skipped))
        if run.store_url is not None:
            info.update(_queue(run, record.corpus_key))
    if record is not None and record.update is not None:  # an update started and not finished: the tree shown is the old one
        info["update"] = {"status": "unfinished", "started_at": record.update.started_at,
                          "resume": f"chunker resume {run.path}"}
    if record is not None and record.updates:
        info["updates"] = len(record.updates)
    hierarchy = None
    if status == "finished":
        hierarchy = json.loads((run.path / "hierarchy.json").read_text(encoding="utf-8"))
    if as_json:
        info["stats"] = (hierarchy or {}).get("meta", {}).get("stats") or (record.stats if record else None)
        print(json.dumps(info, sort_keys=True))
        return
    console.print(f"[bold]{run.path}[/]: " + STATUS_TEXT[status].format(path=run.path))
    for key in ("source", "store", "documents", "documents_done", "skipped", "queue", "model", "started_at",
                "finished_at", "updates", "stored_nodes"):
        if info.get(key) is not None:
            console.print(f"  {key}: {info[key]}", highlight=False)
    for failed in info.get("failed", []):
        console.print(f"  [red]failed[/] {failed['rel']}: {failed['reason']}", highlight=False)
    if record is not None and record.store and run.store_url is None:
        console.print(f"  its checkpoints and calls are in {record.store}: pass --store URL to see them")
    if info.get("update"):
        console.print(f"  [yellow]an update was interrupted[/] (started {info['update']['started_at']}); "
                      f"the tree below is the one before it: continue with `chunker resume {run.path}`")
    if hierarchy:
        from chunker.cli.progress import print_stats  # here: it imports the progress bar too

        console.print(_outline(hierarchy, max_children))
        print_stats(console, hierarchy["meta"]["stats"], record.wall_s if record else None, False)
    if status in ("absent", "empty", "foreign"):
        raise typer.Exit(2)

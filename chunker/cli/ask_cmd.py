"""`chunker ask OUT "question"`: find in a finished tree the passages a question needs.

One progress line per step on stderr; the passages read (a collapsed search without a model),
or the answer, path and leaves (a walk), and the tokens read on stdout
(`--json`: one line per question). On a corpus tree each leaf is named with its file and
characters (`--json`: a `sources` list). Exit codes: 0 done, 2 bad input (a folder without a
finished run, an empty question, a bad questions file, an unreachable model).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from chunker.cli.common import checked_store
from chunker.navigation.settings import NavigatorSettings

err = Console(stderr=True)
EXIT_USAGE = 2


def _fail(message: str) -> typer.Exit:
    err.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(EXIT_USAGE)


def read_questions(path: Path) -> list[str]:
    """The `question` field of each JSON line of `path` (blank lines skipped)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read {path}: {exc}") from None
    out = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            raise ValueError(f"{path}:{number} is not a JSON object") from None
        if not isinstance(record, dict) or not str(record.get("question") or "").strip():
            raise ValueError(f"{path}:{number} has no non-empty `question` field")
        out.append(str(record["question"]))
    if not out:
        raise ValueError(f"{path} holds no questions")
    return out


def _ask_log(output_dir: Path, store: str | None) -> str | None:
    """The database's log for this tree's questions (`<run's log>/ask`), or none."""
    if store is None:
        return None
    from chunker.runs.rundir import RunDir

    run = RunDir(output_dir, store_url=store)
    record = run.read_record() if run.meta_file.exists() else None
    return run.calls_target(f"{record.log_key if record else run.path}/ask")


def ask_command(
    output_dir: Path = typer.Argument(..., help="OUT of a finished `chunker run`."),
    question: Optional[str] = typer.Argument(None, help="The question (or use --questions)."),
    questions: Optional[Path] = typer.Option(None, "--questions", help="A JSONL file: one "
                                             "object with a `question` field a line."),
    model: str = typer.Option("local", "--model", "-m", help="Model that chooses children and "
                              "judges leaves: local, ollama:NAME, scripted..."),
    embeddings_only: bool = typer.Option(False, "--embeddings-only", help="Walk by embedding "
                                         "similarity alone, with no LLM."),
    embeddings: str = typer.Option(NavigatorSettings.embeddings, "--embeddings", help="Search "
                                   "method: local, lexical, ollama:NAME, or bm25 (none: the "
                                   "same, older spelling)."),
    budget: int = typer.Option(NavigatorSettings.budget_tokens, "--budget",
                               help="Cap on the tokens the walk reads."),
    max_leaves: int = typer.Option(NavigatorSettings.max_leaves, "--max-leaves",
                                   help="Open at most this many leaves."),
    start: Optional[str] = typer.Option(None, "--start", help="Start at this node id instead "
                                        "of the root (scope the question to one section)."),
    mode: str = typer.Option(NavigatorSettings.mode, "--mode", help="collapsed: rank every passage "
                             "and summary of the tree at once and read the best within the budget "
                             "(a model then starts from the best branches); descend: walk down "
                             "from the root, choosing a child at every level."),
    prefix: Optional[str] = typer.Option(None, "--prefix", help="Corpus trees: search only the "
                                         "files whose path starts with this ('tutorial/', a file)."),
    store: Optional[str] = typer.Option(None, "--store", help="Log the walk's LLM calls in this database "
                                        "(the run's, `chunker run --store`), beside the run's own calls."),
    as_json: bool = typer.Option(False, "--json", help="One JSON line per question."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress lines."),
) -> None:
    """Find the passages a question needs, within --budget tokens.

    By default every passage and section summary of the tree is ranked at once (BM25 and
    embeddings fused) and the best are read and printed in document order, each with where it
    sits; with a model (not --embeddings-only) the model chooses among the best branches and
    descends from there, judging the leaves it reads. --mode descend walks down from the root.
    """
    from chunker.llm.errors import ModelUnavailable
    from chunker.llm.registry import preflight
    from chunker.navigation.llm import llm_settings
    from chunker.embeddings.registry import preflight_embeddings
    from chunker.graph.navigator_ask import ask
    from chunker.navigation.search import BM25_SPECS
    from chunker.navigation.errors import NavigationError
    from chunker.navigation.tree import open_tree

    try:
        if (question is None) == (questions is None):
            raise ValueError("give either a QUESTION or --questions FILE (one of the two)")
        asked = [question] if question is not None else read_questions(questions)
        if not all(q.strip() for q in asked):
            raise ValueError("the question is empty")
        tree = open_tree(output_dir)
        if start is not None:
            tree.node(start)
        cfg = NavigatorSettings(model=None if embeddings_only else model,
                                embeddings=embeddings, budget_tokens=budget, max_leaves=max_leaves,
                                mode=mode,
                                calls_dir=_ask_log(output_dir, checked_store(store)))
        if cfg.model is not None:
            preflight(llm_settings(cfg))
        if embeddings not in BM25_SPECS:
            preflight_embeddings(embeddings)
    except (ValueError, NavigationError, ModelUnavailable) as exc:
        raise _fail(str(exc))

    def progress(event: dict) -> None:
        if not quiet:
            err.print(f"  {event['step']:<9} {event['node']}  ({event['tokens_read']} tokens read)",
                      highlight=False)

    out = Console(soft_wrap=True)
    for q in asked:
        if not quiet:
            err.print(f"[bold]?[/] {q}", highlight=False)
        try:
            result = ask(str(output_dir), q, cfg, on_step=progress, start_node=start, prefix=prefix)
        except NavigationError as exc:
            raise _fail(str(exc))
        refs = [tree.ref(leaf) for leaf in result.leaves]
        if as_json:
            record = result.model_dump(include={"question", "answer", "path", "leaves",
                                                "passages", "tokens_read", "status", "route"})
            if tree.is_corpus:  # single documents: the line stays as it was
                record["sources"] = [{"id": r.id, "source": r.source, "span": r.span} for r in refs]
            print(json.dumps(record, ensure_ascii=False), flush=True)
        elif result.status == "read":  # a collapsed search: the passages, in document order
            for p in result.passages:
                at = ", ".join(x for x in (p["source"], p["span"] and f"chars {p['span'][0]}-{p['span'][1]}") if x)
                out.print(f"[{p['id']}] {p['where']}" + (f" ({at})" if at else "")
                          + (" (summary of the section)" if p["kind"] == "summary" else "")
                          + (" (record)" if p["kind"] == "record" else ""),
                          style="bold", highlight=False, markup=False)
                out.print(p["text"].strip() + "\n", highlight=False, markup=False)
            via = f" via {result.route}" if result.route != "collapsed" else ""
            out.print(f"{len(result.passages)} passages | {result.tokens_read} tokens read | read{via}",
                      style="dim", highlight=False, markup=False)
        else:
            out.print(result.answer, highlight=False, markup=False)
            leaves = ", ".join(r.label() for r in refs)  # a single document's: the ids
            out.print(f"path {' > '.join(result.path)} | leaves {leaves} | "
                      f"{result.tokens_read} tokens read | {result.status}", style="dim",
                      highlight=False, markup=False)

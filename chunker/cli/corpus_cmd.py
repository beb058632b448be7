"""`chunker run FOLDER` (or several paths) and `chunker resume` of such a run: a corpus.

Bad files never sink the corpus: they are listed as skipped, with their reasons, and the
run goes on; `--strict` refuses the corpus before any work when there is one (exit 2).
"""

from __future__ import annotations

import time
from pathlib import Path

from chunker.cli.common import EXIT_USAGE, err, fail, report, run_exits
from chunker.document.loader import BadInput
from chunker.llm.errors import ModelUnavailable
from chunker.runs.rundir import RunDir, RunDirError


def start_corpus(paths: list[Path], model: str, settings: dict, run_dir: RunDir, *, force: bool,
                 include: list[str], exclude: list[str], strict: bool, quiet: bool, as_json: bool,
                 workers: int | None = None) -> None:
    from chunker.config.settings import ChunkerSettings
    from chunker.corpus.discover import CorpusError, discover
    from chunker.corpus.runner import corpus_record
    from chunker.embeddings import preflight_embeddings
    from chunker.llm.registry import preflight, with_model

    started = time.perf_counter()
    try:
        ctx = ChunkerSettings(model=model, **settings)
        discovery = discover(paths, out_dir=run_dir.path, include=include, exclude=exclude,
                             encoding=ctx.input.encoding, max_bytes=ctx.input.max_bytes)
        if strict and discovery.skipped:
            first = discovery.skipped[0]
            raise BadInput(f"{first.rel}: {first.reason} ({len(discovery.skipped)} file(s) would be "
                           "skipped; --strict refuses them: fix or exclude them)")
        if not discovery.files:
            raise BadInput(f"no documents found under {', '.join(str(p) for p in paths)}"
                           + (f" ({len(discovery.skipped)} skipped)" if discovery.skipped else ""))
        preflight(ctx.llm)
        if ctx.llm.vision_model:  # the corpus's PDFs' rewrites go to it
            preflight(with_model(ctx.llm, ctx.llm.vision_model))
        preflight_embeddings(ctx.embedding.provider)
        run_dir.prepare_new(force)
        run_dir.acquire_lock()
    except (BadInput, CorpusError, ValueError, TypeError) as exc:
        raise fail(str(exc), EXIT_USAGE)
    except (ModelUnavailable, RunDirError) as exc:
        raise fail(str(exc), EXIT_USAGE)
    record = corpus_record(discovery, ctx, settings, paths=paths, store=run_dir.store_url)
    run_dir.write_record(record)
    if workers is not None:  # the documents go to the queue; workers take them
        from chunker.cli.worker_cmd import queue_corpus

        run_dir.release_lock()  # the last worker writes the tree
        return queue_corpus(run_dir, record, workers, started=started, quiet=quiet, as_json=as_json)
    _execute(run_dir, ctx, started, quiet, as_json)


def resume_corpus(run_dir: RunDir, record, *, moved_to: Path | None, quiet: bool, as_json: bool) -> None:
    """Continue the corpus; `moved_to`: where its root folder is now (each file is found at
    its recorded place under it, and must still hold the content it was found with)."""
    from chunker.embeddings import preflight_embeddings
    from chunker.llm.registry import preflight

    started = time.perf_counter()
    try:
        if moved_to is not None:
            if not moved_to.is_dir():
                raise RunDirError(f"{moved_to} is not a folder: --source names the corpus's root now")
            record = relocate(run_dir, record, moved_to.resolve())
        ctx = record.to_settings()
        preflight(ctx.llm)
        preflight_embeddings(ctx.embedding.provider)
        run_dir.acquire_lock()
    except (ModelUnavailable, RunDirError, ValueError, TypeError, KeyError) as exc:
        raise fail(str(exc), EXIT_USAGE)
    _execute(run_dir, ctx, started, quiet, as_json)


def relocate(run_dir: RunDir, record, root: Path):
    """run.json with the corpus's root, and every document's path, under `root`."""
    documents = [d.model_copy(update={"path": root / d.rel}) for d in record.documents]
    return run_dir.update_record(root=str(root), documents=documents)


def _execute(run_dir: RunDir, ctx, started: float, quiet: bool, as_json: bool) -> None:
    from chunker.cli.progress import CorpusProgress
    from chunker.corpus.document_run import DocumentSkipped
    from chunker.corpus.runner import execute_corpus

    # the checkpoints hold every finished step of every document
    with run_exits(run_dir, usage=(BadInput, DocumentSkipped)), \
            CorpusProgress(err, enabled=not quiet and not as_json) as progress:
        result = execute_corpus(run_dir, ctx, progress.on_event)
    report(run_dir, ctx, result.stats, started, quiet, as_json, skipped=result.skipped)

"""`chunker update OUT` on a corpus: files added, deleted, moved and edited, in one update."""

from __future__ import annotations

from pathlib import Path

from chunker.cli.common import EXIT_USAGE, err, fail, report, run_exits
from chunker.document.loader import BadInput
from chunker.llm.errors import ModelUnavailable
from chunker.runs.rundir import RunDir, RunDirError


def update_corpus(run_dir: RunDir, record, changes: dict, *, moved_to: Path | None, dry_run: bool,
                  quiet: bool, as_json: bool, started: float) -> None:
    from chunker.config.settings import ChunkerSettings
    from chunker.corpus.discover import CorpusError
    from chunker.corpus.runner import Generation, corpus_record
    from chunker.corpus.update import deleted_nodes, plan_corpus
    from chunker.embeddings import preflight_embeddings
    from chunker.llm.registry import preflight
    from chunker.output.hierarchy import Hierarchy, UpdateRecord
    from chunker.runs.record import CorpusUpdate, now
    from chunker.runs.rundir import changed

    running = record.update
    try:
        if running and (changes or dry_run):
            raise RunDirError(f"{run_dir.path} holds an unfinished update: continue it with "
                              f"`chunker resume {run_dir.path}` first")
        tree = Hierarchy.model_validate_json((run_dir.path / "hierarchy.json").read_bytes())
        names = {n.id: n.filename for n in tree.nodes if n.filename}
        updates = list(tree.meta.updates or [])
        if running:  # hierarchy.json may be the new tree already: its names are the same, not its updates
            generation = Generation(run=run_dir, record=running.corpus, previous=running.previous,
                                    names=names, updates=[UpdateRecord.model_validate(u) for u in running.updates])
            ctx = generation.record.to_settings()
        else:
            settings = {**record.settings, **{k: v for k, v in changes.items() if k != "model"}}
            ctx = ChunkerSettings(model=changes.get("model", record.model), **settings)
            plan = plan_corpus(record, tree, ctx, out_dir=run_dir.path, moved_to=moved_to)
            if not plan.changed and not dry_run and (changes or moved_to is not None):
                # what shapes nothing built, and where the corpus is now, are kept for later runs;
                # the tree's files stay as they are
                from chunker.cli.corpus_cmd import relocate

                if moved_to is not None:
                    record = relocate(run_dir, record, moved_to.resolve())
                    run_dir.update_record(paths=[str(p) for p in plan.paths])
                run_dir.update_record(settings=settings, model=ctx.llm.model, config=ctx.flat_dict())
            if dry_run or not plan.changed:
                return _print_plan(run_dir, record, tree, plan, ctx, dry_run, quiet, as_json)
            gen = corpus_record(plan.discovery, ctx, settings, paths=plan.paths, include=record.include,
                                exclude=record.exclude, units=plan.units, store=run_dir.store_url)
            gen = changed(gen, stale=plan.stale, deleted=len(plan.deleted), changes=plan.as_dict(),
                          deleted_nodes=deleted_nodes(tree, plan.deleted))
            generation = Generation(run=run_dir, record=gen, previous=record.corpus_key, names=names,
                                    updates=updates)
        preflight(ctx.llm)
        preflight_embeddings(ctx.embedding.provider)
        run_dir.acquire_lock()
    except (BadInput, CorpusError, ValueError, TypeError, KeyError) as exc:
        raise fail(str(exc), EXIT_USAGE)
    except (ModelUnavailable, RunDirError) as exc:
        raise fail(str(exc), EXIT_USAGE)
    if not running:
        run_dir.update_record(update=CorpusUpdate(
            previous=generation.previous, corpus=generation.record, started_at=now(),
            updates=[u.model_dump(mode="json") for u in generation.updates]))
    _execute_update(run_dir, ctx, generation, started, quiet, as_json)


def _execute_update(run_dir: RunDir, ctx, generation, started: float, quiet: bool, as_json: bool) -> None:
    from chunker.cli.progress import CorpusProgress
    from chunker.corpus.document_run import DocumentSkipped
    from chunker.corpus.runner import execute_corpus
    from chunker.corpus.update import drop_generation
    from chunker.runs.record import CorpusUpdateEntry, now
    from chunker.runs.rundir import changed

    with run_exits(run_dir, usage=(BadInput, DocumentSkipped)), \
            CorpusProgress(err, enabled=not quiet and not as_json) as progress:
        result = execute_corpus(run_dir, ctx, progress.on_event, generation)
        drop_generation(run_dir, ctx, generation)
        old = run_dir.read_record()
        this = CorpusUpdateEntry(at=now(), previous=generation.previous, changes=generation.record.changes)
        # the update's corpus is the run's now
        run_dir.write_record(changed(generation.record, updates=[*old.updates, this]))
    report(run_dir, ctx, result.stats, started, quiet, as_json, skipped=result.skipped)


def _print_plan(run_dir: RunDir, record, tree, plan, ctx, dry_run: bool, quiet: bool, as_json: bool) -> None:
    docs = _document_plans(run_dir, record, plan, ctx) if dry_run and plan.changed else {}
    from chunker.cli.update_cmd import plan_console
    from chunker.update.document import text_calls

    expected = sum(p["expected_calls"] for p in docs.values())
    calls = tree.meta.stats.get("calls.total", 0)
    added = set(plan.added)
    # new files, read at the tree's own rates (its passages, blocks, boundary choices per char)
    expected += text_calls(ctx, sum(f.size for f in plan.discovery.files if f.rel in added), tree.nodes)
    data = {"dry_run": dry_run, **plan.as_dict(), "documents": docs, "expected_calls": expected,
            "calls_of_the_run": calls}
    out = plan_console(data, as_json, quiet)
    if out is None:
        return
    if not plan.changed:
        out.print(f"{run_dir.path} is up to date with {record.root}: nothing to do")
        return
    for label, items in (("added", plan.added), ("deleted", plan.deleted), ("edited", plan.edited),
                         ("moved", [f"{a} -> {b}" for a, b in plan.moved])):
        if items:
            out.print(f"{label} ({len(items)}): {', '.join(items[:10])}{' ...' if len(items) > 10 else ''}")
    out.print(f"unchanged: {len(plan.unchanged)} file(s), no call")
    if plan.toc:
        out.print(f"{plan.toc}: the upper levels are planned again")
    for shape, reasons in plan.stale.items():
        out.print(f"stale {shape}: {'; '.join(reasons)}")
    for rel, p in docs.items():
        out.print(f"  {rel}: {p['mode']}, leaves to redo {len(p['leaves_stale'])} of {p['leaves']}, "
                  f"blocks to redo {len(p['blocks_stale'])} of {p['blocks']}")
    out.print(f"LLM calls expected: about {expected:,}, plus the folders above a change "
              f"(the tree's last run made {calls:,})")
    if dry_run:
        out.print("nothing written (--dry-run)")


def _document_plans(run_dir: RunDir, record, plan, ctx) -> dict[str, dict]:
    """Each edited (or stale) document's own plan, from its old record and its new text."""
    import hashlib

    from chunker.corpus.document_run import document_settings
    from chunker.document.loader import decode_document
    from chunker.corpus.store import CorpusStore
    from chunker.output.hierarchy import Hierarchy
    from chunker.runs.runner import persistent_graph
    from chunker.readers.registry import reader as reader_for
    from chunker.readers.source import Source, read_settings
    from chunker.update.document import plan_document

    out = {}
    with persistent_graph(run_dir, ctx) as graph:
        cs = CorpusStore(graph.store, record.corpus_key)
        for unit in plan.units:
            if unit.reuse != "update":
                continue
            doc_ctx = document_settings(unit, record.settings, ctx.llm.model)
            old = cs.document(unit.key)
            reader = reader_for(unit.kind)
            if reader.extracted:  # the extraction the document's thread will read
                text = Source.open(unit.path, read_settings(doc_ctx), reader).text
            else:  # decoded as the run decodes it (line ends kept)
                text = decode_document(unit.path.read_bytes(), encoding=doc_ctx.input.encoding, source=unit.rel)
            t = Hierarchy.model_validate(old["tree"])
            sha = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
            p = plan_document(t.nodes, t.root, t.meta.config, t.meta.signature, text, sha, doc_ctx,
                              flat_tree=bool(t.meta.stats.get("strategy.flat")))
            out[unit.rel] = p.as_dict()
    return out

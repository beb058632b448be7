"""`chunker run` and `chunker resume` on a file whose text is an extraction (every reader's but
plain text's and Markdown's: PDF, HTML, DOCX, EPUB, ...).

Such a run is a text run on the extracted `OUT/source.md`: its record's `source` and
`source_sha256` name that file (so the resume checks of text runs apply unchanged), and
`source_kind` (the reader's id), `original` and `original_sha256` name the file it came from
(runs started before the reader interface wrote `pdf` and `pdf_sha256`: read as those). A resume
never re-extracts while source.md is there; when it is gone, the original is read again and
must give the very same text.
"""

from __future__ import annotations

import logging
from pathlib import Path

from chunker.config.settings import ChunkerSettings
from chunker.output import manifest
from chunker.readers.model import ReaderError
from chunker.readers.source import Source, file_sha256, read_settings, reader_of
from chunker.readers.source_map import SOURCE_FILE, atomic_write, load_map, relocate, write_map
from chunker.runs.record import DocumentRun
from chunker.runs.rundir import RunDir, RunDirError

log = logging.getLogger("chunker.readers")


def write_source(src: Source, out_dir: Path, meta_dir: Path) -> Path:
    """Write OUT/source.md and OUT/.chunker/places.json (each atomically), and take the
    figures' images into OUT/.chunker/media/ (the reader's, and local files an HTML page
    names); returns source.md."""
    from chunker.structured.media import intake

    source = out_dir / SOURCE_FILE
    atomic_write(source, src.text)
    write_map(meta_dir, src.reader_id, src.path, src.fingerprint, src.places, src.text)
    intake(meta_dir, src.text, src.path, src.images)
    return source


def start(run: RunDir, src: Source) -> tuple[str, str]:
    """Write source.md and the source map into OUT; returns (source path, its text's sha256)."""
    source = write_source(src, run.path, run.meta_dir)
    manifest.record(run.path, SOURCE_FILE)  # chunker's own: a later --force may replace it
    return str(source), src.text_sha256


def record_fields(src: Source) -> dict:
    """What the run's record holds of the original besides the extracted source."""
    return {"source_kind": src.reader_id, "original": str(src.path), "original_sha256": src.fingerprint}


def announce(ctx: ChunkerSettings, src: Source) -> None:
    """The source's notes, once per run (on stderr unless --quiet: logging's level)."""
    for line in src.notes(vision_model=ctx.llm.vision_model is not None):
        log.warning(line)


def prepare_resume(run: RunDir, record: DocumentRun, moved_to: Path | None, ctx: ChunkerSettings) -> None:
    """Before resuming an extracted run: a moved original must be the same file; a missing
    source.md is extracted again and must be the same text. `check_source` then checks
    source.md (for such a run `--source` names the original, so it is handled here)."""
    if moved_to is not None:
        if not moved_to.exists():
            raise RunDirError(f"no such file: {moved_to}")
        if file_sha256(moved_to) != record.original_sha256:
            raise RunDirError(f"{moved_to} is not the file the run started on (its content hash differs)")
        record = run.update_record(original=str(moved_to.resolve()))
        relocate(run.path, moved_to)
    source = run.path / SOURCE_FILE
    if not source.exists():
        original = Path(record.original)
        try:
            src = Source.open(original, read_settings(ctx), reader_of(original))
        except ReaderError as exc:
            raise RunDirError(str(exc)) from None
        if src.text_sha256 != record.source_sha256:
            raise RunDirError(f"{original} no longer extracts to the text the run started on; "
                              "start a new run with --force")
        write_source(src, run.path, run.meta_dir)
        manifest.record(run.path, SOURCE_FILE)
    load_map(run.path)  # registers the page unit for the text

"""`chunker run` and `chunker resume` on a PDF.

A PDF run is a text run on the extracted `OUT/source.md`: run.json's `source` and
`source_sha256` name that file (so the resume checks of text runs apply unchanged), and
`source_kind: pdf`, `pdf` and `pdf_sha256` name the PDF it came from. A resume never
re-extracts while source.md is there; when it is gone, the PDF is extracted again and must
give the very same text.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

from chunker.runs.rundir import RunDir, RunDirError
from chunker.config.settings import ChunkerSettings
from chunker.document.pdf_source import (PAGE_MAP_FILE, SOURCE_FILE, PdfSource, extract_source, file_sha256,
                                         load_page_map, relocate_pdf, write_source)
from chunker.output import manifest

log = logging.getLogger("chunker.pdf")


def pdf_settings(doc: Path, settings: dict) -> dict:
    """The run's settings for a PDF: `pdf_source` set, whole pages as the split unit unless
    the user chose one."""
    return {"split_unit": "page", **settings, "pdf_source": str(doc.resolve())}


def start(run: RunDir, src: PdfSource) -> tuple[str, str]:
    """Write source.md and the page map into OUT; returns (source path, its text's sha256)."""
    source = write_source(src, run.path, run.meta_dir)
    manifest.record(run.path, SOURCE_FILE)  # chunker's own: a later --force may replace it
    digest = hashlib.sha256(src.text.encode("utf-8", "surrogatepass")).hexdigest()
    return str(source), digest


def meta_fields(src: PdfSource) -> dict:
    """What run.json records of the PDF besides the extracted source."""
    return {"source_kind": "pdf", "pdf": str(src.pdf), "pdf_sha256": src.sha256}


def announce(ctx: ChunkerSettings, src: PdfSource) -> None:
    """One note per run: text only without a vision model, and which pages are scans."""
    scanned = src.scanned_pages
    if ctx.llm.vision_model is None:
        line = "no --vision-model: PDF pages are read as text only"
        if scanned:
            line += (f"; scanned page(s) {', '.join(map(str, scanned))} have no text layer and become "
                     "flagged leaves without their content")
        log.warning(line)  # on stderr unless --quiet (logging's level)


def prepare_resume(run: RunDir, meta: dict, moved_to: Path | None, ctx: ChunkerSettings) -> None:
    """Before resuming a PDF run: a moved PDF must be the same file; a missing source.md is
    re-extracted and must be the same text. `check_source` then checks source.md (for a PDF
    run `--source` names the PDF, so it is handled here)."""
    if moved_to is not None:
        if not moved_to.exists():
            raise RunDirError(f"no such file: {moved_to}")
        if file_sha256(moved_to) != meta.get("pdf_sha256"):
            raise RunDirError(f"{moved_to} is not the PDF the run started on (its content hash differs)")
        run.update_meta(pdf=str(moved_to.resolve()))
        meta["pdf"] = str(moved_to.resolve())
        if (run.meta_dir / PAGE_MAP_FILE).exists():
            relocate_pdf(run.path, moved_to)
    source = run.path / SOURCE_FILE
    if not source.exists():
        src = extract_source(Path(meta["pdf"]), max_bytes=ctx.input.max_bytes)
        digest = hashlib.sha256(src.text.encode("utf-8", "surrogatepass")).hexdigest()
        if digest != meta.get("source_sha256"):
            raise RunDirError(f"{meta['pdf']} no longer extracts to the text the run started on; "
                              "start a new run with --force")
        write_source(src, run.path, run.meta_dir)
        manifest.record(run.path, SOURCE_FILE)
    load_page_map(run.path)  # registers the page unit for the text

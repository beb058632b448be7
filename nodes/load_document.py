"""load_document: take the text (given, or read from a path) into the store."""

from __future__ import annotations

import hashlib
import logging
import uuid

from langgraph.runtime import Runtime

from chunker.document.loader import BadInput, decode_document, read_document
from chunker.config.settings import ChunkerSettings
from chunker.nodes.common import emit, run_store_for
from chunker.chunking.peel import is_structured, markdown_structure, store_structure
from chunker.chunking.strategy import choose_strategy, strategy_named
from chunker.nodes.reuse import seed_old_blocks
from chunker.state.schema import ChunkerState
from chunker.structured.describe import describe_figures
from chunker.structured.extract import build_records, may_hold_records, put_records, stats_of
from chunker.structured.media import attach, figure_images
from chunker.update.index import reuse_index

log = logging.getLogger("chunker")


def load_document(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    cfg = runtime.context
    text = state.get("text")
    if text is None:
        path = state.get("path")
        if not path:
            raise BadInput("give either `text` or `path`")
        text = read_document(path, encoding=cfg.input.encoding, max_bytes=cfg.input.max_bytes)
    else:
        # Validate passed text like a file's (empty, whitespace-only, NUL characters).
        text = decode_document(text.encode("utf-8", "surrogatepass"), source="text")
    doc_id = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    # A fresh key per run: runs that share a store never touch each other's records.
    # Resume continues from the checkpoint, which holds the key.
    rs = run_store_for(runtime, uuid.uuid4().hex[:16])
    rs.put_text(doc_id, text)
    rs.units(doc_id)  # segment once now, so the first window step is not slow
    # Parse Markdown once; the structure lives in the store (only when it is used).
    structure = markdown_structure(cfg.chunking, state.get("path"), text)
    structured = is_structured(structure)
    strategy = choose_strategy(cfg, text, structured, headings=bool(structure and structure.headings))
    stats = {f"strategy.{strategy}": 1}
    if structure is not None and structured and strategy_named(strategy).uses_structure:
        store_structure(rs, doc_id, structure)
        stats.update({"structure.headings": len(structure.headings),
                      "structure.sections": len(structure.sections),
                      "structure.atomic_units": len(structure.atomic_units)})
    # Tables, equations and figures as records, and their checks: before any model reads them
    images = figure_images(rs.out_dir, state.get("path"), text, cfg.input.max_bytes)
    if structure is not None or may_hold_records(text) or images:
        records = build_records(text, structure, [i for i in images if i.figure])
        records = records.model_copy(update={"figures": attach(records.figures, images)})
        if cfg.llm.vision_model and records.figures:  # a description of each figure's image
            records = describe_figures(cfg, rs, records, text, stats)
        put_records(rs, records)
        stats.update(stats_of(records))
    if state.get("reuse_key"):  # an update: the old blocks, for the summaries above new passages
        seed_old_blocks(rs, reuse_index(rs.store, state["reuse_key"], rs.memo))
    log.info("strategy %s (%s)", strategy, "structured" if structured else "plain text")
    emit(runtime, {"event": "progress", "cursor": 0, "total": len(text), "leaves": 0})
    return {
        "text": None,  # the store holds it now; checkpoints must not repeat it
        "run_key": rs.run_key,
        "doc_id": doc_id,
        "doc_chars": len(text),
        "strategy": strategy,
        "cursor": 0,
        "window_end": None,
        "leaf_count": 0,
        "pending": [[]],
        "latest": [None],
        "block_counts": [0],
        "finalizing": False,
        "root_id": None,
        "groups_todo": [],
        "rejoin_end": None,
        "patch_todo": [],
        "stats": stats,
    }

"""rewrite_chunk: the chunk as a self-sufficient rewritten text, stored beside its original.

The work itself is `rewrite_leaf`, a function of the leaf (index, span, how it was cut) and
its background: `background.context: written` calls it from rewrite_chunk as the cursor
reads, `source` from write_leaf once every leaf is cut (`nodes/write_leaf.py`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from langgraph.runtime import Runtime

from chunker import prompts
from chunker.background.policy import leaf_background
from chunker.config.settings import ChunkerSettings
from chunker.document.tokens import count_tokens
from chunker.llm.invoke import CallResult, call_llm
from chunker.grounding.recall import recall
from chunker.nodes.common import run_store
from chunker.grounding.gate import grounded
from chunker.readers.page_images import chunk_pages
from chunker.chunking.peel import leaf_structure
from chunker.state.records import LeafCut, NodeRecord
from chunker.state.schema import ChunkerState
from chunker.state.store import RunStore, node_id

_PAGES = threading.Lock()
"""Page renderers (PyMuPDF) are not thread-safe: leaves written in parallel render their pages
one at a time."""


def rewrite_chunk(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    cfg = runtime.context
    rs = run_store(state, runtime)
    cut = LeafCut(index=state["leaf_count"], span=(state["cursor"], state["chunk_end"]),
                  outcome=state.get("chunk_outcome"), forced=bool(state.get("forced")),
                  origin=state.get("rejoin_origin"))  # an update's old passage, written again
    background = leaf_background(rs, cfg, cut.index, state.get("latest") or [], "rewrite",
                                 state["doc_id"])
    return {"stats": rewrite_leaf(cfg, rs, state["doc_id"], cut, background, runtime.stream_writer)}


def rewrite_leaf(cfg: ChunkerSettings, rs: RunStore, doc_id: str, cut: LeafCut, background: str,
                 writer: Callable[[dict], None] | None) -> dict[str, int]:
    """Rewrite leaf `cut.index` (its text `cut.span`) given `background`, ground it, and store
    its record (the summary still to come: `summarize_leaf`); returns the counts."""
    text = rs.units(doc_id).text
    start, end = cut.span
    original = text[start:end]
    asked = cfg.llm.asks("rewrite")
    combined = cfg.llm.combine_rewrite_and_summary and cfg.llm.asks("summary")
    task = "rewrite_summarize" if combined else "rewrite"
    original_tokens = count_tokens(original)
    leaf = leaf_structure(rs, doc_id, start, end)  # Markdown: heading path, kind
    with _PAGES:  # a paged source: pages, scan flags, images for the vision model
        pdf = chunk_pages(cfg, (start, end), rs.out_dir)
    if asked:
        result = call_llm(cfg.llm, node="rewrite_chunk", task=task,
                          user=pdf.preamble + prompts.render(task, chunk=original, header_path=leaf.path_line()),
                          background=background,
                          writer=writer, memo=rs, images=pdf.images, model=pdf.model,
                          max_output_tokens=int(1.3 * original_tokens) + 96, calls_dir=rs.calls_dir,
                          slots=rs.slots)
    else:  # the profile's model never writes a usable rewrite: the original is the text
        result = CallResult(parsed=None, stats={"extracted.rewrite": 1})
    stats = {**pdf.stats, **result.stats}
    rewritten = (result.parsed.rewritten.strip() if result.parsed else "")
    own_text = pdf.own_text(original) if pdf.scanned else original
    if rewritten and own_text.strip() and recall(own_text, rewritten) < cfg.grounding.rewrite_min_recall:
        rewritten = ""  # the model dropped facts (or wrote about something else)
        stats["rewrite.unfaithful"] = 1
    if pdf.transcribes_scan and rewritten:
        # a scan's transcription has no text to be checked against: kept, and counted
        kept = True
        stats["pdf.ungrounded_transcriptions"] = 1
    else:
        # names and numbers must come from the chunk or from what it was shown before it
        kept = bool(rewritten) and grounded(cfg.grounding, "rewrite", rewritten, [original, background],
                                            stats, result.log_id, calls_dir=rs.calls_dir)
    if not kept:
        # Fallback: the original itself is always a faithful (if unresolved) text.
        rewritten = " ".join(original.split())
        if asked:
            stats["fallback.rewrite"] = 1
    else:
        stats["kept.rewrite"] = 1
    if leaf.table_header and not rewritten.startswith(leaf.table_header):
        rewritten = leaf.table_header + rewritten  # a split table's later part: its header again
    index = cut.index
    rs.put_node(NodeRecord(
        id=node_id(0, index), level=0, index=index, span=(start, end), original=original,
        rewritten=rewritten, rewritten_tokens=count_tokens(rewritten), tokens=original_tokens,
        forced_split=cut.forced, boundary=cut.outcome,
        rewrite_kept=kept, call_id=result.log_id,
        # combined mode: summarize_chunk validates these instead of asking again
        summary_hint=getattr(result.parsed, "summary", "") or "",
        slug_hint=getattr(result.parsed, "slug", "") or "",
        pages=pdf.pages, scanned_pages=pdf.scanned,
        kind=leaf.kind, header_path=list(leaf.header_path) if leaf.kind else None,
        origin=cut.origin,
    ))
    return stats

"""rewrite_chunk: the chunk as a self-sufficient rewritten text, stored beside its original."""

from __future__ import annotations

from langgraph.runtime import Runtime

from chunker import prompts
from chunker.background.policy import leaf_background
from chunker.config.settings import ChunkerSettings
from chunker.document.tokens import count_tokens
from chunker.llm.invoke import CallResult, call_llm
from chunker.grounding.recall import recall
from chunker.nodes.common import run_store
from chunker.grounding.gate import grounded
from chunker.document.pdf_pages import chunk_pages, text_without_notes
from chunker.chunking.peel import leaf_structure
from chunker.state.records import NodeRecord
from chunker.state.schema import ChunkerState
from chunker.state.store import node_id


def rewrite_chunk(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    cfg = runtime.context
    rs = run_store(state, runtime)
    text = rs.units(state["doc_id"]).text
    start, end = state["cursor"], state["chunk_end"]
    original = text[start:end]
    asked = cfg.llm.asks("rewrite")
    combined = cfg.llm.combine_rewrite_and_summary and cfg.llm.asks("summary")
    task = "rewrite_summarize" if combined else "rewrite"
    original_tokens = count_tokens(original)
    background = leaf_background(rs, cfg, state["leaf_count"], state.get("latest") or [], "rewrite")
    leaf = leaf_structure(rs, state["doc_id"], start, end)  # Markdown: heading path, kind
    pdf = chunk_pages(cfg, (start, end), rs.out_dir)  # PDF runs: pages, scan flags, images for the vision model
    if asked:
        result = call_llm(cfg.llm, node="rewrite_chunk", task=task,
                          user=pdf.preamble + prompts.render(task, chunk=original, header_path=leaf.path_line()),
                          background=background,
                          writer=runtime.stream_writer, memo=rs, images=pdf.images, model=pdf.model,
                          max_output_tokens=int(1.3 * original_tokens) + 96, calls_dir=rs.calls_dir,
                          slots=rs.slots)
    else:  # the profile's model never writes a usable rewrite: the original is the text
        result = CallResult(parsed=None, stats={"extracted.rewrite": 1})
    stats = {**pdf.stats, **result.stats}
    rewritten = (result.parsed.rewritten.strip() if result.parsed else "")
    own_text = text_without_notes(original) if pdf.scanned else original
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
    index = state["leaf_count"]
    rs.put_node(NodeRecord(
        id=node_id(0, index), level=0, index=index, span=(start, end), original=original,
        rewritten=rewritten, rewritten_tokens=count_tokens(rewritten), tokens=original_tokens,
        forced_split=bool(state.get("forced")), boundary=state.get("chunk_outcome"),
        rewrite_kept=kept, call_id=result.log_id,
        # combined mode: summarize_chunk validates these instead of asking again
        summary_hint=getattr(result.parsed, "summary", "") or "",
        slug_hint=getattr(result.parsed, "slug", "") or "",
        pages=pdf.pages, scanned_pages=pdf.scanned,
        kind=leaf.kind, header_path=list(leaf.header_path) if leaf.kind else None,
        origin=state.get("rejoin_origin"),  # an update's old passage, written again
    ))
    return {"stats": stats}

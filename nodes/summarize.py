"""summarize_chunk: a 1-2 sentence summary and a slug; then the cursor moves on.

In combined mode (the default for medium and large models) the rewrite call already
answered the summary and slug: this node only validates them. Its input is then the
record's `summary_hint`, which it never overwrites, so a re-run after a crash counts
exactly what the first run counted.

This is the end of a leaf's life in phase 1. The aggregation sweep plugs in right
after it (`check_aggregation`). The work itself is `summarize_leaf`, which write_leaf
calls too under `background.context: source` (`nodes/write_leaf.py`).
"""

from __future__ import annotations

from collections.abc import Callable

from langgraph.runtime import Runtime

from chunker import prompts
from chunker.background.policy import leaf_background
from chunker.config.settings import ChunkerSettings
from chunker.document.tokens import count_tokens
from chunker.llm.invoke import call_llm
from chunker.grounding import extractive_summary
from chunker.document.readable import plain_line, readable_copy, sentence_markup, tidy
from chunker.document.prose import cap_text, clean_line
from chunker.nodes.common import progress, run_store
from chunker.grounding.gate import grounded
from chunker.state.records import NodeRecord
from chunker.state.schema import ChunkerState
from chunker.state.store import RunStore, node_id
from chunker.structured.extract import run_records
from chunker.structured.guard import (findings_in, states_disputed, table_fallback, tables_in,
                                     unrecorded_numbers)


def summarize_chunk(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    cfg = runtime.context
    rs = run_store(state, runtime)
    index = state["leaf_count"]
    record, stats = summarize_leaf(
        cfg, rs, index,
        lambda: leaf_background(rs, cfg, index, state.get("latest") or [], "summarize", state["doc_id"]),
        runtime.stream_writer)
    pending = [list(level) for level in state["pending"]]
    pending[0].append([record.id, record.summary_tokens])
    progress(runtime, state, state["chunk_end"], index + 1)
    return {
        "cursor": state["chunk_end"],
        "window_end": None,
        "chunk_end": None,
        "leaf_count": index + 1,
        "pending": pending,
        "stats": stats,
    }


def summarize_leaf(cfg: ChunkerSettings, rs: RunStore, index: int, background: Callable[[], str],
                   writer: Callable[[dict], None] | None) -> tuple[NodeRecord, dict[str, int]]:
    """Summarise leaf `index` (its rewritten record in the store), ground the summary, and
    store the finished record; `background()` is asked only when a call is made. Returns
    the record and the counts."""
    record = rs.get_node(node_id(0, index))
    asked = cfg.llm.asks("summary")
    if not asked:  # the profile's model never writes a usable summary
        summary, slug_hint, stats, log_id = "", "", {"extracted.summary": 1}, None
    elif cfg.llm.combine_rewrite_and_summary and cfg.llm.asks("rewrite"):  # the rewrite call answered
        summary, slug_hint, stats, log_id = record.summary_hint, record.slug_hint, {}, record.call_id
    else:
        result = call_llm(cfg.llm, node="summarize_chunk", task="summarize",
                          user=prompts.render("summarize", chunk=record.rewritten),
                          background=background(), writer=writer, memo=rs,
                          calls_dir=rs.calls_dir, slots=rs.slots)
        stats = dict(result.stats)
        summary = result.parsed.summary if result.parsed else ""
        slug_hint = (result.parsed.slug if result.parsed else "") or ""
        log_id = result.log_id
    summary = plain_line(summary)  # the model may copy the passage's markup
    evidence = [record.original or "", record.rewritten] if record.rewrite_kept else [record.original or ""]
    kept = grounded(cfg.grounding, "summary", summary, evidence, stats, log_id, calls_dir=rs.calls_dir)
    records = run_records(rs)
    tables = tables_in(records, record.span) if record.kind == "table" else []
    if kept and tables and unrecorded_numbers(summary, tables):
        kept = False  # a table leaf's summary states only numbers its record holds
        stats["grounding.summary.unrecorded_number"] = 1
    if kept and records.checks and states_disputed(summary, findings_in(records, record.span)[1]):
        kept = False  # a number a data check disputes is no fact
        stats["grounding.summary.disputed_number"] = 1
    if kept:
        summary = cap_text(summary, cfg.output.summary_max_chars)
        stats["kept.summary"] = 1
    elif tables:  # a table's stand-in: its caption and headers, not its first cells
        summary = table_fallback(tables, cfg.output.summary_max_chars)
        if asked:
            stats["fallback.summary"] = 1
    else:  # the model's summary is not supported by the passage: extract one from it
        max_chars = cfg.output.summary_max_chars
        # from the words a person reads: markup (front matter, tags, link targets) stays out;
        # which sentences are preferred is still judged on the text as written
        text = record.original or record.rewritten
        readable = readable_copy(text, headings=False, code=False)
        if not readable.strip():  # a leaf of code alone: its code is what it says
            readable = readable_copy(text, headings=False)
        summary = tidy(extractive_summary(readable, max_chars=max_chars, policy=cfg.grounding,
                                          written=sentence_markup(text))
                       or cap_text(clean_line(readable), max_chars))
        if asked:
            stats["fallback.summary"] = 1
    record = record.model_copy(update={"summary": summary, "summary_tokens": count_tokens(summary),
                                       "slug_hint": slug_hint, "summary_kept": kept})
    rs.put_node(record)
    stats["leaves"] = 1
    return record, stats

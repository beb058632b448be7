"""check_completeness and retry_boundary: the two LLM judgements of a window."""

from __future__ import annotations

from langgraph.runtime import Runtime

from chunker import prompts
from chunker.background.policy import leaf_background
from chunker.config.settings import ChunkerSettings
from chunker.llm.invoke import call_llm
from chunker.nodes.common import run_store, settings
from chunker.state.schema import ChunkerState


def _ask(state: ChunkerState, runtime: Runtime[ChunkerSettings], task: str, node: str,
         **extra: str) -> dict:
    cfg = settings(runtime)
    rs = run_store(state, runtime)
    text = rs.units(state["doc_id"]).text
    window = text[state["cursor"]:state["window_end"]]
    lookahead = text[state["window_end"]:state["shown_end"]]
    user = prompts.render(task, window=window, lookahead=lookahead, **extra)
    background = leaf_background(rs, cfg, state["leaf_count"], state.get("latest") or [], "completeness")
    result = call_llm(cfg, node=node, task=task, user=user, background=background,
                      writer=runtime.stream_writer, memo=rs)
    answer = result.parsed
    return {
        "complete": None if answer is None else answer.complete,
        "phrase": None if answer is None else answer.boundary_phrase,
        "stats": result.stats,
    }


def check_completeness(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    return {**_ask(state, runtime, "completeness", "check_completeness"), "boundary_attempt": 0}


def retry_boundary(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    bad = " ".join((state.get("phrase") or "(none)").split())[:300]
    update = _ask(state, runtime, "boundary_retry", "retry_boundary", bad_phrase=bad)
    return {**update, "boundary_attempt": 1}

"""check_completeness and retry_boundary: the two LLM judgements of a window."""

from __future__ import annotations

from langgraph.runtime import Runtime

from chunker import prompts
from chunker.background.policy import leaf_background
from chunker.config.settings import ChunkerSettings
from chunker.llm.invoke import call_llm
from chunker.chunking.candidates import marked, numbers, offered
from chunker.nodes.common import run_store, settings
from chunker.state.schema import ChunkerState


def _ask(state: ChunkerState, runtime: Runtime[ChunkerSettings], task: str, node: str,
         **extra: str) -> dict:
    cfg = settings(runtime)
    rs = run_store(state, runtime)
    text = rs.units(state["doc_id"]).text
    cursor, window_end, shown_end = state["cursor"], state["window_end"], state["shown_end"]
    if cfg.boundary_mode == "candidates":
        task = f"{task}_candidates"
        cuts = offered(state, rs, cfg)
        window, lookahead = marked(text, cursor, window_end, cuts), marked(text, window_end, shown_end, cuts)
        extra = {**extra, "numbers": numbers(cuts)}
    else:
        window, lookahead = text[cursor:window_end], text[window_end:shown_end]
    user = prompts.render(task, window=window, lookahead=lookahead, **extra)
    background = leaf_background(rs, cfg, state["leaf_count"], state.get("latest") or [], "completeness")
    result = call_llm(cfg, node=node, task=task, user=user, background=background,
                      writer=runtime.stream_writer, memo=rs)
    answer = result.parsed
    return {
        "complete": None if answer is None else answer.complete,
        "phrase": getattr(answer, "boundary_phrase", None),
        "boundary_number": getattr(answer, "boundary", None),
        "stats": result.stats,
    }


def check_completeness(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    return {**_ask(state, runtime, "completeness", "check_completeness"), "boundary_attempt": 0}


def retry_boundary(state: ChunkerState, runtime: Runtime[ChunkerSettings]) -> dict:
    if settings(runtime).boundary_mode == "candidates":
        number = state.get("boundary_number")
        bad = {"bad_answer": "no number" if number is None else str(number)}
    else:
        bad = {"bad_phrase": " ".join((state.get("phrase") or "(none)").split())[:300]}
    update = _ask(state, runtime, "boundary_retry", "retry_boundary", **bad)
    return {**update, "boundary_attempt": 1}

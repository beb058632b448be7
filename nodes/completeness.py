"""check_completeness and retry_boundary: the two LLM judgements of a window."""

from __future__ import annotations

from langgraph.runtime import Runtime

from chunker import prompts
from chunker.context.builder import ContextBuilder, leaf_candidates
from chunker.llm.invoke import call_llm
from chunker.nodes.common import settings, store_of, units_of
from chunker.state.schema import ChunkerState


def leaf_context(state: ChunkerState, runtime: Runtime) -> str:
    """The injected context for any call about the leaf being built."""
    cfg = settings(runtime)
    candidates = leaf_candidates(store_of(runtime), state["doc_id"], state["leaf_count"],
                                 state.get("latest") or [])
    return ContextBuilder(cfg.context_budget_tokens, cfg.context_order).build(candidates)


def _ask(state: ChunkerState, runtime: Runtime, task: str, node: str, **extra: str) -> dict:
    cfg = settings(runtime)
    text = units_of(state, runtime).text
    window = text[state["cursor"]:state["window_end"]]
    lookahead = text[state["window_end"]:state["shown_end"]]
    user = prompts.render(task, window=window, lookahead=lookahead, **extra)
    result = call_llm(cfg, node=node, task=task, user=user,
                      context_text=leaf_context(state, runtime), writer=runtime.stream_writer)
    answer = result.parsed
    return {
        "complete": None if answer is None else answer.complete,
        "phrase": None if answer is None else answer.boundary_phrase,
        "stats": result.stats,
    }


def check_completeness(state: ChunkerState, runtime: Runtime) -> dict:
    return {**_ask(state, runtime, "completeness", "check_completeness"), "boundary_attempt": 0}


def retry_boundary(state: ChunkerState, runtime: Runtime) -> dict:
    bad = " ".join((state.get("phrase") or "(none)").split())[:300]
    update = _ask(state, runtime, "boundary_retry", "retry_boundary", bad_phrase=bad)
    return {**update, "boundary_attempt": 1}

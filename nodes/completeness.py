"""check_completeness and retry_boundary: the two LLM judgements of a window."""

from __future__ import annotations

from langgraph.runtime import Runtime

from chunker import prompts
from chunker.background.policy import leaf_background
from chunker.chunking.boundary import boundary_policy
from chunker.config.settings import ChunkerSettings
from chunker.llm.invoke import call_llm
from chunker.nodes.boundary import window_of
from chunker.state.schema import ChunkerState


def _ask(state: ChunkerState, runtime: Runtime[ChunkerSettings], task: str, node: str,
         **extra: str) -> dict:
    w = window_of(state, runtime)
    q = boundary_policy(w.cfg.chunking).question(w, task)
    user = prompts.render(q.task, window=q.window, lookahead=q.lookahead, **{**extra, **q.extra})
    background = leaf_background(w.rs, w.cfg, state["leaf_count"], state.get("latest") or [], "completeness",
                                 state["doc_id"])
    result = call_llm(w.cfg.llm, node=node, task=q.task, user=user, background=background,
                      writer=runtime.stream_writer, memo=w.rs, calls_dir=w.rs.calls_dir,
                      slots=w.rs.slots)
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
    hint = boundary_policy(runtime.context.chunking).retry_hint(state)
    update = _ask(state, runtime, "boundary_retry", "retry_boundary", **hint)
    return {**update, "boundary_attempt": 1}

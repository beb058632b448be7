"""The documents of a corpus at once: a LangGraph fan-out, one `Send` per document.

Each document is its own thread of the document graph (`document_run.run_document`), with
its own checkpoints; this small graph only schedules them. LangGraph runs the `Send`s of
one step as parallel tasks, at most the invocation's `max_concurrency` at a time, so the
corpus needs no thread pool of its own. It is compiled without a checkpointer: what a
killed run has done lies in the documents' records and checkpoints, and a resume sends the
documents again (a finished one returns its record at once).

The order in which documents finish does not matter: the corpus assembles them in
run.json's order.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Annotated, Callable, TypedDict

from langchain_core.runnables.config import var_child_runnable_config
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send


class FanoutState(TypedDict):
    indices: list[int]
    """The documents to run, by their index in run.json's list."""
    done: Annotated[list[int], operator.add]


class DocumentTask(TypedDict):
    index: int


@dataclass(frozen=True)
class FanoutContext:
    work: Callable[[int], None]
    """Runs the document at an index to its record (the corpus runner's closure)."""


def dispatch(state: FanoutState) -> list[Send]:
    return [Send("document", DocumentTask(index=i)) for i in state["indices"]]


def document(task: DocumentTask, runtime: Runtime[FanoutContext]) -> dict:
    # The document's graph is an invocation of its own (its own thread and checkpoints),
    # not a subgraph of this one: run it outside this task's config, which LangGraph would
    # otherwise take as its parent's (its stream, its checkpoint namespace) and wait on.
    token = var_child_runnable_config.set(None)
    try:
        runtime.context.work(task["index"])
    finally:
        var_child_runnable_config.reset(token)
    return {"done": [task["index"]]}


def build_fanout():
    g = StateGraph(FanoutState, context_schema=FanoutContext)
    g.add_node("document", document)
    g.add_conditional_edges(START, dispatch, ["document"])
    g.add_edge("document", END)
    return g.compile(name="corpus_documents")


def longest_first(indices: list[int], sizes: list[int], limit: int) -> list[int]:
    """The order to start documents in: in parallel, the longest first (a long document's
    calls are a chain: started last, it would run alone at the end while the other slots
    idle); one at a time, as listed (the progress follows the files' order). The order
    changes no record."""
    return sorted(indices, key=lambda i: -sizes[i]) if limit > 1 else list(indices)


def run_all(indices: list[int], work: Callable[[int], None], max_concurrency: int) -> list[int]:
    """Run `work` for every index, at most `max_concurrency` at once; the indices done."""
    if not indices:
        return []
    out = build_fanout().invoke({"indices": list(indices), "done": []},
                                {"max_concurrency": max(1, max_concurrency)},
                                context=FanoutContext(work=work))
    return sorted(out["done"])

"""How every graph of the chunker is put together: nodes, their retry policy, and edges
drawn from the routes' `Literal`s.

A subgraph is a compiled `StateGraph` of the same state (`ChunkerState`), added to its
parent as one node: it shares the parent's keys, is given them less the counters
(`StepState`, so that the `stats` reducer adds only what the subgraph counted), and has no
checkpointer of its own, so it checkpoints into its parent's (a killed run resumes inside
the subgraph, from its last step).
"""

from __future__ import annotations

from collections.abc import Callable

from langgraph.graph import StateGraph
from langgraph.types import RetryPolicy

from chunker.graph.routes import targets
from chunker.state.run import RunContext
from chunker.state.schema import ChunkerState, StepState


class Wiring:
    """One graph being built: `plain` nodes, `llm` nodes (calls to a model server, retried
    on transient errors), subgraphs, edges and routes."""

    def __init__(self, retry: RetryPolicy, **schemas) -> None:
        self.retry = retry
        self.graph = StateGraph(ChunkerState, context_schema=RunContext,
                                **(schemas or {"input_schema": StepState}))

    def plain(self, **nodes: Callable) -> "Wiring":
        for name, fn in nodes.items():
            self.graph.add_node(name, fn)
        return self

    def llm(self, **nodes: Callable) -> "Wiring":
        for name, fn in nodes.items():
            # a fan-out's task gets its `Send` payload; the graph's channels stay the state's
            self.graph.add_node(name, fn, retry_policy=self.retry, input_schema=ChunkerState)
        return self

    def edge(self, source: str, target: str) -> "Wiring":
        self.graph.add_edge(source, target)
        return self

    def route(self, source: str, path: Callable) -> "Wiring":
        self.graph.add_conditional_edges(source, path, targets(path))
        return self

    def compile(self, name: str, **kwargs):
        return self.graph.compile(name=name, **kwargs)

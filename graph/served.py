"""The graph as `langgraph dev` / LangGraph Server load it: no persistence of its own
(the server provides the checkpointer and the store)."""

from chunker.graph.build import build_graph

graph = build_graph()

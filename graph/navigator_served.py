"""The navigator as `langgraph dev` / LangGraph Server load it: no persistence of its own."""

from chunker.graph.navigator import build_navigator

graph = build_navigator()

"""The chunker graph."""

from chunker.graph.build import build_graph

__all__ = ["build_graph"]

"""The `write` subgraph: one leaf, its end decided by `cut`, rewritten to stand alone and
summarised (with its slug), each grounded.

    rewrite_chunk -> summarize_chunk

Under `background.context: source` the leaves are written after the cursor, all at once, by
`write_leaf` tasks (`nodes/write_leaf.py`, the `source` pipeline), each doing the same two calls.
"""

from __future__ import annotations

from langgraph.graph import END, START
from langgraph.types import RetryPolicy

from chunker.graph.wiring import Wiring
from chunker.nodes.rewrite import rewrite_chunk
from chunker.nodes.summarize import summarize_chunk


def build_write(retry: RetryPolicy):
    """One leaf written: 2 nodes."""
    w = Wiring(retry)
    w.llm(rewrite_chunk=rewrite_chunk, summarize_chunk=summarize_chunk)
    w.edge(START, "rewrite_chunk").edge("rewrite_chunk", "summarize_chunk").edge("summarize_chunk", END)
    return w.compile("write")

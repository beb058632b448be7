"""chunker: turn a long document into a navigable knowledge tree.

The code lives in sub-packages mapped from the repository root
(`chunker.graph` is `graph/`, `chunker.nodes` is `nodes/`, ...).
"""

__version__ = "0.1.0"

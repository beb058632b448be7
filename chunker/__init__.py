"""chunker: turn a long document into a navigable knowledge tree.

Every package lives here at its import path (`chunker.llm` is `chunker/llm/`, ...), except
the design card's four, kept at the repository root and mapped by pyproject.toml:
`chunker.graph` is `graph/`, `chunker.nodes` is `nodes/`, `chunker.prompts` is `prompts/`,
`chunker.state` is `state/`.
"""

__version__ = "0.1.0"

"""LangChain tools over a finished tree: `overview`, `open_node`, `read_original`,
`search`, `zoom_out`.

Each is a `StructuredTool` with a typed argument schema and a description written for
the model that will call it; each returns text ending with the tokens it showed, so an
agent can keep its own budget. A bad node id comes back as an error message (the tool
raises `ToolException`, handled), which lets an agent correct itself instead of crashing.
"""

from __future__ import annotations

from typing import Callable

from langchain_core.tools import StructuredTool, ToolException
from pydantic import BaseModel, Field

from chunker.navigation.errors import NavigationError
from chunker.navigation.settings import NavigatorSettings
from chunker.navigation.tree import Tree


class NoArgs(BaseModel):
    """No arguments."""


class NodeArg(BaseModel):
    node_id: str = Field(description="a node id from an earlier result, such as 'L1-00002' "
                                     "(L<level>-<index>; level 0 are leaves)")


class SearchArgs(BaseModel):
    query: str = Field(description="what you are looking for, in your own words")
    k: int = Field(default=5, ge=1, le=50, description="how many nodes to return")


DESCRIPTIONS = {
    "overview": "Start here. The whole document's summary and its top-level sections, each "
                "with an id and a one-line summary. Open a section with open_node.",
    "open_node": "Open one node: its summary, its full rewritten text, and the one-line "
                 "summaries of its children. Descend by opening the child that fits best; a "
                 "leaf has no children: read its exact source text with read_original.",
    "read_original": "The exact original source text of a leaf (level 0), word for word, to "
                     "quote or answer from. Blocks (level 1+) have no original of their own.",
    "search": "Find nodes at any level whose summary or text matches a query, best first, "
              "with their ids. Use it to jump into the tree when the summaries do not point "
              "the way; then open_node or read_original the hits.",
    "zoom_out": "Where a node sits: its parent and its previous and next siblings, with "
                "summaries. Use it to backtrack or to read on past the end of a passage.",
}


def make_tools(tree: Tree, settings: NavigatorSettings | None = None) -> list[StructuredTool]:
    """The five navigation tools bound to one tree."""
    cfg = settings or NavigatorSettings()

    def overview() -> str:
        return _shown(tree.overview())

    def open_node(node_id: str) -> str:
        return _shown(tree.open_node(node_id))

    def read_original(node_id: str) -> str:
        return _shown(tree.read_original(node_id))

    def search(query: str, k: int = cfg.search_k) -> str:
        return _shown(tree.search(query, k, embeddings=cfg.embeddings, piece_tokens=cfg.piece_tokens,
                                  cache=cfg.cache_embeddings))

    def zoom_out(node_id: str) -> str:
        return _shown(tree.zoom_out(node_id))

    specs: list[tuple[Callable[..., str], type[BaseModel]]] = [
        (overview, NoArgs), (open_node, NodeArg), (read_original, NodeArg),
        (search, SearchArgs), (zoom_out, NodeArg)]
    return [StructuredTool.from_function(_guarded(fn), name=fn.__name__,
                                         description=DESCRIPTIONS[fn.__name__],
                                         args_schema=schema, handle_tool_error=True)
            for fn, schema in specs]


def _shown(view) -> str:
    return f"{view.render()}\n\n({view.tokens} tokens)"


def _guarded(fn: Callable[..., str]) -> Callable[..., str]:
    def call(**kwargs) -> str:
        try:
            return fn(**kwargs)
        except NavigationError as exc:
            raise ToolException(str(exc)) from None

    call.__name__ = fn.__name__
    call.__doc__ = DESCRIPTIONS[fn.__name__]
    return call

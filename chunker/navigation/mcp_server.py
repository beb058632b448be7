"""An MCP server (official `mcp` Python SDK, MCPServer) offering the navigation tools
over one or more finished trees, so desktop assistants and IDEs can browse them.

`chunker mcp OUT...` serves it over stdio. With several trees every tool takes a `tree`
argument (the folder's name, listed by `list_trees`); with one it may be left out.
A corpus tree (folders of files) is served the same way; `search` takes a `path_prefix`
to search one folder or file of it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from chunker.navigation import knowledge
from chunker.navigation.errors import NavigationError
from chunker.navigation.settings import NavigatorSettings
from chunker.navigation.tools import PATH_PREFIX, descriptions
from chunker.navigation.tree import Tree, open_tree

SERVER_NAME = "chunker-navigation"

TreeName = Annotated[str | None, Field(description="which tree (a name from list_trees); "
                                                    "may be left out when only one is served")]
NodeId = Annotated[str, Field(description="a node id from an earlier result, such as 'L1-00002' "
                                         "(in a corpus tree: 'F1a2b3c4d', a folder, or "
                                         "'D9f8e7d6c.L0-00003', a document's node)")]
PathPrefix = Annotated[str | None, Field(description=PATH_PREFIX)]


def tree_names(paths: list[str | Path]) -> dict[str, Tree]:
    """Each tree under its folder's name (`-2`, `-3`... when two folders share a name)."""
    trees: dict[str, Tree] = {}
    for path in paths:
        tree = open_tree(path)  # raises NotARun for a folder without a finished run
        base = (tree.path.name if tree.path else "tree") or "tree"
        name, n = base, 1
        while name in trees:
            n += 1
            name = f"{base}-{n}"
        trees[name] = tree
    return trees


def build_server(paths: list[str | Path], settings: NavigatorSettings | None = None) -> MCPServer:
    """An MCP server over the finished runs in `paths` (opened now: bad paths fail early)."""
    cfg = settings or NavigatorSettings()
    trees = tree_names(paths)
    texts = descriptions(any(t.is_corpus for t in trees.values()))
    server = MCPServer(SERVER_NAME, instructions=(
        "Browse document trees built by chunker: find returns the passages a question needs "
        "within a token budget; or start with overview, descend with open_node, read a leaf's "
        "exact text with read_original; search jumps to matching nodes."))

    def pick(name: str | None) -> Tree:
        if name is None:
            if len(trees) == 1:
                return next(iter(trees.values()))
            raise ToolError(f"say which tree: one of {sorted(trees)}")
        if name not in trees:
            raise ToolError(f"unknown tree {name!r}: one of {sorted(trees)}")
        return trees[name]

    def run(fn):
        try:
            view = fn()
        except NavigationError as exc:
            raise ToolError(str(exc)) from None
        return f"{view.render()}\n\n({view.tokens} tokens)"

    @server.tool(structured_output=False, description="The trees this server offers, each with its root summary.")
    def list_trees() -> str:
        return "\n".join(f"- {name}: {t.overview().summary}" for name, t in trees.items())

    @server.tool(structured_output=False, description=texts["find"])
    def find(question: Annotated[str, Field(description="the question, in your own words")],
             budget: Annotated[int | None, Field(ge=1, le=100_000, description=(
                 "the most tokens to read; leave it out for the default"))] = None,
             path_prefix: PathPrefix = None, tree: TreeName = None) -> str:
        from chunker.navigation.collapsed import find as collapsed_find  # noqa: PLC0415

        return run(lambda: collapsed_find(pick(tree), question, cfg, budget, path_prefix))

    @server.tool(structured_output=False, description=texts["overview"])
    def overview(tree: TreeName = None) -> str:
        return run(lambda: pick(tree).overview())

    @server.tool(structured_output=False, description=texts["open_node"])
    def open_node(node_id: NodeId, tree: TreeName = None) -> str:
        return run(lambda: pick(tree).open_node(node_id))

    @server.tool(structured_output=False, description=texts["read_original"])
    def read_original(node_id: NodeId, tree: TreeName = None) -> str:
        return run(lambda: pick(tree).read_original(node_id))

    @server.tool(structured_output=False, description=texts["search"])
    def search(query: Annotated[str, Field(description="what you are looking for")],
               k: Annotated[int, Field(ge=1, le=50, description="how many nodes")] = cfg.search_k,
               path_prefix: PathPrefix = None, tree: TreeName = None) -> str:
        return run(lambda: pick(tree).search(query, k, embeddings=cfg.embeddings,
                                             piece_tokens=cfg.piece_tokens,
                                             cache=cfg.cache_embeddings, prefix=path_prefix))

    @server.tool(structured_output=False, description=texts["zoom_out"])
    def zoom_out(node_id: NodeId, tree: TreeName = None) -> str:
        return run(lambda: pick(tree).zoom_out(node_id))

    @server.tool(structured_output=False, description=texts["define"])
    def define(term: Annotated[str, Field(description="the term, as a question names it")],
               tree: TreeName = None) -> str:
        return run(lambda: knowledge.define(pick(tree), term))

    @server.tool(structured_output=False, description=texts["mentions"])
    def mentions(term: Annotated[str, Field(description="the term")],
                 k: Annotated[int, Field(ge=1, le=200, description="how many places")] = 20,
                 tree: TreeName = None) -> str:
        return run(lambda: knowledge.mentions(pick(tree), term, k))

    @server.tool(structured_output=False, description=texts["follow"])
    def follow(reference: Annotated[str, Field(description="the reference or link as written: "
                                                           "'Table 3-1', '[[Note#Heading]]'")],
               node_id: Annotated[str | None, Field(description="the node it is read in, if the "
                                                                "same words point at different places")] = None,
               tree: TreeName = None) -> str:
        return run(lambda: knowledge.follow(pick(tree), reference, node_id))

    return server

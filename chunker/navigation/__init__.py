"""Read-only navigation of finished trees: tree access, search, LangChain tools, the
navigator's LLM tasks and an MCP server (`chunker.navigation.mcp_server`, imported on demand)."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from chunker.navigation.errors import NavigationError, NotARun, UnknownNode
from chunker.navigation.settings import NavigatorSettings

if TYPE_CHECKING:
    from chunker.navigation.tools import make_tools
    from chunker.navigation.tree import Tree, open_tree

_LAZY = {"make_tools": "chunker.navigation.tools", "Tree": "chunker.navigation.tree",
         "open_tree": "chunker.navigation.tree"}
"""Imported on first use: the tools and the tree pull in LangChain and numpy (about 0.6 s),
and `chunker ask --help` needs only the settings' defaults."""


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["NavigationError", "NotARun", "UnknownNode", "NavigatorSettings", "Tree", "open_tree",
           "make_tools"]

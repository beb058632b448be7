"""Read-only navigation of finished trees: tree access, search, LangChain tools, the
navigator's LLM tasks and an MCP server (`chunker.navigation.mcp_server`, imported on demand)."""

from chunker.navigation.errors import NavigationError, NotARun, UnknownNode
from chunker.navigation.settings import NavigatorSettings
from chunker.navigation.tools import make_tools
from chunker.navigation.tree import Tree, open_tree

__all__ = ["NavigationError", "NotARun", "UnknownNode", "NavigatorSettings", "Tree", "open_tree",
           "make_tools"]

"""`chunker mcp OUT...`: serve the navigation tools to MCP clients over stdio.

Exit codes: 0 when the client closes the connection, 2 bad input (a folder without a
finished run). Nothing but the protocol may go to stdout, so messages go to stderr.
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from chunker.navigation.settings import NavigatorSettings

err = Console(stderr=True)
EXIT_USAGE = 2


def mcp_command(
    output_dirs: list[Path] = typer.Argument(..., help="OUT folders of finished runs."),
    embeddings: str = typer.Option(NavigatorSettings.embeddings, "--embeddings",
                                   help="Search: local, lexical, ollama:NAME, or bm25 (none: the same)."),
) -> None:
    """Serve the trees' overview, open_node, read_original, search and zoom_out tools (MCP, stdio)."""
    from chunker.navigation.errors import NavigationError
    from chunker.navigation.mcp_server import build_server

    from chunker.embeddings.registry import preflight_embeddings
    from chunker.llm.errors import ModelUnavailable
    from chunker.navigation.search import BM25_SPECS

    try:
        if embeddings not in BM25_SPECS:
            preflight_embeddings(embeddings)
        server = build_server(output_dirs, NavigatorSettings(embeddings=embeddings))
    except (NavigationError, ValueError, ModelUnavailable) as exc:
        err.print(f"[bold red]error:[/] {exc}", highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_USAGE)
    server.run("stdio")

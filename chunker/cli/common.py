"""What every command shares: the exit codes, the error console and the one-line failure.

Exit codes: 0 success; 1 the run failed and can be resumed (`chunker resume OUT`);
2 usage error or bad input (nothing was written).
"""

from __future__ import annotations

import typer
from rich.console import Console
from rich.markup import escape

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

err = Console(stderr=True)


def fail(message: str, code: int) -> "typer.Exit":
    # escaped: a message such as "pip install 'chunker[pdf]'" must not read as markup
    err.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    return typer.Exit(code)

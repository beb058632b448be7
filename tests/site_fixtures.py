"""Fixtures of the site's tests (a pytest plugin, named in conftest.py): two finished trees
built once per test run with the scripted model (Cinderella, and a small corpus written
here), and one headless Chromium shared by every browser test.

The browser is Debian's `chromium` (`apt-get install -y chromium`), driven by Playwright
for Python pointed at that executable: `playwright install` is never run. With CI set a
missing browser fails the tests; without it they skip, naming the install command.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CINDERELLA = ROOT / "examples" / "cinderella.txt"

CHROMIUM = os.environ.get("CHUNKER_CHROMIUM", "/usr/bin/chromium")  # another path: set it
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
INSTALL = "apt-get update && apt-get install -y chromium; pip install -e '.[dev]' (playwright)"
ARTIFACTS = ROOT / "tests" / "artifacts" / "site"  # screenshots the run keeps (git-ignored)

CORPUS = {  # a corpus small enough to build in seconds: two folders, four notes
    "garden/roses.md": "# Roses\n\nRoses want full sun and rich soil. Prune them in late winter, "
                       "just above an outward bud.\n\nA rose fed in spring flowers into autumn.\n",
    "garden/compost.md": "# Compost\n\nA compost heap turns kitchen scraps into humus within a year. "
                         "Turn it monthly so that air reaches the middle.\n",
    "kitchen/bread.md": "# Bread\n\nSourdough bread rises on a wild leaven. Feed the starter with "
                        "flour and water the night before baking.\n\nBake it hot, with steam.\n",
    "kitchen/soup.md": "# Soup\n\nA leek soup needs only leeks, potatoes, butter and stock. "
                       "Simmer it gently for twenty minutes.\n",
}
BUILD = ("--model", "scripted", "--embeddings", "lexical", "--quiet")


def chunker(*args) -> subprocess.CompletedProcess:
    """`chunker ARGS` in a child process, which must succeed (conftest.py has the same helper;
    a plugin loaded by conftest does not import it back)."""
    proc = subprocess.run([sys.executable, "-m", "chunker.cli.app", *map(str, args)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    return proc


@dataclass
class Built:
    out: Path      # the run's OUT
    site: Path     # OUT/site, written by `chunker site`
    source: Path   # the document, or the corpus's folder


def write_corpus(root: Path) -> Path:
    for rel, text in CORPUS.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _in_parallel(*commands) -> None:
    """`chunker` commands in child processes at once (each waits on its own startup), all of
    which must succeed."""
    procs = [subprocess.Popen([sys.executable, "-m", "chunker.cli.app", *map(str, c)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for c in commands]
    for command, proc in zip(commands, procs):
        output, _ = proc.communicate(timeout=600)
        assert proc.returncode == 0, f"chunker {' '.join(map(str, command))}: {output}"


@pytest.fixture(scope="session")
def _site_trees(tmp_path_factory) -> dict[str, Built]:
    """Both trees, built side by side, then their sites (`chunker site`)."""
    doc_base, corpus_base = tmp_path_factory.mktemp("site-cinderella"), tmp_path_factory.mktemp("site-corpus")
    doc = doc_base / "cinderella.txt"
    shutil.copyfile(CINDERELLA, doc)
    corpus = write_corpus(corpus_base / "notes")
    built = {"doc": Built(out=doc_base / "out", site=doc_base / "out" / "site", source=doc),
             "corpus": Built(out=corpus_base / "out", site=corpus_base / "out" / "site", source=corpus)}
    _in_parallel(*[("run", b.source, "-o", b.out, *BUILD) for b in built.values()])
    _in_parallel(*[("site", b.out) for b in built.values()])
    return built


@pytest.fixture(scope="session")
def cinderella_site(_site_trees) -> Built:
    return _site_trees["doc"]


@pytest.fixture(scope="session")
def corpus_site(_site_trees) -> Built:
    return _site_trees["corpus"]


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium per test file: Playwright's sync API marks the worker's thread as
    running an event loop until it stops, so a session-long browser made every later
    `asyncio.run` on that worker fail (the MCP tests, when xdist put them after the browser's)."""
    problem = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        problem = "playwright is not installed"
    if problem is None and not Path(CHROMIUM).exists():
        problem = f"{CHROMIUM} is missing"
    if problem is not None:
        if os.environ.get("CI"):
            pytest.fail(f"{problem}: the browser tests must run in CI ({INSTALL})")
        pytest.skip(f"{problem}: install it with {INSTALL}")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser):
    """A fresh page whose console errors and uncaught exceptions are collected in `.errors`."""
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    pg = context.new_page()
    pg.errors = []
    pg.on("console", lambda m: pg.errors.append(f"{pg.url}: {m.text}") if m.type == "error" else None)
    pg.on("pageerror", lambda e: pg.errors.append(f"{pg.url}: {e}"))
    yield pg
    context.close()

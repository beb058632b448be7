"""Shared fixtures: real files, real SQLite, the scripted model."""

from __future__ import annotations

import functools
import itertools
import json
import re
from pathlib import Path

import pytest
import yaml
from langgraph.runtime import Runtime
from langgraph.store.memory import InMemoryStore

from chunker.config.settings import ChunkerSettings
from chunker.state.run import RunContext
from chunker.graph import build_graph
from chunker.graph.build import llm_retry_policy
from chunker.llm.registry import register_instance
from chunker.testing import ScriptedChatModel

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data"
"""The documents tests read (tests/data/README.md: where each came from, its licence); laid out
as the shared corpus is, so a benchmark and a test name a file alike. Nothing outside the
repository is read."""
CINDERELLA = ROOT / "examples" / "cinderella.txt"
EMMA = DATA / "emma" / "emma.md"
RUST = DATA / "markdown"
GOLD = DATA / "synthetic"
"""Choi-style gold sets (3-5, 9-11 sentences a topic; 3-5-distinct: neighbours from different
works) built from the texts above alone (tests/data/regenerate.py)."""
FIXTURES = Path(__file__).resolve().parent / "fixtures"
_ids = itertools.count()
# tests/pg_server.py: the pg_server and pg_url fixtures; tests/skip_policy.py: no skip under CI,
# else only for a system program with its install command; pytester: to test that policy
# site_fixtures: the site's trees and browser; file_order: the longest test files go to the workers first
pytest_plugins = ["pg_server", "skip_policy", "pytester", "site_fixtures", "file_order"]


SLOW_MODULES = frozenset({
    # CLI runs in child processes (a fresh interpreter and its imports per run)
    "test_cli", "test_corpus_run", "test_corpus_resume", "test_concurrency_cli", "test_crash_resume",
    "test_navigation_cli", "test_openai_stub_server", "test_pdf_run", "test_settings", "test_startup",
    "test_update_corpus", "test_update_document", "test_update_groups", "test_update_pdf",
    "test_update_toc", "test_packaging", "test_mcp_server", "test_bench_corpus_path", "test_run_record",
    # whole-graph runs on tens of kilobytes, or many runs
    "test_aggregation", "test_background_source", "test_concurrency", "test_correctness",
    "test_graph_paths", "test_structure_graph", "test_grounding_pipeline", "test_navigation_corpus",
    "test_navigation_trees", "test_navigation_tools", "test_navigation_collapsed", "test_eval_cli",
    "test_eval_navigation", "test_served_and_embedded", "test_ollama", "test_openai_compat",
    "test_candidates_ollama", "test_candidates_mode",
    # real models (MiniLM, SmolLM2 through llama.cpp), PostgreSQL, hypothesis, Emma sentence-split whole
    "test_local_model_e2e", "test_llamacpp_backend", "test_long_topics", "test_postgres_runs",
    "test_postgres_store", "test_property", "test_structure_property", "test_synthetic_sets",
    "test_grounding_calibration", "test_skip_policy", "test_figures_media", "test_update_formats",
    # a book read in regions: CLI runs through the scripted model and the stub, a SIGKILL, an update
    "test_regions",
})
"""Test files marked `slow` as a whole: `python -m pytest -m "not slow"` leaves them out (the
inner development loop); the README's command and CI run everything. Single tests elsewhere
carry `@pytest.mark.slow` themselves (MiniLM in test_embeddings_providers, test_eval_baselines)."""


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.module is not None and item.module.__name__ in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)


def scripted(**kwargs) -> str:
    """Register a configured scripted model; returns its provider string."""
    spec = f"scripted-test-{next(_ids)}"
    register_instance(spec, ScriptedChatModel(**kwargs))
    return spec


@functools.cache
def _compiled(attempts: int):
    """The graph compiled once per retry count in this process: compiling inspects every node
    (about 0.23 s, half of a short document's run); a copy bound to the run's store costs 50 us.
    A compiled graph keeps no run's state (that lives in the checkpointer, the store and the
    context), so runs share it, as the CLI's runs in one process would."""
    return build_graph(llm_retry=llm_retry_policy(attempts, 0.0))


def run_text(text: str, model: str | None = None, store=None, out_dir: str | None = None, **cfg):
    """Run the whole graph in-process (writing the tree and call log to `out_dir`, if given);
    returns (final state, store)."""
    store = store if store is not None else InMemoryStore()
    graph = _compiled(cfg.pop("attempts", 1)).copy(update={"store": store})
    ctx = RunContext.of(ChunkerSettings(model=model or scripted(), **cfg), out_dir=out_dir)
    out = graph.invoke({"text": text}, context=ctx, config={"recursion_limit": 10**9})
    return out, store


def tree_bytes(out: Path) -> dict[str, bytes]:
    """Every output file's bytes; hierarchy.json's with only its `finished_at` line removed
    (the one value that may differ between an interrupted and an uninterrupted run)."""
    files = {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*"))
             if p.is_file() and ".chunker" not in p.parts}
    lines = files["hierarchy.json"].splitlines(keepends=True)
    stamped = [line for line in lines if line.lstrip().startswith(b'"finished_at": ')]
    assert len(stamped) == 1, "hierarchy.json must hold exactly one finished_at line"
    files["hierarchy.json"] = b"".join(line for line in lines if line not in stamped)
    return files


def chunker(*args, env=None, check=None, timeout=600):
    """Run `python -m chunker.cli.app ARGS` in a child process, `env` added to the
    environment; with `check`, assert that exit code."""
    import os
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "chunker.cli.app", *map(str, args)],
                          capture_output=True, text=True, env={**os.environ, **(env or {})},
                          timeout=timeout)
    if check is not None:
        assert proc.returncode == check, proc.stderr + proc.stdout
    return proc


def invoke(*args, env=None, check=None, cwd=None):
    """`chunker ARGS` in this process (typer's CliRunner), as `chunker` above runs it in a child:
    same arguments, a CompletedProcess back (returncode, stdout, stderr). A child process costs
    about 2.5 s of CPU in imports before the command starts; use `chunker` only where the test
    needs a process (a signal, a second process, the interpreter's start, the entry point).

    What a fresh process would give and this one might not is put back: the command's logging
    goes to its own stderr (setup_logging's basicConfig finds no handler, as in a new process),
    and the loggers' levels and handlers are restored afterwards, so that one test's `--quiet`
    cannot silence the next test's warnings. `cwd`: the working directory during the command."""
    import contextlib
    import logging
    import subprocess

    from typer.testing import CliRunner

    from chunker.cli.app import app

    root = logging.getLogger()
    loggers = [root, *(lg for lg in root.manager.loggerDict.values() if isinstance(lg, logging.Logger))]
    levels = {lg: lg.level for lg in loggers}
    handlers = root.handlers[:]
    root.handlers.clear()  # pytest's capture handlers: basicConfig adds the command's own then
    argv = [str(a) for a in args]
    try:
        with contextlib.chdir(cwd) if cwd is not None else contextlib.nullcontext():
            result = CliRunner().invoke(app, argv, env=env, catch_exceptions=False)
    finally:
        for handler in root.handlers:
            handler.close()
        root.handlers[:] = handlers
        for logger in root.manager.loggerDict.values():
            if isinstance(logger, logging.Logger):
                logger.setLevel(levels.get(logger, logging.NOTSET))
        root.setLevel(levels[root])
    proc = subprocess.CompletedProcess(["chunker", *argv], result.exit_code, result.stdout, result.stderr)
    if check is not None:
        assert proc.returncode == check, proc.stderr + proc.stdout
    return proc


def leaves(tree: dict) -> list[dict]:
    return sorted((n for n in tree["nodes"] if n["level"] == 0), key=lambda n: n["span"][0])


def assert_lossless(tree: dict, text: str) -> None:
    pos = 0
    for leaf in leaves(tree):
        assert leaf["span"][0] == pos
        assert leaf["original"] == text[leaf["span"][0]:leaf["span"][1]]
        pos = leaf["span"][1]
    assert pos == len(text)
    assert "".join(leaf["original"] for leaf in leaves(tree)) == text


def runtime(ctx: ChunkerSettings, store) -> Runtime:
    """A node's runtime: `ctx` as the context of an invocation of its own (nothing written)."""
    return Runtime(context=ctx if isinstance(ctx, RunContext) else RunContext.of(ctx), store=store)


_LINK = re.compile(r"(?<!\\)\[\[([^\]|]+)(?:\|[^\]]*)?\]\]")
_FENCE = re.compile(r"^(`{3,})text\n.*?\n\1$", re.DOTALL | re.MULTILINE)


def parse_frontmatter(text: str) -> dict:
    assert text.startswith("---\n")
    end = text.index("\n---\n", 4)
    return yaml.safe_load(text[4:end])


def check_markdown_tree(out: Path, users: tuple[str, ...] = ()) -> None:
    """Every Markdown file is reachable from index.md, every link resolves, every
    frontmatter block parses, and the files match hierarchy.json. `users`: the user's
    own Markdown files in OUT (relative paths), which are none of chunker's business."""
    files = {p.relative_to(out).as_posix()[:-3] for p in out.rglob("*.md")
             if ".chunker" not in p.parts} - {u[:-3] for u in users}
    assert "index" in files
    seen, todo = set(), ["index"]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        text = (out / f"{name}.md").read_text(encoding="utf-8")
        parse_frontmatter(text)
        body = _FENCE.sub("", text[text.index("\n---\n", 4) + 5:])
        for target in _LINK.findall(body):
            assert target in files, f"{name}.md links to missing {target}"
            todo.append(target)
    assert seen == files, f"unreachable: {sorted(files - seen)[:5]}"
    h = json.loads((out / "hierarchy.json").read_text(encoding="utf-8"))
    pages = {f"terms/{t['id']}" for t in h.get("terms", [])}  # the knowledge passes' term pages
    assert {n["filename"][:-3] for n in h["nodes"]} | {"index"} | pages == files


@pytest.fixture
def cinderella() -> str:
    return CINDERELLA.read_text(encoding="utf-8")


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def cinderella_tree(tmp_path_factory) -> Path:
    """Cinderella's tree with small leaves (test_navigation_trees.build_cinderella: a CLI run with
    the scripted model), built once per session for the navigation tests. Read it, or take a
    copy (test_navigation_trees.copy_tree) to write in."""
    from test_navigation_trees import build_cinderella

    return build_cinderella(tmp_path_factory.mktemp("session-trees"))


@pytest.fixture(scope="session")
def one_leaf_tree(tmp_path_factory) -> Path:
    """The one-leaf tree (test_navigation_trees.build_one_leaf), built once per session."""
    from test_navigation_trees import build_one_leaf

    return build_one_leaf(tmp_path_factory.mktemp("session-one-leaf"))


@pytest.fixture
def serve(monkeypatch):
    """Start a stub server (`chunker.testing.http_stub`) for the test and point the client's
    environment at it: `stub = serve(OllamaStub(models=[...]))`. Stopped when the test ends."""
    from contextlib import ExitStack

    with ExitStack() as running:
        def start(stub):
            running.enter_context(stub)
            for name, value in stub.env().items():
                monkeypatch.setenv(name, value)
            return stub

        yield start


@pytest.fixture
def cli():
    """Run `python -m chunker.cli.app ARGS` in a child process, `env` added to the environment
    and `pythonpath` (a folder) put before PYTHONPATH; returns the CompletedProcess."""
    import os
    import subprocess
    import sys

    def run(*args, env: dict[str, str], pythonpath: Path | None = None):
        full = {**os.environ, **env}
        if pythonpath is not None:
            full["PYTHONPATH"] = os.pathsep.join([str(pythonpath), full.get("PYTHONPATH", "")])
        return subprocess.run([sys.executable, "-m", "chunker.cli.app", *map(str, args)],
                              capture_output=True, text=True, env=full, timeout=300)

    return run


@pytest.fixture
def stub_run_config(tmp_path):
    """A config file for whole CLI runs through a stub server: large chunks (few calls) and
    quick retries, `attempts` of them per call."""
    def write(attempts: int) -> Path:
        cfg = tmp_path / "cfg.yaml"
        cfg.write_text(f"llm_max_attempts: {attempts}\nllm_retry_initial_s: 0.05\n"
                       "min_chunk_tokens: 300\nmax_chunk_tokens: 900\n")
        return cfg

    return write


@pytest.fixture(scope="session")
def langgraph_dev(tmp_path_factory):
    """`langgraph dev` serving langgraph.json's graphs (started once per test session);
    yields its URL. Fails when langgraph-cli is not installed."""
    import os
    import shutil
    import signal
    import subprocess
    import sys
    import time

    import httpx

    langgraph = shutil.which("langgraph", path=str(Path(sys.executable).parent))
    if langgraph is None:
        pytest.fail("langgraph-cli is not installed (pip install -e '.[dev]')")
    log_path = tmp_path_factory.mktemp("langgraph-dev") / "server.log"
    port = free_port()
    with open(log_path, "w") as log:
        server = subprocess.Popen([langgraph, "dev", "--no-browser", "--no-reload", "--port", str(port)],
                                  cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                  env={**os.environ, "LANGGRAPH_NO_VERSION_CHECK": "1"},
                                  start_new_session=True)
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(240):
            try:
                if httpx.get(f"{url}/ok", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if server.poll() is not None:
                break
            time.sleep(0.5)
        else:
            pytest.fail("langgraph dev did not answer /ok")
        assert server.poll() is None, log_path.read_text()[-3000:]
        yield url
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


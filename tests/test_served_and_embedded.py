"""The same graph served by `langgraph dev` and embedded as a node of a parent graph."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import TypedDict

import httpx
import pytest
from langgraph.graph import END, START, StateGraph
from langgraph.store.memory import InMemoryStore

from chunker import prompts
from chunker.config.settings import ChunkerSettings
from chunker.graph import build_graph
from conftest import ROOT, assert_lossless, scripted

TEXT = ("Cinderella's mother died. Her father married again. The stepsisters were cruel. "
        "Cinderella slept in the ashes. " * 20)


def test_prompts_have_their_placeholders():
    expected = {
        "system": {"background"}, "completeness": {"window", "lookahead"},
        "boundary_retry": {"window", "lookahead", "bad_phrase"}, "rewrite": {"chunk", "header_path"},
        "rewrite_summarize": {"chunk", "header_path"},
        "summarize": {"chunk"}, "group": {"items", "count", "min_group_size", "max_group_size", "hints", "nudge"},
        "synthesize": {"children"}, "repair": {"error"},
        "completeness_candidates": {"window", "lookahead", "numbers"},
        "boundary_retry_candidates": {"window", "lookahead", "numbers", "bad_answer"},
    }
    for name, keys in expected.items():
        assert prompts.placeholders(name) == keys, name
    with pytest.raises(KeyError):
        prompts.render("rewrite")
    assert "$ {x}" in prompts.render("rewrite", chunk="$ {x}", header_path="")  # document text is never re-parsed


def test_embedded_as_a_subgraph():
    chunker_graph = build_graph()

    class Parent(TypedDict, total=False):
        text: str
        root_id: str
        tree: dict
        note: str

    def after(state: Parent) -> dict:
        return {"note": f"tree with root {state['root_id']}"}

    parent = (StateGraph(Parent, context_schema=ChunkerSettings)
              .add_node("chunk", chunker_graph).add_node("after", after)
              .add_edge(START, "chunk").add_edge("chunk", "after").add_edge("after", END)
              .compile(store=InMemoryStore()))
    out = parent.invoke({"text": TEXT}, context=ChunkerSettings(model=scripted(), min_chunk_tokens=60,
                                                                 max_chunk_tokens=200),
                        config={"recursion_limit": 10**6})
    assert out["note"].startswith("tree with root L")
    assert_lossless(out["tree"], TEXT)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_served_by_langgraph_dev(tmp_path):
    langgraph = shutil.which("langgraph", path=str(Path(sys.executable).parent))
    if langgraph is None:
        pytest.skip("langgraph-cli is not installed (pip install -e '.[dev]')")
    from langgraph_sdk import get_sync_client

    port = _free_port()
    log = open(tmp_path / "server.log", "w")
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
        assert server.poll() is None, (tmp_path / "server.log").read_text()[-3000:]
        client = get_sync_client(url=url)
        thread = client.threads.create()
        result = client.runs.wait(thread["thread_id"], "chunker", input={"text": TEXT},
                                  context={"model": "scripted", "min_chunk_tokens": 60,
                                           "max_chunk_tokens": 200},
                                  config={"recursion_limit": 100000})
        assert result["root_id"].startswith("L")
        assert_lossless(result["tree"], TEXT)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
        log.close()

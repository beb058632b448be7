"""The MCP server through the official `mcp` SDK's own client: in-process and over stdio."""

from __future__ import annotations

import asyncio
import json
import re
import sys

import pytest
from mcp import Client, StdioServerParameters

from chunker.navigation import NavigatorSettings, open_tree
from chunker.navigation.mcp_server import build_server
from test_navigation_trees import chunker_cli, copy_tree

TOOLS = {"find", "list_trees", "overview", "open_node", "read_original", "search", "zoom_out",
         "define", "mentions", "follow"}


@pytest.fixture(scope="module")
def trees(tmp_path_factory, cinderella_tree, one_leaf_tree):
    base = tmp_path_factory.mktemp("mcp")
    return copy_tree(cinderella_tree, base), copy_tree(one_leaf_tree, base)


def _text(result) -> str:
    return "\n".join(c.text for c in result.content)


def test_tool_list_and_calls_in_process(trees):
    cinderella, _ = trees
    tree = open_tree(cinderella)
    leaf = tree.leaf_ids()[3]
    server = build_server([cinderella], NavigatorSettings(embeddings="bm25"))

    async def session():
        async with Client(server) as client:
            listed = await client.list_tools()
            opened = await client.call_tool("open_node", {"node_id": tree.root_id})
            original = await client.call_tool("read_original", {"node_id": leaf})
            found = await client.call_tool("search", {"query": "glass slipper", "k": 3})
            bad = await client.call_tool("zoom_out", {"node_id": "L9-99999"})
            passages = await client.call_tool("find", {"question": "Who lost a glass slipper?",
                                                       "budget": 250})
            return listed, opened, original, found, bad, passages

    listed, opened, original, found, bad, passages = asyncio.run(session())
    assert not passages.is_error and "[L0-" in _text(passages)
    assert 0 < int(re.search(r"\((\d+) tokens\)\s*$", _text(passages)).group(1)) <= 250
    assert {t.name for t in listed.tools} == TOOLS
    schema = next(t for t in listed.tools if t.name == "open_node").input_schema
    assert schema["required"] == ["node_id"]
    assert not opened.is_error
    for child in tree.node(tree.root_id).children:
        assert f"- {child}: " in _text(opened)
    assert tree.node(leaf).original in _text(original)
    assert len([line for line in _text(found).splitlines() if line.startswith("- L")]) == 3
    assert bad.is_error and "unknown node id 'L9-99999'" in _text(bad)


def test_several_trees_are_told_apart_by_name(trees):
    cinderella, one_leaf = trees
    server = build_server([cinderella, one_leaf], NavigatorSettings(embeddings="bm25"))

    async def session():
        async with Client(server) as client:
            names = await client.call_tool("list_trees", {})
            unnamed = await client.call_tool("overview", {})
            named = await client.call_tool("overview", {"tree": "one-leaf"})
            return names, unnamed, named

    names, unnamed, named = asyncio.run(session())
    assert "- cinderella: " in _text(names) and "- one-leaf: " in _text(names)
    assert unnamed.is_error and "say which tree" in _text(unnamed)
    assert "stepsisters made Cinderella sleep in the ashes" in _text(named)


def test_served_over_stdio_by_the_cli(trees):
    cinderella, _ = trees
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "chunker.cli.app", "mcp", str(cinderella),
                                         "--embeddings", "none"])

    async def session():
        async with Client(params) as client:
            listed = await client.list_tools()
            shown = await client.call_tool("overview", {})
            return listed, shown

    listed, shown = asyncio.run(session())
    assert {t.name for t in listed.tools} == TOOLS
    assert json.loads((cinderella / "hierarchy.json").read_text())["root"] in _text(shown)


def test_a_folder_without_a_run_is_refused_with_one_line(tmp_path):
    proc = chunker_cli("mcp", tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith("error:") and "no finished chunker run" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and proc.stdout == ""

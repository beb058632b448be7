"""Read-only tree access and the five LangChain tools, on Cinderella's real tree."""

from __future__ import annotations

import json
import re

import pytest

from chunker.document.tokens import count_tokens
from chunker.navigation import NavigationError, NavigatorSettings, NotARun, UnknownNode, make_tools, open_tree
from conftest import CINDERELLA
from test_navigation_trees import copy_tree

BM25 = NavigatorSettings(embeddings="bm25")


@pytest.fixture(scope="module")
def tree_dir(tmp_path_factory, cinderella_tree):
    return copy_tree(cinderella_tree, tmp_path_factory.mktemp("nav"))


@pytest.fixture(scope="module")
def tree(tree_dir):
    return open_tree(tree_dir)


@pytest.fixture(scope="module")
def raw(tree_dir):
    return json.loads((tree_dir / "hierarchy.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def tools(tree):
    return {t.name: t for t in make_tools(tree, BM25)}


def _nodes(raw):
    return {n["id"]: n for n in raw["nodes"]}


def _tokens_line(text: str) -> int:
    return int(re.search(r"\((\d+) tokens\)$", text).group(1))


def test_overview_is_the_root_with_its_childrens_summaries(tools, raw):
    nodes = _nodes(raw)
    root = nodes[raw["root"]]
    text = tools["overview"].invoke({})
    assert f"[{root['id']}]" in text
    for child in root["children"]:
        assert f"- {child}: {' '.join(nodes[child]['summary'].split())}" in text
    body = text.rsplit("\n\n(", 1)[0]
    assert _tokens_line(text) == count_tokens(body)


def test_open_node_shows_summary_rewritten_and_children(tools, tree, raw):
    nodes = _nodes(raw)
    block = next(n for n in raw["nodes"] if n["level"] == 1)
    view = tree.open_node(block["id"])
    assert view.rewritten == block["rewritten"]
    assert [c.id for c in view.children] == block["children"]
    assert [c.summary for c in view.children] == [" ".join(nodes[c]["summary"].split())
                                                   for c in block["children"]]
    assert view.tokens == count_tokens(view.render())
    text = tools["open_node"].invoke({"node_id": block["id"]})
    assert block["rewritten"] in text and _tokens_line(text) == view.tokens


def test_read_original_is_the_exact_source_text(tools, tree, raw):
    source = CINDERELLA.read_text(encoding="utf-8")
    for leaf in (n for n in raw["nodes"] if n["level"] == 0):
        passage = tree.read_original(leaf["id"])
        assert passage.original == source[leaf["span"][0]:leaf["span"][1]] == leaf["original"]
    leaf = next(n for n in raw["nodes"] if n["level"] == 0)
    assert leaf["original"] in tools["read_original"].invoke({"node_id": leaf["id"]})
    with pytest.raises(NavigationError, match="not a leaf"):
        tree.read_original(raw["root"])
    assert "not a leaf" in tools["read_original"].invoke({"node_id": raw["root"]})


def test_zoom_out_gives_parent_and_neighbours(tools, tree, raw):
    nodes = _nodes(raw)
    parent = next(n for n in raw["nodes"] if n["level"] == 1 and len(n["children"]) >= 3)
    middle = parent["children"][1]
    hood = tree.zoom_out(middle)
    assert hood.parent.id == parent["id"]
    assert hood.previous.id == parent["children"][0] and hood.next.id == parent["children"][2]
    first = tree.zoom_out(parent["children"][0])
    assert first.previous is None
    top = tree.zoom_out(raw["root"])
    assert top.parent is None and top.previous is None and top.next is None
    text = tools["zoom_out"].invoke({"node_id": middle})
    assert f"parent: {parent['id']}: {' '.join(nodes[parent['id']]['summary'].split())}" in text


def test_search_finds_the_leaf_that_holds_a_phrase(tools, tree, raw):
    leaves = [n for n in raw["nodes"] if n["level"] == 0]
    target = leaves[len(leaves) // 2]
    words = " ".join(target["original"].split()[5:17])
    results = tree.search(words, 5, embeddings="bm25", piece_tokens=200)
    assert results.method == "bm25"
    # the leaf, or one of its few ancestors (whose text quotes its first sentence), ranks first
    assert target["id"] in [h.node.id for h in results.hits]
    assert results.tokens == count_tokens(results.render())
    text = tools["search"].invoke({"query": words, "k": 2})
    assert len(re.findall(r"^- L\d+-\d+ ", text, re.MULTILINE)) == 2


def test_none_is_the_older_spelling_of_bm25(tree):
    """`--embeddings none` (saved settings, old scripts) still means BM25, through one index."""
    assert tree.index("none", 200) is tree.index("bm25", 200)
    assert tree.search("slipper", 3, embeddings="none", piece_tokens=200).method == "bm25"


def test_unknown_node_id_is_an_error_the_agent_can_read(tools, tree):
    with pytest.raises(UnknownNode, match="unknown node id 'L9-99999'"):
        tree.open_node("L9-99999")
    for name in ("open_node", "read_original", "zoom_out"):
        assert "unknown node id 'L9-99999'" in tools[name].invoke({"node_id": "L9-99999"})


def test_tools_have_typed_schemas_and_descriptions(tools):
    assert set(tools) == {"find", "overview", "open_node", "read_original", "search", "zoom_out",
                          "define", "mentions", "follow"}
    assert tools["open_node"].args["node_id"]["type"] == "string"
    assert tools["find"].args["question"]["type"] == "string"
    assert tools["search"].args["k"]["type"] == "integer"
    assert all(len(t.description) > 40 for t in tools.values())


def test_find_reads_passages_within_the_budget_and_explains_bad_input(tools, tree):
    text = tools["find"].invoke({"question": "Who lost a golden slipper on the stairs?", "budget": 300})
    shown = int(re.search(r"\((\d+) tokens\)\s*$", text).group(1))
    assert 0 < shown <= 300 and "[L0-" in text
    assert "empty" in tools["find"].invoke({"question": "   "})


def test_a_folder_without_a_finished_run_is_refused(tmp_path):
    with pytest.raises(NotARun, match="holds no finished chunker run"):
        open_tree(tmp_path)
    (tmp_path / "hierarchy.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(NotARun, match="not a readable chunker tree"):
        open_tree(tmp_path)


def test_a_prebuilt_langgraph_agent_calls_the_tools(tree, tools):
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage
    from langgraph.prebuilt import create_react_agent

    class ToolCallingFake(GenericFakeChatModel):
        def bind_tools(self, tools, **kwargs):
            return self

    leaf = tree.leaf_ids()[0]
    model = ToolCallingFake(messages=iter([
        AIMessage("", tool_calls=[{"name": "overview", "args": {}, "id": "1"}]),
        AIMessage("", tool_calls=[{"name": "read_original", "args": {"node_id": leaf}, "id": "2"}]),
        AIMessage("She was good and pious."),
    ]))
    agent = create_react_agent(model, list(tools.values()))
    out = agent.invoke({"messages": [("user", "What did the dying mother ask?")]})
    tool_texts = [m.content for m in out["messages"] if m.type == "tool"]
    assert f"[{tree.root_id}]" in tool_texts[0]
    assert tree.node(leaf).original in tool_texts[1]
    assert out["messages"][-1].content == "She was good and pious."

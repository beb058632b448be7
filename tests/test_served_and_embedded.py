"""The same graph served by `langgraph dev` and embedded as a node of a parent graph."""

from typing import TypedDict

import pytest
from langgraph.graph import END, START, StateGraph
from langgraph.store.memory import InMemoryStore

from chunker import prompts
from chunker.state.run import RunContext
from chunker.graph import build_graph
from conftest import assert_lossless, scripted

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
    # document text is never re-parsed: placeholder-like text in a value survives
    # verbatim, and only the template's own placeholders are filled
    chunk = "costs $5 and ${chunk} or ${header_path}, $$ {x} $x"
    rendered = prompts.render("rewrite", chunk=chunk, header_path="Part I > ")
    template = prompts.load("rewrite")
    assert rendered == template.replace("${header_path}", "Part I > ").replace("${chunk}", chunk)
    assert rendered.count(chunk) == 1 and "Part I > <chunk>" in rendered


def test_embedded_as_a_subgraph():
    chunker_graph = build_graph()

    class Parent(TypedDict, total=False):
        text: str
        root_id: str
        tree: dict
        note: str

    def after(state: Parent) -> dict:
        return {"note": f"tree with root {state['root_id']}"}

    parent = (StateGraph(Parent, context_schema=RunContext)
              .add_node("chunk", chunker_graph).add_node("after", after)
              .add_edge(START, "chunk").add_edge("chunk", "after").add_edge("after", END)
              .compile(store=InMemoryStore()))
    out = parent.invoke({"text": TEXT}, context=RunContext(model=scripted(), min_chunk_tokens=60,
                                                            max_chunk_tokens=200),
                        config={"recursion_limit": 10**6})
    assert out["note"].startswith("tree with root L")
    assert_lossless(out["tree"], TEXT)


@pytest.mark.slow
def test_served_by_langgraph_dev(langgraph_dev):
    from langgraph_sdk import get_sync_client

    client = get_sync_client(url=langgraph_dev)
    thread = client.threads.create()
    result = client.runs.wait(thread["thread_id"], "chunker", input={"text": TEXT},
                              context={"model": "scripted", "min_chunk_tokens": 60,
                                       "max_chunk_tokens": 200},
                              config={"recursion_limit": 100000})
    assert result["root_id"].startswith("L")
    assert_lossless(result["tree"], TEXT)

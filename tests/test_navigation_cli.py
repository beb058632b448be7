"""`chunker ask` as a user runs it (in-process: conftest.invoke), bad input, and the navigator
served by `langgraph dev`."""

from __future__ import annotations

import json

import pytest

from chunker.navigation import open_tree
from conftest import invoke
from test_navigation_trees import chunker_cli, copy_tree

FIELDS = {"passages", "question", "answer", "path", "leaves", "tokens_read", "status", "route"}


@pytest.fixture(scope="module")
def tree_dir(tmp_path_factory, cinderella_tree):
    return copy_tree(cinderella_tree, tmp_path_factory.mktemp("ask"))


def test_ask_prints_one_json_line_per_question(tree_dir, tmp_path):
    tree = open_tree(tree_dir)
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"question": "Who lost a golden slipper on the stairs?"}) + "\n\n"
                         + json.dumps({"question": "What did the doves pick out of the ashes?",
                                       "answer": "lentils"}) + "\n", encoding="utf-8")
    proc = chunker_cli("ask", tree_dir, "--questions", questions, "--embeddings-only",
                       "--embeddings", "none", "--budget", "3000", "--json", "--mode", "descend")
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(lines) == 2 and all(set(line) == FIELDS for line in lines)
    first = lines[0]
    assert first["path"][0] == tree.root_id and set(first["leaves"]) <= set(tree.leaf_ids())
    assert 0 < first["tokens_read"] <= 3000
    assert first["answer"] in {tree.node(i).original.strip() for i in first["leaves"]}
    assert proc.stderr.count("choose") >= 2 and proc.stderr.count("read") >= 2  # progress lines


def test_ask_with_the_scripted_model_answers_in_words(tree_dir):
    proc = chunker_cli("ask", tree_dir, 'Where does it say "the shoe was too small"?', "--model",
                       "scripted", "--embeddings", "bm25", "--max-leaves", "40", "--budget", "100000")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "the shoe was too small" in out.casefold() and "| answered" in out
    assert "judge" not in proc.stderr  # progress lines name the walk's steps, not the model's


@pytest.mark.parametrize("args, message", [
    (["{empty}", "Who?"], "holds no finished chunker run"),
    (["{tree}", "Who?", "--start", "L9-99999"], "unknown node id 'L9-99999'"),
    (["{tree}", "   "], "the question is empty"),
    (["{tree}"], "give either a QUESTION or --questions FILE"),
    (["{tree}", "Who?", "--model", "qwen3:8b", "--budget", "10"], "cannot reach the Ollama server"),
])
def test_bad_input_is_one_line_and_exit_2(tree_dir, tmp_path, args, message):
    args = [a.format(empty=tmp_path, tree=tree_dir) for a in args]
    proc = invoke("ask", *args, env={"OLLAMA_HOST": "127.0.0.1:9"})
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and proc.stdout == ""


@pytest.mark.slow
def test_navigator_served_by_langgraph_dev(tree_dir, langgraph_dev):
    from langgraph_sdk import get_sync_client

    client = get_sync_client(url=langgraph_dev)
    assert {"chunker", "navigator"} <= {a["graph_id"] for a in client.assistants.search()}
    thread = client.threads.create()
    tree = open_tree(tree_dir)
    result = client.runs.wait(thread["thread_id"], "navigator",
                              input={"question": 'Where does it say "the shoe was too small"?',
                                     "tree_dir": str(tree_dir)},
                              context={"model": "scripted", "embeddings": "none",
                                       "max_leaves": 40, "budget_tokens": 100000})
    assert result["status"] == "answered", result
    assert result["path"][0] == tree.root_id
    assert "the shoe was too small" in " ".join(tree.node(result["leaves"][-1]).original.split())
    assert result["tokens_read"] > 0 and set(FIELDS) - {"question"} <= set(result)

"""The checkpoint database stays small whatever the document's length: the pruning saver
keeps the last few checkpoints of each namespace, and none of a subgraph's run that ended
(`chunker/persistence/pruning_saver.py`), and a run it pruned still resumes."""

from __future__ import annotations

import sqlite3

import pytest
from langgraph.store.memory import InMemoryStore

from chunker.state.run import RunContext
from chunker.graph import build_graph
from chunker.graph.build import llm_retry_policy
from chunker.llm.errors import is_transient
from chunker.persistence.pruning_saver import KEEP_CHECKPOINTS, PruningSqliteSaver, below
from conftest import CINDERELLA, assert_lossless, leaves, scripted

SMALL = {"min_chunk_tokens": 60, "max_chunk_tokens": 200}


def test_below():
    low, high = below("fresh:1")
    assert low < "fresh:1|cut:2" < high and not low < "fresh:1" < high and not low < "fresh:10" < high
    low, high = below("")
    assert low < "fresh:1" < high and low < "regions:1|region:2" < high and not low < "" < high


def _graph(db):
    conn = sqlite3.connect(str(db), check_same_thread=False)
    return conn, build_graph(PruningSqliteSaver(conn), InMemoryStore(), llm_retry=llm_retry_policy(1, 0.0))


@pytest.mark.parametrize("context", ["written", "source"])
def test_a_finished_run_keeps_a_few_checkpoints_whatever_its_leaves(tmp_path, context):
    text = CINDERELLA.read_text(encoding="utf-8")
    conn, graph = _graph(tmp_path / "checkpoints.sqlite")
    config = {"configurable": {"thread_id": "t"}, "recursion_limit": 10**6}
    out = graph.invoke({"text": text}, config, context=RunContext(
        model=scripted(), background_context=context, return_tree=True, **SMALL))
    assert_lossless(out["tree"], text)
    n_leaves = len(leaves(out["tree"]))
    assert n_leaves > 10  # a subgraph's run for every leaf: many namespaces were written
    namespaces = [ns for (ns,) in conn.execute("SELECT DISTINCT checkpoint_ns FROM checkpoints")]
    rows = conn.execute("SELECT count(*) FROM checkpoints").fetchone()[0]
    # the last put's namespace and its ancestors only (the top graph's is one of them)
    assert "" in namespaces and len(namespaces) <= 4, namespaces
    assert rows <= KEEP_CHECKPOINTS * len(namespaces)
    writes = {ns for (ns,) in conn.execute("SELECT DISTINCT checkpoint_ns FROM writes")}
    assert writes <= set(namespaces)


def test_a_pruned_run_resumes_inside_its_subgraph(tmp_path):
    text = CINDERELLA.read_text(encoding="utf-8")
    _, plain = _graph(tmp_path / "reference.sqlite")
    reference = plain.invoke({"text": text}, {"configurable": {"thread_id": "r"}, "recursion_limit": 10**6},
                             context=RunContext(model=scripted(), return_tree=True, **SMALL))["tree"]
    conn, graph = _graph(tmp_path / "checkpoints.sqlite")
    config = {"configurable": {"thread_id": "t"}, "recursion_limit": 10**6}
    ctx = RunContext(model=scripted(fail_calls={9}), return_tree=True, **SMALL)
    with pytest.raises(Exception) as failure:
        graph.invoke({"text": text}, config, context=ctx)
    assert is_transient(failure.value)
    # killed inside a subgraph: its namespace is kept, with those of the subgraphs around it
    namespaces = {ns for (ns,) in conn.execute("SELECT DISTINCT checkpoint_ns FROM checkpoints")}
    assert any("|" in ns for ns in namespaces)
    out = graph.invoke(None, config, context=ctx)

    def shape(tree: dict) -> list:
        return [(n["id"], n["span"], n["rewritten"], n["summary"]) for n in tree["nodes"]]

    assert shape(out["tree"]) == shape(reference)

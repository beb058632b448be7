"""Phase 2 on real documents: multi-level trees, every validator path, resume mid-sweep."""

import math
import sqlite3

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.store.memory import InMemoryStore

from chunker.state.run import RunContext
from chunker.graph import build_graph
from chunker.graph.build import llm_retry_policy
from chunker.output.hierarchy import Hierarchy, check_tree
from conftest import EMMA, assert_lossless, leaves, run_text, scripted

MAX_CHECKPOINT_BYTES = 8_000
"""A checkpoint of a run in progress holds a cursor, counters and a few ids per level:
a few KB, whatever the document's length (here 120 KB and over 100 leaves)."""
MAX_STATE_STRING = 200
"""No document text in the state: ids, statuses and a boundary phrase only."""


def _check_tree(tree: dict, text: str) -> Hierarchy:
    h = Hierarchy.model_validate(tree)
    check_tree(h)  # one root, reachability, no single-child block, contiguous spans
    assert_lossless(tree, text)
    return h


def _lists_and_strings(value, path=""):
    """Every (path, list) and (path, str) inside a state value, at any depth."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, (list, tuple)):
        yield path, list(value)
        for i, item in enumerate(value):
            yield from _lists_and_strings(item, f"{path}[{i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _lists_and_strings(item, f"{path}.{key}")


def test_multi_level_tree_on_a_long_document(tmp_path):
    """The state of a long run stays small and bounded at every checkpoint: payloads live
    in the store, and each level's pending list is aggregated at the count threshold."""
    text = EMMA.read_text(encoding="utf-8")[:120_000]
    conn = sqlite3.connect(str(tmp_path / "checkpoints.sqlite"), check_same_thread=False)
    graph = build_graph(checkpointer=SqliteSaver(conn), store=InMemoryStore(),
                        llm_retry=llm_retry_policy(1, 0.0))
    count_threshold = 6
    # one cursor: its sweeps keep every level at the count threshold (read in regions, the
    # levels above the regions start from the regions' tops, as many as there are regions)
    settings = RunContext(model=scripted(group_size=3), min_chunk_tokens=150, max_chunk_tokens=500,
                          summary_count_threshold=count_threshold, summary_aggregation_threshold=10**6,
                          reading="one_cursor")
    config = {"configurable": {"thread_id": "long"}, "recursion_limit": 10**9}
    out = graph.invoke({"text": text}, config, context=settings)
    h = _check_tree(out["tree"], text)
    n_leaves = len(leaves(out["tree"]))
    depth = h.by_id()[h.root].level
    assert n_leaves > 60 and depth >= 3
    assert depth <= math.ceil(math.log(n_leaves, 2)) + 1  # roughly logarithmic

    blob_bytes = dict(conn.execute("SELECT checkpoint_id, length(checkpoint) FROM checkpoints"))
    # the graph's checkpoints and its subgraphs' (graph/), each subgraph's in its namespace
    namespaces = [ns for (ns,) in conn.execute("SELECT DISTINCT checkpoint_ns FROM checkpoints")]
    assert len(namespaces) > n_leaves
    history = [(saved.config["configurable"]["checkpoint_id"], saved.checkpoint["channel_values"])
               for ns in namespaces
               for saved in graph.checkpointer.list({"configurable": {"thread_id": "long", "checkpoint_ns": ns}})]
    # from load_document (which moves the text to the store) until the tree is assembled
    in_progress = [(checkpoint_id, values) for checkpoint_id, values in history if "doc_id" in values
                   and not values.get("text") and not values.get("tree")]
    assert len(in_progress) > 5 * n_leaves  # every step of the run is checked
    bound = max(count_threshold, depth + 1)
    for checkpoint_id, values in in_progress:
        assert blob_bytes[checkpoint_id] <= MAX_CHECKPOINT_BYTES
        for key, value in values.items():
            if key == "stats":
                continue
            for path, item in _lists_and_strings(value, key):
                if isinstance(item, str):
                    assert len(item) <= MAX_STATE_STRING, path
                else:
                    assert len(item) <= bound, f"{path} holds {len(item)} items"
    # counters are per kind, never per leaf: only the level counters grow, with the depth
    per_level = {k for k in out["stats"] if any(ch.isdigit() for ch in k)}
    assert per_level <= {f"blocks.L{level}" for level in range(1, depth + 1)}


def test_token_threshold_alone_builds_levels(cinderella):
    out, _ = run_text(cinderella, scripted(), min_chunk_tokens=100, max_chunk_tokens=400,
                      summary_count_threshold=10**4, summary_aggregation_threshold=120)
    assert out["stats"]["blocks.L1"] >= 2
    _check_tree(out["tree"], cinderella)


def test_invalid_groupings_fall_back_evenly(cinderella):
    out, _ = run_text(cinderella, scripted(faults={"bad_groups": 1.0}), min_chunk_tokens=60,
                      max_chunk_tokens=300, summary_count_threshold=6)
    s = out["stats"]
    assert s["group.fallback"] >= 1 and s["group.invalid"] == 2 * s["group.fallback"]
    _check_tree(out["tree"], cinderella)


def test_oversized_group_reprompted_once_then_accepted(cinderella):
    out, _ = run_text(cinderella, scripted(faults={"oversize": 1.0}), min_chunk_tokens=60,
                      max_chunk_tokens=300, summary_count_threshold=7, max_group_size=3)
    s = out["stats"]
    assert s["group.oversize"] >= 1 and "group.fallback" not in s
    assert s["calls.group"] == 2 * s["group.oversize"]
    _check_tree(out["tree"], cinderella)


def test_one_chunk_document_is_its_own_root():
    text = "A short note. It has two sentences."
    out, _ = run_text(text, scripted())
    tree = out["tree"]
    assert len(tree["nodes"]) == 1 and tree["root"] == "L0-00000"
    _check_tree(tree, text)


def test_shorter_than_min_chunk_tokens():
    text = "Tiny."
    out, _ = run_text(text, scripted(), min_chunk_tokens=500)
    assert_lossless(out["tree"], text)

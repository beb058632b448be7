"""Phase 2 on real documents: multi-level trees, every validator path, resume mid-sweep."""

import math

from chunker.output.hierarchy import Hierarchy, check_tree
from conftest import SHARED, assert_lossless, leaves, run_text, scripted


def _check_tree(tree: dict, text: str) -> Hierarchy:
    h = Hierarchy.model_validate(tree)
    check_tree(h)  # one root, reachability, no single-child block, contiguous spans
    assert_lossless(tree, text)
    return h


def test_multi_level_tree_on_a_long_document():
    text = (SHARED / "emma" / "emma.md").read_text(encoding="utf-8")[:120_000]
    out, _ = run_text(text, scripted(group_size=3), min_chunk_tokens=150, max_chunk_tokens=500,
                      summary_count_threshold=6, summary_aggregation_threshold=10**6)
    h = _check_tree(out["tree"], text)
    n_leaves = len(leaves(out["tree"]))
    depth = h.by_id()[h.root].level
    assert n_leaves > 60 and depth >= 3
    assert depth <= math.ceil(math.log(n_leaves, 2)) + 1  # roughly logarithmic
    # the state never held a growing list: pending levels stay under the thresholds
    assert len(out["stats"]) < 60


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

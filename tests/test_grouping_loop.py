"""One grouping loop (chunker/aggregation/grouping.py) for a document's sweeps and a corpus's
flat folders: the corpus's folders follow the same rules, retries and fallback as the graph's
validate_groups and fallback_grouping, and keep every answer so that a resume asks only
the call that was in flight."""

from __future__ import annotations

import pytest
from langgraph.store.memory import InMemoryStore

from chunker.aggregation.grouping import Attempt, choose_groups, fallback_groups, judge
from chunker.config.settings import ChunkerSettings
from chunker.corpus.grouping import group_items
from chunker.corpus.store import CorpusStore
from chunker.embeddings import split_at_dips
from chunker.testing.scripted import ScriptedTransientError
from conftest import scripted

SUMMARIES = [f"Page {i} explains the {topic} of the web framework in a few sentences."
             for i, topic in enumerate(["routing", "routing", "requests", "requests", "responses", "responses",
                                        "security", "security", "testing", "testing", "deployment", "deployment"])]


def group(model: str, summaries=SUMMARIES, cs: CorpusStore | None = None, **settings):
    cfg = ChunkerSettings(model=model, embeddings="lexical", **settings)
    cs = cs or CorpusStore(InMemoryStore(), "c")
    return group_items(cfg, cs, "dir:pages#r0.0", summaries, background="These are documents.",
                       calls_dir=None, ids=[f"D{i}" for i in range(len(summaries))])


def test_the_rules_are_the_graphs():
    agg = ChunkerSettings(model="scripted", max_group_size=3).aggregation
    fresh = Attempt()
    assert judge([[0, 1], [2, 3]], 4, agg, fresh).status == "ok"
    broken = judge([[0], [1, 2, 3]], 4, agg, fresh)  # a hard problem: named, asked once more
    assert (broken.status, broken.stats) == ("retry", {"group.invalid": 1}) and "at least 2" in broken.attempt.nudge
    assert judge([[0], [1, 2, 3]], 4, agg, broken.attempt).status == "fallback"
    big = judge([[0, 1, 2, 3, 4], [5, 6]], 7, agg, fresh)  # over the soft cap: asked to subdivide, once
    assert (big.status, big.stats) == ("retry", {"group.oversize": 1}) and big.attempt.resized
    assert judge([[0, 1, 2, 3, 4], [5, 6]], 7, agg, big.attempt).status == "ok"
    # one group of everything: a block for a document's sweep; a folder asks for a split
    assert judge([list(range(7))], 7, agg, big.attempt).status == "ok"
    assert judge([list(range(7))], 7, agg, fresh, must_split=True).status == "retry"
    assert fallback_groups(7, [0.1, 0.9, 0.1, 0.2, 0.8, 0.1], agg) == split_at_dips(
        7, [0.1, 0.9, 0.1, 0.2, 0.8, 0.1], 2, 3)
    assert fallback_groups(7, [], agg) == [[0, 1, 2], [3, 4], [5, 6]]  # no signal: even groups


def test_a_folders_oversized_group_is_asked_to_subdivide_once_then_taken():
    groups, stats = group(scripted(group_size=7))  # 12 items, groups of 7 and 5, cap 5
    assert groups == [list(range(7)), list(range(7, 12))]
    assert stats["calls.group"] == 2 and stats["group.oversize"] == 1 and stats["kept.group"] == 1


def test_one_group_is_kept_where_a_folder_fits_in_one_and_refused_where_it_does_not():
    groups, stats = group(scripted(), SUMMARIES[:4])  # 4 items: the model's one group of all
    assert groups == [[0, 1, 2, 3]] and stats["calls.group"] == 1 and "group.invalid" not in stats
    groups, stats = group(scripted(faults={"oversize": 1.0}))  # one group of 12: not a grouping
    assert stats["calls.group"] == 2 and stats["group.invalid"] == 2 and stats["group.fallback"] == 1
    assert len(groups) >= 3 and all(2 <= len(g) <= 5 for g in groups)


def calls(path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


def test_a_model_not_asked_to_group_leaves_it_to_the_dips(tmp_path):
    groups, stats = group(scripted(counter_file=str(tmp_path / "calls")),
                          model_tasks=["boundary", "rewrite", "summary", "synthesis"])
    assert stats == {"extracted.group": 1} and calls(tmp_path / "calls") == 0
    assert all(2 <= len(g) <= 5 for g in groups) and sum(map(len, groups)) == 12


def test_a_kill_during_the_retry_asks_only_the_call_in_flight(tmp_path):
    whole = group(scripted(faults={"bad_groups": 1.0}))  # each answer invalid: two calls, then the dips
    assert whole[1]["calls.group"] == 2 and whole[1]["group.fallback"] == 1
    cs = CorpusStore(InMemoryStore(), "c")
    spec = scripted(faults={"bad_groups": 1.0}, fail_calls=[2], counter_file=str(tmp_path / "calls"))
    with pytest.raises(ScriptedTransientError):
        group(spec, cs=cs)  # the first answer came; the retry's call died
    assert group(spec, cs=cs) == whole  # the same groups, and the counts of one uninterrupted run
    assert calls(tmp_path / "calls") == 3  # the first answer replayed, not asked again
    assert group(spec, cs=cs) == whole and calls(tmp_path / "calls") == 3  # done: nothing asked

"""Each node and routing function on its own, against a real store."""

import pytest
from langgraph.store.memory import InMemoryStore

from chunker.config.settings import ChunkerSettings
from chunker.aggregation.groups import even_groups, grouping_problem
from chunker.nodes.aggregate import check_aggregation, crossing_level, fallback_grouping, validate_groups
from chunker.nodes.boundary import fallback_boundary, force_split, validate_boundary
from chunker.nodes.finalize import finalize_tree
from chunker.nodes.load_document import load_document
from chunker.nodes.window import expand_window
from conftest import runtime, scripted

TEXT = ("The first sentence is here. The second one follows it. A third closes the paragraph.\n\n"
        "Now a new topic starts. It goes on for a while. And then it ends too.\n")


@pytest.fixture
def rt():
    ctx = ChunkerSettings(model=scripted(), min_chunk_tokens=8, max_chunk_tokens=40,
                         lookahead_units=1, max_expansion_attempts=2, boundary_mode="phrase")
    return runtime(ctx, InMemoryStore())


@pytest.fixture
def loaded(rt):
    return load_document({"text": TEXT}, rt)


def test_load_document_moves_text_to_store(rt, loaded):
    assert loaded["text"] is None and loaded["doc_chars"] == len(TEXT)
    item = rt.store.get(("chunker", loaded["run_key"], "doc"), "text")
    assert item.value["text"] == TEXT


def test_each_load_draws_its_own_run_key(rt, loaded):
    # two runs on the same text in one store must not share records (defect 4)
    again = load_document({"text": TEXT}, rt)
    assert again["doc_id"] == loaded["doc_id"] and again["run_key"] != loaded["run_key"]


def test_load_document_rejects_blank(rt):
    with pytest.raises(ValueError, match="whitespace"):
        load_document({"text": " \n\t "}, rt)


def test_expand_window_grows_to_min_then_by_step(rt, loaded):
    state = {**loaded}
    state.update(expand_window(state, rt))
    assert TEXT[:state["window_end"]] == "The first sentence is here. The second one follows it. "
    assert state["expansions"] == 0 and state["min_end"] == state["window_end"]
    assert TEXT[state["window_end"]:state["shown_end"]] == "A third closes the paragraph.\n\n"
    state.update(expand_window(state, rt))
    assert state["expansions"] == 1 and TEXT[:state["window_end"]].endswith("paragraph.\n\n")


def _window(rt, loaded, **extra):
    state = {**loaded}
    state.update(expand_window(state, rt))
    state.update(extra)
    return state


def test_validate_boundary_match_accept_expand_miss(rt, loaded):
    s = _window(rt, loaded, complete=True, phrase=" A third closes ")
    out = validate_boundary(s, rt)
    assert out["boundary_status"] == "match" and TEXT[out["chunk_end"]:].startswith("A third")
    assert validate_boundary(_window(rt, loaded, complete=False), rt)["boundary_status"] == "expand"
    for bad in ("a third closes", "The first sentence", "third", "Now a new topic starts."):
        # paraphrased, before the minimum size, too short, beyond what was shown
        assert validate_boundary(_window(rt, loaded, complete=True, phrase=bad), rt)["boundary_status"] == "miss"
    assert validate_boundary(_window(rt, loaded, complete=None), rt)["boundary_status"] == "miss"


def test_a_null_or_blank_phrase_is_a_miss_not_a_silent_cut(rt, loaded):
    # defect 3: "complete" with no phrase used to end the chunk at the window, unvalidated
    for phrase in (None, "", "   \n "):
        out = validate_boundary(_window(rt, loaded, complete=True, phrase=phrase), rt)
        assert out["boundary_status"] == "miss", phrase


def test_a_phrase_must_start_at_a_word_boundary(rt, loaded):
    # defect 3: "hird closes the" occurs inside "third closes the"; the chunk would end "...A t"
    out = validate_boundary(_window(rt, loaded, complete=True, phrase="hird closes the"), rt)
    assert out["boundary_status"] == "miss"
    out = validate_boundary(_window(rt, loaded, complete=True, phrase="A third closes the"), rt)
    assert out["boundary_status"] == "match" and TEXT[:out["chunk_end"]].endswith("follows it. ")


def test_a_null_phrase_at_the_end_of_the_document_ends_the_last_chunk(rt, loaded):
    s = {**loaded, "cursor": TEXT.index("Now a new"), "window_end": None}
    s.update(expand_window(s, rt))
    while s["window_end"] < len(TEXT):
        s.update(expand_window(s, rt))
    out = validate_boundary({**s, "complete": True, "phrase": None}, rt)
    assert out["chunk_end"] == len(TEXT) and out["chunk_outcome"] == "end"


def test_fallback_boundary_is_a_sentence_end(rt, loaded):
    s = _window(rt, loaded)
    out = fallback_boundary(s, rt)
    assert out["chunk_outcome"] == "fallback" and TEXT[:out["chunk_end"]].endswith("follows it. ")


def test_force_split_respects_the_cap(loaded):
    from chunker.document.tokens import count_tokens

    store = InMemoryStore()
    rt = runtime(ChunkerSettings(model=scripted(), min_chunk_tokens=4, max_chunk_tokens=14,
                                 boundary_mode="phrase"), store)
    s = {**load_document({"text": TEXT}, rt), "window_end": len(TEXT)}
    out = force_split(s, rt)
    assert out["forced"] and TEXT[:out["chunk_end"]] == "The first sentence is here. The second one follows it. "
    assert count_tokens(TEXT[:out["chunk_end"]]) <= 14 < count_tokens(TEXT[:out["chunk_end"] + 8])


def test_routes(rt):
    from chunker.graph import aggregate, cut

    base = {"window_tokens": 10, "expansions": 0, "doc_chars": 100, "window_end": 50}
    assert cut.after_expand(base, rt) == "boundary"
    assert cut.after_expand({**base, "window_tokens": 40}, rt) == "force_split"
    assert cut.after_validate({**base, "boundary_status": "match"}, rt) == "__end__"
    assert cut.after_validate({**base, "boundary_status": "expand"}, rt) == "__end__"
    assert cut.after_boundary({**base, "boundary_status": "match"}, rt) == "__end__"
    assert cut.after_boundary({**base, "boundary_status": "expand"}, rt) == "expand_window"
    assert cut.after_boundary({**base, "boundary_status": "expand", "expansions": 2}, rt) == "force_split"
    assert cut.after_validate({**base, "boundary_status": "miss", "boundary_attempt": 0}, rt) == "retry_boundary"
    assert cut.after_validate({**base, "boundary_status": "miss", "boundary_attempt": 1}, rt) == "fallback_boundary"
    assert aggregate.after_check({"agg_level": 0, "cursor": 0, "doc_chars": 1}, rt) == "group_summaries"
    assert aggregate.after_check({"agg_level": None, "cursor": 0, "doc_chars": 1}, rt) == "__end__"
    assert aggregate.after_check({"agg_level": None, "cursor": 1, "doc_chars": 1}, rt) == "finalize_tree"
    assert aggregate.after_validation({"group_status": "ok"}, rt) == "synthesize_block"
    assert aggregate.after_validation({"group_status": "retry"}, rt) == "group_summaries"
    assert aggregate.after_validation({"group_status": "fallback"}, rt) == "fallback_grouping"
    assert aggregate.after_synthesis({"groups_todo": [["a"]]}, rt) == "synthesize_block"
    assert aggregate.after_synthesis({"groups_todo": [], "finalizing": True}, rt) == "finalize_tree"
    assert aggregate.after_synthesis({"groups_todo": []}, rt) == "check_aggregation"
    assert aggregate.after_finalize({"root_id": "L0-00000"}, rt) == "__end__"
    assert aggregate.after_finalize({"root_id": None}, rt) == "group_summaries"


# -- phase 2, pure parts ----------------------------------------------------------

def items(n, tokens=10):
    return [[f"L0-{i:05d}", tokens] for i in range(n)]


def test_trigger_by_count_alone():
    assert crossing_level([items(7)], count_threshold=8, token_threshold=10**6, min_group_size=2) is None
    assert crossing_level([items(8)], count_threshold=8, token_threshold=10**6, min_group_size=2) == 0


def test_trigger_by_tokens_alone():
    assert crossing_level([items(3, 99)], count_threshold=100, token_threshold=300, min_group_size=2) is None
    assert crossing_level([items(3, 100)], count_threshold=100, token_threshold=300, min_group_size=2) == 0
    # one huge summary alone can never be grouped
    assert crossing_level([items(1, 10**5)], count_threshold=100, token_threshold=300, min_group_size=2) is None


def test_trigger_picks_the_lowest_level():
    assert crossing_level([items(2), items(9)], 8, 10**6, 2) == 1
    assert crossing_level([items(8), items(9)], 8, 10**6, 2) == 0


@pytest.mark.parametrize("groups,problem", [
    ([[0, 1], [3, 2, 4]], "consecutive"),     # non-contiguous
    ([[0, 1], [3, 4]], "in no group"),        # skipped item
    ([[2, 3, 4], [0, 1]], "consecutive"),     # groups reordered
    ([[0, 1, 2], [2, 3, 4]], "more than one"),  # duplicate
    ([[0, 1, 2, 3], [4]], "at least"),        # group of 1
    ([[0, 1, 2, 3, 4, 5]], "do not exist"),   # index out of range
    ([], "no groups"),
    (None, "no groups"),
])
def test_grouping_hard_constraints(groups, problem):
    found = grouping_problem(groups, 5, 2)
    assert found and problem in found


def test_grouping_valid():
    assert grouping_problem([[0, 1], [2, 3, 4]], 5, 2) is None


def _agg_state(n, proposed, **extra):
    return {"run_key": "test", "agg_level": 0, "pending": [items(n)], "proposed": proposed,
            "hard_failures": 0, "soft_reprompted": False, **extra}


def test_validate_groups_paths(rt):
    ok = validate_groups(_agg_state(5, [[0, 1], [2, 3, 4]]), rt)
    assert ok["group_status"] == "ok" and ok["groups_todo"] == [["L0-00000", "L0-00001"],
                                                               ["L0-00002", "L0-00003", "L0-00004"]]
    assert ok["pending"] == [[]]
    first = validate_groups(_agg_state(5, [[0], [1, 2, 3, 4]]), rt)
    assert first["group_status"] == "retry" and first["hard_failures"] == 1
    second = validate_groups(_agg_state(5, [[0], [1, 2, 3, 4]], hard_failures=1), rt)
    assert second["group_status"] == "fallback"
    big = _agg_state(12, [list(range(12))])
    soft = validate_groups(big, rt)
    assert soft["group_status"] == "retry" and soft["soft_reprompted"] and "subdivide" in soft["group_nudge"]
    accepted = validate_groups({**big, "soft_reprompted": True}, rt)
    assert accepted["group_status"] == "ok" and len(accepted["groups_todo"]) == 1


def test_fallback_grouping_is_even(rt):
    out = fallback_grouping(_agg_state(11, None), rt)
    assert [len(g) for g in out["groups_todo"]] == [4, 4, 3]
    assert out["stats"] == {"group.fallback": 1}
    assert even_groups(["a", "b"], 5, 2) == [["a", "b"]]
    assert even_groups(list("abcde"), 2, 2) == [["a", "b", "c"], ["d", "e"]]


def test_check_aggregation_resets_grouping(rt):
    out = check_aggregation({"run_key": "test", "pending": [items(8)]}, rt)
    assert out["agg_level"] == 0 and out["hard_failures"] == 0 and out["proposed"] is None


def test_finalize_promotes_singletons_and_finds_root(rt):
    out = finalize_tree({"pending": [items(1), [["L1-00000", 5], ["L1-00001", 5]]]}, rt)
    assert out["agg_level"] == 1 and out["pending"][0] == [] and len(out["pending"][1]) == 3
    out = finalize_tree({"pending": [[], [], [["L2-00000", 5]]]}, rt)
    assert out["root_id"] == "L2-00000"
    out = finalize_tree({"pending": [items(1)]}, rt)
    assert out["root_id"] == "L0-00000"
    out = finalize_tree({"pending": [items(3), [["L1-00000", 5]]]}, rt)
    assert out["agg_level"] == 0

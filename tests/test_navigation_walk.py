"""The navigator's paths on real trees: direct hit, backtrack (both strategies), budget
exhausted, a one-leaf tree, and the embeddings fallback when the model's answers are unusable."""

from __future__ import annotations

import re

import pytest

from chunker.document.tokens import count_tokens
from chunker.navigation import NavigationError, NavigatorSettings, UnknownNode, open_tree
from chunker.graph.navigator_ask import ask
from chunker.navigation.llm import children_listing
from conftest import scripted
from test_navigation_trees import ONE_LEAF_TEXT, copy_tree

SCRIPTED = NavigatorSettings(mode="descend", model="scripted", embeddings="bm25", budget_tokens=100_000,
                             max_leaves=50)
EMBEDDINGS_ONLY = NavigatorSettings(mode="descend", model=None, embeddings="bm25", budget_tokens=100_000,
                                    max_leaves=2)


@pytest.fixture(scope="module")
def trees(tmp_path_factory, cinderella_tree, one_leaf_tree):
    base = tmp_path_factory.mktemp("walk")
    return copy_tree(cinderella_tree, base), copy_tree(one_leaf_tree, base)


@pytest.fixture(scope="module")
def tree_dir(trees):
    return trees[0]


def _leftmost_leaf(tree, node_id):
    while not tree.is_leaf(node_id):
        node_id = tree.node(node_id).children[0]
    return node_id


def _quote(text: str) -> str:
    """Eight words of a passage, verbatim, as the scripted judge looks for them."""
    words = " ".join(text.split()).split(" ")
    return " ".join(words[len(words) // 2:len(words) // 2 + 8])


def _steer_to(tree, leaf_id):
    """The words of the summary every block on the way to `leaf_id` shows for it."""
    return tree.node(leaf_id).summary


def test_direct_hit_descends_to_the_leaf_and_answers(tree_dir):
    tree = open_tree(tree_dir)
    gold = _leftmost_leaf(tree, tree.node(tree.root_id).children[-1])
    question = f'{_steer_to(tree, gold)} Where does it say "{_quote(tree.node(gold).original)}"?'
    r = ask(str(tree_dir), question, SCRIPTED)
    assert r.status == "answered"
    assert r.leaves == [gold]
    assert r.path == tree.ancestors(gold)
    assert r.answer and r.answer in " ".join(tree.node(gold).original.split())
    assert r.llm_calls == len(r.path)  # one choice per block, one judgement
    blocks = r.path[:-1]
    assert r.tokens_read == sum(count_tokens(children_listing([tree.ref(c) for c in tree.node(b).children]))
                                for b in blocks) + tree.read_original(gold).tokens


def test_the_models_choice_leads_where_embeddings_would_not(tree_dir):
    tree = open_tree(tree_dir)
    top = tree.node(tree.root_id).children
    others = " ".join(tree.search_text(c) for c in top[1:]).casefold()
    rare = next(w for w in re.findall(r"[A-Za-z]{5,}", tree.search_text(top[0]))
                if w.casefold() not in others)
    # The model (word overlap) follows the summary's words to the last section; BM25 follows
    # the rare word, repeated, to the first.
    question = f"{_steer_to(tree, _leftmost_leaf(tree, top[-1]))} " + " ".join([rare] * 30)
    bm25 = tree.index("bm25", 200).scores(question)
    assert max(top, key=lambda c: bm25[c]) == top[0]
    with_model = ask(str(tree_dir), question, NavigatorSettings(**{**SCRIPTED.__dict__, "max_leaves": 1}))
    without = ask(str(tree_dir), question, EMBEDDINGS_ONLY)
    assert with_model.path[1] == top[-1] and without.path[1] == top[0]


@pytest.mark.parametrize("strategy", ["best_first", "depth_first"])
def test_backtracks_to_another_branch_when_the_leaf_does_not_answer(tree_dir, strategy):
    tree = open_tree(tree_dir)
    top = tree.node(tree.root_id).children
    decoy = _leftmost_leaf(tree, top[-1])
    gold = _leftmost_leaf(tree, top[0])
    quote = _quote(tree.node(gold).original)
    assert quote.casefold() not in " ".join(tree.node(decoy).original.split()).casefold()
    question = f'{_steer_to(tree, decoy)} Where does it say "{quote}"?'
    settings = NavigatorSettings(**{**SCRIPTED.__dict__, "backtrack": strategy})
    r = ask(str(tree_dir), question, settings)
    assert r.leaves[0] == decoy and r.leaves[-1] == gold
    assert r.status == "answered" and len(r.leaves) >= 2
    assert r.path[:len(tree.ancestors(decoy))] == tree.ancestors(decoy)
    after = r.path[len(tree.ancestors(decoy))]  # the first node after the backtrack
    if strategy == "depth_first":  # the next-best sibling of the deepest choice
        assert tree.node(after).parent == tree.node(decoy).parent
    assert quote in " ".join(tree.node(r.leaves[-1]).original.split())


def test_embeddings_only_opens_max_leaves_best_first(tree_dir):
    tree = open_tree(tree_dir)
    target = tree.leaf_ids()[len(tree.leaf_ids()) // 2]
    question = " ".join(tree.node(target).original.split()[:30])
    r = ask(str(tree_dir), question, EMBEDDINGS_ONLY)
    assert r.llm_calls == 0 and r.status == "max_leaves" and len(r.leaves) == 2
    assert r.answer in {tree.node(i).original.strip() for i in r.leaves}
    ranked = tree.index("bm25", 200).scores(question)
    first = tree.node(tree.root_id).children
    assert r.path[1] == max(first, key=lambda c: ranked[c])  # the best-matching child first


def test_budget_exhausted_stops_before_reading_past_the_cap(tree_dir):
    tree = open_tree(tree_dir)
    root_listing = count_tokens(children_listing([tree.ref(c) for c in tree.node(tree.root_id).children]))
    tight = NavigatorSettings(mode="descend", model=None, embeddings="bm25", budget_tokens=root_listing - 1)
    r = ask(str(tree_dir), "Who lost a slipper at the ball?", tight)
    assert r.status == "budget_exhausted" and r.leaves == [] and r.tokens_read == 0
    roomy = NavigatorSettings(mode="descend", model=None, embeddings="bm25", budget_tokens=root_listing + 400,
                              max_leaves=10)
    r = ask(str(tree_dir), "Who lost a slipper at the ball?", roomy)
    assert r.status == "budget_exhausted" and r.tokens_read <= roomy.budget_tokens


def test_a_one_leaf_tree_is_read_at_once(trees):
    one = trees[1]
    tree = open_tree(one)
    r = ask(str(one), "Where did Cinderella sleep?", EMBEDDINGS_ONLY)
    assert r.path == [tree.root_id] and r.leaves == [tree.root_id]
    assert r.status == "exhausted" and r.answer == ONE_LEAF_TEXT.strip()
    r = ask(str(one), 'Where did Cinderella sleep? "sleep in the ashes"', SCRIPTED)
    assert r.status == "answered" and r.leaves == [tree.root_id] and r.llm_calls == 1


def test_unusable_model_answers_fall_back_to_embeddings(tree_dir):
    tree = open_tree(tree_dir)
    question = "The stepsisters mocked Cinderella and threw lentils into the ashes"
    broken = NavigatorSettings(**{**EMBEDDINGS_ONLY.__dict__,
                                  "model": scripted(faults={"invalid_json": 1.0})})
    r = ask(str(tree_dir), question, broken)
    plain = ask(str(tree_dir), question, EMBEDDINGS_ONLY)
    assert r.fallbacks >= len(tree.ancestors(r.leaves[0])) - 1 > 0
    assert r.llm_calls == 2 * r.fallbacks  # every call got its repair turn, then the fallback
    assert r.path[:len(tree.ancestors(r.leaves[0]))] == plain.path[:len(tree.ancestors(plain.leaves[0]))]


def test_bad_questions_and_start_nodes_are_refused(tree_dir):
    with pytest.raises(NavigationError, match="empty"):
        ask(str(tree_dir), "   ", EMBEDDINGS_ONLY)
    with pytest.raises(UnknownNode):
        ask(str(tree_dir), "Who?", EMBEDDINGS_ONLY, start_node="L7-00042")


def test_a_walk_can_start_inside_a_section(tree_dir):
    tree = open_tree(tree_dir)
    section = tree.node(tree.root_id).children[-1]
    r = ask(str(tree_dir), "the wedding", EMBEDDINGS_ONLY, start_node=section)
    assert r.path[0] == section
    assert all(section in tree.ancestors(leaf) for leaf in r.leaves)
    assert re.fullmatch(r"L\d+-\d{5}", r.leaves[0])

"""Child scoring of walks without a model (`child_scoring`), on a real tree and real MiniLM.

The hybrid scorer fuses BM25 and embedding ranks over each child's subtree: a word that only
one leaf holds, deep below a top-level section whose own summary never says it, must pull the
walk into that section even where embeddings alone would go elsewhere.
"""

from __future__ import annotations

import re

import pytest

from chunker.navigation import NavigatorSettings, open_tree
from chunker.graph.navigator_ask import ask
from chunker.navigation.scoring import child_scores, fused
from test_navigation_trees import copy_tree

HYBRID = NavigatorSettings(mode="descend", model=None, embeddings="local", budget_tokens=100_000, max_leaves=1,
                           child_scoring="hybrid")
EMBEDDINGS = NavigatorSettings(**{**HYBRID.__dict__, "child_scoring": "subtree"})


@pytest.fixture(scope="module")
def tree_dir(tmp_path_factory, cinderella_tree):
    return copy_tree(cinderella_tree, tmp_path_factory.mktemp("scoring"))


def _top_child(tree, node_id):
    return tree.ancestors(node_id)[1]


def _lexical_probe(tree):
    """(word, leaf): a word that only this leaf and the blocks between it and its top-level
    section say (not the section itself: its own text gives no hint), for which embeddings alone rank another top-level section first."""
    top = tree.node(tree.root_id).children
    leaves = tree.leaf_ids()
    words = {nid: set(re.findall(r"[a-z]{6,}", tree.search_text(nid).casefold()))
             for nid in tree.nodes}
    for lid in leaves:
        section = _top_child(tree, lid)
        above = set(tree.ancestors(lid)) - {section}
        for word in sorted(words[lid]):
            if word in words[section] or any(word in words[o] for o in tree.nodes
                                             if o not in above and o != lid):
                continue
            sims = child_scores(tree, EMBEDDINGS, word, top)
            if top[max(range(len(top)), key=sims.__getitem__)] != section:
                return word, lid
    raise AssertionError("Cinderella's tree offers no word for the probe")


@pytest.mark.slow  # MiniLM
def test_hybrid_prefers_the_child_whose_subtree_holds_the_lexical_match(tree_dir):
    tree = open_tree(tree_dir)
    word, leaf = _lexical_probe(tree)
    top = tree.node(tree.root_id).children
    scores = child_scores(tree, HYBRID, word, top)
    assert top[max(range(len(top)), key=scores.__getitem__)] == _top_child(tree, leaf)
    r = ask(str(tree_dir), word, HYBRID)
    assert r.llm_calls == 0 and r.leaves == [leaf]
    assert r.path == tree.ancestors(leaf)  # a walk from the root, one choice per level


def test_fusion_is_reciprocal_ranks_of_bm25_and_embeddings(tree_dir):
    tree = open_tree(tree_dir)
    question = "Who lost a glass slipper at the ball?"
    scores = fused(tree, HYBRID, question)
    assert set(scores) == set(tree.nodes)
    bm25 = tree.index("bm25", HYBRID.piece_tokens).scores(question)
    best = max(bm25, key=bm25.__getitem__)
    assert 1 / (HYBRID.rrf_k + 1) < scores[best] <= 2 / (HYBRID.rrf_k + 1)
    bm25_only = NavigatorSettings(**{**HYBRID.__dict__, "embeddings": "bm25"})
    assert max(fused(tree, bm25_only, question).values()) == pytest.approx(1 / (HYBRID.rrf_k + 1))


def test_the_setting_is_checked():
    assert NavigatorSettings().child_scoring == "hybrid"
    with pytest.raises(ValueError, match="child_scoring"):
        NavigatorSettings(child_scoring="bm25")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="rrf_k"):
        NavigatorSettings(rrf_k=0)

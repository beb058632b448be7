"""Every baseline yields the requested number of segments and tiles the text losslessly."""


import pytest
from chunker.evaluation.baselines import (
    depth_scores,
    fixed_tokens,
    pick_gaps,
    random_split,
    recursive_chars,
    segments_of,
)
from chunker.evaluation.gold import load_gold

from conftest import GOLD


@pytest.fixture(scope="module")
def doc():
    # the set's document with the shortest sentences: at 17 segments each still fits a chunk, so
    # the recursive splitter cuts at line ends only
    return load_gold([GOLD / "3-5" / "4.ref"])[0]


def _check(doc, starts, n, exact=True):
    assert starts[0] == 0 and starts == sorted(set(starts)) and starts[-1] < len(doc.text)
    assert "".join(segments_of(doc.text, starts)) == doc.text
    if exact:
        assert len(starts) == n
    else:
        assert abs(len(starts) - n) <= 1
    masses, _ = doc.masses_from_chars(starts)
    assert sum(masses) == doc.n_units


@pytest.mark.parametrize("n", [1, 2, 4, 10, 17])
def test_fixed_tokens(doc, n):
    starts = fixed_tokens(doc, n)
    _check(doc, starts, n)
    from chunker.document.tokens import count_tokens

    sizes = [count_tokens(s) for s in segments_of(doc.text, starts)]
    assert max(sizes) - min(sizes) <= 3  # equal token counts, up to token merges at the cuts


@pytest.mark.parametrize("n", [1, 2, 4, 10, 17])
def test_recursive(doc, n):
    starts = recursive_chars(doc, n)
    _check(doc, starts, n, exact=False)
    if n > 1:  # the splitter cuts at its separators: line ends (sentence units) here
        assert set(starts) <= set(doc.offsets)


@pytest.mark.parametrize("n", [1, 2, 4, 10, 17])
def test_random(doc, n):
    starts = random_split(doc, n, seed=3)
    _check(doc, starts, n)
    assert set(starts) <= set(doc.offsets)
    assert random_split(doc, n, seed=3) == starts
    if 1 < n < doc.n_units - 1:
        assert any(random_split(doc, n, seed=s) != starts for s in range(4, 8))


def test_requested_count_is_capped_by_units(doc):
    assert len(random_split(doc, 10_000)) == doc.n_units


def test_depth_scores_and_gap_choice():
    sims = [0.9, 0.2, 0.8, 0.85, 0.3, 0.9]
    depths = depth_scores(sims)
    assert depths[1] == pytest.approx((0.9 - 0.2) + (0.85 - 0.2))
    assert depths[4] == pytest.approx((0.85 - 0.3) + (0.9 - 0.3))
    assert depths[0] == 0 and depths[5] == 0
    assert pick_gaps(depths, sims, 2) == [1, 4]
    # adjacent gaps only when nothing else is left
    assert pick_gaps([5, 4, 0, 0], [0, 0, 1, 1], 2) == [0, 2]
    assert pick_gaps([5, 4], [0, 0], 2) == [0, 1]


@pytest.mark.slow
@pytest.mark.parametrize("n", [1, 4, 10])
def test_embedding(doc, n):
    from chunker.evaluation.baselines import embedding_tiling

    starts = embedding_tiling(doc, n)
    _check(doc, starts, n)
    assert set(starts) <= set(doc.offsets)

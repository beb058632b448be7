"""Pk and WindowDiff against hand-computed values and against the segeval package."""

import random

import pytest
from chunker.evaluation.metrics import (
    Summary,
    boundaries_to_masses,
    boundary_precision_recall,
    labels,
    masses_to_boundaries,
    pk,
    window_diff,
    window_size,
)

# (reference masses, hypothesis masses, k, Pk, WindowDiff), each worked out by hand in the
# comment: labels of the units, then the N - k probe positions i compared with i + k.
HAND = [
    # ref 0011, hyp 0000, k=2: i=0,1 ref differs, hyp same -> 2 errors of 2 for both
    ([2, 2], [4], 2, 1.0, 1.0),
    # identical segmentations: no error
    ([3, 4, 3], [3, 4, 3], 2, 0.0, 0.0),
    # ref 000111, hyp 001111, k=2: ref same/diff/diff/same, hyp diff/diff/same/same
    # -> errors at i=0 and i=2: 2/4; boundary counts ref 0,1,1,0 vs hyp 1,1,0,0 -> 2/4
    ([3, 3], [2, 4], 2, 0.5, 0.5),
    # ref 000111, hyp 011111, k=2: hyp diff/same/same/same -> errors i=0,1,2: 3/4
    ([3, 3], [1, 5], 2, 0.75, 0.75),
    # ref 012222, hyp 000111, k=3: counts ref 2,1,0 vs hyp 1,1,1 -> WD 2/3;
    # same-segment ref no/no/yes vs hyp no/no/no -> Pk 1/3 (Pk misses the count error at i=0)
    ([1, 1, 4], [3, 3], 3, 1 / 3, 2 / 3),
    # a text no longer than k has no probe position: 0 by convention
    ([1, 1], [2], 2, 0.0, 0.0),
]


@pytest.mark.parametrize("ref,hyp,k,want_pk,want_wd", HAND)
def test_hand_computed(ref, hyp, k, want_pk, want_wd):
    assert pk(ref, hyp, k) == pytest.approx(want_pk)
    assert window_diff(ref, hyp, k) == pytest.approx(want_wd)


def test_conversions():
    assert masses_to_boundaries([3, 4, 3]) == [3, 7]
    assert boundaries_to_masses([7, 3, 3, 0, 10], 10) == [3, 4, 3]
    assert boundaries_to_masses([], 5) == [5]
    assert labels([2, 1, 3]) == [0, 0, 1, 2, 2, 2]
    with pytest.raises(ValueError):
        masses_to_boundaries([3, 0, 2])


@pytest.mark.parametrize("masses,k", [([4, 4, 4], 2), ([3, 5], 2), ([5, 5], 2), ([6, 6], 3),
                                      ([7, 7], 4), ([1, 1, 1], 2), ([20, 30], 12)])
def test_window_size_rule(masses, k):
    assert window_size(masses) == k


def test_mismatched_lengths_are_refused():
    with pytest.raises(ValueError):
        pk([3, 3], [3, 4])
    with pytest.raises(ValueError):
        window_diff([3, 3], [5])


def _random_masses(rng, n):
    cuts = sorted(rng.sample(range(1, n), rng.randint(0, min(12, n - 1))))
    return boundaries_to_masses(cuts, n)


def test_agrees_with_segeval():
    import segeval
    from segeval.window import compute_window_size

    rng = random.Random(7)
    for _ in range(150):
        n = rng.randint(3, 60)
        ref, hyp = _random_masses(rng, n), _random_masses(rng, n)
        assert window_size(ref) == compute_window_size(ref)
        for k in {window_size(ref), rng.randint(1, n - 1)}:
            assert pk(ref, hyp, k) == pytest.approx(float(segeval.pk(hyp, ref, window_size=k)))
            assert window_diff(ref, hyp, k) == pytest.approx(
                float(segeval.window_diff(hyp, ref, window_size=k)))


def test_summary():
    s = Summary.of([1, 2, 3, None, float("nan")])
    assert (s.mean, s.min, s.max, s.n) == (2, 1, 3, 3)
    assert s.std == pytest.approx((2 / 3) ** 0.5)
    assert Summary.of([]).n == 0


def test_boundary_precision_recall():
    # ref boundaries [3, 6], hyp [3, 7]: one exact hit each way; within 1 unit, both
    assert boundary_precision_recall([3, 3, 4], [3, 4, 3]) == (0.5, 0.5)
    assert boundary_precision_recall([3, 3, 4], [3, 4, 3], tolerance=1) == (1.0, 1.0)
    # coarser but exact: precision 1, recall 1/2
    assert boundary_precision_recall([3, 3, 4], [6, 4]) == (1.0, 0.5)
    assert boundary_precision_recall([3, 3, 4], [10]) == (None, 0.0)
    assert boundary_precision_recall([10], [5, 5]) == (0.0, None)

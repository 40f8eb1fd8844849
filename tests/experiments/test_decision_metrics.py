"""``experiments/decision_metrics.py``: decision scores against ptxas, on hand-made examples.

The degenerate case matters most: a model that fuses everything scores high
agreement on a set where few candidates spill, and must not pass the goals.
"""

import pytest

from experiments.decision_metrics import decision_metrics, fmt

# 10 candidates, 2 spilling (ptxas keeps 2, fuses 8).  True = fuse.
PTXAS = [False, False] + [True] * 8


def test_hand_made_model():
    model = [False, True] + [False] + [True] * 7  # keeps one spilling, misses one, keeps one safe
    m = decision_metrics(model, PTXAS)
    assert (m.tp, m.fn, m.fp, m.tn) == (1, 1, 1, 7)
    assert m.n == 10 and m.spilling == 2
    assert m.agreement == pytest.approx(0.8)
    assert m.always_fuse_agreement == pytest.approx(0.8) and m.never_fuse_agreement == pytest.approx(0.2)
    assert m.recall == pytest.approx(0.5) and m.precision == pytest.approx(0.5)
    assert m.balanced_accuracy == pytest.approx((0.5 + 7 / 8) / 2)
    assert not m.goals_met


def test_always_fuse_is_no_better_than_its_baseline():
    m = decision_metrics([True] * 10, PTXAS)
    assert m.agreement == m.always_fuse_agreement == pytest.approx(0.8)
    assert m.recall == 0.0
    assert m.precision is None  # it never keeps: precision is undefined, not perfect
    assert m.balanced_accuracy == pytest.approx(0.5)
    assert not m.goals_met
    assert fmt(m.precision) == "n/a"


def test_never_fuse_and_perfect():
    never = decision_metrics([False] * 10, PTXAS)
    assert never.agreement == never.never_fuse_agreement == pytest.approx(0.2)
    assert never.recall == 1.0 and never.precision == pytest.approx(0.2)
    assert never.balanced_accuracy == pytest.approx(0.5) and not never.goals_met
    perfect = decision_metrics(PTXAS, PTXAS)
    assert perfect.recall == perfect.precision == perfect.balanced_accuracy == 1.0 and perfect.goals_met


def test_no_spilling_candidate_leaves_recall_undefined():
    m = decision_metrics([True, True], [True, True])
    assert m.recall is None and m.balanced_accuracy is None and not m.goals_met


def test_lengths_must_match():
    with pytest.raises(ValueError, match="3 decisions but 2 ptxas answers"):
        decision_metrics([True] * 3, [True] * 2)

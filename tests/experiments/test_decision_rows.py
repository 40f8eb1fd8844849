"""experiments/decision_rows.py: the recall a precision floor allows, the halves, the report."""

from __future__ import annotations

import numpy as np

from experiments.decision_rows import WEIGHTS, halves, markdown, recall_at_precision


def test_the_recall_is_the_highest_one_whose_precision_clears_the_floor():
    y = np.array([1, 1, 0, 1, 0, 0], bool)
    p = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.1])
    # cut 0.8 keeps 2 of 2 spilling (precision 1, recall 2/3); cut 0.6 keeps 3 of 4 (0.75 < 0.8)
    assert recall_at_precision(p, y) == 2 / 3
    assert recall_at_precision(p, y, 0.75) == 1.0
    assert recall_at_precision(np.array([0.9, 0.1]), np.array([False, True]), 0.8) == 0.0


def test_halves_part_whole_programs_and_move_with_the_seed():
    programs = np.array(["a", "a", "b", "c", "c", "d"])
    a = halves(programs, 0)
    assert a[0] == a[1] and a[3] == a[4]                      # a program stays on one side
    assert len({p for p, side in zip(programs, a) if side}) == 2   # half of the four programs
    assert any((halves(programs, s) != a).any() for s in range(1, 6))


def test_the_report_has_a_row_per_seed_and_direction_and_their_mean():
    row = {"seed": 0, "direction": "A -> B", "rows": 10, "spilling": 3, "base": (0.9, 0.5),
           **{w: (0.92, 0.6) for w in WEIGHTS}}
    text = markdown({"rows": [row, {**row, "direction": "B -> A", "base": (0.8, 0.3)}], "n": 20, "spilling": 6,
                     "programs": 4}, "python experiments/decision_rows.py")
    assert "| 0 | A -> B | 10 (3) | 0.9000, 0.500 | 0.9200, 0.600 | 0.9200, 0.600 |" in text
    assert "| mean | | | 0.8500, 0.400 | 0.9200, 0.600 | 0.9200, 0.600 |" in text
    assert "- decision configs: 20 compiled (6 spilling by ptxas)" in text

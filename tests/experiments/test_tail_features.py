"""experiments/tail_features.py: the ragged-tail columns and the register spread among rows of one structure."""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.tail_features import SIZE_COLUMNS, register_spread, tails


def _rows(n, rows, xblock, rblock, mode):
    return pd.DataFrame({"log2_n": np.log2(n), "log2_rows": np.log2(rows), "log2_xblock": np.log2(xblock),
                         "log2_rblock": np.log2(rblock), "mode_pointwise": [float(m == "pointwise") for m in mode]})


def test_a_tail_is_a_remainder_of_the_block_in_its_own_dimension():
    X = _rows([32768, 4785, 4785, 1, 1], [4096, 7894, 64, 4096 * 33, 100], [64, 64, 64, 1024, 64],
              [64, 64, 8192, 1, 1], ["looped", "looped", "persistent", "pointwise", "pointwise"])
    t = tails(X)
    assert t["r_tail"].tolist() == [0.0, 1.0, 1.0, 0.0, 0.0]   # a pointwise launch has no row
    assert t["x_tail"].tolist() == [0.0, 1.0, 0.0, 0.0, 1.0]   # a pointwise kernel's elements are n x rows
    assert list(t.index) == list(X.index)


def test_the_spread_is_read_among_rows_that_differ_only_in_size():
    X = pd.DataFrame({"log2_n": [5.0, 6.0, 7.0, 5.0], "log2_rows": [1.0, 2.0, 3.0, 4.0], "mode_looped": [1.0, 1.0, 1.0, 0.0]})
    assert set(SIZE_COLUMNS) >= {"log2_n", "log2_rows"}
    dev, shared, mixed = register_spread(X, np.array([100.0, 160.0, 130.0, 40.0]), np.array([False, True, False, False]))
    assert (shared, mixed) == (3, 3)              # three looped rows share a structure; one of them spills
    assert dev == np.mean([30.0, 30.0, 0.0])      # around their mean 130; the lone persistent row is left out


def test_the_report_states_each_part():
    from experiments.tail_features import markdown

    sweep = [(0.05, 1.0, 0.02, 1.0, 0.1, False), (0.10, 0.96, 0.01, 1.0, 0.04, True)]
    out = {"spread": {3: {"group features": (9.27, 5972, 511), "+ tails": (5.78, 4434, 202)}},
           "inductor": {"+ tails": {"auc_v3": 0.9844, "auc_v2": 0.9783, "auc_blocks": 0.9927, "met": [0.10],
                                    "sweep": sweep}},
           "groups": {"+ tails": {"auc": 0.9819, "mae": 19.08, "rows": 3013}}}
    text = markdown(out, "python experiments/tail_features.py")
    assert "| v3 | + tails | 5.78 | 4,434 | 202 |" in text
    assert "| + tails | 0.9844 | 0.9783 | 0.9927 | 0.10 |" in text
    assert "| 0.05 | 100.0 / 2.0, 100.0 / 10.0 |" in text and "| 0.10 | 96.0 / 1.0, 100.0 / 4.0 |" in text
    assert "| + tails | 0.9819 | 19.08 |" in text

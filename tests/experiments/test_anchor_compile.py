"""experiments/anchor_compile.py: each kernel's anchor config, the anchor's columns, the report."""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.anchor_compile import ANCHOR_COLUMNS, anchor_frame, anchors, markdown


def test_each_kernels_anchor_is_its_config_of_fewest_median_or_most_elements_per_thread():
    group = np.array(["b", "a", "a", "b", "a", "c", "b"])
    ept = np.array([4.0, 8.0, 2.0, 1.0, 2.0, 16.0, 64.0])
    kid = np.array(["k0", "k1", "k2", "k3", "k4", "k5", "k6"])
    # kernel a: rows 2 and 4 tie at 2 elements (k2 first), then row 1; b: rows 3, 0, 6; c: one config only
    assert anchors(group, ept, kid, "fewest").tolist() == [3, 2, 2, 3, 2, -1, 3]
    assert anchors(group, ept, kid, "median").tolist() == [0, 4, 4, 0, 4, -1, 0]
    assert anchors(group, ept, kid, "most").tolist() == [6, 1, 1, 6, 1, -1, 6]


def test_the_anchor_columns_are_read_from_the_anchor_row_and_nan_without_one():
    rows = pd.DataFrame({"num_warps": [4, 8, 2], "mode": ["looped", "persistent", "pointwise"]})
    X = pd.DataFrame({"elems_per_thread": [8.0, 32.0, 1.0]})
    frame = anchor_frame(rows, X, np.array([40.0, 255.0, 16.0]), np.array([False, True, False]),
                         np.array([1, 1, -1]))
    assert list(frame.columns) == list(ANCHOR_COLUMNS)
    assert frame.iloc[0].tolist() == [255.0, 1.0, 5.0, 8.0, 1.0]
    assert frame.iloc[1].tolist() == frame.iloc[0].tolist()
    assert frame.iloc[2].isna().all()


def test_the_report_has_a_row_per_anchor():
    form = {"auc": 0.98, "mae": 17.0, "mae_spill_free": 12.0, "mae_spilling": 33.0}
    out = {"fewest": {"rows": 10, "test_rows": 4, "test_spilling": 1, "kernels": 3, "median_mae": 70.0,
                      "base": form, "anchored": {**form, "mae": 16.5}}}
    text = markdown(out, "python experiments/anchor_compile.py")
    assert "| fewest | 4 (1) | 0.9800 / 0.9800 | 17.00 / 16.50 | 12.00 / 12.00 | 33.00 / 33.00 | 70.0 |" in text
    assert "the 3 dataset-v2 group kernels" in text

"""experiments/layout_columns.py: the rows of a tile a thread holds under Triton's default layout."""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.layout_columns import layout


def _rows(xblock, rblock, warps, bytes_per_elem, mode):
    n = len(xblock)
    return pd.DataFrame({
        "log2_xblock": np.log2(xblock), "log2_rblock": np.log2(rblock), "num_warps": np.array(warps, float),
        "in_bytes_per_elem": np.array(bytes_per_elem, float), "n_inputs": np.ones(n),
        "mode_pointwise": [float(m == "pointwise") for m in mode],
        "elems_per_thread": np.array(xblock, float) * np.array(rblock) / (32.0 * np.array(warps))},
        index=range(10, 10 + n))


def test_a_long_row_goes_along_the_row_first_so_each_thread_holds_every_row_of_the_tile():
    X = _rows([1, 2, 4, 4], [32768] * 4, [1, 2, 4, 4], [4, 4, 4, 2], ["persistent"] * 4)
    out = layout(X)
    assert (2 ** out["log2_rows_per_thread"]).tolist() == [1.0, 2.0, 4.0, 4.0]   # bf16 or f32 alike
    assert out["row_elems_per_thread"].tolist() == [1024.0, 512.0, 256.0, 256.0]
    assert list(out.index) == list(X.index)


def test_a_short_row_leaves_threads_and_warps_across_rows():
    # 64 f32 elements a row: 16 vectors of 4, so half a warp per row, and every warp on rows of its own
    X = _rows([64, 64, 8], [64, 64, 64], [4, 4, 4], [4, 2, 4], ["looped", "looped", "looped"])
    out = layout(X)
    # f32: 2 rows a warp x 4 warps = 8 rows at once, 64 / 8 = 8 each; bf16: 8 lanes a row, 16 rows at once
    assert (2 ** out["log2_rows_per_thread"]).tolist() == [8.0, 4.0, 1.0]
    assert out["row_elems_per_thread"].tolist() == [4.0, 8.0, 4.0]


def test_a_pointwise_launch_holds_one_row():
    out = layout(_rows([1024], [1], [4], [4], ["pointwise"]))
    assert out["log2_rows_per_thread"].tolist() == [0.0]
    assert out["row_elems_per_thread"].tolist() == [8.0]


def test_the_report_carries_its_title_and_evidence():
    from experiments.tail_features import markdown

    out = {"spread": {}, "inductor": {"g": {"auc_v3": 0.9, "auc_v2": 0.8, "auc_blocks": 0.7, "met": [],
                                            "sweep": [(0.05, 1.0, 0.0, 1.0, 0.0, True)]}},
           "groups": {"g": {"auc": 0.9, "mae": 17.0, "rows": 1}}}
    text = markdown(out, "python experiments/layout_columns.py", "Rows per thread", ["", "## Evidence"])
    assert text.startswith("# Rows per thread\n")
    assert text.index("## Evidence") < text.index("## The Inductor handler's spill head")
    assert "| g | 0.9000 | 0.8000 | 0.7000 | none |" in text

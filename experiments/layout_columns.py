"""Rows per thread in Triton's tile layout: a column the group features do not hold as such (issues #25, #29).

A tile of ``xblock`` rows by ``rblock`` elements is spread over ``32 x num_warps`` threads by Triton's
default blocked layout: a thread holds a vector of 16 bytes along the row (4 f32 or 8 bf16 values), the
threads of a warp and then the warps go along the row first, and only what is left goes across rows.  So
at the same elements per thread a thread may hold one row or several: Triton 3.6's ptxas kept
``log_softmax-217``'s persistent sum of 30,904 f32 at 1,024 elements per thread spill-free in 90 registers
as one row per thread (x1 w1) and in 182 as two (x2 w2), and spilled 9,500 bytes as four (x4 w4).  Two
columns hold it:

* ``log2_rows_per_thread``: the rows of the tile a thread holds, log2 (0 for a pointwise launch);
* ``row_elems_per_thread``: the elements of one row a thread holds (elements per thread over the rows).

Both are functions of columns the features already hold (the blocks, the warps, the inputs' bytes per
element), unlike a size's remainder (``experiments/tail_features.py``, ``experiments/alignment_column.py``),
so a tree could in principle find them.  This report measures whether it does, with the machinery of
``experiments/tail_features.py`` (the same splits, boosters and ``prune`` sweep), and shows the spill rate
of v2's persistent reductions by elements per thread and rows per thread.

    python experiments/layout_columns.py    # -> experiments/results/layout_columns.md (about 3 minutes)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from experiments.bench_report import add_report_arg, command_line, emit  # noqa: E402

VECTOR_BYTES = 16   # a thread's contiguous run along the row: one 16-byte load
WARP = 32
EPT_BINS = (0, 16, 32, 64, 128, 256, 512, 4096)


def layout(X):
    """``log2_rows_per_thread`` and ``row_elems_per_thread`` (the module docstring) of group-feature rows
    ``X`` (a DataFrame), under Triton's default blocked layout; the element width is the inputs' mean
    bytes per element (2 for bf16 and f16 inputs, else 4)."""
    import pandas as pd

    x, r = np.round(2 ** X["log2_xblock"].to_numpy()), np.round(2 ** X["log2_rblock"].to_numpy())
    warps = X["num_warps"].to_numpy()
    elem_bytes = X["in_bytes_per_elem"].to_numpy() / np.maximum(1, X["n_inputs"].to_numpy())
    vec = np.minimum(np.where(elem_bytes <= 2.5, VECTOR_BYTES // 2, VECTOR_BYTES // 4), r)
    lanes_r = np.minimum(WARP, np.maximum(1, r / vec))                 # a warp's threads along the row
    warps_r = np.minimum(warps, np.maximum(1, r / (vec * lanes_r)))     # warps along the row
    across = (WARP / lanes_r) * (warps / warps_r)                       # threads across rows
    rows = np.where(X["mode_pointwise"].to_numpy() > 0.5, 1.0, np.maximum(1.0, x / across))
    return pd.DataFrame({"log2_rows_per_thread": np.log2(rows),
                         "row_elems_per_thread": X["elems_per_thread"].to_numpy() / rows}, index=X.index)


def spill_rates() -> list[str]:
    """Markdown: the spill rate of v2's persistent reductions by elements per thread and rows per thread."""
    import pandas as pd

    from costfuse.train.group_dataset import load_group_table

    table = load_group_table([REPO / "data/sm90_v2"])
    X = table.X.reset_index(drop=True)
    keep = ((X["mode_persistent"] > 0.5) & (X["n_reduce"] >= 1)).to_numpy()
    rows = np.minimum(2 ** layout(X)["log2_rows_per_thread"].to_numpy(), 16)[keep]
    bins = pd.cut(X["elems_per_thread"].to_numpy()[keep], EPT_BINS)
    df = pd.DataFrame({"ept": bins.astype(str), "rows": rows.astype(int), "spill": table.spills[keep]})
    rate = df.pivot_table(index="ept", columns="rows", values="spill", aggfunc="mean", observed=True)
    size = df.pivot_table(index="ept", columns="rows", values="spill", aggfunc="size", observed=True)
    order = [str(b) for b in pd.IntervalIndex.from_breaks(EPT_BINS)]
    lines = ["", "## Spill rate of dataset v2's persistent reductions (share spilling, rows)", "",
             "| elements per thread | " + " | ".join(f"{c} row{'s' * (c > 1)} per thread"
                                                    + (" or more" if c == 16 else "") for c in rate.columns) + " |",
             "|---|" + "---|" * len(rate.columns)]
    for ept in [o for o in order if o in rate.index]:
        cells = [f"{rate.at[ept, c]:.2f} ({int(size.at[ept, c])})" if not np.isnan(rate.at[ept, c]) else "-"
                 for c in rate.columns]
        lines.append(f"| {ept} | " + " | ".join(cells) + " |")
    return lines


def main(argv: list[str] | None = None) -> int:
    from experiments.tail_features import markdown, run

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_report_arg(ap, "layout_columns")
    args = ap.parse_args(argv)
    out = run(layout, "+ layout (rows per thread)")
    emit(markdown(out, command_line("layout_columns.py", argv),
                  "Rows per thread in Triton's tile layout (issues #25 and #29)", spill_rates()), args.report)
    return 0


if __name__ == "__main__":
    sys.exit(main())

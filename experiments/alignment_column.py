"""Whether a row starts on a 16-byte boundary: group feature schema v5's column (issues #25 and #29).

Row ``i`` of a row kernel starts ``i * n`` elements in.  Triton proves a tile's alignment from the sizes
(a constant in Inductor's source; an argument it specializes on divisibility by 16 in CostFuse's lowering)
and loads an aligned tile in 16-byte vectors; a row length such as 20,619 leaves every other row start
unaligned, and each element then takes its own load, address and mask.  Schema v4's columns hold the sizes
as ``log2_n`` and ``log2_rows``, but a tree cannot take a remainder, so the alignment was not in them.
Schema v5 adds ``log2_size_align`` (:func:`costfuse.featurize.group_features.size_align`).

This report measures it on the grouped splits ``costfuse-train`` makes:

* the spread of registers among rows of the same structure and launch (every column but the size ones,
  as ``experiments/tail_features.py``), with schema v4's columns, with the alignment, and with controls
  that split the same groups by bits of the size that should not matter (pseudo-random bits of the row
  length): adding any column splits groups and narrows their spread, so the alignment has to beat those;
* the spill and register heads refit with schema v4's columns and with v5's, for the pass (``sm90_v2`` +
  ``sm90_v1``: issue #29's goals read on v2's test rows) and for the Inductor handler (``sm90_inductor_v1``
  + ``sm90_v2`` + ``sm90_v1``: issue #25's on v3's test rows).

    python experiments/alignment_column.py    # -> experiments/results/alignment_column.md (about 2 minutes)
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

ALIGN = "log2_size_align"
CONTROL_BITS = 3


def size_of(X) -> np.ndarray:
    """The row length (a pointwise kernel's element count) of each group-feature row."""
    n, rows = np.round(2 ** X["log2_n"].to_numpy()), np.round(2 ** X["log2_rows"].to_numpy())
    return np.where(X["pointwise"].to_numpy() > 0.5, n * rows, n).astype(np.int64)


def control_bits(X, bits: int):
    """``bits`` pseudo-random bits of each row's size (a multiplicative hash): a split of the same groups by a
    function of the size that tells ptxas nothing."""
    import pandas as pd

    h = (size_of(X) * 2654435761) % (1 << 32)
    return pd.DataFrame({f"bit{k}": ((h >> (7 + 5 * k)) & 1).astype(float) for k in range(bits)}, index=X.index)


def spreads(X, regs, spills, version) -> dict:
    import pandas as pd

    from experiments.tail_features import register_spread, with_tails

    v4 = X.drop(columns=[ALIGN])
    forms = {"schema v4 columns": v4, "+ alignment (schema v5)": X,
             "+ 1 pseudo-random bit of the size (control)": pd.concat([v4, control_bits(v4, 1)], axis=1),
             f"+ {CONTROL_BITS} pseudo-random bits of the size (control)":
                 pd.concat([v4, control_bits(v4, CONTROL_BITS)], axis=1),
             "+ ragged tails (`experiments/tail_features.py`)": with_tails(v4)}
    return {v: {name: register_spread(A[version == v].reset_index(drop=True), regs[version == v],
                                      spills[version == v]) for name, A in forms.items()}
            for v in (3, 2) if (version == v).any()}


def refits(data: tuple[str, ...], read_on: tuple[int, ...]) -> tuple[dict, object]:
    """Spill AUC and register MAE on the test rows of each dataset version in ``read_on``, refit with schema
    v4's columns and with v5's; and the table (for the spreads)."""
    from sklearn.metrics import roc_auc_score

    from costfuse.train.group_dataset import load_group_table
    from costfuse.train.splits import grouped_split
    from experiments.source_features import bundle_params
    from experiments.tail_features import _heads

    table = load_group_table([REPO / d for d in data])
    rows, X = table.rows.reset_index(drop=True), table.X.reset_index(drop=True)
    y, regs = table.spills, table.regs
    split = grouped_split(table.groups, 0.25, 0)
    version = rows["dataset_version"].to_numpy()
    out, params = {}, bundle_params()
    for name, A in (("schema v4 columns", X.drop(columns=[ALIGN])), ("schema v5 (+ alignment)", X)):
        spill, reg = _heads(A, y, regs, split.train, params)
        p, r = spill.score(A), reg.predict(A)
        out[name] = {v: (float(roc_auc_score(y[m], p[m])), float(np.mean(np.abs(r[m] - regs[m]))))
                     for v in read_on for m in [split.test & (version == v)]}
    return out, (X, regs, y, version)


def run() -> dict:
    inductor, (X, regs, y, version) = refits(("data/sm90_inductor_v1", "data/sm90_v2", "data/sm90_v1"), (3, 2))
    groups, _ = refits(("data/sm90_v2", "data/sm90_v1"), (2,))
    return {"spread": spreads(X, regs, y, version), "inductor": inductor, "groups": groups}


def markdown(out: dict, command: str) -> str:
    from experiments.tail_features import report_head

    lines = report_head("A row's alignment: group feature schema v5's column (issues #25 and #29)", command,
                        out["spread"])
    lines += ["", "## The pass's group heads (`sm90_v2` + `sm90_v1`; issue #29: AUC >= 0.985, MAE <= 8)", "",
              "| features | spill AUC, v2 test rows | register MAE, v2 test rows |", "|---|---|---|"]
    for name, r in out["groups"].items():
        lines.append(f"| {name} | {r[2][0]:.4f} | {r[2][1]:.2f} |")
    lines += ["", "## The Inductor handler's heads (`sm90_inductor_v1` + `sm90_v2` + `sm90_v1`; issue #25: AUC "
              ">= 0.98 on v3)", "",
              "| features | spill AUC, v3 test rows | register MAE, v3 | spill AUC, v2 test rows | register MAE, v2 |",
              "|---|---|---|---|---|"]
    for name, r in out["inductor"].items():
        lines.append(f"| {name} | {r[3][0]:.4f} | {r[3][1]:.2f} | {r[2][0]:.4f} | {r[2][1]:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_report_arg(ap, "alignment_column")
    args = ap.parse_args(argv)
    emit(markdown(run(), command_line("alignment_column.py", argv)), args.report)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Where the shipped register head misses: its error on dataset v2's test programs, broken down.

Issue #13 asks for a register MAE <= 8 on the grouped test split of v2; the
shipped group heads (``costfuse/models/groups``) reach about 24.  This
report says where that error sits, so the next attempt aims at it: by
spilling or not, by mode, and by elements per thread (the tile a thread
holds), and by spill kind (``data/spill_kind.py``: a pressure spill reports
the register cap, a local-memory collapse few registers).  It also bounds what the features can do: rows whose feature
vectors are identical but whose labels differ show the error no model of
these features can avoid (``same features`` below, over the whole table).

The split is the trainer's (``load_group_table`` + ``grouped_split``, seed
0, test size 0.25); predictions are the model's (default the shipped
head), through the same ``Head.predict`` the policy calls, on this code's
features (a bundle of an older group schema takes its own columns of them).

    python experiments/regs_error.py

writes ``experiments/results/regs_error.md``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from bench_report import add_report_arg, command_line, conditions, emit  # noqa: E402

EPT_BINS = (0, 4, 16, 64, 256, np.inf)   # elements per thread: pointwise-size tiles up to whole-row tiles


def breakdown(err: pd.Series, by: pd.Series | list[pd.Series]) -> list[str]:
    """Markdown rows: each group's row count, MAE and share of the total absolute error."""
    total = float(err.sum())
    g = err.groupby(by, observed=True)
    return [f"| {' / '.join(map(str, key)) if isinstance(key, tuple) else key} | {len(e)} | {e.mean():.1f} | "
            f"{100 * e.sum() / total:.0f}% |" for key, e in g]


def same_feature_spread(X: pd.DataFrame, y: np.ndarray) -> tuple[int, float]:
    """(rows that share their feature vector with another row, their mean |label - group median|)."""
    key = pd.util.hash_pandas_object(X, index=False)
    df = pd.DataFrame({"k": key.to_numpy(), "y": y})
    size = df.groupby("k")["y"].transform("size").to_numpy()
    med = df.groupby("k")["y"].transform("median").to_numpy()
    shared = size > 1
    return int(shared.sum()), float(np.abs(y - med)[shared].mean()) if shared.any() else float("nan")


def model_origin(bundle) -> str:
    """``; trained by `COMMAND` on DATE`` from the bundle's metadata (what made a bundle outside the
    repository), or nothing when it records no command."""
    meta = bundle.metadata
    if not meta.get("command"):
        return ""
    return f"; trained by `{meta['command']}` on {meta.get('created_at', 'an unrecorded date')[:10]}"


def main(argv: list[str] | None = None) -> int:
    from costfuse.cost_models.bundle import load_bundle
    from costfuse.featurize.group_features import GROUP_FEATURE_SCHEMA_VERSION
    from costfuse.train.group_dataset import load_group_table
    from costfuse.train.splits import grouped_split

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=str(REPO / "costfuse/models/groups"), help="group bundle (default shipped)")
    ap.add_argument("--data", action="append", default=None, help="dataset folders (default v2 and v1)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the program split (costfuse-train's --seed)")
    add_report_arg(ap, "regs_error")
    args = ap.parse_args(argv)
    data = [Path(d) for d in (args.data or [REPO / "data/sm90_v2", REPO / "data/sm90_v1"])]
    table = load_group_table(data)
    bundle = load_bundle(args.model, ("regs",), schema=GROUP_FEATURE_SCHEMA_VERSION)
    head = bundle.heads["regs"]
    test = grouped_split(table.groups, 0.25, args.seed).test & (table.rows["dataset_version"] == 2).to_numpy()
    X = table.X[test]
    y = np.asarray(table.regs, float)[test]
    err = pd.Series(np.abs(head.predict(X.to_numpy(float)) - y))
    spills = pd.Series(np.where(np.asarray(table.spills)[test] > 0, "spills", "no spill"))
    kind = pd.Series(table.rows["spill_kind"].to_numpy(object)[test])
    mode = pd.Series(table.rows["mode"].to_numpy()[test])
    ept = pd.Series(pd.cut(X["elems_per_thread"].to_numpy(), EPT_BINS, right=True))
    spilling = spills == "spills"
    collapsed = int(((y == 32) & spilling.to_numpy()).sum())
    at_cap = int(((y >= X["regs_available"].to_numpy() - 1) & spilling.to_numpy()).sum())
    n_shared, spread = same_feature_spread(table.X, np.asarray(table.regs, float))
    lines = [
        "# Register head: where its error sits (v2 test programs)",
        "",
        f"Command: `{command_line('regs_error.py', argv)}`  ",
        f"Conditions: {conditions()}",
        "",
        f"Model: `{Path(args.model).relative_to(REPO) if Path(args.model).is_relative_to(REPO) else args.model}` "
        f"(its `regs` head{model_origin(bundle)}). Rows: the v2 rows of the test programs of the grouped split (seed {args.seed}, "
        f"test size 0.25) of {' + '.join(d.name for d in data)}: {len(y)} kernels. "
        f"**Register MAE {err.mean():.1f}** (issue #29's goal: <= 8).",
        "",
        "| spills / mode | kernels | MAE | share of the error |",
        "|---|---|---|---|",
        *breakdown(err, [spills, mode]),
        "",
        "| spill kind | kernels | MAE | share of the error |",
        "|---|---|---|---|",
        *breakdown(err, kind),
        "",
        "| elements per thread / spill kind | kernels | MAE | share of the error |",
        "|---|---|---|---|",
        *breakdown(err, [ept, kind]),
        "",
        f"Spilling kernels: {int(spilling.sum())}; {at_cap} report the register cap of their warps "
        f"(`regs_available`), {collapsed} report exactly 32 registers (ptxas moved the tile to local memory).  ",
        f"Same features: over the whole table ({len(table)} kernels, train and test), {n_shared} kernels share "
        f"their feature vector with another; their registers differ from their group's median by {spread:.2f} "
        "on average. Where features repeat, the labels barely differ: the error is not label noise but the "
        "head's, on feature vectors it has not seen (tiles of 16+ elements per thread above all; the repeated "
        "vectors need not be typical of those).",
    ]
    emit("\n".join(lines) + "\n", args.report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

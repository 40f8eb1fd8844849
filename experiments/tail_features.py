"""Whether a config's tiles have a ragged tail: what the group features miss (issues #25 and #29).

Two kernels of the same structure at the same launch can differ by 90 registers: Inductor's softmax at
x64 r64 w2 takes 168 registers with a row of 32,768 and 255 (spilling) with a row of 4,785.  A looped
kernel's row mask ``r0_index < r0_numel`` (and a block's ``xindex < xnumel``) is written in every kernel,
but where the size is a constant of the source and a multiple of the block, the compiler proves it always
true and drops the mask's predicates and selects.  The group features hold the sizes (``log2_n``,
``log2_rows``) and the blocks, but a tree cannot compute a remainder, so whether a tile has a ragged tail is
not in them.  Two columns hold it:

* ``r_tail``: the row is not a multiple of the row block (``n % rblock != 0``; 0 for a pointwise launch);
* ``x_tail``: the rows (a pointwise kernel's elements) are not a multiple of ``xblock``.

This report measures what they add, on the same grouped splits the shipped heads were trained on:

* the spread of registers among rows of the same structure and launch (every column but the size ones),
  with and without the tails;
* the Inductor handler's spill head (datasets ``sm90_inductor_v1`` + ``sm90_v2`` + ``sm90_v1``): AUC on
  the v3 and v2 test rows, and the P(spill) cuts that would meet both of ``prune``'s goals on the held-out
  candidates and the blocks' (as ``experiments/source_features.py``);
* the pass's group heads (``sm90_v2`` + ``sm90_v1``, issue #29's goals): spill AUC and register MAE (the
  cap-share head) on v2's test rows.

    python experiments/tail_features.py     # -> experiments/results/tail_features.md (about 3 minutes)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from experiments.bench_report import add_report_arg, command_line, conditions, emit  # noqa: E402

INDUCTOR_DATA = ("data/sm90_inductor_v1", "data/sm90_v2", "data/sm90_v1")
GROUP_DATA = ("data/sm90_v2", "data/sm90_v1")
SIZE_COLUMNS = ("log2_n", "log2_rows", "log2_programs", "n_pad_ratio", "in_bytes_per_elem", "out_bytes_per_elem",
                "chunks")


def tails(X):
    """``r_tail`` and ``x_tail`` (see the module docstring) of group-feature rows ``X`` (a DataFrame)."""
    import pandas as pd

    n, rows = np.round(2 ** X["log2_n"].to_numpy()), np.round(2 ** X["log2_rows"].to_numpy())
    xblock, rblock = np.round(2 ** X["log2_xblock"].to_numpy()), np.round(2 ** X["log2_rblock"].to_numpy())
    pointwise = X["mode_pointwise"].to_numpy() > 0.5
    r_tail = np.where(pointwise, False, n % rblock != 0)
    x_tail = np.where(pointwise, (n * rows) % xblock != 0, rows % xblock != 0)
    return pd.DataFrame({"r_tail": r_tail.astype(float), "x_tail": x_tail.astype(float)}, index=X.index)


def with_tails(X):
    import pandas as pd

    return pd.concat([X, tails(X)], axis=1)


def register_spread(X, regs: np.ndarray, spills: np.ndarray) -> tuple[float, int, int]:
    """Among rows sharing every column but :data:`SIZE_COLUMNS`: the mean |registers - their mean|, the rows
    in such groups, and the rows in groups where some spill and some do not."""
    import pandas as pd

    key = X.drop(columns=[c for c in SIZE_COLUMNS if c in X.columns]).round(6).astype(str).agg("|".join, axis=1)
    df = pd.DataFrame({"key": key.to_numpy(), "regs": regs, "spill": spills})
    g = df.groupby("key")
    shared = (g["regs"].transform("size") > 1).to_numpy()
    mixed = (g["spill"].transform("min") != g["spill"].transform("max")).to_numpy()
    deviation = (df["regs"] - g["regs"].transform("mean")).abs().to_numpy()
    return float(deviation[shared].mean()), int(shared.sum()), int((shared & mixed).sum())


def _heads(train_X, y, regs, tr, params):
    """The spill head and the register head refit on the rows ``tr`` of ``train_X``; ``regs`` None: the spill
    head only (the register head is then None)."""
    from costfuse.train.fit import GROUP_HEADS, XGBHead

    spill = XGBHead(GROUP_HEADS["spill"], params)
    spill.model = spill._new().fit(train_X[tr], y[tr].astype(int))   # the AUC reads no cut: no out-of-fold fits
    reg = None if regs is None else XGBHead(GROUP_HEADS["regs"], params).fit(train_X[tr], regs[tr])
    return spill, reg


def run(extra=tails, label: str = "+ tails") -> dict:
    """The report's figures for the group features alone and with the columns ``extra`` makes of them
    (``extra(X)``: a DataFrame of new columns on ``X``'s index; :func:`tails` by default), named ``label``."""
    import pandas as pd
    from sklearn.metrics import roc_auc_score

    from costfuse.train.group_dataset import load_group_table
    from costfuse.train.splits import grouped_split
    from experiments.source_features import block_rows, bundle_params, sweep

    def forms(X):
        return (("group features", X), (label, pd.concat([X, extra(X)], axis=1)))

    out = {"spread": {}, "inductor": {}, "groups": {}}
    params = bundle_params()
    table = load_group_table([REPO / d for d in INDUCTOR_DATA])
    rows, X = table.rows.reset_index(drop=True), table.X.reset_index(drop=True)
    y, regs = table.spills, table.regs
    version = rows["dataset_version"].to_numpy()
    for v in (3, 2):
        at = version == v
        out["spread"][v] = {name: register_spread(A[at].reset_index(drop=True), regs[at], y[at])
                            for name, A in forms(X)}
    split = grouped_split(table.groups, 0.25, 0)
    tr, te = split.train, split.test
    candidate = rows["config_source"].fillna("").str.contains("inductor|max_autotune").to_numpy()
    held = te & (version == 3) & candidate
    xb, _, yb, _ = block_rows(list(X.columns))
    for (name, A), (_, AB) in zip(forms(X), forms(xb)):
        spill, _ = _heads(A, y, regs, tr, params)
        p, pb = spill.score(A), spill.score(AB[A.columns])
        out["inductor"][name] = {
            "auc_v3": float(roc_auc_score(y[te & (version == 3)], p[te & (version == 3)])),
            "auc_v2": float(roc_auc_score(y[te & (version == 2)], p[te & (version == 2)])),
            "auc_blocks": float(roc_auc_score(yb, pb)),
            "met": [float(s[0]) for s in sweep(p[held], y[held], pb, yb) if s[5]],
            "sweep": sweep(p[held], y[held], pb, yb),
        }
    table = load_group_table([REPO / d for d in GROUP_DATA])
    rows, X = table.rows.reset_index(drop=True), table.X.reset_index(drop=True)
    y, regs = table.spills, table.regs
    split = grouped_split(table.groups, 0.25, 0)
    tr, te = split.train, split.test
    v2 = te & (rows["dataset_version"] == 2).to_numpy()
    for name, A in forms(X):
        spill, reg = _heads(A, y, regs, tr, params)
        out["groups"][name] = {"auc": float(roc_auc_score(y[v2], spill.score(A[v2]))),
                               "mae": float(np.mean(np.abs(reg.predict(A[v2]) - regs[v2]))),
                               "rows": int(v2.sum())}
    return out


def report_head(title: str, command: str, spread: dict) -> list[str]:
    """A report's opening (title, command, conditions, the boosters and splits) and its table of
    :func:`register_spread` (``spread``: dataset version -> features -> its three figures)."""
    lines = [
        f"# {title}",
        "",
        f"Command: `{command}`  ",
        f"Conditions: {conditions()}",
        "",
        "Boosters: the settings of `costfuse/models/inductor` (no out-of-fold cuts; the AUC and MAE read none); "
        "splits: the grouped splits `costfuse-train` makes of each set of datasets.",
        "",
        "## Registers among rows of the same structure and launch (every column but the sizes)",
        "",
        "| dataset | features | mean abs. deviation from the group's mean registers | rows in shared groups "
        "| rows in groups where some spill and some do not |",
        "|---|---|---|---|---|",
    ]
    for v, runs in spread.items():
        for name, (dev, shared, mixed) in runs.items():
            lines.append(f"| v{v} | {name} | {dev:.2f} | {shared:,} | {mixed:,} |")
    return lines


def markdown(out: dict, command: str, title: str = "A ragged tail: what the group features miss (issues #25 and #29)",
             evidence: list[str] = ()) -> str:
    """The report of :func:`run`'s ``out``; ``evidence``: Markdown lines placed after the register spread."""
    lines = report_head(title, command, out["spread"]) + list(evidence)
    lines += ["", "## The Inductor handler's spill head (`sm90_inductor_v1` + `sm90_v2` + `sm90_v1`)", "",
              "| features | AUC v3 test rows | AUC v2 test rows | AUC blocks' candidates "
              "| cuts (0.05-0.60) meeting both `prune` goals on both sets |",
              "|---|---|---|---|---|"]
    for name, r in out["inductor"].items():
        met = ", ".join(f"{c:.2f}" for c in r["met"]) or "none"
        lines.append(f"| {name} | {r['auc_v3']:.4f} | {r['auc_v2']:.4f} | {r['auc_blocks']:.4f} | {met} |")
    lines += ["", "Share of `prune`'s candidates dropped at each cut (held-out spilling / spill-free, "
              "blocks' spilling / spill-free):", "",
              "| P(spill) cut | " + " | ".join(out["inductor"]) + " |", "|---|" + "---|" * len(out["inductor"])]
    runs = list(out["inductor"].values())
    for i, s in enumerate(runs[0]["sweep"]):
        cells = [f"{100 * r['sweep'][i][1]:.1f} / {100 * r['sweep'][i][2]:.1f}, "
                 f"{100 * r['sweep'][i][3]:.1f} / {100 * r['sweep'][i][4]:.1f}" for r in runs]
        lines.append(f"| {s[0]:.2f} | " + " | ".join(cells) + " |")
    lines += ["", "## The pass's group heads (`sm90_v2` + `sm90_v1`; issue #29: AUC >= 0.985, MAE <= 8)", "",
              "| features | spill AUC, v2 test rows | register MAE (cap-share head), v2 test rows |", "|---|---|---|"]
    for name, r in out["groups"].items():
        lines.append(f"| {name} | {r['auc']:.4f} | {r['mae']:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_report_arg(ap, "tail_features")
    args = ap.parse_args(argv)
    emit(markdown(run(), command_line("tail_features.py", argv)), args.report)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Choose the group heads' booster size by grouped cross-validation on the *training* programs only.

``costfuse-train`` reports the group heads on the test programs of a grouped
split; picking the tree count or depth by those test figures would tune on
the test set.  So this script takes the same split (``load_group_table`` +
``grouped_split``, ``--seed``), keeps only its training programs, and scores
each booster setting by grouped K-fold over them (programs never straddle
folds): the spill classifier's AUC and the register regressor's MAE on the
v2 rows of each held-out fold (the goals are read on v2).  The best setting
is then what ``costfuse-train --n-estimators N --max-depth D`` uses.

    python experiments/tune_group_heads.py [--folds 3]

writes ``experiments/results/tune_group_heads.md``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from bench_report import add_report_arg, command_line, conditions, emit  # noqa: E402

# (n_estimators, max_depth, learning_rate): the shipped setting first, then larger ones.
SETTINGS = ((300, 6, 0.05), (600, 6, 0.05), (600, 8, 0.05), (1000, 8, 0.03))


def cv_scores(X, spills, regs, v2, groups, setting, folds: int, jobs: int) -> dict[str, float]:
    """Mean over grouped folds of (v2 spill AUC, v2 register MAE) for one booster setting."""
    import xgboost as xgb
    from sklearn.metrics import roc_auc_score

    from costfuse.train.splits import group_folds

    n, depth, lr = setting
    common = dict(n_estimators=n, max_depth=depth, learning_rate=lr, subsample=0.9, colsample_bytree=0.9,
                  n_jobs=jobs, random_state=0)
    aucs, maes = [], []
    for tr, te in group_folds(groups, folds):
        te = te[v2[te]]
        p = xgb.XGBClassifier(**common).fit(X[tr], spills[tr]).predict_proba(X[te])[:, 1]
        aucs.append(roc_auc_score(spills[te], p))
        r = xgb.XGBRegressor(**common).fit(X[tr], regs[tr]).predict(X[te])
        maes.append(float(np.abs(r - regs[te]).mean()))
    return {"auc": float(np.mean(aucs)), "auc_min": float(np.min(aucs)), "regs_mae": float(np.mean(maes))}


def main(argv: list[str] | None = None) -> int:
    from tqdm import tqdm

    from costfuse.train.group_dataset import load_group_table
    from costfuse.train.splits import grouped_split

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", action="append", default=None, help="dataset folders (default v2 and v1)")
    ap.add_argument("--folds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0, help="seed of the program split (costfuse-train's --seed)")
    ap.add_argument("--jobs", type=int, default=2)
    add_report_arg(ap, "tune_group_heads")
    args = ap.parse_args(argv)
    data = [Path(d) for d in (args.data or [REPO / "data/sm90_v2", REPO / "data/sm90_v1"])]
    table = load_group_table(data)
    train = grouped_split(table.groups, 0.25, args.seed).train
    X = table.X.to_numpy(float)[train]
    spills = np.asarray(table.spills, int)[train]
    regs = np.asarray(table.regs, float)[train]
    v2 = (table.rows["dataset_version"] == 2).to_numpy()[train]
    groups = np.asarray(table.groups)[train]
    rows = []
    for setting in tqdm(SETTINGS, desc="settings"):
        rows.append((setting, cv_scores(X, spills, regs, v2, groups, setting, args.folds, args.jobs)))
    best = max(rows, key=lambda r: (round(r[1]["auc"], 3), -r[1]["regs_mae"]))
    lines = [
        "# Group heads: booster size by grouped cross-validation on the training programs",
        "",
        f"Command: `{command_line('tune_group_heads.py', argv)}`  ",
        f"Conditions: {conditions()}",
        "",
        f"Training programs of the grouped split (seed {args.seed}, test size 0.25) of "
        f"{' + '.join(d.name for d in data)}: {int(train.sum())} rows, {int(v2.sum())} of them v2; "
        f"{args.folds} grouped folds; scores on each fold's v2 rows, mean (and the worst fold's AUC).",
        "",
        "| n_estimators | max_depth | learning_rate | spill AUC | worst fold AUC | regs MAE |",
        "|---|---|---|---|---|---|",
        *(f"| {n} | {d} | {lr} | {s['auc']:.4f} | {s['auc_min']:.4f} | {s['regs_mae']:.2f} |"
          for (n, d, lr), s in rows),
        "",
        f"Chosen (highest AUC to 3 decimals, then lowest register MAE): --n-estimators {best[0][0]} "
        f"--max-depth {best[0][1]} --learning-rate {best[0][2]}",
    ]
    emit("\n".join(lines) + "\n", args.report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

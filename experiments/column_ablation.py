"""What one group-feature schema adds over the one before, on held-out kinds, over several booster seeds.

Issue #25 asks that every kind held out of the Inductor handler's heads keep
a spill AUC >= 0.93 on its Inductor rows (dataset ``sm90_inductor_v1``).
Some kinds have few spilling rows (swiglu: 12), so one booster's AUC moves
with the seed as much as with a column.  This report refits the spill head
for every held-out kind, as ``costfuse-train``'s held-out split does (every
other family's rows of all the datasets, the bundle's booster settings, no
out-of-fold cuts, which the AUC does not read), once on the older schema's
columns and once on the newer one's, at each of ``--seeds``, and scores each
kind on its rows of ``--version``'s dataset.  A column that helps lifts the
mean over kinds at every seed; one kind's figure is read against its own
spread over the seeds.

    python experiments/column_ablation.py [--seeds 0,1,2] [--older 3]

writes ``experiments/results/column_ablation.md``; the pass's heads' data and settings instead:

    python experiments/column_ablation.py --data data/sm90_v2 --data data/sm90_v1 --version 2 \
        --model costfuse/models/groups --report experiments/results/column_ablation_groups.md
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from bench_report import add_report_arg, command_line, conditions, emit  # noqa: E402

DATASETS = ("data/sm90_inductor_v1", "data/sm90_v2", "data/sm90_v1")   # the handler's heads' training data


def held_out_aucs(X, y, families, scored, params, seed: int) -> dict[str, float]:
    """Held-out spill AUC per kind with rows in ``scored``: the head refit on every other kind's rows."""
    from sklearn.metrics import roc_auc_score

    from costfuse.train.fit import GROUP_HEADS, XGBHead, XGBParams

    out = {}
    for kind in sorted(set(families[scored])):
        held = families == kind
        test = held & scored
        if len(set(y[test])) < 2:
            continue
        head = XGBHead(GROUP_HEADS["spill"], XGBParams(**{**params, "seed": seed}))
        head.fit(X[~held], y[~held])   # no groups: no out-of-fold cuts
        out[kind] = float(roc_auc_score(y[test], head.score(X[test])))
    return out


def markdown(kinds: list[str], counts: dict[str, str], runs: dict, names: tuple[str, str], argv, header: str) -> str:
    older, newer = names
    seeds = sorted({s for _, s in runs})
    lines = [f"# {header}", "", f"Command: `{command_line('column_ablation.py', argv)}`  ",
             f"Conditions: {conditions()}", "",
             "| seed | columns | mean held-out AUC | lowest kind |", "|---|---|---|---|"]
    for seed in seeds:
        for name in names:
            aucs = runs[name, seed]
            low = min(aucs, key=aucs.get)
            lines.append(f"| {seed} | {name} | {np.mean(list(aucs.values())):.4f} | {low} {aucs[low]:.3f} |")
    lines += ["", "Per kind (its rows: all / spilling), the AUC at each seed:", "",
              f"| kind | rows | {older} | {newer} | {newer} - {older}, mean |", "|---|---|---|---|---|"]
    for k in kinds:
        a = [runs[older, s][k] for s in seeds]
        b = [runs[newer, s][k] for s in seeds]
        lines.append(f"| {k} | {counts[k]} | {' / '.join(f'{v:.3f}' for v in a)} | "
                     f"{' / '.join(f'{v:.3f}' for v in b)} | {np.mean(b) - np.mean(a):+.4f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    from costfuse.featurize.group_features import GROUP_FEATURE_SCHEMA_VERSION, GROUP_SCHEMAS
    from costfuse.train.group_dataset import load_group_table

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="0,1,2", help="booster seeds, comma-separated (default 0,1,2)")
    ap.add_argument("--older", type=int, default=GROUP_FEATURE_SCHEMA_VERSION - 1,
                    help=f"the older group schema (default {GROUP_FEATURE_SCHEMA_VERSION - 1}); the newer is this "
                         f"code's, v{GROUP_FEATURE_SCHEMA_VERSION}")
    ap.add_argument("--data", action="append", default=None,
                    help=f"a dataset folder (repeatable; default the handler's: {', '.join(DATASETS)})")
    ap.add_argument("--version", type=int, default=3, help="dataset version whose rows score a kind (default 3)")
    ap.add_argument("--model", default=str(REPO / "costfuse/models/inductor"),
                    help="bundle whose booster settings are refit (default the handler's heads)")
    ap.add_argument("--jobs", type=int, default=2, help="XGBoost threads (default 2)")
    add_report_arg(ap, "column_ablation")
    args = ap.parse_args(argv)
    if args.older not in GROUP_SCHEMAS or args.older >= GROUP_FEATURE_SCHEMA_VERSION:
        raise SystemExit(f"--older {args.older}: not an older group schema (known: {sorted(GROUP_SCHEMAS)})")
    seeds = [int(s) for s in args.seeds.split(",")]
    meta = json.loads((Path(args.model) / "metadata.json").read_text())
    p = meta["params"]
    params = dict(n_estimators=p["n_estimators"], max_depth=p["max_depth"], learning_rate=p["learning_rate"],
                  n_jobs=args.jobs)
    table = load_group_table([REPO / d for d in (args.data or DATASETS)])
    families = np.asarray(table.families)
    scored = (table.rows["dataset_version"] == args.version).to_numpy()
    if not scored.any():
        raise SystemExit(f"--version {args.version}: no rows of that dataset version in {args.data or DATASETS}")
    y = np.asarray(table.spills, bool)
    names = (f"v{args.older}", f"v{GROUP_FEATURE_SCHEMA_VERSION}")
    columns = {names[0]: list(GROUP_SCHEMAS[args.older]), names[1]: list(GROUP_SCHEMAS[GROUP_FEATURE_SCHEMA_VERSION])}
    runs = {}
    for seed in seeds:
        for name in names:
            print(f"[column_ablation] seed {seed}, {name} columns", file=sys.stderr, flush=True)
            runs[name, seed] = held_out_aucs(table.X[columns[name]], y, families, scored, params, seed)
    kinds = sorted(runs[names[0], seeds[0]], key=lambda k: np.mean([runs[names[1], s][k] for s in seeds]))
    counts = {k: f"{int((families[scored] == k).sum())} / {int(y[scored & (families == k)].sum())}" for k in kinds}
    added = [c for c in columns[names[1]] if c not in columns[names[0]]]
    header = (f"Group schema {names[1]} against {names[0]} (adds {', '.join(added)}): held-out spill AUC on the "
              f"dataset-v{args.version} rows of each kind")
    emit(markdown(kinds, counts, runs, names, argv, header), args.report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The group heads' scores on dataset v2 alone, next to their baselines (issue #13's goals).

The group table mixes v2 rows with v1's row kernels (``train/group_dataset.py``);
the goals are read on v2's test programs and held-out v2 kinds, so this adds
``v2.<model>.<metric>`` figures to the run's summary and a section to its report.
"""

from __future__ import annotations

import math

import numpy as np

from costfuse.train.metrics import classification
from costfuse.train.pipeline import TrainResult, score_head


def is_v2(result: TrainResult) -> np.ndarray:
    """Rows of a schema-v2 dataset (by their ``dataset_version``, not the directory's name)."""
    rows = result.table.rows
    return (rows["dataset_version"] == 2).to_numpy() if "dataset_version" in rows else np.ones(len(rows), bool)


def v2_kinds(result: TrainResult) -> set[str]:
    return set(result.table.rows.loc[is_v2(result), "family"])


def v2_metrics(result: TrainResult) -> dict[str, float]:
    """``v2.<head>.<metric>``, ``v2.<head>.holdout_min_auc`` and the same for each baseline."""
    t, mask = result.table, result.split.test & is_v2(result)
    kinds = v2_kinds(result)
    out: dict[str, float] = {}
    tested = mask.any()   # False when every v2 program landed in train: no test figures (the report shows nan)
    for name, res in result.heads.items():
        for k, v in (score_head(res.spec, res.head, t, mask).metrics if tested else {}).items():
            out[f"v2.{name}.{k}"] = v
        aucs = [m["auc"] for f, m in res.holdout.items() if f in kinds and not math.isnan(m.get("auc", math.nan))]
        if aucs:
            out[f"v2.{name}.holdout_min_auc"] = min(aucs)
    for b in result.baselines:
        if b.model is not None and tested:
            y, s = t.spills[mask], b.model.score(t.X[mask])
            for k, v in classification(y, s, b.model.threshold).items():
                out[f"v2.baseline_{b.name}.{k}"] = v
        aucs = [m["auc"] for f, m in b.holdout.items() if f in kinds and not math.isnan(m.get("auc", math.nan))]
        if aucs:
            out[f"v2.baseline_{b.name}.holdout_min_auc"] = min(aucs)
    return out


def render_v2(result: TrainResult) -> str:
    """The v2-only section: spill classifiers and regressors on v2's test programs."""
    s = result.summary()
    t, mask = result.table, result.split.test & is_v2(result)
    held_out = any(res.holdout for res in result.heads.values())   # none under --no-holdout
    lines = ["", f"dataset v2 only: {int(mask.sum())} test rows ({int(t.spills[mask].sum())} spilling), "
                 + (f"{len(v2_kinds(result))} kinds held out in turn" if held_out else "no kind held out"),
             f"  {'model':<16}{'AUC':>7}{'F1':>7}{'prec':>7}{'recall':>7}  min held-out-kind AUC"]
    names = [("xgboost", "spill")] + [(b.name, f"baseline_{b.name}") for b in result.baselines]
    for label, key in names:
        g = lambda m: s.get(f"v2.{key}.{m}", math.nan)  # noqa: E731
        lines.append(f"  {label:<16}{g('auc'):>7.3f}{g('f1'):>7.3f}{g('precision'):>7.3f}{g('recall'):>7.3f}"
                     f"  {g('holdout_min_auc'):.3f}")
    for name, res in result.heads.items():
        if res.spec.kind == "regressor":
            lines.append(f"  {name:<16}MAE {s.get(f'v2.{name}.mae', math.nan):.2f}")
    return "\n".join(lines)

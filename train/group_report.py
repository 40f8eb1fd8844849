"""The group heads' scores on dataset v2 alone, next to their baselines (issue #13's goals).

The group table mixes v2 rows with v1's row kernels (``train/group_dataset.py``);
the goals are read on v2's test programs and held-out v2 kinds, so this adds
``v2.<model>.<metric>`` figures to the run's summary and a section to its report.

Spill kinds (:mod:`data.spill_kind`, issue #29): the section counts the rows
of each kind, and scores the spill head on each spilling kind against the
non-spilling rows (``v2.spill.auc_<kind>``: does it rank a local-memory
collapse, a pressure spill, a tiny spill above the kernels that do not
spill?) and the register head per kind (``v2.regs.mae_<kind>``).
"""

from __future__ import annotations

import math

import numpy as np
from sklearn.metrics import roc_auc_score

from costfuse.data.spill_kind import NONE, SPILL_KINDS, SPILLING_KINDS, kind_counts
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
    kinds_of = _kinds(result)
    for name, res in result.heads.items():
        scored = score_head(res.spec, res.head, t, mask) if tested else None
        for k, v in (scored.metrics if tested else {}).items():
            out[f"v2.{name}.{k}"] = v
        if tested and kinds_of is not None:
            out.update(_per_kind(name, res.spec.kind, scored, kinds_of[mask & _labelled(t, res.spec)]))
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


def _kinds(result: TrainResult) -> np.ndarray | None:
    rows = result.table.rows
    return rows["spill_kind"].to_numpy(object) if "spill_kind" in rows else None


def _labelled(table, spec) -> np.ndarray:
    from costfuse.train.fit import labels

    return ~np.isnan(labels(table, spec).astype(float))


def _per_kind(name: str, kind: str, scored, kinds: np.ndarray) -> dict[str, float]:
    """A classifier's AUC on each spilling kind against the rows that do not spill; a regressor's MAE per kind."""
    out = {}
    for k in SPILL_KINDS:
        if kind == "classifier" and k in SPILLING_KINDS:
            m = (kinds == k) | (kinds == NONE)
            if (kinds == k).any() and (kinds == NONE).any():
                out[f"v2.{name}.auc_{k}"] = float(roc_auc_score(kinds[m] == k, scored.y_pred[m]))
        elif kind == "regressor" and (kinds == k).any():
            out[f"v2.{name}.mae_{k}"] = float(np.mean(np.abs(scored.y_pred[kinds == k] - scored.y_true[kinds == k])))
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
            per = "".join(f", {k} {s[f'v2.{name}.mae_{k}']:.2f}" for k in SPILL_KINDS if f"v2.{name}.mae_{k}" in s)
            lines.append(f"  {name:<16}MAE {s.get(f'v2.{name}.mae', math.nan):.2f}" + (f" (by spill kind: {per[2:]})"
                                                                                     if per else ""))
    kinds = _kinds(result)
    if kinds is not None:
        v2 = is_v2(result)
        for label, m in (("all v2 rows", v2), ("v2 test rows", mask)):
            lines.append(f"  spill kinds, {label}: " + ", ".join(f"{k} {n}" for k, n in kind_counts(kinds[m]).items()))
        aucs = [f"{k} {s[f'v2.spill.auc_{k}']:.3f}" for k in SPILLING_KINDS if f"v2.spill.auc_{k}" in s]
        if aucs:
            lines.append("  spill head AUC per spilling kind against the rows that do not spill: " + ", ".join(aucs))
    return "\n".join(lines)

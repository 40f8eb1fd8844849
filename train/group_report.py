"""The group heads' scores on each dataset they were trained on, next to their baselines.

The group table mixes rows of several schemas (``train/group_dataset.py``):
v2 (CostFuse's kernel groups), v3 (Inductor's own kernels) and v1's row
kernels.  A goal is read on the rows of the dataset it is about: issue #13's
on v2's test programs and held-out v2 kinds, issue #25's (the Inductor
handler's heads) on v3's.  So this adds ``v<N>.<model>.<metric>`` figures to
the run's summary for every schema present (v2 and v3) and a section each to
its report.

Spill kinds (:mod:`data.spill_kind`, issue #29): each section counts the rows
of each kind, and scores the spill head on each spilling kind against the
non-spilling rows (``v<N>.spill.auc_<kind>``: does it rank a local-memory
collapse, a pressure spill, a tiny spill above the kernels that do not
spill?) and the register head per kind (``v<N>.regs.mae_<kind>``).
"""

from __future__ import annotations

import math

import numpy as np
from sklearn.metrics import roc_auc_score

from costfuse.data.spill_kind import NONE, SPILL_KINDS, SPILLING_KINDS, kind_counts
from costfuse.train.metrics import classification
from costfuse.train.pipeline import TrainResult, score_head

SECTIONS = {2: "dataset v2 (kernel groups)", 3: "dataset v3 (Inductor's kernels)"}
"""The schemas that get a section of their own, and its title."""


def of_version(result: TrainResult, version: int) -> np.ndarray:
    """Rows of a dataset of schema ``version`` (by their ``dataset_version``, not the directory's name);
    a table without the column is v2's (older callers)."""
    rows = result.table.rows
    if "dataset_version" not in rows:
        return np.full(len(rows), version == 2)
    return (rows["dataset_version"] == version).to_numpy()


def versions(result: TrainResult) -> list[int]:
    """The schemas with a section of their own that have rows in ``result``'s table."""
    return [v for v in SECTIONS if of_version(result, v).any()]


def kinds_of(result: TrainResult, version: int) -> set[str]:
    return set(result.table.rows.loc[of_version(result, version), "family"])


def version_metrics(result: TrainResult, version: int) -> dict[str, float]:
    """``v<N>.<head>.<metric>``, ``v<N>.<head>.holdout_min_auc`` and the same for each baseline, on the rows
    of schema ``version``: its test programs, and the held-out kinds it has rows of."""
    t, mask = result.table, result.split.test & of_version(result, version)
    kinds, key = kinds_of(result, version), f"v{version}"
    out: dict[str, float] = {}
    tested = mask.any()   # False when every program of it landed in train: no test figures (the report shows nan)
    spill_kinds = _spill_kinds(result)
    for name, res in result.heads.items():
        scored = score_head(res.spec, res.head, t, mask) if tested else None
        for k, v in (scored.metrics if tested else {}).items():
            out[f"{key}.{name}.{k}"] = v
        if tested and spill_kinds is not None:
            out.update(_per_kind(f"{key}.{name}", res.spec.kind, scored,
                                 spill_kinds[mask & _labelled(t, res.spec)]))
        _holdout_min(out, f"{key}.{name}", res.holdout, kinds, version)
    for b in result.baselines:
        if b.model is not None and tested:
            y, s = t.spills[mask], b.model.score(t.X[mask])
            for k, v in classification(y, s, b.model.threshold).items():
                out[f"{key}.baseline_{b.name}.{k}"] = v
        _holdout_min(out, f"{key}.baseline_{b.name}", b.holdout, kinds, version)
    return out


def holdout_auc(m: dict, version: int) -> float:
    """A held-out kind's AUC on the rows of dataset schema ``version`` (``auc_v<N>``: the kind's rows of the
    other datasets left out), or on all its rows when the table had one schema."""
    return m.get(f"auc_v{version}", m.get("auc", math.nan))


def _holdout_min(out: dict, prefix: str, holdout: dict, kinds: set[str], version: int) -> None:
    aucs = [a for f, m in holdout.items() if f in kinds and not math.isnan(a := holdout_auc(m, version))]
    if aucs:
        out[f"{prefix}.holdout_min_auc"] = min(aucs)


def dataset_metrics(result: TrainResult) -> dict[str, float]:
    """:func:`version_metrics` of every schema present."""
    out: dict[str, float] = {}
    for version in versions(result):
        out.update(version_metrics(result, version))
    return out


def _spill_kinds(result: TrainResult) -> np.ndarray | None:
    rows = result.table.rows
    return rows["spill_kind"].to_numpy(object) if "spill_kind" in rows else None


def _labelled(table, spec) -> np.ndarray:
    from costfuse.train.fit import labels

    return ~np.isnan(labels(table, spec).astype(float))


def _per_kind(prefix: str, kind: str, scored, kinds: np.ndarray) -> dict[str, float]:
    """A classifier's AUC on each spilling kind against the rows that do not spill; a regressor's MAE per kind."""
    out = {}
    for k in SPILL_KINDS:
        if kind == "classifier" and k in SPILLING_KINDS:
            m = (kinds == k) | (kinds == NONE)
            if (kinds == k).any() and (kinds == NONE).any():
                out[f"{prefix}.auc_{k}"] = float(roc_auc_score(kinds[m] == k, scored.y_pred[m]))
        elif kind == "regressor" and (kinds == k).any():
            out[f"{prefix}.mae_{k}"] = float(np.mean(np.abs(scored.y_pred[kinds == k] - scored.y_true[kinds == k])))
    return out


def render_version(result: TrainResult, version: int) -> str:
    """One schema's section: spill classifiers and regressors on its test programs, by spill kind too."""
    s, key = result.summary(), f"v{version}"
    t, mask = result.table, result.split.test & of_version(result, version)
    held_out = any(res.holdout for res in result.heads.values())   # none under --no-holdout
    lines = ["", f"{SECTIONS[version]} only: {int(mask.sum())} test rows ({int(t.spills[mask].sum())} spilling), "
                 + (f"{len(kinds_of(result, version))} kinds held out in turn" if held_out else "no kind held out"),
             f"  {'model':<16}{'AUC':>7}{'F1':>7}{'prec':>7}{'recall':>7}  min held-out-kind AUC"]
    names = [("xgboost", "spill")] + [(b.name, f"baseline_{b.name}") for b in result.baselines]
    for label, name in names:
        g = lambda m: s.get(f"{key}.{name}.{m}", math.nan)  # noqa: E731
        lines.append(f"  {label:<16}{g('auc'):>7.3f}{g('f1'):>7.3f}{g('precision'):>7.3f}{g('recall'):>7.3f}"
                     f"  {g('holdout_min_auc'):.3f}")
    for name, res in result.heads.items():
        if res.spec.kind == "regressor":
            per = "".join(f", {k} {s[f'{key}.{name}.mae_{k}']:.2f}" for k in SPILL_KINDS
                          if f"{key}.{name}.mae_{k}" in s)
            lines.append(f"  {name:<16}MAE {s.get(f'{key}.{name}.mae', math.nan):.2f}"
                         + (f" (by spill kind: {per[2:]})" if per else ""))
    spill = result.heads.get("spill")
    if held_out and spill is not None:
        per_kind = sorted((auc, f) for f, m in spill.holdout.items() if f in kinds_of(result, version)
                          and not math.isnan(auc := holdout_auc(m, version)))
        if per_kind:
            lines.append(f"  held-out kinds, spill AUC on their {key} rows (worst first): "
                         + ", ".join(f"{f} {auc:.3f}" for auc, f in per_kind))
    spill_kinds = _spill_kinds(result)
    if spill_kinds is not None:
        for label, m in ((f"all {key} rows", of_version(result, version)), (f"{key} test rows", mask)):
            lines.append(f"  spill kinds, {label}: "
                         + ", ".join(f"{k} {n}" for k, n in kind_counts(spill_kinds[m]).items()))
        aucs = [f"{k} {s[f'{key}.spill.auc_{k}']:.3f}" for k in SPILLING_KINDS if f"{key}.spill.auc_{k}" in s]
        if aucs:
            lines.append("  spill head AUC per spilling kind against the rows that do not spill: " + ", ".join(aucs))
    return "\n".join(lines)


def render_datasets(result: TrainResult) -> str:
    """:func:`render_version` of every schema present."""
    return "\n".join(render_version(result, v) for v in versions(result))

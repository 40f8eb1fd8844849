"""The plain-text report ``costfuse-train`` prints: models side by side on the
same grouped split, per-family hold-outs, then the goals with what was reached."""

from __future__ import annotations

import math

from costfuse.train.fit import DECISION_PRECISION, DECISION_RECALL
from costfuse.train.pipeline import TrainResult


def _f(v: float, digits: int = 3) -> str:
    return "n/a" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{digits}f}"


def render(result: TrainResult) -> str:
    t = result.table
    lines = [
        f"dataset {t.source}  hash {t.dataset_hash}  rows {len(t)}  programs {len(set(t.programs))}  "
        f"families {', '.join(sorted(set(t.families)))}",
    ]
    if t.dropped:
        lines.append("left out: " + ", ".join(f"{k} ({v})" for k, v in sorted(t.dropped.items())))
    lines.append(f"grouped split by program content and shared kernels: train {int(result.split.train.sum())} rows, "
                 f"test {int(result.split.test.sum())} rows "
                 f"({int(t.spills[result.split.test].sum())} spilling)")
    lines += ["", "spill classifier (grouped split, test programs)",
              f"  {'model':<14}{'AUC':>7}{'F1':>7}{'prec':>7}{'recall':>7}{'thr':>9}  rule / min held-out AUC"]
    if "spill" in result.heads:
        h = result.heads["spill"]
        lines.append(_cls_row("xgboost", h.test.metrics, h.holdout, f"threshold {h.head.threshold:.3f} (decision cut "
                                f"{h.head.decision_threshold:.3f}: out-of-fold recall {DECISION_RECALL:.2f}; "
                                f"precision cut {h.head.precision_threshold:.3f}: out-of-fold precision "
                                f"{DECISION_PRECISION:.2f})"))
    for b in result.baselines:
        lines.append(_cls_row(b.name, b.test.metrics, b.holdout, b.description))
    regs = [(n, r) for n, r in result.heads.items() if r.spec.kind == "regressor"]
    if regs:
        lines += ["", "regressors (grouped split, natural units)"]
        for name, r in regs:
            m = r.test.metrics
            extra = "".join(f"  {k} {_f(m[k])}" for k in ("mae_log1p", "mae_log", "kendall_tau", "mape") if k in m)
            lines.append(f"  {name:<12} MAE {_f(m['mae'], 2):>9}  R² {_f(m['r2'])}{extra}")
    families = sorted({f for r in result.heads.values() for f in r.holdout})
    if families:
        cols = _holdout_cols(result)
        w = max(len(c) for c in cols) + 2
        lines += ["", "held-out families (train on the others)",
                  "  " + f"{'family':<10}" + "".join(f"{c:>{w}}" for c in cols)]
        for fam in families:
            lines.append("  " + f"{fam:<10}" + "".join(f"{_f(v):>{w}}" for v in _holdout_vals(result, fam)))
    lines += ["", "goals"]
    for key, v, op, target, met in result.goals():
        mark = "n/a" if met is None else ("met" if met else "NOT met")
        lines.append(f"  {key:<34} {_f(v):>8} {op} {target:<6} {mark}")
    return "\n".join(lines)


def _cls_row(name: str, m: dict, holdout: dict, note: str) -> str:
    aucs = [x["auc"] for x in holdout.values() if not math.isnan(x.get("auc", math.nan))]
    hmin = f"; held-out min AUC {_f(min(aucs))}" if aucs else ""
    return (f"  {name:<14}{_f(m['auc']):>7}{_f(m['f1']):>7}{_f(m['precision']):>7}{_f(m['recall']):>7}"
            f"{_f(m['threshold'], 3):>9}  {note}{hmin}")


def _holdout_cols(result: TrainResult) -> list[str]:
    cols = []
    for name, r in result.heads.items():
        cols.append(f"{name} {'AUC' if r.spec.kind == 'classifier' else 'MAE'}")
    cols += [f"{b.name} AUC" for b in result.baselines]
    return cols


def _holdout_vals(result: TrainResult, family: str) -> list[float]:
    vals = []
    for r in result.heads.values():
        m = r.holdout.get(family, {})
        vals.append(m.get("auc" if r.spec.kind == "classifier" else "mae", math.nan))
    vals += [b.holdout.get(family, {}).get("auc", math.nan) for b in result.baselines]
    return vals

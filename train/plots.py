"""PNG plots of a training run: ROC curves of the spill models side by side,
and predicted vs actual for each regressor.  Headless (Agg backend)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.metrics import roc_curve  # noqa: E402

from costfuse.train.pipeline import TrainResult  # noqa: E402


def roc(result: TrainResult, path: Path) -> Path | None:
    """ROC of the XGBoost spill head and every baseline on the grouped test split."""
    curves = []
    if "spill" in result.heads:
        curves.append(("xgboost", result.heads["spill"].test))
    curves += [(b.name, b.test) for b in result.baselines]
    curves = [(n, s) for n, s in curves if 0 < np.sum(s.y_true) < len(s.y_true)]
    if not curves:
        return None
    fig, ax = plt.subplots(figsize=(5, 5))
    for name, s in curves:
        fpr, tpr, _ = roc_curve(s.y_true, s.y_pred)
        ax.plot(fpr, tpr, label=f"{name} (AUC {s.metrics['auc']:.3f})")
    ax.plot([0, 1], [0, 1], ls=":", c="grey")
    ax.set(xlabel="false positive rate", ylabel="true positive rate", title="spill > 0, grouped test split")
    ax.legend(loc="lower right")
    return _save(fig, path)


def predicted_vs_actual(name: str, y_true: np.ndarray, y_pred: np.ndarray, unit: str, path: Path,
                        log: bool = False) -> Path:
    """Scatter of predictions against labels with the y = x line."""
    fig, ax = plt.subplots(figsize=(5, 5))
    shift = 1.0 if log else 0.0  # log1p-style axes keep zero spill bytes visible
    xt, yp = np.asarray(y_true, float) + shift, np.asarray(y_pred, float) + shift
    ax.scatter(xt, yp, s=6, alpha=0.4)
    lo, hi = float(min(xt.min(), yp.min())), float(max(xt.max(), yp.max()))
    ax.plot([lo, hi], [lo, hi], c="grey", ls=":")
    if log:
        ax.set_xscale("log")
        ax.set_yscale("log")
    suffix = " + 1" if log else ""
    ax.set(xlabel=f"actual {name} ({unit}){suffix}", ylabel=f"predicted {name} ({unit}){suffix}",
           title=f"{name}, grouped test split")
    return _save(fig, path)


UNITS = {"spill_bytes": ("bytes", True), "regs": ("registers", False), "latency": ("µs", True)}


def all_plots(result: TrainResult, directory: Path) -> list[Path]:
    """Every plot of ``result`` written into ``directory``; returns the files."""
    directory.mkdir(parents=True, exist_ok=True)
    out = [p for p in [roc(result, directory / "roc_spill.png")] if p is not None]
    for name, r in result.heads.items():
        if r.spec.kind == "regressor" and len(r.test.y_true):
            unit, log = UNITS.get(name, ("", False))
            out.append(predicted_vs_actual(name, r.test.y_true, r.test.y_pred, unit,
                                           directory / f"pred_vs_actual_{name}.png", log))
    return out


def _save(fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path

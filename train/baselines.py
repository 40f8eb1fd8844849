"""Spill classifiers the learned head must beat, fit on the same training rows.

* :class:`ThresholdRule` -- the seed's CostFuse (``costfuse.cost_models.threshold``)
  read as a spill predictor: a kernel "spills" iff it is past either limit,
  ``chain_length > max_chain_length or n_body_ops > max_body_ops``.  The
  limits are the F1-best pair on the training rows (grid over the values seen).
* :class:`LiveValueRule` -- one cut on ``live_regs_est`` (max live words x
  elements per thread): the docs/design.md §5 rule of thumb, with its cut fit on train.
* :class:`HistGBBaseline` -- scikit-learn's HistGradientBoosting on the same
  features: is XGBoost itself worth it?

All share ``fit(X, y, groups)``, ``score(X)`` (a spill score whose AUC we
report; for the threshold rule it is the 0/1 decision, so its AUC is that of
a hard rule) and ``predict(X)`` (bool).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier

from costfuse.train.fit import oof_threshold
from costfuse.train.metrics import best_f1_threshold


def _f1(y: np.ndarray, pred: np.ndarray) -> float:
    tp = np.sum(pred & y)
    return 2 * tp / max(1, pred.sum() + y.sum())


@dataclass
class ThresholdRule:
    """Spill iff ``chain_length > max_chain_length`` or ``n_body_ops > max_body_ops``
    (on a group: members and body work per element, ``chain``/``ops`` name the columns)."""

    max_chain_length: int = 4
    max_body_ops: int = 32
    name: str = "threshold"
    chain: str = "chain_length"
    ops: str = "n_body_ops"

    def fit(self, X: pd.DataFrame, y: np.ndarray, groups=None) -> "ThresholdRule":
        chain, ops = X[self.chain].to_numpy(), X[self.ops].to_numpy()
        y = np.asarray(y, bool)
        best = (-1.0, self.max_chain_length, self.max_body_ops)
        # Cutting at the max of a column means "never past this limit".
        for c in np.unique(chain):
            past_c = chain > c
            for b in np.unique(ops):
                f = _f1(y, past_c | (ops > b))
                if f > best[0]:
                    best = (f, int(c), int(b))
        _, self.max_chain_length, self.max_body_ops = best
        return self

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        return (X[self.chain].to_numpy() > self.max_chain_length) | (X[self.ops].to_numpy() > self.max_body_ops)

    def score(self, X: pd.DataFrame) -> np.ndarray:
        return self.predict(X).astype(float)

    @property
    def threshold(self) -> float:
        return 0.5

    def describe(self) -> str:
        return f"{self.chain} > {self.max_chain_length} or {self.ops} > {self.max_body_ops}"


@dataclass
class LiveValueRule:
    """Spill iff ``live_regs_est >= cut`` (cut fit on train)."""

    cut: float = 256.0
    feature: str = "live_regs_est"
    name: str = "live_values"

    def fit(self, X: pd.DataFrame, y: np.ndarray, groups=None) -> "LiveValueRule":
        self.cut = best_f1_threshold(np.asarray(y, bool), X[self.feature].to_numpy(float))
        return self

    def score(self, X: pd.DataFrame) -> np.ndarray:
        return X[self.feature].to_numpy(float)

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        return self.score(X) >= self.cut

    @property
    def threshold(self) -> float:
        return self.cut

    def describe(self) -> str:
        return f"{self.feature} >= {self.cut:g}"


@dataclass
class HistGBBaseline:
    """scikit-learn ``HistGradientBoostingClassifier``; threshold tuned like the XGBoost head."""

    max_iter: int = 300
    learning_rate: float = 0.05
    seed: int = 0
    threshold: float = 0.5
    name: str = "histgb"
    model: HistGradientBoostingClassifier | None = None

    def _new(self) -> HistGradientBoostingClassifier:
        return HistGradientBoostingClassifier(max_iter=self.max_iter, learning_rate=self.learning_rate,
                                              random_state=self.seed)

    def fit(self, X: pd.DataFrame, y: np.ndarray, groups=None) -> "HistGBBaseline":
        y = np.asarray(y, int)
        self.threshold = oof_threshold(self._new, X, y, groups)
        self.model = self._new().fit(X, y)
        return self

    def score(self, X: pd.DataFrame) -> np.ndarray:
        proba = self.model.predict_proba(X)
        return proba[:, 1] if proba.shape[1] > 1 else np.zeros(len(X))

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        return self.score(X) >= self.threshold

    def describe(self) -> str:
        return f"max_iter={self.max_iter}, threshold={self.threshold:.3f}"


def all_baselines(n_estimators: int = 300, learning_rate: float = 0.05, seed: int = 0) -> list:
    """Fresh, unfitted baselines; HistGB gets the same boosting budget as the XGBoost heads."""
    return [ThresholdRule(), LiveValueRule(), HistGBBaseline(n_estimators, learning_rate, seed)]

"""The learned heads: XGBoost estimators with scikit-learn's ``fit``/``predict`` shape.

Heads (docs/design.md §4's learned model):

=============  ==========  ==========================  ================
head           kind        target                      trained on
=============  ==========  ==========================  ================
``spill``      classifier  spill store+load bytes > 0  compile labels
``spill_bytes``regressor   log1p(spill bytes)          compile labels
``regs``       regressor   registers per thread        compile labels
``latency``    regressor   log(latency in µs)          GPU labels only
=============  ==========  ==========================  ================

Regressors fit a transformed target (spill bytes span 0..tens of KB,
latencies several decades) and :meth:`XGBHead.predict` returns natural units.
The classifier's thresholds are chosen on out-of-fold predictions over the
*training* programs (grouped K-fold), never on the test set, then the final
model is fit on all training rows: ``threshold`` maximises F1 (the head's
figures in reports), ``decision_threshold`` is the highest cut that keeps
:data:`DECISION_RECALL` of the spilling kernels (a missed spill costs spill
traffic in the kernel it picks, a false alarm only a slightly slower config;
docs/design.md §10), and ``precision_threshold`` the lowest cut whose
precision is still :data:`DECISION_PRECISION` (issue #29's recall goal under
its precision floor; the learned group policy's ``--spill-cut precision``,
docs/training.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
import pandas as pd
import xgboost as xgb

from costfuse.cost_models.bundle import GROUP_HEADS, HEADS, TRANSFORMS, HeadSpec  # the bundle format's home
from costfuse.train.metrics import best_f1_threshold, precision_threshold, recall_threshold
from costfuse.train.splits import group_folds

TARGETS = ("spills", "regs", "latency")
DECISION_RECALL = 0.95   # issue #13: spill recall on the configs the learned policy weighs
DECISION_PRECISION = 0.8   # issue #29: the precision floor on the configs the learned policy weighs


def heads_for(target: str, heads: dict[str, HeadSpec] = HEADS) -> list[HeadSpec]:
    """Heads of ``heads`` (v1's :data:`HEADS` or :data:`GROUP_HEADS`) trained for ``--target`` (``all`` = every head)."""
    if target != "all" and target not in TARGETS:
        raise ValueError(f"unknown target {target!r}; choose all or one of {', '.join(TARGETS)}")
    return [h for h in heads.values() if target in ("all", h.target)]


@dataclass
class XGBParams:
    """Booster hyper-parameters shared by every head (logged to MLflow as params)."""

    n_estimators: int = 400
    max_depth: int = 6
    learning_rate: float = 0.05
    subsample: float = 0.9
    colsample_bytree: float = 0.9
    min_child_weight: float = 1.0
    n_jobs: int = 2
    seed: int = 0

    def kwargs(self) -> dict:
        return dict(n_estimators=self.n_estimators, max_depth=self.max_depth, learning_rate=self.learning_rate,
                    subsample=self.subsample, colsample_bytree=self.colsample_bytree,
                    min_child_weight=self.min_child_weight, n_jobs=self.n_jobs, random_state=self.seed,
                    tree_method="hist")


@dataclass
class XGBHead:
    """One head: ``fit(X, y, groups)`` then ``predict(X)`` in natural units.

    ``X``: DataFrame (n, n_features) with the feature columns; ``y``: shape
    (n,) (bool for the classifier, natural units for regressors); ``groups``:
    program ids, used only to tune the classifier's threshold.
    """

    spec: HeadSpec
    params: XGBParams = field(default_factory=XGBParams)
    threshold: float = 0.5
    decision_threshold: float = 0.5
    precision_threshold: float = 0.5
    model: xgb.XGBModel | None = None

    kinds: ClassVar = {"classifier": xgb.XGBClassifier, "regressor": xgb.XGBRegressor}

    def _new(self) -> xgb.XGBModel:
        extra = {"eval_metric": "auc"} if self.spec.kind == "classifier" else {}
        if self.spec.objective:
            extra["objective"] = self.spec.objective
        return self.kinds[self.spec.kind](**self.params.kwargs(), **extra)

    def _scale(self, X: pd.DataFrame) -> np.ndarray:
        """The column the target is a share of (``spec.scale``), per row."""
        return X[self.spec.scale].to_numpy(float)

    def fit(self, X: pd.DataFrame, y: np.ndarray, groups: np.ndarray | None = None) -> "XGBHead":
        y = np.asarray(y)
        if self.spec.kind == "classifier":
            y = y.astype(int)
            self.threshold, self.decision_threshold, self.precision_threshold = oof_thresholds(
                self._new, X, y, groups)
        else:
            y = TRANSFORMS[self.spec.transform][0](y.astype(float))
            if self.spec.scale:
                y = y / self._scale(X)
        self.model = self._new().fit(X, y)
        return self

    def score(self, X: pd.DataFrame) -> np.ndarray:
        """Classifier: spill probability (n,).  Regressor: the prediction in transformed units (a scaled
        head's share of its column clipped to [0, 1], times the column)."""
        if self.spec.kind == "classifier":
            return self._fitted().predict_proba(X)[:, 1]
        s = self._fitted().predict(X)
        return np.clip(s, 0.0, 1.0) * self._scale(X) if self.spec.scale else s

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        """Classifier: spills? (bool, n).  Regressor: natural units (bytes, registers, µs)."""
        s = self.score(X)
        if self.spec.kind == "classifier":
            return s >= self.threshold
        return TRANSFORMS[self.spec.transform][1](s)

    def booster(self) -> xgb.Booster:
        return self._fitted().get_booster()

    def importances(self) -> dict[str, float]:
        """Gain importance per feature (features never split on get 0), normalised to sum 1."""
        gain = self.booster().get_score(importance_type="gain")
        cols = list(self.booster().feature_names or [])
        total = sum(gain.values()) or 1.0
        return {c: gain.get(c, 0.0) / total for c in cols}

    def _fitted(self) -> xgb.XGBModel:
        if self.model is None:
            raise RuntimeError(f"head {self.spec.name} is not fitted")
        return self.model


def oof_scores(new_model: Callable[[], object], X: pd.DataFrame, y: np.ndarray,
               groups: np.ndarray | None, n_splits: int = 3) -> tuple[np.ndarray, np.ndarray] | None:
    """(labels, out-of-fold P(positive)) over grouped folds of ``groups``; ``None`` when there are too
    few programs or only one class.  ``new_model()`` returns an unfitted sklearn-style binary classifier."""
    y = np.asarray(y, int)
    folds = group_folds(groups, n_splits) if groups is not None else []
    if not folds or len(np.unique(y)) < 2:
        return None
    oof = np.full(len(y), np.nan)
    for tr, te in folds:
        if len(np.unique(y[tr])) == 2:
            oof[te] = new_model().fit(X.iloc[tr], y[tr]).predict_proba(X.iloc[te])[:, 1]
    ok = ~np.isnan(oof)
    return (y[ok].astype(bool), oof[ok]) if ok.any() else None


def oof_threshold(new_model: Callable[[], object], X: pd.DataFrame, y: np.ndarray,
                  groups: np.ndarray | None, n_splits: int = 3) -> float:
    """F1-best probability cut on out-of-fold predictions (0.5 without them: see :func:`oof_scores`)."""
    got = oof_scores(new_model, X, y, groups, n_splits)
    return best_f1_threshold(*got) if got else 0.5


def oof_thresholds(new_model: Callable[[], object], X: pd.DataFrame, y: np.ndarray,
                   groups: np.ndarray | None, n_splits: int = 3) -> tuple[float, float, float]:
    """(F1-best cut, cut at :data:`DECISION_RECALL`, cut at :data:`DECISION_PRECISION`) on one set of
    out-of-fold predictions (0.5 each without)."""
    got = oof_scores(new_model, X, y, groups, n_splits)
    if not got:
        return 0.5, 0.5, 0.5
    return (best_f1_threshold(*got), recall_threshold(*got, DECISION_RECALL),
            precision_threshold(*got, DECISION_PRECISION))


def labels(table, spec: HeadSpec) -> np.ndarray:
    """The natural-unit target of ``spec`` for every row of a TrainingTable (shape (n,))."""
    if spec.name == "spill":
        return table.spills
    if spec.name == "spill_bytes":
        return table.spill_bytes
    if spec.name == "regs":
        return table.regs
    if spec.name == "latency":
        return table.latency_us
    raise KeyError(spec.name)

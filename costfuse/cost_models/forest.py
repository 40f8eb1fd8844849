"""An XGBoost tree ensemble evaluated with NumPy, for the pass's one-candidate-at-a-time predictions.

The fusion pass asks about one edge at a time, so the learned model predicts
a row or three per call.  ``Booster.inplace_predict`` pays a fixed cost per
call whatever the batch size (argument checks, the array interface, thread
set-up), several times the trees' own work on one row.  Here the trees are
flattened into arrays once and walked by compiled C
(:mod:`costfuse.cost_models.forest_native`), or, where no C compiler works,
by NumPy, all trees stepping down one level per operation: a call costs what
its rows' tree walks cost.  Compiled, that is cheaper than XGBoost at every
batch size measured; in NumPy, cheaper for a few rows and dearer for many.
All three, per call, at several batch sizes:
``experiments/results/bench_decisions.md`` ("Prediction cost per call").

Semantics are XGBoost's own: features are compared as float32 (``x <
split`` goes left, a NaN follows ``default_left``), leaf values are summed
onto the margin, and the margin's offset is ``base_score`` (stored in output
space) taken back through the objective's link, in float32 as XGBoost does.
:func:`flatten` reads the model's JSON text, not an ``xgboost.Booster``, so
the pass predicts without importing XGBoost (it costs ~1 s of start-up).
Only plain single-output ``gbtree`` models with numerical splits and an
objective in :data:`OBJECTIVES` are flattened; :func:`flatten` returns
``None`` for anything else and the caller falls back to XGBoost
(:class:`costfuse.cost_models.bundle.Head`).  ``tests/costfuse/cost_models/test_learned.py``
checks the two agree (to 1e-5) on every head of the shipped and the test
models, over random rows in the training range with split values hit
exactly and a NaN.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from costfuse.cost_models.forest_native import native_walk

OBJECTIVES = {
    "binary:logistic": (lambda m: 1.0 / (1.0 + np.exp(-m)), lambda p: -np.log(np.float32(1) / p - np.float32(1))),
    "reg:squarederror": (lambda m: m, lambda p: p),
    "reg:absoluteerror": (lambda m: m, lambda p: p),
}
"""Objective -> (margin to prediction, ``base_score`` to margin): the objectives ``train.fit`` uses."""


@dataclass(frozen=True)
class Forest:
    """All trees in flat arrays; node ``i`` of the ensemble is a leaf iff ``children[2 * i] == i``."""

    feature: np.ndarray       # (nodes,) int: split feature (0 at leaves)
    threshold: np.ndarray     # (nodes,) float32: split value
    children: np.ndarray      # (2 * nodes,) int: global index of node i's left child at 2i, right at 2i + 1
    #                           (both itself at leaves), so one gather steps every walk down a level
    default_left: np.ndarray  # (nodes,) bool: where a NaN goes
    value: np.ndarray         # (nodes,) float32: leaf value (0 at inner nodes)
    roots: np.ndarray         # (trees,) int: each tree's root
    depth: int                # longest root-to-leaf path
    offset: float             # margin of an empty ensemble (base_score through the link)
    link: object              # margin -> prediction

    def margin(self, X: np.ndarray) -> np.ndarray:
        """Raw scores, shape ``(n,)``, of rows ``X`` (shape ``(n, features)``): by the compiled walk where
        it is built (:mod:`costfuse.cost_models.forest_native`), else by NumPy (:meth:`numpy_margin`)."""
        walk = native_walk()
        if walk is None:
            return self.numpy_margin(X)
        X = np.ascontiguousarray(X, np.float32)
        if X.ndim != 2 or X.shape[1] <= self._native[0]:   # C would read past the row: let NumPy raise
            return self.numpy_margin(X)
        out = np.empty(len(X))
        walk(X.ctypes.data, len(X), X.shape[1], *self._native[1], out.ctypes.data)
        return out

    @cached_property
    def _native(self) -> tuple[int, tuple, tuple]:
        """The largest feature index a split reads; the compiled walk's arguments after the rows: the arrays
        C reads by address, the tree count, the depth and the offset (``forest_walk.c``); and those arrays,
        held here so the addresses stay valid."""
        arrays = (np.ascontiguousarray(self.feature, np.int64), np.ascontiguousarray(self.threshold, np.float32),
                  np.ascontiguousarray(self.children, np.int64), np.ascontiguousarray(self.default_left, np.uint8),
                  np.ascontiguousarray(self.value, np.float32), np.ascontiguousarray(self.roots, np.int64))
        return (int(self.feature.max()), (*(a.ctypes.data for a in arrays), len(self.roots), self.depth, self.offset),
                arrays)

    def numpy_margin(self, X: np.ndarray) -> np.ndarray:
        """:meth:`margin` in NumPy: all walks step down one level per operation."""
        X = np.asarray(X, np.float32)
        flat = X.ravel()
        row_start = (np.arange(len(X)) * X.shape[1])[:, None]
        has_nan = bool(np.isnan(flat).any())
        node = np.broadcast_to(self.roots, (len(X), len(self.roots)))
        for _ in range(self.depth):
            x = flat[row_start + self.feature[node]]
            go_right = ~(x < self.threshold[node])
            if has_nan:
                go_right = np.where(np.isnan(x), ~self.default_left[node], go_right)
            node = self.children[2 * node + go_right]
        return self.value[node].sum(axis=1, dtype=np.float64) + self.offset

    def predict(self, X: np.ndarray) -> np.ndarray:
        """What ``Booster.inplace_predict`` returns for ``X``: probabilities or values, shape ``(n,)``."""
        return self.link(self.margin(X))


def flatten(model: dict) -> Forest | None:
    """The :class:`Forest` of a parsed XGBoost JSON model, or ``None`` if it is not a plain numeric gbtree.

    Raises ``KeyError``/``ValueError``/``TypeError`` for JSON that is not an XGBoost model.
    """
    learner = model["learner"]
    objective = OBJECTIVES.get(learner["objective"]["name"])
    gb = learner["gradient_booster"]
    param = learner["learner_model_param"]
    if objective is None or gb["name"] != "gbtree" or int(param.get("num_target", 1)) != 1 \
            or int(param.get("num_class", 0)) > 1:
        return None
    trees = gb["model"]["trees"]
    if not trees or any(any(t["split_type"]) for t in trees):  # no trees, or categorical splits
        return None
    parts, roots, start, depth = [], [], 0, 0
    for t in trees:
        lc, rc = np.asarray(t["left_children"]), np.asarray(t["right_children"])
        leaf = lc == -1
        idx = np.arange(len(lc)) + start
        parts.append((np.where(leaf, 0, t["split_indices"]), np.asarray(t["split_conditions"], np.float32),
                      np.where(leaf, idx, lc + start), np.where(leaf, idx, rc + start),
                      np.asarray(t["default_left"], bool), np.where(leaf, np.asarray(t["split_conditions"]), 0.0)))
        roots.append(start)
        depth = max(depth, _depth(lc, rc))
        start += len(lc)
    link, base_margin = objective
    offset = float(base_margin(np.float32(_base_score(param["base_score"]))))
    feature, threshold, left, right, default_left, value = (np.concatenate(c) for c in zip(*parts))
    children = np.stack([left, right], axis=1).ravel().astype(np.intp)
    return Forest(feature.astype(np.intp), threshold, children, default_left,
                  value.astype(np.float32), np.asarray(roots, np.intp), depth, offset, link)


def _base_score(text: str) -> float:
    """``learner_model_param.base_score``: ``"5E-1"`` (XGBoost < 3.1) or ``"[5E-1]"`` (a one-target vector)."""
    return float(str(text).strip("[]"))


def _depth(left: np.ndarray, right: np.ndarray) -> int:
    """Edges on the longest root-to-leaf path of one tree (node 0 is the root)."""
    depth, level = 0, [0]
    while True:
        level = [c for n in level for c in (left[n], right[n]) if c != -1]
        if not level:
            return depth
        depth += 1

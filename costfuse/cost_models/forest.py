"""An XGBoost tree ensemble evaluated with NumPy, for the pass's one-candidate-at-a-time predictions.

The fusion pass asks about one edge at a time, so the learned model predicts
a row or three per call.  ``Booster.inplace_predict`` costs ~0.4 ms per call
on this machine whatever the batch size (argument checks, the array
interface, thread set-up), 10x the trees' own work; two heads made a pass
decision ~2 ms.  Here the trees are flattened into arrays once and all trees
step down one level per NumPy operation, so a row costs tens of microseconds
and a batch scales with its size.

Semantics are XGBoost's own: features are compared as float32 (``x <
split`` goes left, a NaN follows ``default_left``), leaf values are summed
onto the margin, and the margin's offset (``base_score`` after the
objective's link) is read back from XGBoost itself at load time rather than
re-derived.  Only plain single-output ``gbtree`` models with numerical
splits are flattened; :func:`flatten` returns ``None`` for anything else and
the caller keeps ``inplace_predict``.  ``tests/test_learned.py`` checks the
two agree (to 1e-5) on every head of the shipped and the test models, over
random rows in the training range with split values hit exactly and a NaN.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

import numpy as np

LINKS = {"binary:logistic": lambda m: 1.0 / (1.0 + np.exp(-m)), "reg:squarederror": lambda m: m}
"""Objective -> inverse link from margin to prediction (the objectives ``train.fit`` uses)."""


@dataclass(frozen=True)
class Forest:
    """All trees in flat arrays; node ``i`` of the ensemble is a leaf iff ``left[i] == i``."""

    feature: np.ndarray       # (nodes,) int: split feature (0 at leaves)
    threshold: np.ndarray     # (nodes,) float32: split value
    left: np.ndarray          # (nodes,) int: global index of the left child (itself at leaves)
    right: np.ndarray         # (nodes,) int: right child (itself at leaves)
    default_left: np.ndarray  # (nodes,) bool: where a NaN goes
    value: np.ndarray         # (nodes,) float32: leaf value (0 at inner nodes)
    roots: np.ndarray         # (trees,) int: each tree's root
    depth: int                # longest root-to-leaf path
    offset: float             # margin of an empty ensemble (base_score through the link)
    link: object              # margin -> prediction

    def margin(self, X: np.ndarray) -> np.ndarray:
        """Raw scores, shape ``(n,)``, of rows ``X`` (shape ``(n, features)``)."""
        X = np.asarray(X, np.float32)
        rows = np.arange(len(X))[:, None]
        node = np.broadcast_to(self.roots, (len(X), len(self.roots)))
        for _ in range(self.depth):
            x = X[rows, self.feature[node]]
            go_left = np.where(np.isnan(x), self.default_left[node], x < self.threshold[node])
            node = np.where(go_left, self.left[node], self.right[node])
        return self.value[node].sum(axis=1, dtype=np.float64) + self.offset

    def predict(self, X: np.ndarray) -> np.ndarray:
        """What ``Booster.inplace_predict`` returns for ``X``: probabilities or values, shape ``(n,)``."""
        return self.link(self.margin(X))


def flatten(booster) -> Forest | None:
    """The :class:`Forest` of an ``xgboost.Booster``, or ``None`` if it is not a plain numeric gbtree."""
    learner = json.loads(booster.save_raw("json"))["learner"]
    link = LINKS.get(learner["objective"]["name"])
    gb = learner["gradient_booster"]
    if link is None or gb["name"] != "gbtree" or int(learner["learner_model_param"].get("num_target", 1)) != 1 \
            or int(learner["learner_model_param"].get("num_class", 0)) > 1:
        return None
    trees = gb["model"]["trees"]
    if any(any(t["split_type"]) for t in trees):  # categorical splits
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
    feature, threshold, left, right, default_left, value = (np.concatenate(c) for c in zip(*parts))
    forest = Forest(feature.astype(np.intp), threshold, left.astype(np.intp), right.astype(np.intp), default_left,
                    value.astype(np.float32), np.asarray(roots, np.intp), depth, 0.0, link)
    probe = np.zeros((1, int(learner["learner_model_param"]["num_feature"])), np.float32)
    offset = float(booster.inplace_predict(probe, predict_type="margin")[0]) - float(forest.margin(probe)[0])
    return replace(forest, offset=offset)


def _depth(left: np.ndarray, right: np.ndarray) -> int:
    """Edges on the longest root-to-leaf path of one tree (node 0 is the root)."""
    depth, level = 0, [0]
    while True:
        level = [c for n in level for c in (left[n], right[n]) if c != -1]
        if not level:
            return depth
        depth += 1

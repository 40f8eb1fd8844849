"""Small model bundles trained on random rows, for the bundle and learned-model tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from costfuse.featurize.features import FEATURE_COLUMNS, FEATURE_SCHEMA_VERSION


def make_bundle(directory: Path, arch: str | None = "sm_90", bytes_objective: str = "reg:squarederror") -> Path:
    """A two-head bundle (spill classifier, spill_bytes regressor) trained on random rows in [0, 1)."""
    import xgboost as xgb
    from costfuse.train.model_io import FORMAT, save_bundle

    rng = np.random.default_rng(0)
    X = rng.random((200, len(FEATURE_COLUMNS)))
    spill = (X[:, 0] + X[:, 1] > 1).astype(float)
    params = {"max_depth": 3, "nthread": 1}
    boosters = {
        "spill": xgb.train({**params, "objective": "binary:logistic"}, xgb.DMatrix(X, spill), 8),
        "spill_bytes": xgb.train({**params, "objective": bytes_objective}, xgb.DMatrix(X, 1 + 5 * X[:, 2]), 8),
    }
    meta = {
        "format": FORMAT, "feature_schema_version": FEATURE_SCHEMA_VERSION,
        "feature_columns": list(FEATURE_COLUMNS), "feature_ranges": {c: [0.0, 1.0] for c in FEATURE_COLUMNS},
        "triton_version": "3.6.0", "ptxas_version": "12.8.93", "dataset_hash": "test",
        "heads": {"spill": {"kind": "classifier", "transform": "none", "threshold": 0.5},
                  "spill_bytes": {"kind": "regressor", "transform": "none", "threshold": 0.5}},
    }
    if arch is not None:
        meta["arch"] = arch
    return save_bundle(directory, boosters, meta)


def group_bundle(directory: Path, columns, schema: int, scale: str = "", share: float | None = None) -> Path:
    """A one-head group bundle (``regs``, a regressor) of feature schema ``schema`` over ``columns``, trained on
    random rows in [0, 1); ``scale``: the head predicts a share of that column (``share``: a constant target)."""
    import xgboost as xgb
    from costfuse.train.model_io import FORMAT, save_bundle

    rng = np.random.default_rng(0)
    X = rng.random((200, len(columns)))
    y = np.full(len(X), share) if share is not None else 10 + 50 * X[:, 0]
    booster = xgb.train({"max_depth": 3, "nthread": 1, "objective": "reg:squarederror"}, xgb.DMatrix(X, y), 8)
    head = {"kind": "regressor", "transform": "none", "threshold": 0.5, **({"scale": scale} if scale else {})}
    meta = {"format": FORMAT, "feature_schema_version": schema, "feature_columns": list(columns),
            "feature_ranges": {c: [0.0, 1.0] for c in columns}, "arch": "sm_90", "triton_version": "3.6.0",
            "ptxas_version": "12.8.93", "dataset_hash": "test", "heads": {"regs": head}}
    return save_bundle(directory, {"regs": booster}, meta)

"""Model files: XGBoost JSON boosters plus a metadata JSON, never pickle.

A *bundle* is a directory of ``metadata.json`` and one XGBoost JSON file per
head; its format (names, head specs, transforms, the schema and arch checks)
has one home, :mod:`costfuse.cost_models.bundle`, which the pass reads
without this trainer.  Here the trainer writes bundles and reads them back
as ``xgboost.Booster`` objects, for tests and analysis.

The MLflow registry holds each head as its own ``xgboost``-flavour model in
JSON format (``models:/costfuse-spill@champion``); the same metadata, limited
to that head, sits in its ``MLmodel`` file.  :func:`load_model` reads
either, and refuses a model whose feature schema differs from this
``featurize`` (a model fed columns it was not trained on predicts garbage
silently, so we fail loudly instead).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import xgboost as xgb

from costfuse.atomic import write_json, write_text
from costfuse.cost_models.bundle import (  # noqa: F401  (FORMAT, check_schema: re-exported for callers)
    FORMAT, METADATA_FILE, TRANSFORMS, BundleError, Head, check_schema, load_bundle,
)

ModelSchemaError = BundleError
"""A saved model that is broken, not a CostFuse model, or of another feature schema (one-line message)."""


def save_bundle(directory: str | os.PathLike, boosters: dict[str, xgb.Booster], metadata: dict) -> Path:
    """Write ``<directory>/<head>.json`` per booster and ``metadata.json``; return the directory.

    ``metadata["heads"][name]`` must describe each booster (kind, transform,
    threshold); the file names are filled in here.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    meta = json.loads(json.dumps(metadata))  # a deep copy that is certainly JSON
    for name, booster in boosters.items():
        booster.save_model(str(directory / f"{name}.json"))
        meta["heads"][name]["file"] = f"{name}.json"
    meta["heads"] = {k: v for k, v in meta["heads"].items() if k in boosters}
    write_json(directory / METADATA_FILE, meta)
    return directory


def load_model(path: str | os.PathLike) -> tuple[dict[str, xgb.Booster], dict]:
    """``(boosters by head name, metadata)`` from a bundle directory, one head's ``.json`` file
    in a bundle, a directory holding an MLflow model, or an MLflow URI (``models:/NAME@ALIAS``,
    ``runs:/...``; uses the current tracking URI).

    Raises :class:`ModelSchemaError` on a schema mismatch and ``FileNotFoundError`` for
    missing files.
    """
    text = str(path)
    if "://" in text or text.startswith(("models:/", "runs:/")):
        import mlflow

        local = mlflow.artifacts.download_artifacts(artifact_uri=text)
        return _load_dir(Path(local), where=text)
    p = Path(path)
    if p.is_file():
        boosters, meta = _load_dir(p.parent, where=str(p))
        name = next((n for n, h in meta["heads"].items() if h.get("file") == p.name), None)
        if name is None:
            raise ModelSchemaError(f"{p}: not listed as a head in {p.parent / METADATA_FILE}")
        return {name: boosters[name]}, {**meta, "heads": {name: meta["heads"][name]}}
    if p.is_dir():
        return _load_dir(p, where=str(p))
    raise FileNotFoundError(f"{p}: no such model file or directory")


def _load_dir(directory: Path, where: str) -> tuple[dict[str, xgb.Booster], dict]:
    metadata = None
    if not (directory / METADATA_FILE).is_file():
        if not (directory / "MLmodel").is_file():
            raise FileNotFoundError(f"{where}: neither {METADATA_FILE} nor an MLflow MLmodel file in {directory}")
        from mlflow.models import Model

        metadata = Model.load(str(directory / "MLmodel")).metadata or {}
    bundle = load_bundle(directory, metadata=metadata, where=where, schema=None)   # v1 or group (v2, v3) heads
    return {name: _booster(head) for name, head in bundle.heads.items()}, bundle.metadata


def _booster(head: Head) -> xgb.Booster:
    """``head`` as a Booster with XGBoost's default threads (the pass's :meth:`Head.booster` uses one)."""
    booster = xgb.Booster()
    try:
        booster.load_model(bytearray(head.raw))
    except xgb.core.XGBoostError as err:
        raise BundleError(f"{head.where}: XGBoost cannot load it ({str(err).strip().splitlines()[0]})") from None
    return booster


def _rows(metadata: dict, X: pd.DataFrame | np.ndarray) -> np.ndarray:
    cols = metadata["feature_columns"]
    if isinstance(X, pd.DataFrame):
        X = X[cols].to_numpy(float)
    return np.asarray(X, float).reshape(-1, len(cols))


def predict(boosters: dict[str, xgb.Booster], metadata: dict, X: pd.DataFrame | np.ndarray) -> dict[str, np.ndarray]:
    """Each head's prediction for rows ``X`` (n, len(FEATURE_COLUMNS)) in natural units.

    Classifier heads give the probability; compare with
    ``metadata["heads"][name]["threshold"]`` for the decision.
    """
    X = _rows(metadata, X)
    dm = xgb.DMatrix(X, feature_names=metadata["feature_columns"])
    out = {}
    for name, booster in boosters.items():
        raw = booster.predict(dm)
        head = metadata["heads"][name]
        if head["kind"] != "classifier" and head.get("scale"):   # a share of a column (bundle.HeadSpec.scale)
            raw = np.clip(raw, 0.0, 1.0) * X[:, metadata["feature_columns"].index(head["scale"])]
        out[name] = raw if head["kind"] == "classifier" else TRANSFORMS[head["transform"]][1](raw)
    return out


def in_training_range(metadata: dict, X: pd.DataFrame | np.ndarray) -> np.ndarray:
    """Whether each row lies inside the per-feature [min, max] seen in training (bool, shape (n,)).

    docs/design.md §4: the learned model falls back to the analytical one outside it.
    """
    cols = metadata["feature_columns"]
    X = X[cols].to_numpy(float) if isinstance(X, pd.DataFrame) else np.asarray(X, float).reshape(-1, len(cols))
    lo = np.array([metadata["feature_ranges"][c][0] for c in cols])
    hi = np.array([metadata["feature_ranges"][c][1] for c in cols])
    return np.all((X >= lo) & (X <= hi), axis=1)


def metadata_from(result, command: str) -> dict:
    """The metadata of a :class:`train.pipeline.TrainResult`'s heads (see the module docstring)."""
    from datetime import datetime, timezone

    t = result.table
    train_X = t.X[result.split.train]
    summary = result.summary()
    return {
        "format": FORMAT,
        **{c: _recorded(t.rows, c) for c in ("arch", "triton_version", "ptxas_version")},
        "feature_schema_version": t.schema[0],
        "feature_columns": list(t.schema[1]),
        "feature_ranges": {c: [float(train_X[c].min()), float(train_X[c].max())] for c in t.schema[1]},
        "dataset_hash": t.dataset_hash,
        "dataset": t.source,
        "rows": {"train": int(result.split.train.sum()), "test": int(result.split.test.sum())},
        "command": command,
        "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "xgboost_version": xgb.__version__,
        "params": vars(result.params),
        "heads": {
            name: {"kind": r.spec.kind, "transform": r.spec.transform, "threshold": float(r.head.threshold),
                   **({"decision_threshold": float(r.head.decision_threshold),
                       "precision_threshold": float(r.head.precision_threshold)} if r.spec.kind == "classifier"
                      else {}),
                   **({"scale": r.spec.scale} if r.spec.scale else {}),
                   **({"objective": r.spec.objective} if r.spec.objective else {}),
                   "registered_name": r.spec.registered_name,
                   "metrics": {k: v for k, v in summary.items() if k.startswith(f"{name}.")}}
            for name, r in result.heads.items()
        },
        "metrics": summary,
    }


def _recorded(rows: pd.DataFrame, column: str) -> str:
    """The value of ``column`` over the training rows (the labels' arch, triton, ptxas): ``"a, b"`` if
    several, ``""`` if the table lacks the column.  The pass refuses a model of another arch."""
    if column not in rows:
        return ""
    return ", ".join(sorted(str(v) for v in rows[column].dropna().unique()))


REPORT_FILE = "report.txt"


def export(result, directory: str | os.PathLike, command: str, report: str | None = None) -> Path:
    """Save every head of ``result`` as a bundle in ``directory`` (the shipped-model step), with the run's
    printed ``report`` beside it as :data:`REPORT_FILE`, so a shipped model carries the figures it was
    chosen on (docs and notes quote that file)."""
    boosters = {name: r.head.booster() for name, r in result.heads.items()}
    path = save_bundle(directory, boosters, metadata_from(result, command))
    if report is not None:
        write_text(path / REPORT_FILE, report if report.endswith("\n") else report + "\n")
    return path

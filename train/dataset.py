"""The training table: dataset rows (``data/store.py``) turned into features and labels.

Only rows with ``status == "ok"`` carry compile labels; the others are
counted and left out (a timeout is *probably* a heavy spiller, but we do not
invent labels).  Rows of one arch are used at a time, because registers and
spills are per-arch facts.

Features come from the stored ``ir`` (the fused generic as a standalone
module) and the row's launch config -- the same :func:`featurize.features.features`
the pass will call.  Many rows share one IR (several configs per generic),
so the config-independent part is computed once per distinct IR text.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from costfuse.featurize.features import FEATURE_COLUMNS, FEATURE_SCHEMA_VERSION, FeatureError, analyze_text, combine

META_COLUMNS = ("kernel_id", "program_id", "program_hash", "split_group", "family", "group", "group_size", "arch",
                "triton_version", "ptxas_version")  # the labels' toolchain, recorded in the model bundle
LABEL_COLUMNS = ("regs", "spill_store_bytes", "spill_load_bytes", "latency_us")


class DatasetError(ValueError):
    """A dataset directory that cannot be trained on (missing, empty, no usable rows)."""


@dataclass
class TrainingTable:
    """Features ``X`` (n_rows x len(FEATURE_COLUMNS), float) and the rows' labels and metadata.

    ``rows`` keeps :data:`META_COLUMNS` and :data:`LABEL_COLUMNS`, index-aligned with ``X``.
    ``dropped`` counts left-out rows by reason.
    """

    X: pd.DataFrame
    rows: pd.DataFrame
    dataset_hash: str
    source: str
    dropped: dict[str, int] = field(default_factory=dict)
    schema: tuple = (FEATURE_SCHEMA_VERSION, FEATURE_COLUMNS)   # (feature schema version, columns) of ``X``

    def __len__(self) -> int:
        return len(self.X)

    @property
    def spill_bytes(self) -> np.ndarray:
        """Spill store + load bytes per row (shape (n,), bytes)."""
        return (self.rows["spill_store_bytes"].fillna(0) + self.rows["spill_load_bytes"].fillna(0)).to_numpy(float)

    @property
    def spills(self) -> np.ndarray:
        """Whether each row's kernel spills (shape (n,), bool)."""
        return self.spill_bytes > 0

    @property
    def regs(self) -> np.ndarray:
        return self.rows["regs"].to_numpy(float)

    @property
    def latency_us(self) -> np.ndarray:
        return self.rows["latency_us"].to_numpy(float)

    @property
    def has_latency(self) -> bool:
        return bool(self.rows["latency_us"].notna().any())

    @property
    def programs(self) -> np.ndarray:
        return self.rows["program_id"].to_numpy()

    @property
    def groups(self) -> np.ndarray:
        """What every grouped split and CV fold groups rows by (shape (n,)).

        ``split_group`` (:func:`costfuse.data.dedupe.split_groups`): programs
        joined by content and by any kernel body they share, so twins and
        shared kernels stay on one side.  A table built by hand without it
        groups by ``program_hash``, else ``program_id``.
        """
        for col in ("split_group", "program_hash", "program_id"):
            if col in self.rows:
                return self.rows[col].to_numpy()
        raise KeyError("a training table needs program_id")

    @property
    def families(self) -> np.ndarray:
        return self.rows["family"].to_numpy()

    def subset(self, mask: np.ndarray) -> "TrainingTable":
        """The rows where ``mask`` (bool, shape (n,)) holds."""
        idx = np.flatnonzero(mask)
        return TrainingTable(self.X.iloc[idx].reset_index(drop=True), self.rows.iloc[idx].reset_index(drop=True),
                             self.dataset_hash, self.source, dict(self.dropped), self.schema)


def dataset_hash(directory: str | os.PathLike) -> str:
    """SHA-256 over the names and bytes of the directory's Parquet shards (first 16 hex digits)."""
    from costfuse.data.store import shards

    h = hashlib.sha256()
    for path in shards(directory):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def featurize_rows(rows: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray, dict[str, int]]:
    """Features of every row (by its ``ir`` and ``xblock``/``rblock``/``num_warps``).

    Returns ``(X, keep, errors)``: ``X`` for the kept rows in
    :data:`FEATURE_COLUMNS` order, ``keep`` a bool mask over ``rows``, and
    the count of rows whose IR could not be featurized, by error message.
    """
    from iree.compiler import ir

    ctx = ir.Context()
    static_of: dict[str, object] = {}
    out, keep, errors = [], np.zeros(len(rows), bool), {}
    for i, (text, x, r, w) in enumerate(zip(rows["ir"], rows["xblock"], rows["rblock"], rows["num_warps"])):
        if text not in static_of:
            try:
                static_of[text] = analyze_text(text, ctx)
            except FeatureError as err:
                static_of[text] = err
        static = static_of[text]
        if isinstance(static, Exception):
            key = f"featurize: {str(static).splitlines()[0][:80]}"
            errors[key] = errors.get(key, 0) + 1
            continue
        out.append(combine(static, {"XBLOCK": x, "RBLOCK": r if r == r else 1, "num_warps": w}))
        keep[i] = True
    return pd.DataFrame(out, columns=list(FEATURE_COLUMNS), dtype=float), keep, errors


def load_table(directory: str | os.PathLike, arch: str | None = "sm_90") -> TrainingTable:
    """Read, filter and featurize the dataset in ``directory`` (see the module docstring).

    ``arch=None`` keeps every arch (only sensible if there is one).
    """
    from costfuse.data.dedupe import program_hashes, split_groups
    from costfuse.data.store import read_dataset, shards

    directory = Path(directory)
    if not directory.is_dir() or not shards(directory):
        raise DatasetError(f"{directory}: no Parquet shards (generate some with `costfuse-data generate`)")
    df = read_dataset(directory)
    dropped: dict[str, int] = {}
    if arch is not None:
        other = df["arch"] != arch
        if other.all():
            raise DatasetError(f"{directory}: no rows for arch {arch} (found {sorted(df['arch'].unique())})")
        if other.any():
            dropped[f"arch != {arch}"] = int(other.sum())
        df = df[~other]
    for status, n in df["status"].value_counts().items():
        if status != "ok":
            dropped[f"status={status}"] = int(n)
    df = df[(df["status"] == "ok") & df["regs"].notna()].reset_index(drop=True)
    if df.empty:
        raise DatasetError(f"{directory}: no rows with status=ok and compile labels")
    try:
        df["program_hash"] = program_hashes(df)
        df["split_group"] = split_groups(df)
    except ValueError as err:
        raise DatasetError(f"{directory}: {err}") from None
    X, keep, errors = featurize_rows(df)
    dropped.update(errors)
    rows = df.loc[keep, list(META_COLUMNS + LABEL_COLUMNS)].reset_index(drop=True)
    return TrainingTable(X, rows, dataset_hash(directory), str(directory), dropped)

"""The training table of the group heads: v2 rows (a kernel group at a launch) plus the v1 rows that are row kernels.

Features are :mod:`featurize.group_features` (group schema v5), the ones the
learned policy computes for every config of a group.  A v2 row's group is
its stored kernel function (``ir``), analysed once per ``group_id``; a v1 row
(one fused generic at one config, ``data/sm90_v1``) is the one-member group
of that generic, at the launch its ``LaunchConfig`` is
(:func:`featurize.group_features.launch_for_v1_config`); v1 generics that are
not row kernels (a transpose, a broadcast into a non-row layout) are counted
and left out.  Rows keep their family (v1) or group kind (v2) as ``family``,
so held-out-family scores cover both, and the ``dataset`` column says which
dataset each row came from (its directory's name) and ``dataset_version``
its row schema (1 or 2: the goals are read on v2's test rows, whatever the
directory is called).  v3 rows (Inductor's own kernels, ``data/inductor_job.py``)
are featurized from their stored kernel description, as the Inductor handler
featurizes the kernels it decides; their ``group_id`` is the kernel source's hash.

Each row also carries its ``stack_bytes`` (ptxas's stack frame) and its
``spill_kind`` (:func:`costfuse.data.spill_kind.spill_kind`: none, pressure,
collapse or tiny, against the register cap ``regs_available`` of its launch).

Splits group rows by program (v2: ``program_id``; v1: ``split_group`` as in
v1's training), so a group's configs never straddle train and test, and
programs that compile the same group kernel (same ``group_id``, in either
dataset) are joined: that kernel is on one side only.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from costfuse.featurize.group_features import (
    GROUP_FEATURE_COLUMNS, GROUP_FEATURE_SCHEMA_VERSION, group_features, launch_for_v1_config,
)
from costfuse.train.dataset import LABEL_COLUMNS, META_COLUMNS, DatasetError, TrainingTable, dataset_hash

GROUP_META_COLUMNS = (*META_COLUMNS, "dataset", "dataset_version", "group_id", "mode", "xblock", "rblock", "num_warps",
                      "config_source")
GROUP_LABEL_COLUMNS = (*LABEL_COLUMNS, "stack_bytes")   # + the spill kind derived from them (data/spill_kind.py)


def _read(directory: Path, arch: str | None, dropped: dict[str, int]) -> tuple[pd.DataFrame, int]:
    from costfuse.data.store import read_dataset, shard_version, shards

    if not directory.is_dir() or not shards(directory):
        raise DatasetError(f"{directory}: no Parquet shards (costfuse-data generate or generate-groups)")
    version = shard_version(shards(directory)[0])
    df = read_dataset(directory, version)
    if arch is not None:
        other = df["arch"] != arch
        if other.any():
            dropped[f"{directory.name}: arch != {arch}"] = int(other.sum())
        df = df[~other]
    for status, n in df["status"].value_counts().items():
        if status != "ok":
            dropped[f"{directory.name}: status={status}"] = int(n)
    if "stack_bytes" not in df:
        df["stack_bytes"] = np.nan
    return df[(df["status"] == "ok") & df["regs"].notna()].reset_index(drop=True), version


def _features_v2(df: pd.DataFrame, arch: str, dropped: dict) -> tuple[np.ndarray, np.ndarray]:
    """Features of v2 rows: one analysis per ``group_id``, every launch of the group in one call."""
    from iree.compiler import ir

    from costfuse.data.lowering.kernel_function import kernel_members
    from costfuse.ir import parse_module
    from costfuse.kernel import NotAKernel, analyze_kernel
    from costfuse.launch import KernelLaunch

    X = np.full((len(df), len(GROUP_FEATURE_COLUMNS)), np.nan)
    keep = np.zeros(len(df), bool)
    ctx = ir.Context()
    for gid, idx in df.groupby("group_id").indices.items():
        first = df.iloc[idx[0]]
        try:
            module = parse_module(first["ir"], f"{first['program_id']}/{gid}", ctx)
            shape = analyze_kernel(kernel_members(module.body.operations[0].operation))
        except (NotAKernel, ValueError) as err:
            key = f"featurize: {str(err).splitlines()[0][:80]}"
            dropped[key] = dropped.get(key, 0) + len(idx)
            continue
        sub = df.iloc[idx]
        launches = [KernelLaunch(m, int(x), int(r), int(w))
                    for m, x, r, w in zip(sub["mode"], sub["xblock"], sub["rblock"], sub["num_warps"])]
        X[idx] = group_features(shape, launches, arch)
        keep[idx] = True
    return X, keep


def _features_v1(df: pd.DataFrame, arch: str, dropped: dict) -> tuple[np.ndarray, np.ndarray]:
    """Features of v1 rows that are row kernels, as one-member groups."""
    from costfuse.featurize.features import FeatureError, find_generic
    from iree.compiler import ir

    from costfuse.ir import parse_module
    from costfuse.kernel import NotAKernel, analyze_kernel
    from costfuse.launch import LaunchConfig

    X = np.full((len(df), len(GROUP_FEATURE_COLUMNS)), np.nan)
    keep = np.zeros(len(df), bool)
    ctx = ir.Context()
    for text, idx in df.groupby("ir").indices.items():
        try:
            module = parse_module(text, "v1 row", ctx)
            shape = analyze_kernel([find_generic(module)])
        except (NotAKernel, FeatureError, ValueError):
            dropped["v1: not a row kernel"] = dropped.get("v1: not a row kernel", 0) + len(idx)
            continue
        sub = df.iloc[idx]
        launches = []
        for x, r, w in zip(sub["xblock"], sub["rblock"], sub["num_warps"]):
            launches.append(launch_for_v1_config(shape, LaunchConfig(int(x), int(r) if r == r else 1, int(w))))
        X[idx] = group_features(shape, launches, arch)
        keep[idx] = True
    return X, keep


def _features_v3(df: pd.DataFrame, arch: str, dropped: dict) -> tuple[np.ndarray, np.ndarray]:
    """Features of v3 rows (Inductor's kernels, ``data/inductor_job.py``): one description per kernel
    (``kernel_desc``), every config of the kernel in one call, as the handler featurizes them."""
    import json

    from costfuse.featurize.inductor_kernel import kernel_from_dict
    from costfuse.launch import KernelLaunch

    X = np.full((len(df), len(GROUP_FEATURE_COLUMNS)), np.nan)
    keep = np.zeros(len(df), bool)
    for _, idx in df.groupby("source_hash").indices.items():
        first = df.iloc[idx[0]]
        if not isinstance(first["kernel_desc"], str):
            dropped["v3: no kernel description"] = dropped.get("v3: no kernel description", 0) + len(idx)
            continue
        kernel = kernel_from_dict(json.loads(first["kernel_desc"]))
        sub = df.iloc[idx]
        launches = [KernelLaunch(m, int(x), int(r), int(w))
                    for m, x, r, w in zip(sub["mode"], sub["xblock"], sub["rblock"], sub["num_warps"])]
        X[idx] = group_features(kernel, launches, arch, kernel.group_columns)
        keep[idx] = True
    return X, keep


def _v3_columns(df: pd.DataFrame) -> pd.DataFrame:
    """v3 rows with the columns the group table reads: ``group_id`` (the kernel's source hash), ``mode``,
    ``group`` (the kernel's name), ``group_size`` (its scheduler nodes)."""
    import json

    mode = np.where(df["heuristic"] == "pointwise", "pointwise", np.where(df["persistent"], "persistent", "looped"))
    sizes = df["kernel_desc"].map(lambda d: len(json.loads(d)["nodes"]) if isinstance(d, str) else 0)
    return df.assign(group_id=df["source_hash"].str[:16], mode=mode, group=df["kernel_name"], group_size=sizes)


def load_group_table(directories: list[str | Path], arch: str | None = "sm_90") -> TrainingTable:
    """Read and featurize the datasets in ``directories`` (v2, v3 and, optionally, v1) as one table."""
    from costfuse.data.dedupe import join_sharing, program_hashes, split_groups
    from costfuse.data.group_job import group_id
    from costfuse.data.spill_kind import spill_kind

    dropped: dict[str, int] = {}
    parts = []
    for directory in map(Path, directories):
        df, version = _read(directory, arch, dropped)
        if df.empty:
            continue
        if version == 1:
            df["program_hash"] = program_hashes(df)
            df["split_group"] = split_groups(df)
            X, keep = _features_v1(df, arch or "sm_90", dropped)
            # A one-member group's id hashes its IR as v2's do (Python's hash() is salted: not reproducible).
            df["group_id"], df["mode"] = df["ir"].map(group_id), ""
        else:
            df["program_hash"] = df["program_id"]
            df["split_group"] = df["program_id"]
            if version == 3:
                df = _v3_columns(df)
            X, keep = (_features_v3 if version == 3 else _features_v2)(df, arch or "sm_90", dropped)
        df["dataset"], df["dataset_version"] = directory.name, version
        parts.append((pd.DataFrame(X[keep], columns=list(GROUP_FEATURE_COLUMNS)),
                      df.loc[keep, list(GROUP_META_COLUMNS + GROUP_LABEL_COLUMNS)].reset_index(drop=True)))
    if not parts:
        raise DatasetError(f"{', '.join(map(str, directories))}: no rows with status=ok and compile labels")
    X = pd.concat([p[0] for p in parts], ignore_index=True)
    rows = pd.concat([p[1] for p in parts], ignore_index=True)
    rows["spill_kind"] = spill_kind(rows["regs"], rows["spill_store_bytes"], rows["spill_load_bytes"],
                                    rows["stack_bytes"], X["regs_available"])
    # One group kernel compiled by two programs (or as a v1 kernel and a v2 group) is one kernel:
    # those programs go to one side of every split together.
    rows["split_group"] = join_sharing(rows["split_group"], rows["group_id"])
    digest = "+".join(dataset_hash(d) for d in directories)
    return TrainingTable(X, rows, digest, " + ".join(map(str, directories)), dropped,
                         schema=(GROUP_FEATURE_SCHEMA_VERSION, GROUP_FEATURE_COLUMNS))

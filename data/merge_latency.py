"""``costfuse-data merge-latency DATASET --latency DIR``: put GPU latency rows into a dataset.

``costfuse-data profile`` (``data/profile.py``, on the GPU machine) writes
its rows to a directory of its own, keyed by ``kernel_id``, so a campaign can
be resumed, copied back and checked before anything touches the dataset.
This merge is the one step that does: for every profile row with status
``ok`` it sets ``latency_us`` and ``gpu_name`` of the dataset rows with that
``kernel_id``, which is what ``costfuse-train --target latency`` and the
latency oracle (``data/latency_oracle.py``) read.  Profile rows of another
status (``error``, ``dry-run``) are checked but merged as nothing.

Everything is checked before any shard is written, and the merge refuses,
naming the profile file, when
- a profile row's ``kernel_id`` is not in the dataset (the wrong dataset, or
  one regenerated since it was profiled);
- two profile rows of one kernel disagree (status, latency or GPU);
- a profile row's ``triton_version`` differs from the dataset row's (the GPU
  ran another compiler than the one the labels and kernel ids are of);
- an ``ok`` row has no positive latency;
- a dataset row already has another latency or GPU (merged from another
  run: re-profile into one directory rather than overwrite silently).

Only shards whose rows change are rewritten, each atomically and through
the schema check of ``data/store.py``, so a second merge of the same rows
changes nothing, and a merge killed half-way is finished by running it
again.  Provenance, which the dataset's columns cannot hold, goes to
``DATASET/_latency_provenance.json`` (:data:`PROVENANCE`): one entry per
profiling run (its command, ``do_bench`` settings, GPU, torch/Triton/CUDA
versions, first and last row time, kernels timed), so every latency can be
traced to the command, date and versions that produced it (docs/design.md §3).
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pyarrow.parquet as pq

from costfuse.atomic import write_json
from costfuse.data.store import read_shard, shard_version, shards, write_shard

PROVENANCE = "_latency_provenance.json"   # "_": pyarrow's dataset discovery skips it
RUN_KEYS = ("command", "bench", "gpu_name", "torch_version", "triton_version", "cuda_version")
_PROFILE_COLUMNS = ("kernel_id", "status", "latency_us", "gpu_name", "triton_version", "created_at", *RUN_KEYS)


class MergeError(ValueError):
    """A profile directory that cannot be merged into the dataset; the message names the file and the reason."""


def read_profile(directory: str | os.PathLike) -> list[tuple[Path, dict]]:
    """Every profile row of ``directory`` with the shard it came from (``data/profile.py``'s PROFILE_SCHEMA)."""
    paths = sorted(Path(directory).glob("*.parquet"))
    if not paths:
        raise MergeError(f"{directory}: no profile shards (*.parquet)")
    rows = []
    for path in paths:
        names = set(pq.read_schema(path).names)
        missing = [c for c in dict.fromkeys(_PROFILE_COLUMNS) if c not in names]
        if missing:
            raise MergeError(f"{path}: not a profile shard (missing columns {', '.join(missing)})")
        table = pq.read_table(path, columns=list(dict.fromkeys(_PROFILE_COLUMNS)))
        rows += [(path, r) for r in table.to_pylist()]
    return rows


def _latencies(profile: list[tuple[Path, dict]], dataset: dict[str, dict]) -> dict[str, dict]:
    """kernel_id -> the ok profile row to merge, after every refusal check."""
    seen: dict[str, tuple[Path, dict]] = {}
    for path, row in profile:
        kid = row["kernel_id"]
        ours = dataset.get(kid)
        if ours is None:
            raise MergeError(f"{path}: kernel {kid} is not in the dataset")
        if row["triton_version"] != ours["triton_version"]:
            raise MergeError(f"{path}: kernel {kid} was profiled with triton {row['triton_version']}, "
                             f"the dataset's rows are of triton {ours['triton_version']}")
        if row["status"] == "ok" and not (row["latency_us"] is not None and row["latency_us"] > 0
                                          and math.isfinite(row["latency_us"])):
            raise MergeError(f"{path}: kernel {kid} has status ok but latency_us {row['latency_us']!r}")
        if kid in seen:
            first_path, first = seen[kid]
            if any(first[c] != row[c] for c in ("status", "latency_us", "gpu_name")):
                raise MergeError(f"{path}: kernel {kid} disagrees with its row in {first_path.name}: "
                                 f"{_said(row)} vs {_said(first)}")
        seen[kid] = (path, row)
    merged = {kid: row for kid, (_, row) in seen.items() if row["status"] == "ok"}
    for kid, row in merged.items():
        ours = dataset[kid]
        if ours["latency_us"] is not None and (ours["latency_us"], ours["gpu_name"]) != (row["latency_us"],
                                                                                       row["gpu_name"]):
            raise MergeError(f"{seen[kid][0]}: kernel {kid} already has latency_us {ours['latency_us']} "
                             f"on {ours['gpu_name']} in the dataset; the profile says {_said(row)}")
    return merged


def _said(row: dict) -> str:
    return f"{row['status']} {row['latency_us']} µs on {row['gpu_name']}"


def provenance(merged: dict[str, dict], old: list[dict]) -> list[dict]:
    """The runs behind ``merged`` (one entry per :data:`RUN_KEYS`), folded into the ``old`` entries.

    A run merged again (say, after it was resumed into the same directory)
    replaces its entry, with the dates widened to cover both.
    """
    runs: dict[tuple, dict] = {tuple(e[k] for k in RUN_KEYS): dict(e) for e in old}
    new: dict[tuple, dict] = {}
    for row in merged.values():
        key = tuple(row[k] for k in RUN_KEYS)
        e = new.setdefault(key, {**{k: row[k] for k in RUN_KEYS}, "first_created_at": row["created_at"],
                                 "last_created_at": row["created_at"], "kernels": 0})
        e["first_created_at"] = min(e["first_created_at"], row["created_at"])
        e["last_created_at"] = max(e["last_created_at"], row["created_at"])
        e["kernels"] += 1
    for key, e in new.items():
        if key in runs:
            e["first_created_at"] = min(e["first_created_at"], runs[key]["first_created_at"])
            e["last_created_at"] = max(e["last_created_at"], runs[key]["last_created_at"])
        runs[key] = e
    return sorted(runs.values(), key=lambda e: (e["first_created_at"], e["command"]))


def merge(dataset: str | os.PathLike, latency: str | os.PathLike) -> dict[str, int]:
    """Merge ``latency``'s profile rows into ``dataset``; return counts (merged kernels, rows set, shards rewritten)."""
    dataset = Path(dataset)
    paths = shards(dataset)
    if not paths:
        raise MergeError(f"{dataset}: no dataset shards (*.parquet)")
    tables = {p: (shard_version(p), read_shard(p, None).to_pylist()) for p in paths}
    by_kernel = {r["kernel_id"]: r for _, rows in tables.values() for r in rows}
    merged = _latencies(read_profile(latency), by_kernel)
    rows_set = rewritten = 0
    for path, (version, rows) in tables.items():
        changed = 0
        for r in rows:
            new = merged.get(r["kernel_id"])
            if new is not None and (r["latency_us"], r["gpu_name"]) != (new["latency_us"], new["gpu_name"]):
                r["latency_us"], r["gpu_name"] = new["latency_us"], new["gpu_name"]
                changed += 1
        if changed:
            write_shard(dataset, path.stem, rows, version)
            rows_set += changed
            rewritten += 1
    card = dataset / PROVENANCE
    old = json.loads(card.read_text())["runs"] if card.is_file() else []
    runs = provenance(merged, old)
    if runs != old:
        write_json(card, {"runs": runs})
    return {"kernels": len(merged), "rows": rows_set, "shards": rewritten}


def add_arguments(p) -> None:
    p.add_argument("dataset", help="dataset directory (Parquet shards, schema v1 or v2)")
    p.add_argument("--latency", required=True, help="profile rows from `costfuse-data profile --out`")


def main_from_args(args) -> int:
    n = merge(args.dataset, args.latency)
    print(f"{n['kernels']} profiled kernels: latency set on {n['rows']} rows, {n['shards']} shards rewritten; "
          f"provenance in {Path(args.dataset) / PROVENANCE}")
    return 0

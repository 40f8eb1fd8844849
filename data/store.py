"""The dataset on disk: versioned Parquet shards, written atomically, read back checked.

One row per compiled kernel (docs/design.md §3).  Two schemas: v1 rows are
one fused generic at one config (``data/sm90_v1``); v2 rows are one kernel
group (an outlined kernel function, docs/groups.md) at one launch, with the
group's id, mode, HBM bytes and op count besides v1's columns
(``data/sm90_v2``, ``data/group_job.py``); v3 rows are one kernel Inductor generated, at one config
(``data/sm90_inductor_v1``, ``data/inductor_job.py``).  A directory holds one version.  A shard holds the rows of one or
more whole programs, so "is program P done?" is answered by the shards
alone, and a killed job resumes by skipping the programs it finds.  A shard
is written to a temporary file in the same directory and renamed into
place, so a reader never sees half a shard.  Every shard carries
``SCHEMA_VERSION`` in its metadata; rows that don't match the schema are
rejected with the column and the reason.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from costfuse.atomic import atomic_path

SCHEMA_VERSION = 1       # v1 rows; :data:`SCHEMAS` has every version
_META_KEY = b"costfuse.schema_version"

SCHEMA = pa.schema([
    ("kernel_id", pa.string()),          # hash of IR + config + arch + versions
    ("program_id", pa.string()),         # "<family>-<seed>"
    ("family", pa.string()),
    ("generator_seed", pa.int64()),
    ("program_params", pa.string()),     # JSON of the family's sampled parameters
    ("group", pa.string()),              # member ordinals, e.g. "g3+g4+g5"
    ("group_size", pa.int64()),
    ("root", pa.int64()),                # ordinal of the member the group fuses into
    ("ir", pa.string()),                 # the fused generic as a standalone module
    ("triton_src", pa.string()),
    ("kernel_name", pa.string()),
    ("xblock", pa.int64()),
    ("rblock", pa.int64()),
    ("num_warps", pa.int64()),
    ("config_source", pa.string()),      # "heuristic" or "sampled"
    ("arch", pa.string()),               # "sm_90"
    ("triton_version", pa.string()),
    ("ptxas_version", pa.string()),
    ("regs", pa.int64()),
    ("spill_store_bytes", pa.int64()),
    ("spill_load_bytes", pa.int64()),
    ("stack_bytes", pa.int64()),
    ("shared_mem_bytes", pa.int64()),
    ("compile_s", pa.float64()),
    ("status", pa.string()),             # ok | error | timeout | unsupported
    ("error", pa.string()),
    ("latency_us", pa.float64()),        # null without a GPU
    ("gpu_name", pa.string()),
    ("created_at", pa.string()),         # ISO 8601, UTC
    ("command", pa.string()),            # the command line that produced the row
])
# v2: a kernel group at one launch.  ``family`` is the group kind, ``group`` the
# kernel's member label, ``root`` null (a group has no single root in v2).
SCHEMA_V2 = pa.schema([*SCHEMA, ("group_id", pa.string()), ("mode", pa.string()), ("hbm_bytes", pa.int64()),
                       ("n_ops", pa.int64())])
# v3: one Triton kernel that Inductor generated (on the faked sm_90, data/inductor_codegen.py) at one config
# (dataset ``sm90_inductor_v1``, data/inductor_job.py).  ``family`` is the block or ``compose``;
# ``kernel_id`` is the (kernel source, config, arch, versions) hash, unique per row.
SCHEMA_V3 = pa.schema([
    ("kernel_id", pa.string()),
    ("program_id", pa.string()),         # "<kind>-<seed>"
    ("family", pa.string()),             # a workload block (data/inductor_programs.py) or "compose"
    ("generator_seed", pa.int64()),
    ("program_params", pa.string()),     # JSON: blocks, rows, row length, dtype, input shapes
    ("kernel_name", pa.string()),        # Inductor's name for the kernel
    ("source_hash", pa.string()),        # sha256 of the kernel's source as Inductor wrote it
    ("triton_src", pa.string()),         # that source
    ("heuristic", pa.string()),          # Inductor's: pointwise | reduction | persistent_reduction | ...
    ("variant", pa.string()),            # which codegen made it: inductor | persistent | looped (forced)
    ("xnumel", pa.int64()),
    ("rnumel", pa.int64()),              # 1 when pointwise
    ("persistent", pa.bool_()),
    ("xblock", pa.int64()),
    ("rblock", pa.int64()),              # the padded row when persistent, 1 when pointwise
    ("num_warps", pa.int64()),
    ("num_stages", pa.int64()),
    ("config_source", pa.string()),      # inductor (its candidates), forced (candidates of a forced variant), sampled
    ("arch", pa.string()),
    ("torch_version", pa.string()),
    ("triton_version", pa.string()),
    ("ptxas_version", pa.string()),
    ("regs", pa.int64()),
    ("spill_store_bytes", pa.int64()),
    ("spill_load_bytes", pa.int64()),
    ("stack_bytes", pa.int64()),         # local memory per thread (ptxas "stack frame")
    ("shared_mem_bytes", pa.int64()),
    ("dropped_by_inductor", pa.bool_()), # Inductor's spill filter: stack_bytes / 4 > 16
    ("kernel_desc", pa.string()),        # JSON of featurize/inductor_kernel.py's InductorKernel (null: not covered)
    ("kernel_features", pa.string()),    # JSON of its config-independent feature columns (schema v2)
    ("features_error", pa.string()),     # why there is no description (costfuse.inductor.describe.NotCovered)
    ("compile_s", pa.float64()),
    ("status", pa.string()),
    ("error", pa.string()),
    ("latency_us", pa.float64()),
    ("gpu_name", pa.string()),
    ("created_at", pa.string()),
    ("command", pa.string()),
])
SCHEMAS = {1: SCHEMA, 2: SCHEMA_V2, 3: SCHEMA_V3}
STATUSES = {"ok", "error", "timeout", "unsupported"}
_NULLABLE = {"triton_src", "kernel_name", "xblock", "rblock", "num_warps", "config_source", "ptxas_version",
             "regs", "spill_store_bytes", "spill_load_bytes", "stack_bytes", "shared_mem_bytes", "error",
             "latency_us", "gpu_name", "program_params"}
_NULLABLE_V2 = _NULLABLE | {"root", "mode", "hbm_bytes", "n_ops"}
_NULLABLE_V3 = _NULLABLE | {"source_hash", "heuristic", "variant", "xnumel", "rnumel", "persistent", "num_stages",
                            "dropped_by_inductor", "kernel_desc", "kernel_features", "features_error"}
NULLABLE = {1: _NULLABLE, 2: _NULLABLE_V2, 3: _NULLABLE_V3}


class SchemaError(ValueError):
    """A row or shard that does not match :data:`SCHEMA` (version :data:`SCHEMA_VERSION`)."""


def _schema(version: int) -> pa.Schema:
    if version not in SCHEMAS:
        raise SchemaError(f"schema version {version!r} unknown; known: {sorted(SCHEMAS)}")
    return SCHEMAS[version]


def to_table(rows: list[dict], version: int = SCHEMA_VERSION) -> pa.Table:
    """Rows as an Arrow table of schema ``version``; raise :class:`SchemaError` naming the row and column at fault."""
    schema = _schema(version)
    nullable = NULLABLE[version]
    names = set(schema.names)
    for i, row in enumerate(rows):
        extra, missing = set(row) - names, names - set(row)
        if extra or missing:
            raise SchemaError(f"row {i} ({row.get('kernel_id', '?')}): unknown columns {sorted(extra)}, "
                              f"missing {sorted(missing)}")
        for col in names - nullable:
            if row[col] is None:
                raise SchemaError(f"row {i} ({row.get('kernel_id', '?')}): column {col} may not be null")
        if row["status"] not in STATUSES:
            raise SchemaError(f"row {i}: status {row['status']!r} not in {sorted(STATUSES)}")
    try:
        return pa.Table.from_pylist(rows, schema=schema)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as err:
        raise SchemaError(f"rows do not match schema v{version}: {err}") from None


def write_shard(directory: str | os.PathLike, name: str, rows: list[dict], version: int = SCHEMA_VERSION) -> Path:
    """Write ``rows`` (schema ``version``) as ``<directory>/<name>.parquet`` atomically (temp file + rename)."""
    table = to_table(rows, version)
    table = table.replace_schema_metadata({_META_KEY: str(version).encode()})
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    final = directory / f"{name}.parquet"
    with atomic_path(final) as tmp:
        pq.write_table(table, tmp, compression="zstd")
    return final


def shards(directory: str | os.PathLike) -> list[Path]:
    return sorted(Path(directory).glob("*.parquet"))


def shard_version(path: Path) -> int:
    """The schema version a shard was written with; :class:`SchemaError` if unknown."""
    raw = (pq.read_schema(path).metadata or {}).get(_META_KEY)
    version = {str(v).encode(): v for v in SCHEMAS}.get(raw)
    if version is None:
        raise SchemaError(f"{path}: schema version {raw!r}, expected one of {sorted(SCHEMAS)}")
    return version


def read_shard(path: Path, version: int | None = SCHEMA_VERSION) -> pa.Table:
    """One shard, after checking its schema version (``None``: any known version)."""
    found = shard_version(path)
    if version is not None and found != version:
        raise SchemaError(f"{path}: schema version {found}, expected {version}")
    table = pq.read_table(path)
    if table.schema.remove_metadata() != SCHEMAS[found]:
        raise SchemaError(f"{path}: columns do not match schema v{found}")
    return table


def read_dataset(directory: str | os.PathLike, version: int | None = SCHEMA_VERSION):
    """Every shard of ``directory`` (schema ``version``; ``None``: the version its
    shards share) as one pandas DataFrame (empty with the schema's columns if none)."""
    paths = shards(directory)
    if version is None:
        found = {shard_version(p) for p in paths}
        if len(found) > 1:
            raise SchemaError(f"{directory}: shards of several schema versions {sorted(found)}")
        version = found.pop() if found else SCHEMA_VERSION
    tables = [read_shard(p, version) for p in paths]
    if not tables:
        return SCHEMAS[version].empty_table().to_pandas()
    return pa.concat_tables(tables).to_pandas()


def done_programs(directory: str | os.PathLike) -> set[str]:
    """Programs whose rows are already stored (the unit of resume)."""
    return _stored(directory, "program_id")


def stored_kernels(directory: str | os.PathLike) -> set[str]:
    """Kernel ids already stored: the job stores each kernel once (``data/dedupe.py``)."""
    return _stored(directory, "kernel_id")


def _stored(directory: str | os.PathLike, column: str) -> set[str]:
    values: set[str] = set()
    for p in shards(directory):
        values |= set(pq.read_table(p, columns=[column]).column(column).to_pylist())
    return values


def params_json(params: dict) -> str:
    return json.dumps(params, sort_keys=True)

"""The dataset on disk: versioned Parquet shards, written atomically, read back checked.

One row per compiled kernel (docs/design.md §3).  A shard holds the rows of one or
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
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

SCHEMA_VERSION = 1
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
STATUSES = {"ok", "error", "timeout", "unsupported"}
_NULLABLE = {"triton_src", "kernel_name", "xblock", "rblock", "num_warps", "config_source", "ptxas_version",
             "regs", "spill_store_bytes", "spill_load_bytes", "stack_bytes", "shared_mem_bytes", "error",
             "latency_us", "gpu_name", "program_params"}


class SchemaError(ValueError):
    """A row or shard that does not match :data:`SCHEMA` (version :data:`SCHEMA_VERSION`)."""


def to_table(rows: list[dict]) -> pa.Table:
    """Rows as an Arrow table; raise :class:`SchemaError` naming the row and column at fault."""
    names = set(SCHEMA.names)
    for i, row in enumerate(rows):
        extra, missing = set(row) - names, names - set(row)
        if extra or missing:
            raise SchemaError(f"row {i} ({row.get('kernel_id', '?')}): unknown columns {sorted(extra)}, "
                              f"missing {sorted(missing)}")
        for col in names - _NULLABLE:
            if row[col] is None:
                raise SchemaError(f"row {i} ({row.get('kernel_id', '?')}): column {col} may not be null")
        if row["status"] not in STATUSES:
            raise SchemaError(f"row {i}: status {row['status']!r} not in {sorted(STATUSES)}")
    try:
        return pa.Table.from_pylist(rows, schema=SCHEMA)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as err:
        raise SchemaError(f"rows do not match schema v{SCHEMA_VERSION}: {err}") from None


def write_shard(directory: str | os.PathLike, name: str, rows: list[dict]) -> Path:
    """Write ``rows`` as ``<directory>/<name>.parquet`` atomically (temp file + rename)."""
    table = to_table(rows)
    table = table.replace_schema_metadata({_META_KEY: str(SCHEMA_VERSION).encode()})
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    final = directory / f"{name}.parquet"
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
    os.close(fd)
    try:
        pq.write_table(table, tmp, compression="zstd")
        os.replace(tmp, final)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return final


def shards(directory: str | os.PathLike) -> list[Path]:
    return sorted(Path(directory).glob("*.parquet"))


def read_shard(path: Path) -> pa.Table:
    """One shard, after checking its schema version."""
    table = pq.read_table(path)
    version = (table.schema.metadata or {}).get(_META_KEY)
    if version != str(SCHEMA_VERSION).encode():
        raise SchemaError(f"{path}: schema version {version!r}, expected {SCHEMA_VERSION}")
    return table


def read_dataset(directory: str | os.PathLike):
    """Every shard of ``directory`` as one pandas DataFrame (empty with the schema's columns if none)."""
    tables = [read_shard(p) for p in shards(directory)]
    if not tables:
        return SCHEMA.empty_table().to_pandas()
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

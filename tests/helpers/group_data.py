"""A small dataset v2 with *synthetic* labels, and group heads trained on it, for the group tests.

The rows are real: the programs of ``GroupJobSpec(kinds=KINDS, programs=8,
sample_configs=4)``, their kernel groups and launches exactly as
``data.group_job.program_candidates`` produces them (kernel IR, Triton
source, config sources, HBM bytes), in schema-v2 shards.  Only the labels
are made up, by :func:`synthetic_labels`, instead of compiling: ptxas on the
sampled configs of random groups takes seconds to minutes a kernel (the
spilling ones longest), while this takes a few seconds and gives the same
rows every time.  The tests check the machinery (reading, featurizing,
training, exporting, loading, deciding), not accuracy; the compile path
itself is tested end to end in ``tests/data/test_group_job.py``.

Fake labels belong in tests only: a model trained on them means nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import random
from pathlib import Path

from costfuse.data.group_job import GroupJobSpec
from costfuse.data.store import SCHEMA_V2, write_shard

KINDS = ("softmax", "rmsnorm_fwd", "layernorm_fwd", "swiglu")
SPEC = GroupJobSpec(kinds=KINDS, programs=8, sample_configs=4, command="tests/helpers/group_data.py")
N_ESTIMATORS = 20


def kernel_shape(kernel_ir: str):
    """``(module, shape)``: the :class:`costfuse.kernel.KernelShape` of a stored kernel function (a v2
    row's ``ir``) and the module its members live in (keep it as long as the shape is used)."""
    from costfuse.data.lowering.kernel_function import kernel_members

    from costfuse.ir import parse_module
    from costfuse.kernel import analyze_kernel

    module = parse_module(kernel_ir)
    return module, analyze_kernel(kernel_members(module.body.operations[0].operation))


def synthetic_labels(est_regs: float, cap: float, rng: random.Random) -> tuple[int, int]:
    """``(regs, spill bytes per thread)``: demand is the analytical estimate with 10 % noise; registers
    stop at the cap for the warps (255, or 128 at 16 warps), and each register above it spills 4 bytes."""
    demand = est_regs * rng.uniform(0.9, 1.1)
    return int(min(cap, demand)), int(4 * max(0.0, demand - cap))


def labelled(row: dict, regs: int, spill: int) -> dict:
    """A candidate's row completed as a compiled one (``status=ok``) with the given labels."""
    key = f"{row['ir']}|{row['mode']}|{row['xblock']}|{row['rblock']}|{row['num_warps']}"
    return {**row, "kernel_id": hashlib.sha256(key.encode()).hexdigest()[:24], "triton_version": "3.6.0",
            "ptxas_version": "12.8.93", "regs": regs, "spill_store_bytes": spill // 2,
            "spill_load_bytes": spill - spill // 2, "stack_bytes": spill, "shared_mem_bytes": 0, "compile_s": 0.0,
            "status": "ok", "error": None, "latency_us": None, "gpu_name": None,
            "created_at": "2026-01-01T00:00:00+00:00"}


def write_synthetic_v2(directory: Path, spec: GroupJobSpec = SPEC) -> int:
    """One schema-v2 shard per program of ``spec`` with synthetic labels; return the rows written."""
    from costfuse.featurize.group_features import GROUP_FEATURE_COLUMNS, group_features

    from costfuse.launch import KernelLaunch

    col = {c: i for i, c in enumerate(GROUP_FEATURE_COLUMNS)}
    total = 0
    for kind, seed in spec.program_list():
        rng = random.Random(f"{kind}:{seed}")
        rows, shapes = [], {}
        for cand in spec.candidates(kind, seed):
            row = cand.row
            if cand.source is None:          # lowering refused it: stored as is, status=unsupported
                rows.append(row)
                continue
            if row["group_id"] not in shapes:
                shapes[row["group_id"]] = kernel_shape(row["ir"])
            shape = shapes[row["group_id"]][1]
            launch = KernelLaunch(row["mode"], row["xblock"], row["rblock"], row["num_warps"])
            (f,) = group_features(shape, [launch])
            rows.append(labelled(row, *synthetic_labels(f[col["est_regs"]], f[col["regs_available"]], rng)))
        assert all(set(r) == set(SCHEMA_V2.names) for r in rows)
        write_shard(directory, f"{kind}-{seed}", rows, version=2)
        total += len(rows)
    return total


def train_cli(data: list[Path], export: Path, *extra: str, holdout: bool = False) -> tuple[int, str, str]:
    """``costfuse-train --data D... --no-tracking --no-holdout --n-estimators 20 --export OUT -q``
    (``holdout``: without ``--no-holdout``), in process: ``(exit status, stdout, stderr)``."""
    from costfuse.train.cli import main

    args = [a for d in data for a in ("--data", str(d))] + ([] if holdout else ["--no-holdout"])
    args += ["--no-tracking", "--n-estimators", str(N_ESTIMATORS), "--export", str(export), "-q", "--jobs", "1",
             *extra]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()

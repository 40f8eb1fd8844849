"""`costfuse-data generate-inductor` (dataset sm90_inductor_v1, issue #25 part 5): draws, kernels, rows, resume.

Inductor's codegen runs for real here, on the faked sm_90 (a few seconds per
program); ptxas is stubbed by a compile pool that labels each (source, config)
by its hash, except in :func:`test_one_kernel_compiles_with_ptxas_at_its_configs`,
which compiles one real config.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import hashlib
import json
import re

import pytest

from costfuse.data import inductor_job, job
from costfuse.data.compile import CompileResult, kernel_id, ptxas_version, triton_version
from costfuse.data.inductor_job import InductorJobSpec, program_candidates
from costfuse.data.inductor_programs import COMPOSE, INDUCTOR_KINDS, LAST_ONLY, MAX_N, draw_params, input_shapes
from costfuse.data.store import read_dataset

KINDS = ("rmsnorm_fwd", "swiglu")   # a reduction (persistent and looped variants) and a pointwise block
SEED = 3


class StubPool:
    """The compile pool's interface, labelling each task by the hash of its source and config (no ptxas).
    ``fail_on``: the run (1-based) at which it raises ``KeyboardInterrupt``, as a kill would stop the job."""

    runs = 0
    fail_on: int | None = None

    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def run(self, tasks, on_result=None):
        StubPool.runs += 1
        if StubPool.fail_on == StubPool.runs:
            raise KeyboardInterrupt
        out = []
        for i, t in enumerate(tasks):
            h = int(hashlib.sha256(f"{t.source}|{t.config}".encode()).hexdigest()[:8], 16)
            spill = 64 * (h % 3 == 0)
            res = CompileResult(kernel_id=kernel_id(t.source, t.config, t.arch), arch="sm_90", status="ok",
                                regs=32 + h % 224, spill_store_bytes=spill, spill_load_bytes=spill,
                                stack_bytes=spill + 8 * (h % 2), shared_bytes=0, compile_s=0.0,
                                triton_version=triton_version(), ptxas_version=ptxas_version(t.arch))
            if on_result:
                on_result(i, res)
            out.append(res)
        return out


@functools.lru_cache(maxsize=None)
def _candidates(kind: str, seed: int, spec: InductorJobSpec):
    return program_candidates(kind, seed, spec)


@pytest.fixture
def stubbed(monkeypatch):
    """The stub pool, and each program's candidates generated once per session (they are deterministic,
    :func:`test_a_program_s_kernels_and_configs_are_deterministic`)."""
    monkeypatch.setattr(job, "CompilePool", StubPool)
    monkeypatch.setattr(inductor_job, "program_candidates",
                        lambda kind, seed, spec: copy.deepcopy(_candidates(kind, seed, spec)))
    StubPool.runs, StubPool.fail_on = 0, None
    return StubPool


def spec(programs: int = 2) -> InductorJobSpec:
    return InductorJobSpec(kinds=KINDS, programs=programs, seed=SEED, sample_configs=4,
                           command="costfuse-data generate-inductor --test")


def test_draws_are_deterministic_per_seed_and_within_the_issue_s_ranges():
    for kind in INDUCTOR_KINDS:
        for seed in range(40):
            p = draw_params(kind, seed)
            assert p == draw_params(kind, seed)
            assert 1 <= p["rows"] <= 65536 and 64 <= p["n"] <= MAX_N == 262144
            assert p["rows"] * p["n"] < 2**31 and p["rows"] % p["heads"] == 0
            assert p["dtype"] in ("f32", "bf16", "f16")
            if kind == COMPOSE:
                assert 2 <= len(p["blocks"]) <= 3 and len(set(p["blocks"])) == len(p["blocks"])
                assert not set(p["blocks"][:-1]) & LAST_ONLY
            else:
                assert p["blocks"] == [kind]
    assert len({json.dumps(draw_params("softmax", s)) for s in range(40)}) == 40
    shipped = InductorJobSpec(programs=800, command="x")   # data/sm90_inductor_v1's draw: one repeat, skipped
    assert shipped.repeats() == {"gelu_erf-588": "gelu_erf-156"} and len(shipped.program_list()) == 799
    assert input_shapes({"blocks": ["rmsnorm_bwd", "cross_entropy_fwd"], "rows": 8, "n": 64, "dtype": "bf16",
                         "heads": 1}) == [((8, 64), "bf16"), ((64,), "bf16"), ((8, 64), "bf16"), ((8,), "i64")]


def test_a_program_s_kernels_and_configs_are_deterministic():
    s = spec()
    first = program_candidates("rmsnorm_fwd", SEED, s)
    again = program_candidates("rmsnorm_fwd", SEED, s)
    strip = lambda cands: [({k: v for k, v in c.row.items() if k != "created_at"}, c.source, c.config) for c in cands]
    assert strip(first) == strip(again)
    rows = [c.row for c in first]
    assert {r["persistent"] for r in rows} == {True, False}            # a persistent and a looped kernel
    assert {"inductor", "sampled"} <= {s for r in rows for s in r["config_source"].split(",")}
    assert {r["variant"] for r in rows} <= {"inductor", "max_autotune", "persistent", "looped"}
    assert all(r["kernel_desc"] and (json.loads(r["kernel_features"])["n_reduce"] >= 1) == (r["heuristic"] != "pointwise")
               for r in rows)
    assert len({(c.source, c.config) for c in first}) == len(first)   # no (kernel, config) twice
    from costfuse.featurize.inductor_kernel import kernel_from_dict

    for desc in {r["kernel_desc"] for r in rows}:   # the stored description reads back as the kernel it was
        kernel = kernel_from_dict(json.loads(desc))
        assert json.dumps(dataclasses.asdict(kernel)) == desc
        assert kernel.group_columns == json.loads(next(r["kernel_features"] for r in rows if r["kernel_desc"] == desc))


def test_the_job_writes_one_row_per_kernel_and_config_with_provenance(stubbed, tmp_path):
    written = job.run_local(spec(), tmp_path, jobs=1, batch_programs=1, progress=False)
    df = read_dataset(tmp_path, 3)
    assert written == len(df) > 0 and df.kernel_id.is_unique
    assert set(df.program_id) == {f"rmsnorm_fwd-{SEED}", f"swiglu-{SEED + 1}"}
    assert (df.status == "ok").all()
    import torch
    assert (df.torch_version == torch.__version__).all() and (df.triton_version == triton_version()).all()
    assert df.ptxas_version.str.match(r"\d+\.\d+\.\d+$").all() and (df.arch == "sm_90").all()
    assert df.created_at.str.match(r"\d{4}-\d\d-\d\dT").all()
    assert (df.command == "costfuse-data generate-inductor --test").all()
    assert df.source_hash.map(lambda h: bool(re.fullmatch(r"[0-9a-f]{64}", h))).all()
    assert (df.source_hash == df.triton_src.map(lambda s: hashlib.sha256(s.encode()).hexdigest())).all()
    assert (df.dropped_by_inductor == (df.stack_bytes / 4 > 16)).all()
    assert set(df.heuristic) >= {"pointwise"} and df.rnumel.min() == 1
    from costfuse.data.card import card

    text = card(tmp_path)   # the card of a v3 directory counts from the rows
    kernels, programs = df.source_hash.nunique(), df.program_id.nunique()
    assert f"**{len(df)} configs compiled** by ptxas (status ok), of **{kernels} kernels**" in text
    assert f"from **{programs} programs**" in text and "0 repeated row ids" in text
    assert f"**{(df.spill_store_bytes > 0).mean():.1%}**" in text
    import numpy as np

    from costfuse.train.group_dataset import load_group_table

    table = load_group_table([tmp_path])   # part 6's table: the rows featurized as the handler featurizes kernels
    assert len(table) == int(df.kernel_desc.notna().sum()) and not np.isnan(table.X.values).any()
    assert set(table.rows.dataset_version) == {3} and set(table.rows["mode"]) <= {"persistent", "looped", "pointwise"}


def test_an_interrupted_job_resumes_with_no_duplicate_and_no_loss(stubbed, tmp_path):
    clean = tmp_path / "clean"
    job.run_local(spec(3), clean, jobs=1, batch_programs=1, progress=False)
    killed = tmp_path / "killed"
    stubbed.runs, stubbed.fail_on = 0, 2
    with pytest.raises(KeyboardInterrupt):
        job.run_local(spec(3), killed, jobs=1, batch_programs=1, progress=False)
    assert len(list(killed.glob("*.parquet"))) == 1 and not list(killed.glob("*.tmp"))
    stubbed.fail_on = None
    assert len(job.pending_programs(spec(3), killed)) == 2
    job.run_local(spec(3), killed, jobs=1, batch_programs=1, progress=False)
    assert job.run_local(spec(3), killed, jobs=1, batch_programs=1, progress=False) == 0   # a rerun: nothing to do
    cols = ["kernel_id", "program_id", "xblock", "rblock", "num_warps", "regs", "spill_store_bytes", "config_source"]
    a, b = (read_dataset(d, 3)[cols].sort_values("kernel_id").reset_index(drop=True) for d in (clean, killed))
    assert b.kernel_id.is_unique and a.equals(b)


def test_one_kernel_compiles_with_ptxas_at_its_configs():
    """The real compile path: a kernel's Inductor candidate through the compile pool, labelled by ptxas."""
    from costfuse.data.compile import CompilePool, CompileTask

    cands = [c for c in _candidates("swiglu", SEED + 1, spec()) if c.source]
    first = next(c for c in cands if "inductor" in c.row["config_source"])
    with CompilePool(1, 120.0) as pool:
        (res,) = pool.run([CompileTask(first.source, first.config, 90)])
    assert res.status == "ok", res.error
    assert 0 < res.regs <= 255 and res.spill_store_bytes == 0
    row = inductor_job.InductorJobSpec().finish_row(job.labelled_row(first, res))
    assert row["dropped_by_inductor"] is False and row["kernel_id"] == kernel_id(first.source, first.config, 90)


def test_the_command_line_refuses_an_unknown_kind_in_one_line(capsys):
    from costfuse.data.cli import main

    assert main(["generate-inductor", "--kinds", "softmax,nope", "--out", "unused"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nope" in err[0] and "compose" in err[0]


def test_the_command_line_refuses_a_directory_of_another_schema_in_one_line(tmp_path, capsys):
    from costfuse.data.cli import main
    from costfuse.data.store import SCHEMA, write_shard

    row = {name: None for name in SCHEMA.names}
    row.update(kernel_id="k", program_id="act-0", family="act", generator_seed=0, group="g0", group_size=1, root=0,
               ir="", arch="sm_90", triton_version="3.6.0", compile_s=0.0, status="ok", created_at="", command="")
    write_shard(tmp_path, "v1", [row], 1)
    assert main(["generate-inductor", "--programs", "1", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "schema v1 shards" in err[0] and "schema v3" in err[0]

"""The GPU profiler: reading, keying, resuming, writing, dry run and its import budget on any machine;
profiling itself (marked ``gpu``) where a CUDA device exists."""

import subprocess
import sys
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from costfuse.data import profile
from costfuse.data.store import read_dataset


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    from test_job import generate

    root = tmp_path_factory.mktemp("prof")
    generate(root / "ds", root / "cache", extra=["--programs", "2"])
    return root / "ds"


def test_dry_run_keys_every_compiled_kernel(dataset, tmp_path):
    n = profile.run(dataset, tmp_path / "lat", dry_run=True, batch=5, progress=False)
    ds = read_dataset(dataset)
    lat = pq.read_table(tmp_path / "lat").to_pandas()
    assert n == len(lat) == ds[ds.status == "ok"].kernel_id.nunique()
    assert set(lat.kernel_id) == set(ds[ds.status == "ok"].kernel_id)
    assert (lat.status == "dry-run").all() and lat.latency_us.isna().all()
    assert lat.bench.str.contains("do_bench").all()
    assert profile.run(dataset, tmp_path / "lat", dry_run=True, progress=False) == 0  # resumed: nothing left


def test_whole_programs_first(dataset):
    one = profile.load_kernels(dataset, programs=1)
    assert len({k["program_id"] for k in one}) == 1
    assert len(one) == sum(1 for k in profile.load_kernels(dataset) if k["program_id"] == one[0]["program_id"])


def cuda_available() -> bool:
    import torch

    return torch.cuda.is_available()


def test_without_gpu_it_refuses_clearly(dataset, tmp_path):
    if cuda_available():
        pytest.skip("a CUDA device is present, so profiling would run: test_profiles_kernels_on_the_gpu covers it")
    with pytest.raises(RuntimeError, match="no CUDA device"):
        profile.run(dataset, tmp_path / "lat", progress=False)


@pytest.mark.gpu
def test_profiles_kernels_on_the_gpu(tmp_path):
    """Two spill-free kernels of the shipped dataset, copied with pyarrow alone (the GPU machine has no
    IREE to generate one), are launched and timed; the loaded kernel's registers are ptxas's CPU label."""
    if not cuda_available():
        pytest.skip("needs a CUDA device (run on the GPU machine)")
    shard = sorted((Path(profile.__file__).parent / "sm90_v1").glob("*.parquet"))[0]
    table = pq.read_table(shard).filter((pc.field("status") == "ok") & (pc.field("spill_store_bytes") == 0))
    tiny = tmp_path / "tiny"
    tiny.mkdir()
    pq.write_table(table.slice(0, 2), tiny / "tiny.parquet")
    expected = {r["kernel_id"]: r["regs"] for r in table.slice(0, 2).to_pylist()}
    assert profile.run(tiny, tmp_path / "lat", batch=1, warmup_ms=5, rep_ms=20, progress=False) == 2
    lat = pq.read_table(tmp_path / "lat").to_pandas()
    assert (lat.status == "ok").all(), lat.error.tolist()
    assert (lat.latency_us > 0).all() and lat.gpu_name.notna().all()
    assert dict(zip(lat.kernel_id, lat.n_regs)) == expected  # the GPU's loader agrees with the CPU's ptxas


def test_imports_only_what_the_gpu_machine_has():
    # The GPU machine has no CostFuse install: it runs the file itself (`python data/profile.py`).
    code = (f"import sys, runpy; runpy.run_path({profile.__file__!r}, run_name='gpu_check'); "
            "bad = sorted({m.split('.')[0] for m in sys.modules} & {'iree', 'xgboost', 'mlflow', 'sklearn', "
            "'costfuse', 'tqdm', 'matplotlib'}); print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"

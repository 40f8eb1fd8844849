"""``costfuse-data profile DIR --out DIR2``: time every kernel of a dataset on a GPU.

Runs on the GPU machine, which has torch, triton, numpy, pandas and pyarrow
and nothing else (docs/design.md §5): this module imports only those, plus the
standard library, and reads the lowered Triton sources stored in the
dataset (each is self-contained: ``INPUTS``/``OUTPUTS`` shapes and a
``launch`` helper).  Run it from a checkout as ``python data/profile.py``: it imports nothing of CostFuse, so it needs no install.

Each kernel is launched once (which compiles it and gives ``n_regs`` /
``n_spills`` of the loaded kernel, a cross-check of the CPU ptxas labels),
then timed with ``triton.testing.do_bench`` (median).  Rows are keyed by
``kernel_id`` and written atomically, a shard per ``--batch`` kernels, so an
interrupted run resumes where it stopped.  Whole programs are profiled in
order, so the oracle DP can be computed for every program that is done.
``--dry-run`` does everything but touch a GPU: read, key, load each
kernel's module, check its input spec, and write rows without latencies.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import os
import shlex
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

PROFILE_SCHEMA = pa.schema([
    ("kernel_id", pa.string()), ("program_id", pa.string()), ("status", pa.string()), ("error", pa.string()),
    ("latency_us", pa.float64()), ("n_regs", pa.int64()), ("n_spills", pa.int64()),
    ("gpu_name", pa.string()), ("torch_version", pa.string()), ("triton_version", pa.string()),
    ("cuda_version", pa.string()), ("bench", pa.string()), ("created_at", pa.string()), ("command", pa.string()),
])
DEFAULT_WARMUP_MS, DEFAULT_REP_MS = 25, 100


def load_kernels(dataset: str | os.PathLike, programs: int | None = None) -> list[dict]:
    """Compiled kernels of the dataset (one per kernel_id), whole programs in id order."""
    rows: dict[str, dict] = {}
    for path in sorted(Path(dataset).glob("*.parquet")):
        table = pq.read_table(path, columns=["kernel_id", "program_id", "status", "triton_src"])
        for r in table.to_pylist():
            if r["status"] == "ok" and r["triton_src"]:
                rows.setdefault(r["kernel_id"], r)
    ordered = sorted(rows.values(), key=lambda r: (r["program_id"], r["kernel_id"]))
    if programs is not None:
        keep = sorted({r["program_id"] for r in ordered})[:programs]
        ordered = [r for r in ordered if r["program_id"] in set(keep)]
    return ordered


def done_kernels(out: str | os.PathLike) -> set[str]:
    done: set[str] = set()
    for path in Path(out).glob("*.parquet"):
        done |= set(pq.read_table(path, columns=["kernel_id"]).column("kernel_id").to_pylist())
    return done


def write_rows(out: str | os.PathLike, name: str, rows: list[dict]) -> Path:
    """Atomically write ``rows`` as ``out/name.parquet``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pylist(rows, schema=PROFILE_SCHEMA)
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=out)
    os.close(fd)
    try:
        pq.write_table(table, tmp)
        os.replace(tmp, out / f"{name}.parquet")
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return out / f"{name}.parquet"


def load_source(src: str, directory: Path):
    """Import a kernel source as a module (Triton reads ``@jit`` functions from real files)."""
    path = directory / f"k_{abs(hash(src)):x}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name, shape, dtype in list(module.INPUTS) + list(module.OUTPUTS):
        if not isinstance(shape, tuple) or not isinstance(dtype, str):
            raise ValueError(f"bad tensor spec for {name}: {shape!r} {dtype!r}")
    return module


def make_tensors(module, device: str):
    """Seeded inputs in [-2, 2) and zeroed outputs, as the INPUTS/OUTPUTS spec says."""
    import torch

    gen = torch.Generator(device=device).manual_seed(0)
    tensors = []
    for _, shape, dtype in module.INPUTS:
        t = torch.empty(shape, dtype=getattr(torch, dtype), device=device)
        if t.is_floating_point():
            t.uniform_(-2.0, 2.0, generator=gen)
        else:
            t.random_(0, 4, generator=gen)
        tensors.append(t)
    tensors += [torch.zeros(shape, dtype=getattr(torch, dtype), device=device) for _, shape, dtype in module.OUTPUTS]
    return tensors


def environment(dry_run: bool) -> dict:
    import torch
    import triton

    gpu = None if dry_run or not torch.cuda.is_available() else torch.cuda.get_device_name()
    return {"gpu_name": gpu, "torch_version": torch.__version__, "triton_version": triton.__version__,
            "cuda_version": torch.version.cuda}


def profile_one(module, warmup_ms: int, rep_ms: int) -> dict:
    """Launch once (compiles; gives n_regs/n_spills), then time with do_bench (median, µs)."""
    import torch
    import triton.testing

    tensors = make_tensors(module, "cuda")
    compiled = module.launch(*tensors)
    torch.cuda.synchronize()
    ms = triton.testing.do_bench(lambda: module.launch(*tensors), warmup=warmup_ms, rep=rep_ms, return_mode="median")
    return {"latency_us": ms * 1000.0, "n_regs": int(compiled.n_regs), "n_spills": int(compiled.n_spills)}


def run(dataset, out, programs=None, batch=64, warmup_ms=DEFAULT_WARMUP_MS, rep_ms=DEFAULT_REP_MS,
        dry_run=False, command="", progress=True) -> int:
    """Profile every pending kernel; return how many rows were written."""
    todo = [k for k in load_kernels(dataset, programs) if k["kernel_id"] not in done_kernels(out)]
    env = environment(dry_run)
    if not dry_run and env["gpu_name"] is None:
        raise RuntimeError("no CUDA device: run on the GPU machine, or pass --dry-run")
    bench = f"do_bench(warmup={warmup_ms}ms, rep={rep_ms}ms, return_mode=median)"
    written = 0
    try:
        from tqdm import tqdm
    except ImportError:  # the GPU machine has no tqdm
        tqdm = None
    bar = tqdm(total=len(todo), unit="kernel", disable=not progress) if tqdm else None
    with tempfile.TemporaryDirectory() as tmp:
        for start in range(0, len(todo), batch):
            rows = []
            for k in todo[start : start + batch]:
                row = {"kernel_id": k["kernel_id"], "program_id": k["program_id"], "latency_us": None,
                       "n_regs": None, "n_spills": None, "error": None, "bench": bench, "command": command,
                       "created_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), **env}
                try:
                    module = load_source(k["triton_src"], Path(tmp))
                    if not dry_run:
                        row.update(profile_one(module, warmup_ms, rep_ms))
                    row["status"] = "dry-run" if dry_run else "ok"
                except Exception as err:  # one bad kernel never stops the campaign
                    row.update(status="error", error=f"{type(err).__name__}: {err}"[:2000])
                rows.append(row)
                if bar:
                    bar.update(1)
            write_rows(out, f"latency-{rows[0]['kernel_id']}-{len(rows)}", rows)
            written += len(rows)
            if not bar:
                print(f"{start + len(rows)}/{len(todo)} kernels", flush=True)
    if bar:
        bar.close()
    return written


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", help="dataset directory (Parquet shards from costfuse-data generate)")
    p.add_argument("--out", required=True, help="where latency rows go (Parquet)")
    p.add_argument("--programs", type=int, default=None, help="only the first N programs (whole programs)")
    p.add_argument("--batch", type=int, default=64, help="kernels per output shard (default 64)")
    p.add_argument("--warmup-ms", type=int, default=DEFAULT_WARMUP_MS,
                   help=f"do_bench warm-up time per kernel, ms (default {DEFAULT_WARMUP_MS})")
    p.add_argument("--rep-ms", type=int, default=DEFAULT_REP_MS,
                   help=f"do_bench timed repetitions per kernel, ms; the median is kept (default {DEFAULT_REP_MS})")
    p.add_argument("--dry-run", action="store_true", help="read, key, load and write, but touch no GPU")


def main_from_args(args: argparse.Namespace) -> int:
    t0 = time.perf_counter()
    n = run(args.dir, args.out, args.programs, args.batch, args.warmup_ms, args.rep_ms, args.dry_run,
            command=shlex.join(["costfuse-data", "profile", *sys.argv[2:]]) if sys.argv[1:2] == ["profile"]
            else shlex.join(sys.argv))
    print(f"wrote {n} rows in {time.perf_counter() - t0:.0f} s to {args.out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python data/profile.py", description=__doc__.splitlines()[0])
    add_arguments(p)
    return main_from_args(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())

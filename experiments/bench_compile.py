"""Compile throughput: kernels/s with ``--jobs 2`` against ``--jobs 1``, same run.

    .venv/bin/python experiments/bench_compile.py [--arch sm_90] [--repeats 3] [--kernels 40]

The kernel set is what the dataset compiles most: the generics of the
example models (``examples/*.mlir``, deduplicated) plus synthetic
elementwise chains and row reductions, all with at most 32 body ops, at the
heuristic launch config.  Every repeat compiles every kernel afresh (no
result cache; Triton's own cache is bypassed by the workers).  Worker
start-up is excluded from the rate (pools are started, then timed) and
reported separately.  The figure is the median over ``--repeats`` (docs/design.md §8);
the goal is >= 1.5 kernels/s at ``--jobs 2`` for these non-spilling kernels.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from costfuse.ir import parse_module  # noqa: E402
from costfuse.data.compile import CompilePool, CompileTask, parse_arch, ptxas_version, triton_version  # noqa: E402
from costfuse.data.lowering.generic import lower_generic  # noqa: E402
from costfuse.data.lowering.unsupported import UnsupportedOp  # noqa: E402
from costfuse.data.lowering.walk import generics_of  # noqa: E402

MAX_BODY_OPS = 32
UNARY = ["math.exp", "math.tanh", "arith.negf", "math.absf", "math.sqrt", "math.erf", "math.log1p"]
BINARY = ["arith.addf", "arith.mulf", "arith.subf", "arith.maximumf", "arith.divf"]


def _generic(shape, dtype: str, n_in: int, body: list[str], reduce: bool) -> str:
    n = len(shape)
    dims = ", ".join(f"d{i}" for i in range(n))
    ty = f"tensor<{'x'.join(map(str, shape))}x{dtype}>"
    out_shape = shape[:-1] if reduce else shape
    oty = f"tensor<{'x'.join(map(str, out_shape))}x{dtype}>"
    omap = ", ".join(f"d{i}" for i in range(n - 1)) if reduce else dims
    maps = ", ".join([f"affine_map<({dims}) -> ({dims})>"] * n_in + [f"affine_map<({dims}) -> ({omap})>"])
    its = ", ".join(['"parallel"'] * (n - 1) + ['"reduction"' if reduce else '"parallel"'])
    args = ", ".join(f"%x{i}: {ty}" for i in range(n_in))
    bargs = ", ".join([f"%a{i}: {dtype}" for i in range(n_in)] + [f"%o: {dtype}"])
    lines = "\n".join("      " + b for b in body)
    return (f"func.func @f({args}, %init: {oty}) -> {oty} {{\n"
            f"  %r = linalg.generic {{indexing_maps = [{maps}], iterator_types = [{its}]}} "
            f"ins({', '.join(f'%x{i}' for i in range(n_in))} : {', '.join([ty] * n_in)}) outs(%init : {oty}) {{\n"
            f"    ^bb0({bargs}):\n{lines}\n  }} -> {oty}\n  return %r : {oty}\n}}\n")


def synthetic(rng: random.Random, reduce: bool) -> str:
    """A random elementwise body of 4-30 ops over 1-3 inputs, optionally summed over the last dim."""
    dtype = rng.choice(["f32", "f32", "f16", "bf16"])
    shape = (rng.choice([256, 1024, 4096]), rng.choice([128, 512, 1024, 3072]))
    n_in = rng.randint(1, 3)
    values, body = [f"%a{i}" for i in range(n_in)], []
    for k in range(rng.randint(4, 30)):
        if rng.random() < 0.5:
            body.append(f"%v{k} = {rng.choice(UNARY)} {rng.choice(values)} : {dtype}")
        else:
            body.append(f"%v{k} = {rng.choice(BINARY)} {rng.choice(values)}, {rng.choice(values)} : {dtype}")
        values.append(f"%v{k}")
        values = values[-4:]  # bounded live values: this benchmark is about non-spilling kernels
    body += [f"%y = arith.addf {values[-1]}, %o : {dtype}", f"linalg.yield %y : {dtype}"] if reduce \
        else [f"linalg.yield {values[-1]} : {dtype}"]
    return _generic(shape, dtype, n_in, body, reduce)


def kernel_set(n: int, seed: int = 0) -> list:
    """Up to ``n`` distinct lowered kernels with <= MAX_BODY_OPS body ops."""
    sources, kernels = set(), []

    def add(module):
        for g in generics_of(module):
            try:
                k = lower_generic(g)
            except UnsupportedOp:
                continue
            if k.body_ops <= MAX_BODY_OPS and k.source not in sources and len(kernels) < n:
                sources.add(k.source)
                kernels.append(k)

    modules = [parse_module(p.read_text(), str(p)) for p in sorted((ROOT / "examples").glob("*.mlir"))]
    for m in modules:
        add(m)
    rng = random.Random(seed)
    while len(kernels) < n:
        m = parse_module(synthetic(rng, reduce=rng.random() < 0.4))
        add(m)
    return kernels


def measure(tasks, jobs: int, timeout: float) -> tuple[float, float, list]:
    """(start-up seconds, compile seconds, results) for one pool."""
    t0 = time.perf_counter()
    with CompilePool(jobs=jobs, timeout_s=timeout, cache=False) as pool:
        pool.start()
        t1 = time.perf_counter()
        results = pool.run(tasks)
        t2 = time.perf_counter()
    return t1 - t0, t2 - t1, results


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--kernels", type=int, default=40)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=120.0)
    args = ap.parse_args(argv)
    os.environ.setdefault("COSTFUSE_CACHE_DIR", tempfile.mkdtemp(prefix="costfuse_bench_"))
    arch = parse_arch(args.arch)
    kernels = kernel_set(args.kernels)
    tasks = [CompileTask(k.source, k.config, arch) for k in kernels]
    print(f"{len(tasks)} kernels (<= {MAX_BODY_OPS} body ops, heuristic configs), sm_{arch}, "
          f"triton {triton_version()}, ptxas {ptxas_version(arch)}")
    print(f"machine: {platform.node()} {platform.machine()}, {os.cpu_count()} CPUs visible; "
          f"python {platform.python_version()}")
    rates: dict[int, list[float]] = {1: [], 2: []}
    startup: dict[int, list[float]] = {1: [], 2: []}
    last = None
    for rep in range(args.repeats):
        for jobs in (1, 2):  # interleaved, so drift on the shared machine hits both alike
            s, c, results = measure(tasks, jobs, args.timeout)
            rates[jobs].append(len(tasks) / c)
            startup[jobs].append(s)
            bad = [r for r in results if r.status != "ok"]
            print(f"  repeat {rep + 1} jobs {jobs}: {len(tasks) / c:.2f} kernels/s "
                  f"({c:.1f} s compiling, {s:.1f} s start-up){f', {len(bad)} not ok' if bad else ''}")
            last = results
    spilling = sum(1 for r in last if r.status == "ok" and r.spill_store_bytes)
    per_kernel = sorted(r.compile_s for r in last if r.status == "ok")
    med1, med2 = statistics.median(rates[1]), statistics.median(rates[2])
    print(f"median compile_s per kernel {statistics.median(per_kernel):.2f} s "
          f"(max {per_kernel[-1]:.2f}); {spilling} kernels spill")
    print(f"RESULT jobs 1: {med1:.2f} kernels/s; jobs 2: {med2:.2f} kernels/s; "
          f"speed-up {med2 / med1:.2f}x; goal >= 1.5 kernels/s at jobs 2: {'met' if med2 >= 1.5 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

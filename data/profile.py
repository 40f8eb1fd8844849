"""``costfuse-data profile DIR --out DIR2``: time every kernel of a dataset on a GPU.

Runs on the GPU machine, which has torch, triton, numpy, pandas and pyarrow
and nothing else (docs/design.md §5): this module imports only those, plus the
standard library, and reads the lowered Triton sources stored in the
dataset (each is self-contained: ``CONFIG``/``SIGNATURE``, ``INPUTS``/``OUTPUTS``
shapes and a ``launch`` helper).  Run it from a checkout as ``python data/profile.py``: it imports nothing
of CostFuse, so it needs no install.  ``experiments/gpu_run.py`` loads it by
path for :func:`bench`, :func:`warm_module` and :func:`environment`.

Each kernel is launched once (which gives ``n_regs`` / ``n_spills`` of the
loaded kernel, a cross-check of the CPU ptxas labels), then timed by
:func:`bench`: ``triton.testing.do_bench`` (median), re-timed with
``do_bench_cudagraph`` under :data:`TINY_US`; each row's ``bench`` says
which timed it and with what settings.  Kernels go in :func:`load_kernels`'
order: programs interleaved across kinds (so a partial campaign covers every
kind), each program whole (the oracle DP needs whole programs), each v2
group with all its configs together (its best config by latency is known
as soon as it is done).  Rows are keyed by ``kernel_id`` and written
atomically, a shard per ``--batch`` kernels, so an interrupted run resumes
where it stopped; ``--budget-s`` stops it cleanly before a batch that would
end past the budget.

The device time is minutes and compiling a kernel takes about a second, so
``--jobs N`` compiles the pending kernels in N processes
(:class:`Warmer`, ``JITFunction.warmup``: no launch, no memory) in the
order they are timed, ahead of the timed loop, which finds them in Triton's
on-disk cache.  ``--dry-run`` does everything but touch a GPU: read, key,
order, load each kernel's module, check its input spec, and write rows
without latencies (the warm-up needs CUDA and is skipped, saying so).
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
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
DEFAULT_BATCH = 16        # kernels per shard: a kill loses at most this many timings
TINY_US = 10.0            # kernels faster than this by do_bench are re-timed with do_bench_cudagraph
WARM_WAIT_S = 60.0        # the timed loop waits this long for a batch's warm-up, then compiles the rest itself
_META = ("kernel_id", "program_id", "family", "generator_seed", "group_id", "status")


# ---------------------------------------------------------------------------
# Reading, ordering, resuming, writing


def load_kernels(dataset: str | os.PathLike, programs: int | None = None,
                 kinds: list[str] | None = None) -> list[dict]:
    """Compiled kernels of the dataset (one per kernel_id), in timing order.

    Each kind's (``family``'s) programs by seed, the kinds interleaved (the
    first program of every kind, then the second, ...), each program whole,
    its kernels by ``group_id`` (v2; v1 has none) so a group's configs are
    timed together.  ``kinds``: only those; ``programs``: the first N
    programs of that order.  Sources are read only for the kernels kept.
    """
    rows: dict[str, dict] = {}
    where: dict[str, tuple[Path, int]] = {}
    known: set[str] = set()
    shards = sorted(Path(dataset).glob("*.parquet"))
    if not shards:   # a mistyped path must not spend a GPU session timing nothing
        raise ValueError(f"{dataset}: no dataset shards (*.parquet)"
                         + ("" if Path(dataset).is_dir() else ": no such folder"))
    for path in shards:
        names = set(pq.read_schema(path).names)
        for i, r in enumerate(pq.read_table(path, columns=[c for c in _META if c in names]).to_pylist()):
            known.add(r["family"])
            if r["status"] == "ok" and (kinds is None or r["family"] in kinds) and r["kernel_id"] not in rows:
                rows[r["kernel_id"]], where[r["kernel_id"]] = r, (path, i)
    if kinds is not None and (unknown := sorted(set(kinds) - known)):
        raise ValueError(f"{dataset}: no kind {', '.join(unknown)}; its kinds: {', '.join(sorted(known))}")
    by_kind: dict[str, set] = {}
    for r in rows.values():
        by_kind.setdefault(r["family"], set()).add((r["generator_seed"], r["program_id"]))
    rank = {pid: (i, kind) for kind, progs in by_kind.items() for i, (_, pid) in enumerate(sorted(progs))}
    ordered = sorted(rows.values(), key=lambda r: (rank[r["program_id"]], r["program_id"],
                                                   r.get("group_id") or "", r["kernel_id"]))
    if programs is not None:
        keep = set(sorted({r["program_id"] for r in ordered}, key=rank.__getitem__)[:programs])
        ordered = [r for r in ordered if r["program_id"] in keep]
    by_shard: dict[Path, list[dict]] = {}
    for r in ordered:
        by_shard.setdefault(where[r["kernel_id"]][0], []).append(r)
    for path, kept in by_shard.items():
        sources = pq.read_table(path, columns=["triton_src"]).column("triton_src")
        for r in kept:
            r["triton_src"] = sources[where[r["kernel_id"]][1]].as_py()
    return [r for r in ordered if r["triton_src"]]


def done_kernels(out: str | os.PathLike) -> set[str]:
    done: set[str] = set()
    for path in Path(out).glob("*.parquet"):
        done |= set(pq.read_table(path, columns=["kernel_id"]).column("kernel_id").to_pylist())
    return done


def write_rows(out: str | os.PathLike, name: str, rows: list[dict], schema: pa.Schema = PROFILE_SCHEMA) -> Path:
    """Atomically write ``rows`` as ``out/name.parquet`` (``gpu_run.py``'s rows too, with its schema).

    ``costfuse/atomic.py``'s rule (temp file beside the target, readable mode,
    rename), written out here: this file imports nothing of CostFuse.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pylist(rows, schema=schema)
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=out)
    os.close(fd)
    try:
        pq.write_table(table, tmp)
        os.chmod(tmp, 0o644)
        os.replace(tmp, out / f"{name}.parquet")
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return out / f"{name}.parquet"


def load_source(src: str, directory: Path):
    """Import a kernel source as a module (Triton reads ``@jit`` functions from real files), named by its
    content's hash so every process names it alike."""
    path = Path(directory) / f"k_{hashlib.sha256(src.encode()).hexdigest()[:20]}.py"
    path.write_text(src)
    module = importlib.util.module_from_spec(importlib.util.spec_from_file_location(path.stem, path))
    exec(compile(src, str(path), "exec"), module.__dict__)   # as the loader would, without writing a .pyc
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
        else:   # a mask (bool) takes 0 or 1; torch refuses random_(0, 4) on bool
            t.random_(0, 2 if t.dtype == torch.bool else 4, generator=gen)
        tensors.append(t)
    tensors += [torch.zeros(shape, dtype=getattr(torch, dtype), device=device) for _, shape, dtype in module.OUTPUTS]
    return tensors


def environment(dry_run: bool) -> dict:
    import torch
    import triton

    gpu = None if dry_run or not torch.cuda.is_available() else torch.cuda.get_device_name()
    return {"gpu_name": gpu, "torch_version": torch.__version__, "triton_version": triton.__version__,
            "cuda_version": torch.version.cuda}


# ---------------------------------------------------------------------------
# Timing (shared with experiments/gpu_run.py)


def bench(fn, warmup_ms: int, rep_ms: int, graph_rep_ms: int | None = None) -> tuple[float, str]:
    """(median µs, which bench): do_bench, or do_bench_cudagraph (``graph_rep_ms`` per replay, default
    ``rep_ms``; it replays 10 times) for a function under :data:`TINY_US`, since a launch-bound kernel's
    event pair costs more than its work."""
    import triton.testing

    us = triton.testing.do_bench(fn, warmup=warmup_ms, rep=rep_ms, return_mode="median") * 1e3
    if us >= TINY_US:
        return us, "do_bench"
    try:
        rep = rep_ms if graph_rep_ms is None else graph_rep_ms
        return triton.testing.do_bench_cudagraph(fn, rep=rep, return_mode="median") * 1e3, "cudagraph"
    except Exception:   # a function that cannot be captured keeps its do_bench time
        return us, "do_bench (cudagraph capture failed)"


def bench_settings(warmup_ms: int, rep_ms: int, graph_rep_ms: int | None = None) -> str:
    rep = rep_ms if graph_rep_ms is None else graph_rep_ms
    return (f"do_bench(warmup={warmup_ms}ms, rep={rep_ms}ms, return_mode=median); under {TINY_US:g} us: "
            f"do_bench_cudagraph(rep={rep}ms, return_mode=median)")


def bench_column(settings: str, which: str | None) -> str:
    """A row's ``bench``: which bench timed it (``do_bench``, ``cudagraph``, ...) and the run's settings."""
    return f"{which or 'not timed'}; {settings}"


def profile_one(module, warmup_ms: int, rep_ms: int, graph_rep_ms: int | None = None) -> dict:
    """Launch once (a compile unless warmed; gives n_regs/n_spills), then :func:`bench` (median, µs)."""
    import torch

    tensors = make_tensors(module, "cuda")
    compiled = module.launch(*tensors)
    torch.cuda.synchronize()
    us, which = bench(lambda: module.launch(*tensors), warmup_ms, rep_ms, graph_rep_ms)
    return {"latency_us": us, "which": which, "n_regs": int(compiled.n_regs), "n_spills": int(compiled.n_spills)}


# ---------------------------------------------------------------------------
# Warm-up: compile ahead of the timed loop (GPU only; shared with experiments/gpu_run.py)


def warm_module(module) -> None:
    """Compile a kernel source's ``kernel`` at its ``CONFIG`` for its ``INPUTS``/``OUTPUTS`` dtypes into
    Triton's on-disk cache, where its first launch finds it: ``JITFunction.warmup`` (no launch, no memory;
    it needs a CUDA driver for the target)."""
    import torch

    specs = [getattr(torch, d) for _, _, d in list(module.INPUTS) + list(module.OUTPUTS)]
    consts = {k: v for k, v in module.CONFIG.items() if k in module.SIGNATURE}
    module.kernel.warmup(*specs, grid=(1,), **consts, num_warps=module.CONFIG["num_warps"],
                         num_stages=module.CONFIG["num_stages"])


_WARM_DIR: Path | None = None


def _warm_init(parent: str) -> None:
    global _WARM_DIR
    _WARM_DIR = Path(tempfile.mkdtemp(prefix="warm-", dir=parent))
    os.nice(10)   # the timed loop keeps its core: a slow launch would show in a launch-bound kernel's time


def _warm_kernel(args: tuple[str, str]) -> tuple[str, str]:
    """(kernel_id, "" or the error) after :func:`warm_module` of one source; never raises (a failure only
    leaves that compile to the timed loop)."""
    kernel_id, src = args
    try:
        warm_module(load_source(src, _WARM_DIR or Path(tempfile.mkdtemp(prefix="warm-"))))
        return kernel_id, ""
    except Exception as err:
        return kernel_id, f"{type(err).__name__}: {err}"[:300]


class Warmer:
    """:func:`warm_module` of ``kernels`` (dicts with ``kernel_id``, ``triton_src``) in ``jobs`` spawned
    processes, in order, in the background; :meth:`wait` until given kernels are done."""

    def __init__(self, kernels: list[dict], jobs: int, tmp: str | os.PathLike):
        import multiprocessing as mp

        self._timeout = mp.TimeoutError
        self.total, self.done, self.t0 = len(kernels), {}, time.perf_counter()
        self.pool = mp.get_context("spawn").Pool(jobs, initializer=_warm_init, initargs=(str(tmp),))
        self._results = self.pool.imap_unordered(_warm_kernel, [(k["kernel_id"], k["triton_src"]) for k in kernels])

    def wait(self, kernel_ids: list[str], timeout_s: float) -> int:
        """Collect results until every one of ``kernel_ids`` is compiled (or failed), or ``timeout_s`` passed;
        return how many of them are not done."""
        deadline = time.perf_counter() + timeout_s
        while len(self.done) < self.total and any(k not in self.done for k in kernel_ids):
            try:
                kid, err = self._results.next(timeout=max(0.0, deadline - time.perf_counter()))
            except self._timeout:
                break
            self.done[kid] = err
        return sum(k not in self.done for k in kernel_ids)

    def summary(self) -> str:
        errors = [e for e in self.done.values() if e]
        return (f"warm-up: {len(self.done) - len(errors)} of {self.total} compiled, {len(errors)} failed"
                + (f" (first: {errors[0]})" if errors else "") + f", {time.perf_counter() - self.t0:.0f} s")

    def close(self) -> None:
        self.pool.terminate()
        self.pool.join()


# ---------------------------------------------------------------------------
# The campaign


EXIT_CONTEXT_LOST = 3


class ContextLost(RuntimeError):
    """A kernel broke the CUDA context (an illegal address, say): every later launch in this process fails,
    so the run stops after writing that kernel's row, and a rerun (a fresh process) resumes after it."""


def context_lost() -> bool:
    """Whether this process's CUDA context is gone: a sticky error makes even a synchronize raise."""
    import torch

    try:
        torch.cuda.synchronize()
        return False
    except Exception:
        return True


def batch_fits(elapsed_s: float, batch_s: list[float], budget_s: float | None) -> bool:
    """Whether a batch started ``elapsed_s`` into the run ends within ``budget_s``, guessing its time as the
    longer of the last batch's and the mean (0 before the first)."""
    if budget_s is None:
        return True
    guess = max(batch_s[-1], sum(batch_s) / len(batch_s)) if batch_s else 0.0
    return elapsed_s + guess <= budget_s


def run(dataset, out, programs=None, batch=DEFAULT_BATCH, warmup_ms=DEFAULT_WARMUP_MS, rep_ms=DEFAULT_REP_MS,
        dry_run=False, command="", progress=True, kinds=None, jobs=0, budget_s=None, graph_rep_ms=None) -> int:
    """Profile every pending kernel (or until ``budget_s`` seconds from the start); return how many rows
    were written."""
    t_start = time.perf_counter()
    done = done_kernels(out)
    todo = [k for k in load_kernels(dataset, programs, kinds) if k["kernel_id"] not in done]
    env = environment(dry_run)
    if not dry_run and env["gpu_name"] is None:
        raise RuntimeError("no CUDA device: run on the GPU machine, or pass --dry-run")
    settings = bench_settings(warmup_ms, rep_ms, graph_rep_ms)
    say = print if progress else (lambda *a, **k: None)
    say(f"{len(todo)} kernels to time ({len(done)} done) on {env['gpu_name'] or 'cpu (dry run)'}", flush=True)
    written, batch_s, last_said = 0, [], time.perf_counter()
    warmer = None
    with tempfile.TemporaryDirectory() as tmp:
        try:
            if jobs and todo:
                if dry_run:
                    say(f"dry run: warm-up in {jobs} processes skipped (it needs CUDA)", flush=True)
                else:
                    warmer = Warmer(todo, jobs, tmp)
            for start in range(0, len(todo), batch):
                if not batch_fits(time.perf_counter() - t_start, batch_s, budget_s):
                    say(f"budget of {budget_s:.0f} s: stopping before kernel {start + 1} of {len(todo)}; "
                        "rerun to resume", flush=True)
                    break
                t0 = time.perf_counter()
                chunk = todo[start : start + batch]
                if warmer and (late := warmer.wait([k["kernel_id"] for k in chunk], WARM_WAIT_S)):
                    say(f"{late} kernels not warmed after {WARM_WAIT_S:.0f} s: compiled in the timed loop", flush=True)
                rows = []
                for k in chunk:
                    rows.append(time_kernel(k, Path(tmp), env, settings, warmup_ms, rep_ms, graph_rep_ms, dry_run,
                                            command))
                    if rows[-1]["status"] == "error" and not dry_run and context_lost():
                        write_rows(out, f"latency-{rows[0]['kernel_id']}-{len(rows)}", rows)
                        raise ContextLost(f"kernel {k['kernel_id']} ({k['program_id']}) broke the CUDA context "
                                          f"({rows[-1]['error'].splitlines()[0]}); {written + len(rows)} rows "
                                          "written, rerun to resume after it")
                write_rows(out, f"latency-{rows[0]['kernel_id']}-{len(rows)}", rows)
                written += len(rows)
                batch_s.append(time.perf_counter() - t0)
                if time.perf_counter() - last_said > 20 or start + batch >= len(todo):
                    last_said = time.perf_counter()
                    say(f"{start + len(rows)}/{len(todo)} kernels, {last_said - t_start:.0f} s", flush=True)
        finally:
            if warmer:
                say(warmer.summary(), flush=True)
                warmer.close()
    return written


def time_kernel(k: dict, tmp: Path, env: dict, settings: str, warmup_ms: int, rep_ms: int,
                graph_rep_ms: int | None, dry_run: bool, command: str) -> dict:
    """One kernel's row: timed (or, in a dry run, loaded and checked only); an error becomes the row's."""
    row = {"kernel_id": k["kernel_id"], "program_id": k["program_id"], "latency_us": None, "n_regs": None,
           "n_spills": None, "error": None, "command": command,
           "created_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), **env}
    which = None
    try:
        module = load_source(k["triton_src"], tmp)
        if not dry_run:
            timed = profile_one(module, warmup_ms, rep_ms, graph_rep_ms)
            which = timed.pop("which")
            row.update(timed)
        row["status"] = "dry-run" if dry_run else "ok"
    except Exception as err:  # one bad kernel never stops the campaign
        row.update(status="error", error=f"{type(err).__name__}: {err}"[:2000])
    row["bench"] = bench_column(settings, which)
    return row


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", help="dataset directory (Parquet shards from costfuse-data generate)")
    p.add_argument("--out", required=True, help="where latency rows go (Parquet); a rerun resumes from them")
    p.add_argument("--programs", type=int, default=None,
                   help="only the first N programs of the timing order (whole programs; default: all)")
    p.add_argument("--kinds", default="", help="comma-separated kinds (the dataset's family column; default: all)")
    p.add_argument("--batch", type=int, default=DEFAULT_BATCH,
                   help=f"kernels per output shard: a kill loses at most these (default {DEFAULT_BATCH})")
    p.add_argument("--warmup-ms", type=int, default=DEFAULT_WARMUP_MS,
                   help=f"do_bench warm-up time per kernel, ms (default {DEFAULT_WARMUP_MS})")
    p.add_argument("--rep-ms", type=int, default=DEFAULT_REP_MS,
                   help=f"do_bench timed repetitions per kernel, ms; the median is kept (default {DEFAULT_REP_MS})")
    p.add_argument("--graph-rep-ms", type=int, default=None,
                   help=f"do_bench_cudagraph time per replay (10 replays) for kernels under {TINY_US:g} us, ms "
                        "(default: --rep-ms)")
    p.add_argument("--jobs", type=int, default=0,
                   help="processes that compile the pending kernels ahead of the timed loop (GPU; default 0: none)")
    p.add_argument("--budget-s", type=float, default=None,
                   help="start no batch that would end later than this many seconds from the start (default: none)")
    p.add_argument("--dry-run", action="store_true", help="read, key, order, load and write, but touch no GPU")


def main_from_args(args: argparse.Namespace) -> int:
    t0 = time.perf_counter()
    kinds = [x for x in args.kinds.split(",") if x] or None
    n = run(args.dir, args.out, args.programs, args.batch, args.warmup_ms, args.rep_ms, args.dry_run,
            command=shlex.join(["costfuse-data", "profile", *sys.argv[2:]]) if sys.argv[1:2] == ["profile"]
            else shlex.join(sys.argv), kinds=kinds, jobs=args.jobs, budget_s=args.budget_s,
            graph_rep_ms=args.graph_rep_ms)
    print(f"wrote {n} rows in {time.perf_counter() - t0:.0f} s to {args.out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python data/profile.py", description=__doc__.splitlines()[0])
    add_arguments(p)
    try:
        return main_from_args(p.parse_args(argv))
    except ContextLost as err:   # the campaign reruns on exit 3 while time is left
        print(f"error: {err}", file=sys.stderr)
        return EXIT_CONTEXT_LOST
    except (ValueError, RuntimeError) as err:   # a kind the dataset lacks; no CUDA device
        print(f"error: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())

"""``python experiments/gpu_run.py DIR --out RESULTS``: time every policy's kernels on real workloads (issue #14).

The GPU side of ``experiments/gpu_workloads.py``.  The GPU machine has
torch, triton, numpy, pandas and pyarrow and no CostFuse install
(docs/design.md §5), so this module imports only those and the standard
library, and loads two files of the checkout by path: the torch blocks
(``experiments/workloads/blocks.py``, which imports only torch) and
``data/profile.py`` (the dataset profiler, for its environment record,
``bench``, do_bench defaults and the warm-up of one kernel).  ``DIR`` is
what ``gpu_workloads.py prepare`` wrote on the CPU: per workload, the block
to build and each policy's ``plan.json`` with its lowered Triton kernels
(``experiments/gpu_plan.py``).

For every workload: seeded inputs, eager torch's outputs, then each
policy's plan run step by step (every kernel through its source's
``launch``), its outputs checked against eager torch at the repo's
tolerances, each kernel timed by ``profile.bench`` (``do_bench``, median;
kernels under ``profile.TINY_US`` re-timed with ``do_bench_cudagraph``, since a
launch-bound kernel's event pair costs more than its work) and summed, and
the whole plan timed back to back; ``torch.compile(block)`` (Inductor) and
eager torch timed the same way as peers.  One Parquet file per workload,
written atomically: a rerun skips finished workloads.  ``--jobs N``
compiles every kernel and ``torch.compile`` graph in N processes first (they
fill Triton's and Inductor's on-disk caches), so the timed loop compiles
little.  ``--budget-s`` stops before a workload that would start later.

``--dry-run`` runs on a CPU: kernels under ``TRITON_INTERPRET`` on CPU
tensors, outputs checked, rows written with no latency (null, never a
made-up figure).  Run it as ``gpu_workloads.py run --dry-run``, which adds
``costfuse.data.interpret``'s fix for the interpreter's bf16 casts.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import importlib.util
import json
import os
import shlex
import sys
import time
from pathlib import Path

import pyarrow as pa

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

# costfuse/reference.py TOLERANCES as (rtol, atol), by torch dtype name: copied as plain numbers, since this
# module imports nothing of CostFuse (tests/experiments/test_gpu_workloads.py holds them equal).  Integers and
# bool: exact.
TOLERANCES = {"float64": (1e-10, 1e-12), "float32": (1e-5, 1e-5), "float16": (1e-2, 1e-2), "bfloat16": (5e-2, 5e-2)}
SEED = 0
EAGER, COMPILE = "eager", "torch.compile"
SCHEMA = pa.schema([
    ("workload", pa.string()), ("policy", pa.string()), ("status", pa.string()), ("error", pa.string()),
    ("check", pa.string()), ("max_abs_err", pa.float64()), ("outside_tol", pa.int64()),
    ("kernels", pa.int64()), ("latency_us", pa.float64()), ("plan_us", pa.float64()), ("first_call_s", pa.float64()),
    ("kernel_detail", pa.string()), ("dry_run", pa.bool_()),
    ("gpu_name", pa.string()), ("torch_version", pa.string()), ("triton_version", pa.string()),
    ("cuda_version", pa.string()), ("bench", pa.string()), ("created_at", pa.string()), ("command", pa.string()),
])


class PlanFileError(ValueError):
    """A prepared file that cannot be run; the message starts with the file's path."""


def load_by_path(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


profile = load_by_path(REPO / "data" / "profile.py", "gpu_run_profile")


# ---------------------------------------------------------------------------
# Reading and checking the prepared folder (before any GPU time is spent)

STEP_KEYS = {"full": ("result", "shape", "dtype", "value"), "reshape": ("args", "result", "shape"),
             "kernel": ("source", "inputs", "outputs", "results")}


def read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise PlanFileError(f"{path}: {type(err).__name__}: {err}") from None


def check_plan(path: Path) -> dict:
    """``path``'s plan, every id defined before use and every kernel file present; else :class:`PlanFileError`."""
    plan = read_json(path)

    def bad(why: str):
        raise PlanFileError(f"{path}: {why}")

    for key in ("inputs", "steps", "returns"):
        if not isinstance(plan.get(key), list):
            bad(f"no {key!r} list")
    defined = {x.get("id") for x in plan["inputs"]}
    for n, step in enumerate(plan["steps"]):
        keys = STEP_KEYS.get(step.get("op"))
        if keys is None:
            bad(f"step {n}: unknown op {step.get('op')!r}")
        if missing := [k for k in keys if k not in step]:
            bad(f"step {n} ({step['op']}): missing {', '.join(missing)}")
        used = step.get("args", []) + step.get("inputs", []) + [o.get("init") for o in step.get("outputs", [])]
        if undefined := [i for i in used if i is not None and i not in defined]:
            bad(f"step {n} ({step['op']}): reads {', '.join(undefined)} before any step defines it")
        if step["op"] == "kernel" and not (path.parent / step["source"]).is_file():
            bad(f"step {n}: kernel source {step['source']} is missing")
        defined |= set(step["results"]) if step["op"] == "kernel" else {step["result"]}
    if undefined := [i for i in plan["returns"] if i not in defined]:
        bad(f"returns {', '.join(undefined)}, which no step defines")
    return plan


def read_prepared(root: Path, only: set[str] | None = None) -> tuple[dict, dict[str, dict[str, dict]]]:
    """(manifest, {workload: {policy: plan}}) of a prepared folder, every plan checked."""
    manifest = read_json(root / "manifest.json")
    plans = {}
    for name, w in manifest.get("workloads", {}).items():
        if only is None or name in only:
            plans[name] = {p: check_plan(root / name / d / "plan.json") for p, d in w["policies"].items()}
    return manifest, plans


# ---------------------------------------------------------------------------
# Tensors


def torch_dtype(name: str):
    import torch

    return getattr(torch, name)


def make_inputs(specs: list[dict], non_negative: list[int], device: str) -> list:
    """Seeded inputs: floats uniform in [-2, 2), integers in [0, 4) (as the workload export draws labels),
    bool a fair coin; ``non_negative`` ones as absolute values (AdamW's second moment)."""
    import torch

    gen = torch.Generator(device=device).manual_seed(SEED)
    out = []
    for i, s in enumerate(specs):
        t = torch.empty(s["shape"], dtype=torch_dtype(s["dtype"]), device=device)
        if t.is_floating_point():
            t.uniform_(-2.0, 2.0, generator=gen)
        elif t.dtype == torch.bool:
            t.copy_(torch.rand(s["shape"], generator=gen, device=device) < 0.5)
        else:
            t.random_(0, 4, generator=gen)
        out.append(t.abs_() if i in non_negative else t)
    return out


def compare(expected: list, actual: list) -> tuple[bool, str, float | None, int | None]:
    """(match, what differs, max abs error, elements outside tolerance) of ``actual`` against eager torch."""
    import torch

    if len(expected) != len(actual):
        return False, f"{len(actual)} outputs, eager torch gives {len(expected)}", None, None
    worst, outside, notes = 0.0, 0, []
    for i, (e, a) in enumerate(zip(expected, actual)):
        if tuple(e.shape) != tuple(a.shape) or e.dtype != a.dtype:
            return False, f"output {i}: {tuple(a.shape)} {a.dtype}, eager {tuple(e.shape)} {e.dtype}", None, None
        rtol, atol = TOLERANCES.get(str(e.dtype).removeprefix("torch."), (0.0, 0.0))
        e64, a64 = e.detach().double(), a.detach().double()
        ok = torch.isclose(a64, e64, rtol=rtol, atol=atol, equal_nan=True)
        diff = (a64 - e64).abs()   # NaN on one side only: the worst error; on both: none
        diff = torch.where(ok & diff.isnan(), torch.zeros_like(diff), diff.nan_to_num(nan=float("inf")))
        bad = int((~ok).sum())
        err = float(diff.max()) if e.numel() else 0.0
        worst, outside = max(worst, err), outside + bad
        if bad:
            notes.append(f"output {i} ({e.dtype}): {bad}/{e.numel()} outside rtol={rtol:g}, atol={atol:g}, "
                         f"max abs err {err:.3g}")
    return not outside, "; ".join(notes) or "match", worst, outside


def as_list(out) -> list:
    return list(out) if isinstance(out, (tuple, list)) else [out]


# ---------------------------------------------------------------------------
# Running a plan


def load_kernels(folder: Path, plan: dict, tag: str) -> dict:
    """The plan's kernel modules, imported from their files (Triton reads ``@jit`` source from real files)."""
    mods = {}
    for step in plan["steps"]:
        if step["op"] == "kernel" and step["source"] not in mods:
            path = folder / step["source"]
            try:
                mods[step["source"]] = load_by_path(path, f"gpu_run_{tag}_{path.stem}")
            except Exception as err:
                raise PlanFileError(f"{path}: {type(err).__name__}: {err}") from None
    return mods


def _value(v):
    return float(v) if isinstance(v, str) else v   # "inf", "-inf", "nan" as JSON strings


def execute(folder: Path, plan: dict, mods: dict, inputs: list, device: str, launch: bool = True) -> tuple[list, list]:
    """Run the plan once: (its returned tensors, one (step, module, tensors, compiled kernel) per launch).
    ``launch=False`` (on torch's meta device): every shape and dtype checked, no kernel run."""
    import torch

    values = {}
    for spec, t in zip(plan["inputs"], inputs):
        if list(t.shape) != spec["shape"] or str(t.dtype) != f"torch.{spec['dtype']}":
            raise PlanFileError(f"{folder / 'plan.json'}: input {spec['id']} is {spec['shape']} {spec['dtype']}, "
                                f"the block takes {list(t.shape)} {t.dtype}")
        values[spec["id"]] = t
    launches = []
    for step in plan["steps"]:
        if step["op"] == "full":
            values[step["result"]] = torch.full(step["shape"], _value(step["value"]),
                                                dtype=torch_dtype(step["dtype"]), device=device)
        elif step["op"] == "reshape":
            values[step["result"]] = values[step["args"][0]].reshape(step["shape"])
        else:
            mod = mods[step["source"]]
            ins = [values[i].contiguous() for i in step["inputs"]]
            outs = [values[o["init"]].clone() if o["init"] is not None else
                    torch.empty(shape, dtype=torch_dtype(dtype), device=device)
                    for o, (_, shape, dtype) in zip(step["outputs"], mod.OUTPUTS)]
            for t, (name, shape, dtype) in zip(ins + outs, list(mod.INPUTS) + list(mod.OUTPUTS)):
                if tuple(t.shape) != tuple(shape) or t.dtype != torch_dtype(dtype):
                    raise PlanFileError(f"{folder / step['source']}: {name} is {tuple(shape)} {dtype}, "
                                        f"the plan passes {tuple(t.shape)} {t.dtype}")
            compiled = mod.launch(*ins, *outs) if launch else None
            launches.append((step, mod, ins + outs, compiled))
            values.update(zip(step["results"], outs))
    return [values[r] for r in plan["returns"]], launches


def check_shapes(root: Path, only: set[str] | None = None) -> list[str]:
    """Every plan of ``root`` on torch's meta device (no data, no kernel run, seconds at LLM sizes): each
    kernel's ``INPUTS``/``OUTPUTS`` against the tensors the plan passes, and the returned shapes and dtypes
    against eager torch's.  Returns the problems found, one line each."""
    import torch

    manifest, plans = read_prepared(Path(root), only)
    problems = []
    with torch.device("meta"):
        for name, by in plans.items():
            w = manifest["workloads"][name]
            inputs = [torch.empty(s["shape"], dtype=torch_dtype(s["dtype"])) for s in w["inputs"]]
            want = [(tuple(t.shape), t.dtype) for t in as_list(build_block(w["block"])(*inputs))]
            for policy, plan in by.items():
                folder = Path(root) / name / w["policies"][policy]
                try:
                    outs, _ = execute(folder, plan, load_kernels(folder, plan, "meta"), inputs, "meta", launch=False)
                except PlanFileError as err:
                    problems.append(str(err))
                    continue
                if (got := [(tuple(t.shape), t.dtype) for t in outs]) != want:
                    problems.append(f"{folder / 'plan.json'}: returns {got}, eager torch {want}")
    return problems


# ---------------------------------------------------------------------------
# Timing


def _sync(device: str) -> None:
    if device == "cuda":
        import torch

        torch.cuda.synchronize()


# ---------------------------------------------------------------------------
# One workload


def build_block(spec: dict):
    blocks = load_by_path(REPO / spec["module"], "gpu_run_blocks")
    return getattr(blocks, spec["class"])(**spec.get("args", {}))


def run_policy(name: str, folder: Path, plan: dict, inputs: list, expected: list, device: str, timed: bool,
               warmup_ms: int, rep_ms: int) -> dict:
    t0 = time.perf_counter()
    mods = load_kernels(folder, plan, f"{name}_{folder.name}")
    outs, launches = execute(folder, plan, mods, inputs, device)
    _sync(device)
    row = {"first_call_s": time.perf_counter() - t0, "kernels": len(launches)}
    row.update(check_row(expected, outs))
    detail = []
    for step, mod, tensors, compiled in launches:
        k = {"source": step["source"], "kernel": step.get("kernel"), "mode": step.get("mode"),
             "config": step.get("config"), "us": None, "bench": None,
             "n_regs": getattr(compiled, "n_regs", None), "n_spills": getattr(compiled, "n_spills", None)}
        if timed:
            k["us"], k["bench"] = profile.bench(lambda: mod.launch(*tensors), warmup_ms, rep_ms)
        detail.append(k)
    row["kernel_detail"] = json.dumps(detail)
    if timed:
        row["latency_us"] = sum(k["us"] for k in detail)
        row["plan_us"], _ = profile.bench(lambda: [mod.launch(*t) for _, mod, t, _ in launches], warmup_ms, rep_ms)
    return row


def check_row(expected: list, actual: list) -> dict:
    match, check, err, outside = compare(expected, actual)
    return {"status": "ok" if match else "mismatch", "check": check, "max_abs_err": err, "outside_tol": outside}


def fresh_compile(block):
    """``torch.compile(block)`` after ``torch._dynamo.reset()``: blocks share code (``grads``, ``rms_norm``), so
    without a reset a later workload would recompile the same frames with dynamic shapes, and past dynamo's
    recompile limit (8) silently run eager."""
    import torch

    torch._dynamo.reset()
    return torch.compile(block)


def run_workload(root: Path, name: str, w: dict, plans: dict, device: str, timed: bool, compile_peer: bool,
                 warmup_ms: int, rep_ms: int) -> list[dict]:
    """Every row of one workload: eager, each policy, torch.compile."""
    import torch

    block = build_block(w["block"])
    inputs = make_inputs(w["inputs"], w.get("non_negative", []), device)
    t0 = time.perf_counter()
    expected = [t.detach() for t in as_list(block(*inputs))]
    _sync(device)
    rows = [{"policy": EAGER, "status": "ok", "check": "reference", "first_call_s": time.perf_counter() - t0}]
    if timed:
        rows[0]["latency_us"], bench_name = profile.bench(lambda: block(*inputs), warmup_ms, rep_ms)
        rows[0]["kernel_detail"] = json.dumps([{"bench": bench_name}])
    for policy, plan in plans.items():
        row = {"policy": policy}
        try:
            row.update(run_policy(name, root / name / w["policies"][policy], plan, inputs, expected, device,
                                  timed, warmup_ms, rep_ms))
        except Exception as err:   # one failing policy never stops the campaign
            row.update(status="error", error=f"{type(err).__name__}: {err}"[:2000])
        rows.append(row)
        if device == "cuda":
            torch.cuda.empty_cache()
    if compile_peer:
        row = {"policy": COMPILE}
        try:
            compiled = fresh_compile(block)
            t0 = time.perf_counter()
            got = as_list(compiled(*inputs))
            _sync(device)
            row.update(first_call_s=time.perf_counter() - t0, **check_row(expected, got))
            if timed:
                row["latency_us"], bench_name = profile.bench(lambda: compiled(*inputs), warmup_ms, rep_ms)
                row["kernel_detail"] = json.dumps([{"bench": bench_name}])
        except Exception as err:
            row.update(status="error", error=f"{type(err).__name__}: {err}"[:2000])
        rows.append(row)
    return rows


# ---------------------------------------------------------------------------
# Warm-up: compile everything in parallel first (GPU only)


def _warm_init() -> None:
    os.environ["TORCHINDUCTOR_COMPILE_THREADS"] = "1"   # N processes already share the cores


def _warm_one(args: tuple) -> tuple[str, float, str]:
    """Compile one workload's kernels (``profile.warm_module``: no launch, no memory) and its torch.compile graph
    on the GPU, into the on-disk caches the timed run reads.  Returns (workload, seconds, first error or "");
    a failure here only leaves that compile to the timed loop."""
    root, name, compile_peer = args
    t0, errors = time.perf_counter(), []
    try:
        import torch

        manifest, plans = read_prepared(Path(root), {name})
        w = manifest["workloads"][name]
        for policy, plan in plans[name].items():
            for step in (s for s in plan["steps"] if s["op"] == "kernel"):
                try:
                    profile.warm_module(load_by_path(Path(root) / name / w["policies"][policy] / step["source"],
                                                     "warm"))
                except Exception as err:
                    errors.append(f"{policy}/{step['source']}: {type(err).__name__}: {err}")
        if compile_peer:
            torch.set_default_device("cuda")
            fresh_compile(build_block(w["block"]))(*make_inputs(w["inputs"], w.get("non_negative", []), "cuda"))
            torch.cuda.synchronize()
    except Exception as err:
        errors.append(f"{type(err).__name__}: {err}")
    return name, time.perf_counter() - t0, (f"{len(errors)} failed, first: {errors[0]}"[:300] if errors else "")


def warm(root: Path, names: list[str], jobs: int, compile_peer: bool, timeout_s: float) -> None:
    """``_warm_one`` for every workload in ``jobs`` spawned processes, given up after ``timeout_s``."""
    import multiprocessing as mp

    t0 = time.perf_counter()
    pool = mp.get_context("spawn").Pool(jobs, initializer=_warm_init)
    try:
        results = pool.imap_unordered(_warm_one, [(str(root), n, compile_peer) for n in names])
        for _ in names:
            name, s, err = results.next(timeout=max(1.0, timeout_s - (time.perf_counter() - t0)))
            print(f"warm {name}: {s:.0f} s" + (f" ({err})" if err else ""), flush=True)
        pool.close()
    except mp.TimeoutError:
        print(f"warm-up stopped after {timeout_s:.0f} s; the rest compiles in the timed loop", flush=True)
    finally:
        pool.terminate()
        pool.join()
    print(f"warm-up: {time.perf_counter() - t0:.0f} s", flush=True)


# ---------------------------------------------------------------------------
# The campaign


def write_rows(out: Path, name: str, rows: list[dict]) -> Path:
    """Atomically write ``rows`` as ``out/name.parquet``."""
    return profile.write_rows(out, name, rows, schema=SCHEMA)


def interpret_scope():
    """Triton's interpreter for the block (the plain one: its bf16 casts truncate; see the module docstring)."""
    import triton

    scope = triton.knobs.runtime.scope()

    @contextlib.contextmanager
    def on():
        with scope:
            triton.knobs.runtime.interpret = True
            yield

    return on()


def run(root, out, only=None, warmup_ms=profile.DEFAULT_WARMUP_MS, rep_ms=profile.DEFAULT_REP_MS, dry_run=False,
        compile_peer=True, jobs=0, warm_timeout_s=300.0, budget_s=None, command="", interpreter=None) -> int:
    """Run every pending workload of the prepared folder ``root``; return how many were written."""
    import torch

    t_start = time.perf_counter()
    root, out = Path(root), Path(out)
    manifest, plans = read_prepared(root, set(only) if only else None)
    done = {p.stem for p in out.glob("*.parquet")} if out.is_dir() else set()
    todo = [n for n in plans if n not in done]
    env = profile.environment(dry_run)
    if not dry_run and env["gpu_name"] is None:
        raise RuntimeError("no CUDA device: run on the GPU machine, or pass --dry-run")
    device = "cpu" if dry_run else "cuda"
    print(f"{len(todo)} workloads to run ({len(done)} done) on {env['gpu_name'] or 'cpu (dry run)'}", flush=True)
    if jobs and todo and not dry_run:
        warm(root, todo, jobs, compile_peer, warm_timeout_s)
    torch.set_default_device(device)   # the blocks build masks and ALiBi slopes with factory calls
    base = {"bench": profile.bench_settings(warmup_ms, rep_ms), "command": command, "dry_run": dry_run, **env}
    written = 0
    for name in todo:
        if budget_s is not None and time.perf_counter() - t_start > budget_s:
            print(f"budget of {budget_s:.0f} s spent: stopping before {name}; rerun to resume", flush=True)
            break
        t0 = time.perf_counter()
        scope = (interpreter or interpret_scope)() if dry_run else contextlib.nullcontext()
        with scope:
            rows = run_workload(root, name, manifest["workloads"][name], plans[name], device, not dry_run,
                                compile_peer, warmup_ms, rep_ms)
        stamp = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
        write_rows(out, name, [{**base, "workload": name, "created_at": stamp, **r} for r in rows])
        written += 1
        worst = [f"{r['policy']}: {r['status']}" for r in rows if r["status"] != "ok"]
        print(f"{name}: {time.perf_counter() - t0:.1f} s" + (f" ({'; '.join(worst)})" if worst else ""), flush=True)
    return written


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", help="the prepared folder (gpu_workloads.py prepare --out DIR)")
    p.add_argument("--out", help="results folder (one Parquet file per workload; not needed with --check-shapes)")
    p.add_argument("--only", default="", help="comma-separated workload names (default: all prepared)")
    p.add_argument("--warmup-ms", type=int, default=profile.DEFAULT_WARMUP_MS,
                   help="do_bench warm-up per timing, ms (default %(default)s)")
    p.add_argument("--rep-ms", type=int, default=profile.DEFAULT_REP_MS,
                   help="do_bench repetitions per timing, ms; the median is kept (default %(default)s)")
    p.add_argument("--no-compile", action="store_true", help="skip the torch.compile peer")
    p.add_argument("--jobs", type=int, default=0, help="processes that compile everything first (GPU; default 0)")
    p.add_argument("--warm-timeout-s", type=float, default=300.0, help="give the warm-up up after this (default 300)")
    p.add_argument("--budget-s", type=float, default=None, help="start no workload after this many seconds")
    p.add_argument("--dry-run", action="store_true", help="CPU: interpret the kernels, check, write no latency")
    p.add_argument("--check-shapes", action="store_true",
                   help="only check every plan's shapes and dtypes on torch's meta device (any size, seconds)")


def main_from_args(args: argparse.Namespace, command: str, interpreter=None) -> int:
    t0 = time.perf_counter()
    only = {x for x in args.only.split(",") if x} or None
    try:
        if args.check_shapes:
            problems = check_shapes(Path(args.dir), only)
            print("\n".join(problems) or f"every plan in {args.dir} fits its kernels and eager torch's outputs")
            return 1 if problems else 0
        if not args.out:
            raise PlanFileError("--out RESULTS is needed to run")
        n = run(args.dir, args.out, sorted(only) if only else None, args.warmup_ms, args.rep_ms,
                args.dry_run, not args.no_compile, args.jobs, args.warm_timeout_s, args.budget_s, command,
                interpreter)
    except (PlanFileError, RuntimeError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"wrote {n} workloads in {time.perf_counter() - t0:.0f} s to {args.out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python experiments/gpu_run.py", description=__doc__.splitlines()[0])
    add_arguments(p)
    args = p.parse_args(argv)
    return main_from_args(args, shlex.join(["python", "experiments/gpu_run.py", *(sys.argv[1:] if argv is None
                                                                                     else argv)]))


if __name__ == "__main__":
    sys.exit(main())

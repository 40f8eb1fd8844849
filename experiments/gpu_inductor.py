"""``python experiments/gpu_inductor.py OUT [--dry-run]``: the workload blocks under torch.compile, timed (issue #25).

The GPU part of issue #25, run on the GPU machine by ``experiments/gpu_inductor.sh``.
For every workload block (``experiments/workloads/export.py``'s
:data:`WORKLOADS` at :data:`LLM` sizes; long-row norms, softmaxes and
cross-entropies first, the goal's blocks), four compiles of the same module:

* ``default``: ``torch.compile(block)``;
* ``max-autotune``: ``mode="max-autotune-no-cudagraphs"`` (its larger
  candidate lists, timed by Inductor; no CUDA graphs, so every variant
  launches alike);
* ``pin`` and ``prune``: ``torch.compile(block)`` under
  ``costfuse.inductor.install(mode=...)``.

Each is checked against eager torch (bf16 5e-2, f32 1e-4; a variant that
disagrees is reported, not timed) and timed with ``triton.testing.do_bench``
(median).  One JSON line per block and variant goes to ``OUT/inductor_gpu.jsonl``
as soon as it is measured, and ``OUT/inductor_gpu.md`` states the goals: >= 1.2x
faster than ``default`` on the long-row norm, softmax and cross-entropy blocks,
never more than 2% slower on any block.  ``--budget-s`` stops before a block
that would start later.

A GPU session's device time is short, so a run resumes: rows already in
``OUT/inductor_gpu.jsonl`` and in each ``--prior`` file (rows an earlier call or
session returned, committed under ``data/gpu_rows/``) count, a block whose four
variants were all measured on a GPU is skipped, and the report covers every
measured block.  A block measured only in part is measured again, all four
variants in one run, so its ratios never mix two runs.  Each row records its GPU,
torch version and date.

The GPU machine has no CostFuse install (docs/design.md §5): :func:`use_checkout`
imports CostFuse from this checkout, mapping ``costfuse.data``,
``costfuse.featurize`` and ``costfuse.train`` to their folders as
``pyproject.toml`` does; the handler needs only torch, triton and NumPy.

``--dry-run`` (a CPU, no GPU figure): every block is built and its inputs made
on torch's meta device, the handler is installed and removed in each mode,
and every latency is written as null ("not measured").
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
VARIANTS = ("default", "max-autotune", "pin", "prune")
GOAL_KINDS = ("rmsnorm", "layernorm", "softmax", "cross_entropy")   # the long-row blocks of the 1.2x goal
TOL = {"bf16": 5e-2, "f32": 1e-4}


def use_checkout() -> None:
    """Import CostFuse from this checkout when it is not installed (the package-dir mapping of pyproject.toml)."""
    sys.path.insert(0, str(REPO))
    import costfuse

    for sub, folder in (("data", "data"), ("featurize", "featurize"), ("train", "train")):
        name = f"costfuse.{sub}"
        if name in sys.modules:
            continue
        try:
            importlib.import_module(name)
            continue
        except ImportError:
            pass
        spec = importlib.util.spec_from_file_location(name, REPO / folder / "__init__.py",
                                                      submodule_search_locations=[str(REPO / folder)])
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        setattr(costfuse, sub, module)
        spec.loader.exec_module(module)


def workloads() -> list:
    """The workloads, the goal's long-row blocks first (a budget that runs out leaves the rest)."""
    from experiments.workloads.export import WORKLOADS

    return sorted(WORKLOADS, key=lambda w: (not any(w.name.startswith(k) or k in w.name for k in GOAL_KINDS),
                                           w.dtype != "bf16"))


def build(w, device: str):
    """The block of workload ``w`` and seeded inputs at LLM sizes on ``device``."""
    import torch

    from costfuse.torch_import import build_module, load_factory, parse_input, torch_dtype
    from experiments.workloads.export import BLOCKS, LLM

    module = build_module(load_factory(f"{REPO / BLOCKS}:{w.block}"), 0, w.dtype)
    g = torch.Generator(device="cpu").manual_seed(0)
    inputs = []
    for arg in w.shape_args(LLM):
        spec = parse_input(arg)
        dims, dtype = tuple(spec.dims), torch_dtype(spec.dtype or w.dtype)
        if device == "meta":
            inputs.append(torch.empty(dims, dtype=dtype, device="meta"))
        elif dtype == torch.int64:
            inputs.append(torch.randint(0, 2, dims, generator=g).to(device))   # class ids: valid in any vocab
        else:
            inputs.append(torch.randn(dims, generator=g).to(dtype).to(device))
    return module.to(device), inputs


@contextlib.contextmanager
def variant(name: str):
    """What ``torch.compile`` runs under for ``name``: its ``mode`` argument, and the handler when installed."""
    import costfuse.inductor

    if name in ("pin", "prune"):
        with costfuse.inductor.install(mode=name) as inst:
            yield {}, inst.handler
    else:
        yield ({"mode": "max-autotune-no-cudagraphs"} if name == "max-autotune" else {}), None


def measure(w, name: str, dry_run: bool) -> dict:
    """One block under one variant: compile seconds, agreement with eager torch, median milliseconds."""
    import torch

    row = {"block": w.name, "variant": name, "ms": None, "compile_s": None, "ok": None, "handler": None,
           **provenance(dry_run)}
    module, inputs = build(w, "meta" if dry_run else "cuda")
    torch._dynamo.reset()
    with variant(name) as (options, handler):
        if dry_run:
            row["handler"] = None if handler is None else handler.uuid()
            return row
        from triton.testing import do_bench

        compiled = torch.compile(module, **options)
        t0 = time.perf_counter()
        with torch.no_grad():
            got = compiled(*inputs)
            torch.cuda.synchronize()
        row["compile_s"] = round(time.perf_counter() - t0, 2)
        with torch.no_grad():
            want = module(*inputs)
        got, want = (x if isinstance(x, (tuple, list)) else (x,) for x in (got, want))
        tol = TOL.get(w.dtype, 5e-2)
        row["ok"] = all(torch.allclose(a.float(), b.float(), rtol=tol, atol=tol) for a, b in zip(got, want))
        if row["ok"]:
            with torch.no_grad():
                row["ms"] = do_bench(lambda: compiled(*inputs), return_mode="median")
        if handler is not None:
            row["handler"] = {"uuid": handler.uuid(), "stats": dict(handler.stats)}
    return row


def on_gpu(row: dict) -> bool:
    """Whether ``row`` was measured on a GPU (a time, a disagreement with eager torch, or an error there)."""
    return row.get("gpu", "none") != "none" and (row.get("ms") is not None or row.get("ok") is False or "error" in row)


def measured_blocks(rows: list[dict]) -> dict[str, list[dict]]:
    """Block -> its rows, for the blocks whose every variant was measured on a GPU (the last row of each
    variant)."""
    by: dict[str, dict[str, dict]] = {}
    for r in rows:
        if on_gpu(r):
            by.setdefault(r["block"], {})[r["variant"]] = r
    return {b: [vs[v] for v in VARIANTS] for b, vs in by.items() if set(vs) == set(VARIANTS)}


def read_rows(path: Path) -> list[dict]:
    """The JSON lines of ``path`` (none if it does not exist; a torn last line, from a killed run, is skipped)."""
    if not path.is_file():
        return []
    rows = []
    for line in path.read_text().splitlines():
        with contextlib.suppress(json.JSONDecodeError):
            rows.append(json.loads(line))
    return rows


def markdown(rows: list[dict], command: str, dry_run: bool) -> str:
    """The goals and a table of every block's milliseconds per variant (``not measured`` when null)."""
    by = {}
    for r in rows:
        by.setdefault(r["block"], {})[r["variant"]] = r
    out = ["# The workload blocks under torch.compile: Inductor's choices against CostFuse's (issue #25)", "",
           f"Command: `{command}`", "",
           "Run: " + ("dry run on a CPU: nothing was timed, every figure is not measured." if dry_run
                      else f"GPU {_gpu()}, torch {_torch()}."), "",
           "| block | " + " | ".join(f"{v} ms" for v in VARIANTS) + " | pin / default | prune / default | measured |",
           "|---|" + "---|" * (len(VARIANTS) + 3)]
    speed = {"pin": [], "prune": []}
    for block, vs in by.items():
        ms = {v: (vs.get(v) or {}).get("ms") for v in VARIANTS}
        cells = [f"{ms[v]:.4f}" if ms[v] else "not measured" for v in VARIANTS]
        ratios = []
        for mode in ("pin", "prune"):
            if ms["default"] and ms[mode]:
                speed[mode].append((block, ms["default"] / ms[mode]))
                ratios.append(f"{ms['default'] / ms[mode]:.2f}x")
            else:
                ratios.append("not measured")
        first = vs.get("default") or next(iter(vs.values()))
        where = f"{first['gpu']}, torch {first.get('torch', '?')}, {first.get('date', '?')}" if on_gpu(first) else "-"
        out.append(f"| {block} | " + " | ".join(cells + ratios + [where]) + " |")
    out += ["", "## Goals", ""]
    for mode in ("pin", "prune"):
        goal = [s for b, s in speed[mode] if any(k in b for k in GOAL_KINDS)]
        if not speed[mode]:
            out.append(f"- `{mode}`: not measured.")
            continue
        worst = min(s for _, s in speed[mode])
        out.append(f"- `{mode}`: >= 1.2x on the long-row norm, softmax and cross-entropy blocks: "
                   f"{sum(s >= 1.2 for s in goal)} of {len(goal)}; never more than 2% slower: worst {worst:.3f}x "
                   f"({'met' if worst >= 0.98 else '**not met**'}).")
    return "\n".join(out) + "\n"


def provenance(dry_run: bool) -> dict:
    """Where a row was measured: the GPU's name (``none`` in a dry run), torch's version, the UTC date."""
    return {"gpu": "none" if dry_run else _gpu(), "torch": _torch(), "date": time.strftime("%Y-%m-%d", time.gmtime())}


def _gpu() -> str:
    import torch

    return torch.cuda.get_device_name() if torch.cuda.is_available() else "none"


def _torch() -> str:
    import torch

    return torch.__version__


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", help="folder for inductor_gpu.jsonl and inductor_gpu.md")
    ap.add_argument("--dry-run", action="store_true", help="on a CPU: build, install, no timing")
    ap.add_argument("--budget-s", type=float, default=480.0, help="start no block after this many seconds")
    ap.add_argument("--only", default="", help="comma-separated substrings of block names")
    ap.add_argument("--prior", action="append", default=[], help="rows of earlier runs (JSON lines; repeatable)")
    args = ap.parse_args(argv)
    use_checkout()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    log_path = out / "inductor_gpu.jsonl"
    done = measured_blocks([r for p in [log_path, *map(Path, args.prior)] for r in read_rows(p)])
    rows = [r for block_rows in done.values() for r in block_rows]
    n_before = len(rows)
    tmp = log_path.with_suffix(".jsonl.tmp")   # the measured rows so far, then this run's, appended
    tmp.write_text("".join(json.dumps(r) + "\n" for r in rows))
    tmp.replace(log_path)
    start = time.monotonic()
    with open(log_path, "a") as log:
        for w in workloads():
            if args.only and not any(o in w.name for o in args.only.split(",")):
                continue
            if w.name in done:
                continue
            if time.monotonic() - start > args.budget_s:
                print(f"[budget] stop before {w.name}", file=sys.stderr)
                break
            for name in VARIANTS:
                try:
                    row = measure(w, name, args.dry_run)
                except Exception as err:   # one variant's failure is a row, not the end of the run
                    row = {"block": w.name, "variant": name, "ms": None, "error": f"{type(err).__name__}: {err}"[:300],
                           **provenance(args.dry_run)}
                rows.append(row)
                log.write(json.dumps(row) + "\n")
                log.flush()
                print(json.dumps(row), file=sys.stderr, flush=True)
    command = "python experiments/gpu_inductor.py " + " ".join(argv if argv is not None else sys.argv[1:])
    (out / "inductor_gpu.md").write_text(markdown(rows, command, args.dry_run))
    new = rows[n_before:]
    errors = [r for r in new if "error" in r]
    print(f"[resume] {len(done)} blocks measured before, {len({r['block'] for r in new})} in this run",
          file=sys.stderr)
    return 1 if errors and len(errors) == len(new) else 0


if __name__ == "__main__":
    sys.exit(main())

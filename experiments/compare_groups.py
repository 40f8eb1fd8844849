"""Kernel groups on real workloads: every policy side by side, labelled by ptxas (issue #12).

For every workload (``experiments/workloads/*.mlir``) and every policy:

* ``v1 always``: upstream-style elementwise fusion (``--fusion elementwise``),
  one kernel per generic at the heuristic config;
* under ``--fusion groups``: ``always``, ``threshold``, ``analytical``,
  ``inductor`` and ``xla``, each kernel at the config its policy chose;
* IREE's own dispatches (``iree-compile --compile-to=flow``), counted and
  priced, not compiled by us;

it reports kernels, HBM bytes (each kernel's lowering counts its own loads
and stores: docs/groups.md), spilling kernels and spill bytes (Triton 3.6's
own ``ptxas -v`` for the target, on the CPU), how many kernels failed to lower
or compile, and the pass time, all from one run.  It writes
``experiments/RESULTS_groups.md`` and PNG plots beside it.

    python experiments/compare_groups.py [--workloads experiments/workloads] [--jobs 2]
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_report import command_line, conditions  # noqa: E402

GROUP_POLICIES = ("always", "threshold", "analytical", "inductor", "xla")
POLICIES = ("v1 always", *(f"groups {p}" for p in GROUP_POLICIES), "IREE dispatches")


@dataclass
class Outcome:
    """One policy on one workload."""

    kernels: int = 0
    hbm_bytes: int = 0
    spilling: int = 0
    spill_bytes: int = 0
    failed: list[str] = field(default_factory=list)     # kernels that did not lower or compile, with why
    compiled: int = 0
    pass_s: float = float("nan")
    configs: list[str] = field(default_factory=list)

    def row(self) -> list[str]:
        return [str(self.kernels), f"{self.hbm_bytes / 1e6:.1f}", str(self.spilling), f"{self.spill_bytes:,}",
                str(len(self.failed)), "-" if self.pass_s != self.pass_s else f"{self.pass_s:.2f}"]


def model_for(name: str):
    from costfuse.cost_models import MODELS

    return MODELS[name]()


def run_v1(text: str, path: Path):
    """Elementwise fusion as upstream, then one kernel per generic."""
    from costfuse.cost_models import Always
    from costfuse.data.lower import lower_module
    from costfuse.fusion_pass import FusionPass, run_pipeline
    from costfuse.ir import parse_module

    module = parse_module(text, str(path))
    t0 = time.perf_counter()
    run_pipeline(module, FusionPass(Always()))
    dt = time.perf_counter() - t0
    return lower_module(module), dt


def run_groups(text: str, path: Path, policy: str):
    from costfuse.data.lower_kernel import lower_kernels
    from costfuse.group_pass import GroupFusionPass, run_group_pipeline
    from costfuse.ir import parse_module

    module = parse_module(text, str(path))
    t0 = time.perf_counter()
    run_group_pipeline(module, GroupFusionPass(model_for(policy)))
    dt = time.perf_counter() - t0
    return lower_kernels(module), dt


def run_iree(path: Path) -> Outcome:
    from costfuse.iree_flow import iree_dispatches

    d = iree_dispatches(path)
    return Outcome(kernels=len(d), hbm_bytes=sum(x.hbm_bytes for x in d))


def compile_all(reports: dict, arch: int, jobs: int, timeout: float) -> dict:
    """Compile every distinct lowered kernel once; map (policy, index) -> CompileResult."""
    from costfuse.data.compile import CompilePool, CompileTask

    tasks, keys = [], []
    for key, (report, _) in reports.items():
        for i, k in report.kernels:
            tasks.append(CompileTask(k.source, k.config, arch))
            keys.append((key, i))
    print(f"compiling {len(tasks)} kernels for sm_{arch} ...", file=sys.stderr, flush=True)
    done = [0]

    def tick(_i, _res):
        done[0] += 1
        if done[0] % 10 == 0 or done[0] == len(tasks):
            print(f"  {done[0]}/{len(tasks)}", file=sys.stderr, flush=True)

    with CompilePool(jobs, timeout) as pool:
        results = pool.run(tasks, on_result=tick)
    return dict(zip(keys, results))


def outcome(report, pass_s: float, results: dict, key) -> Outcome:
    o = Outcome(kernels=report.total, pass_s=pass_s)
    for i, k in report.kernels:
        o.hbm_bytes += k.hbm_bytes
        res = results[(key, i)]
        if res.status != "ok":
            o.failed.append(f"{getattr(k, 'kernel', i)}: {res.status}")
            continue
        o.compiled += 1
        if res.spill_bytes:
            o.spilling += 1
            o.spill_bytes += res.spill_bytes
        o.configs.append(f"{getattr(k, 'mode', '')} {k.config.short()}")
    for i, err in report.unsupported:
        o.failed.append(f"{i}: unsupported: {err}")
    return o


def study(paths: list[Path], arch: int, jobs: int, timeout: float) -> dict[str, dict[str, Outcome]]:
    out: dict[str, dict[str, Outcome]] = {}
    for path in paths:
        text = path.read_text()
        print(f"== {path.name}", file=sys.stderr, flush=True)
        reports = {"v1 always": run_v1(text, path)}
        for p in GROUP_POLICIES:
            reports[f"groups {p}"] = run_groups(text, path, p)
        results = compile_all(reports, arch, jobs, timeout)
        out[path.stem] = {key: outcome(rep, dt, results, key) for key, (rep, dt) in reports.items()}
        try:
            out[path.stem]["IREE dispatches"] = run_iree(path)
        except Exception as err:   # IREE failing on a workload is a finding, not a crash
            out[path.stem]["IREE dispatches"] = Outcome(failed=[f"iree-compile: {err}"])
    return out


def table(results: dict[str, dict[str, Outcome]]) -> str:
    head = "| workload | policy | kernels | HBM MB | spilling kernels | spill bytes | not compiled | pass s |"
    lines = [head, "|" + "---|" * 8]
    for w, by in results.items():
        for p in POLICIES:
            if p in by:
                lines.append(f"| {w} | {p} | " + " | ".join(by[p].row()) + " |")
    return "\n".join(lines)


def totals(results: dict[str, dict[str, Outcome]]) -> str:
    head = "| policy | kernels | HBM MB | vs v1 HBM | vs v1 kernels | spilling kernels | spill bytes | compiled |"
    lines = [head, "|" + "---|" * 8]
    base_k = sum(by["v1 always"].kernels for by in results.values())
    base_b = sum(by["v1 always"].hbm_bytes for by in results.values())
    for p in POLICIES:
        rows = [by[p] for by in results.values() if p in by]
        k, b = sum(o.kernels for o in rows), sum(o.hbm_bytes for o in rows)
        comp = sum(o.compiled for o in rows)
        lowered = sum(o.kernels for o in rows)
        compiled = "-" if p == "IREE dispatches" else f"{comp}/{lowered} ({100 * comp / max(1, lowered):.1f}%)"
        lines.append(f"| {p} | {k} | {b / 1e6:.1f} | {100 * (b / base_b - 1):+.1f}% | {100 * (k / base_k - 1):+.1f}% | "
                     f"{sum(o.spilling for o in rows)} | {sum(o.spill_bytes for o in rows):,} | {compiled} |")
    return "\n".join(lines)


def plot(results: dict[str, dict[str, Outcome]], out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    names = list(results)
    files = []
    for metric, label, fname in [("hbm_bytes", "HBM bytes vs v1 always", "groups_hbm.png"),
                                 ("kernels", "kernels vs v1 always", "groups_kernels.png")]:
        fig, ax = plt.subplots(figsize=(max(8, len(names) * 0.9), 4.5))
        width = 0.8 / len(POLICIES)
        for j, p in enumerate(POLICIES):
            vals = [getattr(results[w][p], metric) / max(1, getattr(results[w]["v1 always"], metric))
                    if p in results[w] else np.nan for w in names]
            ax.bar(np.arange(len(names)) + j * width, vals, width, label=p)
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_xticks(np.arange(len(names)) + 0.4 - width / 2, names, rotation=45, ha="right", fontsize=8)
        ax.set_ylabel(label)
        ax.legend(fontsize=7, ncol=4)
        fig.tight_layout()
        fig.savefig(out / fname, dpi=110)
        plt.close(fig)
        files.append(out / fname)
    fig, ax = plt.subplots(figsize=(max(8, len(names) * 0.9), 4.5))
    width = 0.8 / (len(POLICIES) - 1)
    for j, p in enumerate(POLICIES[:-1]):
        ax.bar(np.arange(len(names)) + j * width, [results[w][p].spill_bytes + 1 for w in names], width, label=p)
    ax.set_yscale("log")
    ax.set_ylabel("ptxas spill bytes + 1 (sum over kernels)")
    ax.set_xticks(np.arange(len(names)) + 0.4 - width / 2, names, rotation=45, ha="right", fontsize=8)
    ax.legend(fontsize=7, ncol=3)
    fig.tight_layout()
    fig.savefig(out / "groups_spills.png", dpi=110)
    plt.close(fig)
    files.append(out / "groups_spills.png")
    return files


def main(argv: list[str] | None = None) -> int:
    from costfuse.data.compile import DEFAULT_TIMEOUT_S, arch_name, parse_arch, ptxas_version, triton_version

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workloads", default=str(HERE / "workloads"), help="folder of .mlir workloads (default %(default)s)")
    ap.add_argument("--only", default="", help="comma-separated workload names (default: all)")
    ap.add_argument("--arch", default="sm_90", help="compile target (default %(default)s)")
    ap.add_argument("--jobs", type=int, default=2, help="parallel compiles (default %(default)s)")
    ap.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, help="seconds per compile (default %(default)s)")
    ap.add_argument("--out", default=str(HERE / "RESULTS_groups.md"), help="report path (default %(default)s)")
    args = ap.parse_args(argv)
    paths = sorted(Path(args.workloads).glob("*.mlir"))
    if args.only:
        keep = set(args.only.split(","))
        paths = [p for p in paths if p.stem in keep]
    if not paths:
        print(f"compare_groups: no workloads in {args.workloads}", file=sys.stderr)
        return 1
    arch = parse_arch(args.arch)
    t0 = time.perf_counter()
    results = study(paths, arch, args.jobs, args.timeout)
    out = Path(args.out)
    (out.parent / "results").mkdir(parents=True, exist_ok=True)
    figs = plot(results, out.parent / "results")
    failed = [(w, p, f) for w, by in results.items() for p, o in by.items() for f in o.failed]
    text = "\n".join([
        "# Kernel groups on real workloads",
        "",
        f"Generated by `{command_line('compare_groups.py', argv)}` in {time.perf_counter() - t0:.0f} s.",
        f"Conditions: {conditions()}. Labels: Triton {triton_version()}, ptxas {ptxas_version(arch)}, "
        f"{arch_name(arch)}, compiled on the CPU. No GPU: no latency figure here.",
        "",
        "HBM bytes: each kernel's lowering counts its own loads (× passes) and stores (docs/groups.md); IREE's "
        "dispatches are priced the same way from their operand and result types. Spill bytes: ptxas spill "
        "stores + loads per thread, summed over kernels.",
        "",
        "## Totals over all workloads",
        "",
        totals(results),
        "",
        "## Per workload",
        "",
        table(results),
        "",
        "## Plots",
        "",
        *[f"![{f.stem}](results/{f.name})" for f in figs],
        "",
        "## Kernels that did not lower or compile",
        "",
        *([f"- {w}, {p}: {f}" for w, p, f in failed] or ["None."]),
        "",
    ])
    out.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

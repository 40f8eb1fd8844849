"""Time the group-at-launch features (issue #13's budget: <= 1 ms per group for ~30 configs).

Corpus: every kernel the ``analytical`` group policy forms on the workloads
(``experiments/workloads/*.mlir``), as :class:`costfuse.kernel.KernelShape`.
For each, :func:`featurize.group_features.group_features` featurizes its
first 30 configs and, separately, its whole config space
(``costfuse.launch.config_space``) in one call, static part included.
Reported: median and 95th percentile over groups of the median of
``--repeats`` timings, and, as the same-run anchor (docs/design.md §8),
``analyze_kernel`` on the same members -- what formation pays anyway to
have the shape.

    python experiments/bench_group_features.py [--repeats 5] [--report PATH]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_report import add_report_arg, command_line, conditions, emit  # noqa: E402


def shapes() -> list:
    """(workload, members, shape) of every row kernel the analytical policy outlines on the workloads."""
    from costfuse.data.lowering.kernel_function import kernel_functions, kernel_members

    from costfuse.cost_models.analytical import Analytical
    from costfuse.group_pass import GroupFusionPass, run_group_pipeline
    from costfuse.ir import parse_module
    from costfuse.kernel import NotAKernel, analyze_kernel

    out = []
    for path in sorted((HERE / "workloads").glob("*.mlir")):
        module = parse_module(path.read_text(), str(path))
        run_group_pipeline(module, GroupFusionPass(Analytical()))
        for f in kernel_functions(module):
            members = kernel_members(f)
            try:
                out.append((path.stem, members, analyze_kernel(members), module))
            except NotAKernel:
                continue
    return out


def _median_s(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    from costfuse.featurize.group_features import group_features

    from costfuse.kernel import analyze_kernel
    from costfuse.launch import config_space

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5, help="timings per group; the median is kept (default 5)")
    add_report_arg(ap, "bench_group_features")
    args = ap.parse_args(argv)
    cond = conditions()
    corpus = shapes()
    t30, tall, tana, sizes = [], [], [], []
    for _, members, shape, _ in corpus:
        space = config_space(shape)
        sizes.append(len(space))
        group_features(shape, space[:30])   # warm: imports, type spellings
        t30.append(_median_s(lambda: group_features(shape, space[:30]), args.repeats))
        tall.append(_median_s(lambda: group_features(shape, space), args.repeats))
        tana.append(_median_s(lambda: analyze_kernel(members), args.repeats))

    def ms(xs, q):
        return f"{np.percentile(np.array(xs) * 1e3, q):.3f}"

    text = "\n".join([
        "# Group-at-launch features: time per group",
        "",
        f"Command: `{command_line('bench_group_features.py', argv)}`  ",
        f"Conditions: {cond}",
        "",
        f"{len(corpus)} row kernels (the analytical policy's, on {len({c[0] for c in corpus})} workloads); "
        f"config spaces of {min(sizes)}-{max(sizes)} configs (median {int(np.median(sizes))}).",
        "",
        "| what | median ms | p95 ms |",
        "|---|---|---|",
        f"| `group_features`, 30 configs (goal <= 1 ms) | {ms(t30, 50)} | {ms(t30, 95)} |",
        f"| `group_features`, whole config space | {ms(tall, 50)} | {ms(tall, 95)} |",
        f"| anchor: `analyze_kernel` of the same members | {ms(tana, 50)} | {ms(tana, 95)} |",
        "",
        f"Goal (<= 1 ms per group for ~30 configs, median): {'met' if np.median(t30) <= 1e-3 else 'NOT met'}.",
    ])
    emit(text, args.report)
    return 0


if __name__ == "__main__":
    sys.exit(main())

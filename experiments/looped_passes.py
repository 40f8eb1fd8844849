"""How many times a looped kernel reads its row, on the softmax-like and layer-norm workloads (issue #26
part 3's goal).

For every softmax, log-softmax, cross-entropy and layer-norm workload of ``experiments/workloads/``,
the group pass (``always``: the largest legal groups) forms its kernels; each
row kernel with a reduction is lowered *looped* (one row per program, the
longest chunk its config space allows, 8 warps if allowed).  Reported per
kernel: the sums the pass folds into another reduction's pass (online sums,
``costfuse/online_softmax.py``; Welford variances, ``costfuse/welford.py``), the
passes of the pass's byte model (``KernelShape.n_passes``), the row loops in
the lowered source, how many times the row (the kernel's largest per-row
input) is read, and the issued bytes of the model and of the lowered kernel,
which must agree, there and at every config of the kernel's config space
(``costfuse.launch.config_space``, every mode).  The "without folding" columns are the same kernel with
both switched off, which is how the looped lowering worked before
(and how dataset ``sm90_v2``'s looped rows were compiled).

    .venv/bin/python experiments/looped_passes.py [--ptxas] [--report PATH]

``--ptxas`` also compiles, for sm_90 with ptxas, each kernel that has a
folded sum at its looped launch, with and without folding, and reports
registers and spilled bytes: the online form keeps the sum's accumulator and
the previous max beside the max's in its first pass, the Welford form a
count, a mean and ``m2`` beside the sum's.

Writes ``experiments/results/looped_passes.md``, which docs/groups.md quotes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_report import add_report_arg, command_line, conditions, emit  # noqa: E402

KINDS = ("softmax", "log_softmax", "cross_entropy", "layernorm", "add_layernorm")


def looped_launch(shape):
    """The looped config with one row per program and the longest chunk, at 8 warps when allowed."""
    from costfuse.launch import config_space

    looped = [c for c in config_space(shape) if c.mode == "looped" and c.xblock == 1]
    longest = max(c.rblock for c in looped)
    return max((c for c in looped if c.rblock == longest), key=lambda c: (c.num_warps == 8, -c.num_warps))


def row_reads(shape) -> int:
    """Times a looped kernel reads its largest per-row input (its largest input when none varies
    with the rows, as in a reduction to one scalar)."""
    row = max([i for i in shape.inputs if i.per_row] or shape.inputs, key=lambda i: i.nbytes)
    return shape.passes_reading(row, "looped")


def _ptxas(kernel) -> str:
    from costfuse.data.compile import compile_kernel

    r = compile_kernel(kernel.source, kernel.config, "sm_90", cache=False)
    return f"{r.regs} / {r.spill_store_bytes}" if r.status == "ok" else r.status


def kernels(path: Path, ptxas: bool = False) -> list[dict]:
    """One record per looped-able row kernel that ``always`` outlines for the workload at ``path``
    (with ``ptxas``, the registers and spills of those with a folded sum, with and without folding)."""
    import costfuse.kernel as kernel_module
    from costfuse.cost_models import policy_class
    from costfuse.data.lowering.kernel import lower_kernel
    from costfuse.data.lowering.kernel_function import function_name, kernel_functions, kernel_members
    from costfuse.group_pass import GroupFusionPass, run_group_pipeline
    from costfuse.ir import parse_module
    from costfuse.launch import config_space

    module = parse_module(path.read_text(), str(path))
    run_group_pipeline(module, GroupFusionPass(policy_class("always", "groups")()))
    out = []
    for func in kernel_functions(module):
        members = kernel_members(func)
        try:
            shape = kernel_module.analyze_kernel(members)
        except kernel_module.NotAKernel:
            continue
        if shape.pointwise or shape.reductions == 0:
            continue
        launch = looped_launch(shape)
        lowered = lower_kernel(func, launch)
        space = config_space(shape)
        agree = sum(lower_kernel(func, c).hbm_bytes == shape.issued_bytes(c.mode) for c in space)
        online_sums, welford_sums = kernel_module.online_sums, kernel_module.welford_sums
        kernel_module.online_sums = lambda ops, roles: ()      # the lowering before online softmax
        kernel_module.welford_sums = lambda ops, roles, n: ()  # and before Welford
        try:
            before = kernel_module.analyze_kernel(members)
            lowered_before = lower_kernel(func, launch)
        finally:
            kernel_module.online_sums, kernel_module.welford_sums = online_sums, welford_sums
        folded = len(shape.online) + len(shape.welford)
        out.append({
            "workload": path.stem, "kernel": function_name(func), "members": len(members),
            "online": len(shape.online), "welford": len(shape.welford), "launch": launch.short(),
            "passes": shape.n_passes,
            "loops": lowered.source.count("for roffset in range("), "row_reads": row_reads(shape),
            "issued": shape.issued_bytes("looped"), "lowered": lowered.hbm_bytes,
            "space": len(space), "space_agree": agree,
            "passes_before": before.n_passes, "row_reads_before": row_reads(before),
            "issued_before": before.issued_bytes("looped"), "lowered_before": lowered_before.hbm_bytes,
            "ptxas": _ptxas(lowered) if ptxas and folded else "",
            "ptxas_before": _ptxas(lowered_before) if ptxas and folded else "",
        })
    return out


def report(rows: list[dict], argv: list[str] | None, ptxas: bool = False) -> str:
    lines = ["# Looped passes on the softmax-like and layer-norm workloads", "",
             f"Command: `{command_line('looped_passes.py', argv)}`", "", conditions(), "",
             "Kernels: the group pass's `always` groups of each softmax, log-softmax, cross-entropy and "
             "layer-norm workload; every row kernel with a reduction, lowered looped at one row per program and "
             "the longest chunk (the launch column). Nothing is run: passes, loops and bytes are read "
             "from the pass's model (`KernelShape`) and the lowered source"
             + ("; with `--ptxas`, kernels with a folded sum are compiled for sm_90 (ptxas -v) at that "
                "launch, with and without folding." if ptxas else "."), "",
             "| workload | kernel | members | online sums | Welford sums | looped launch | passes | row loops "
             "| row reads | issued MB (pass = lowered) | configs where pass = lowered "
             "| without folding: passes | row reads | issued MB |"
             + (" sm_90 regs / spill B: folded | without |" if ptxas else ""),
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|" + ("---|---|" if ptxas else "")]
    for r in rows:
        agree = "=" if r["issued"] == r["lowered"] else f"!= {r['lowered'] / 1e6:.1f}"
        agree_before = "" if r["issued_before"] == r["lowered_before"] else f" (lowered {r['lowered_before']})"
        lines.append(f"| {r['workload']} | {r['kernel']} | {r['members']} | {r['online']} | {r['welford']} "
                     f"| {r['launch']} "
                     f"| {r['passes']} | {r['loops']} | {r['row_reads']} | {r['issued'] / 1e6:.1f} {agree} "
                     f"| {r['space_agree']} of {r['space']} | {r['passes_before']} | {r['row_reads_before']} | {r['issued_before'] / 1e6:.1f}"
                     f"{agree_before} |" + (f" {r['ptxas']} | {r['ptxas_before']} |" if ptxas else ""))
    online = [r for r in rows if r["online"]]
    welford = [r for r in rows if r["welford"]]
    most = max((r["row_reads"] for r in rows), default=0)
    agree = sum(r["issued"] == r["lowered"] and r["passes"] == r["loops"] for r in rows)
    saved = sum(r["issued_before"] - r["issued"] for r in rows)
    lines += ["", f"{len(rows)} looped row kernels; {len(online)} with an online sum, {len(welford)} with a "
                  f"Welford sum. Most row reads: {most} "
                  f"(without folding: {max((r['row_reads_before'] for r in rows), default=0)}). "
                  f"Pass model = lowered kernel (bytes and loops) on {agree} of {len(rows)}; issued bytes "
                  f"equal at {sum(r['space_agree'] for r in rows)} of {sum(r['space'] for r in rows)} configs "
                  f"of their config spaces. "
                  f"Issued bytes saved by folding: {saved / 1e6:.1f} MB of "
                  f"{sum(r['issued_before'] for r in rows) / 1e6:.1f} MB.", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ptxas", action="store_true",
                    help="compile the kernels with a folded sum for sm_90, with and without folding")
    add_report_arg(ap, "looped_passes")
    args = ap.parse_args(argv)
    paths = [p for p in sorted((HERE / "workloads").glob("*.mlir")) if p.stem.startswith(KINDS)]
    rows = [r for p in paths for r in kernels(p, args.ptxas)]
    emit(report(rows, argv, args.ptxas), args.report)
    return 0


if __name__ == "__main__":
    sys.exit(main())

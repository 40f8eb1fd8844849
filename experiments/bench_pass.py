"""Time the CostFuse pass against upstream fusion on a 1,000-generic module.

    .venv/bin/python experiments/bench_pass.py [--generics 1000] [--repeats 5] [--report PATH]

Both run in the same process on the same parsed text; we report the median
of ``--repeats`` runs of each (docs/design.md §8: a figure is a ratio against its
anchor, measured in the same run), plus one end-to-end ``costfuse-opt`` call.
Writes its Markdown report to ``experiments/results/bench_pass.md``, the
figures docs/results.md quotes.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from costfuse.data.mlir_text import Program, ident, tensor

from costfuse.cost_models.always import Always
from costfuse.cost_models.analytical import Analytical
from costfuse.cost_models.threshold import Threshold
from costfuse.fusion_pass import FusionPass, run_pipeline
from costfuse.group_pass import GroupFusionPass, run_group_pipeline
from costfuse.ir import parse_module
from costfuse.upstream import count_generics, run_upstream

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_report import add_report_arg, command_line, conditions, emit  # noqa: E402

UNARY = ["math.exp", "math.tanh", "arith.negf", "math.absf", "math.sqrt"]
BINARY = ["arith.addf", "arith.mulf", "arith.subf", "arith.maximumf"]


def chain(p: Program, x: str, ty: str, length: int, rng: random.Random) -> str:
    m, par = ident(2), ["parallel"] * 2
    for _ in range(length):
        op = rng.choice(UNARY)
        x = p.generic([(x, ty, m)], ty, m, par, [f"%r = {op} %a0 : f32", "yield %r"])
    return x


def tree(p: Program, leaves: list[str], ty: str, rng: random.Random) -> str:
    """A balanced fan-in tree of binary generics over unary leaves."""
    m, par = ident(2), ["parallel"] * 2
    level = [chain(p, x, ty, 1, rng) for x in leaves]
    while len(level) > 1:
        a, b, *rest = level
        op = rng.choice(BINARY)
        level = rest + [p.generic([(a, ty, m), (b, ty, m)], ty, m, par, [f"%r = {op} %a0, %a1 : f32", "yield %r"])]
    return level[0]


def build_module(n_generics: int, seed: int = 0) -> str:
    """Functions alternating chains (2-12 generics) and trees (4-8 leaves) until ``n_generics``."""
    rng = random.Random(seed)
    ty = tensor((256, 1024), "f32")
    funcs, total, k = [], 0, 0
    while total < n_generics:
        leaves = rng.randint(4, 8)
        p = Program([(f"%x{i}", ty) for i in range(leaves)])
        if k % 2 == 0:
            out = chain(p, "%x0", ty, min(rng.randint(2, 12), n_generics - total), rng)
        else:
            out = tree(p, [f"%x{i}" for i in range(leaves)], ty, rng)
        text = p.text(out, ty).replace("@main", f"@f{k}")
        total += text.count("linalg.generic")
        funcs.append(text)
        k += 1
    return "\n".join(funcs)


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--generics", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=5)
    add_report_arg(ap, "bench_pass")
    args = ap.parse_args(argv)
    command, conds = command_line("bench_pass.py", argv), conditions()
    text = build_module(args.generics)
    n = count_generics(parse_module(text))
    model = Threshold()
    ours, always, theirs, groups = [], [], [], []
    for _ in range(args.repeats):
        m = parse_module(text)
        groups_pass = GroupFusionPass(Analytical())
        groups.append(timed(lambda: run_group_pipeline(m, groups_pass)))
        n_kernels = len(groups_pass.kernels)
        m = parse_module(text)
        ours.append(timed(lambda: run_pipeline(m, FusionPass(model))))
        n_ours = count_generics(m)
        m = parse_module(text)
        always.append(timed(lambda: run_pipeline(m, FusionPass(Always()))))
        n_always = count_generics(m)
        m = parse_module(text)
        theirs.append(timed(lambda: run_upstream(m)))
        n_up = count_generics(m)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "bench.mlir"
        src.write_text(text)
        cli = [str(Path(sys.executable).parent / "costfuse-opt"), str(src), "-o", str(Path(tmp) / "out.mlir"),
               "--fusion", "elementwise", "--cost-model", "threshold"]
        e2e = timed(lambda: subprocess.run(cli, check=True))
        cli_groups = cli[:4] + ["--cost-model", "analytical"]
        e2e_groups = timed(lambda: subprocess.run(cli_groups, check=True))
    t_ours, t_always, t_up, t_groups = (statistics.median(t) for t in (ours, always, theirs, groups))
    ratio = t_ours / t_up
    emit("\n".join([
        f"# bench_pass\n\n```\n{command}\n```\n",
        f"{conds}; {n} generics; median of {args.repeats} runs of each pipeline, interleaved, in one process.\n",
        "| pipeline | generics after | median s | vs upstream |",
        "|---|---|---|---|",
        f"| costfuse threshold({model.max_chain_length},{model.max_body_ops}) + canonicalize,cse "
        f"| {n_ours} | {t_ours:.3f} | {ratio:.1f}x |",
        f"| costfuse always + canonicalize,cse | {n_always} | {t_always:.3f} | {t_always / t_up:.1f}x |",
        f"| upstream linalg-fuse-elementwise-ops,canonicalize,cse | {n_up} | {t_up:.3f} | 1.0x |",
        f"| costfuse-opt CLI end to end (parse, pass, print, startup; one run) | {n_ours} | {e2e:.3f} | |",
        "",
        "| `--fusion groups` pipeline | kernels after | median s |",
        "|---|---|---|",
        f"| groups analytical (fold, recompute, form, outline) + canonicalize,cse | {n_kernels} | {t_groups:.3f} |",
        f"| costfuse-opt --cost-model analytical end to end (one run) | {n_kernels} | {e2e_groups:.3f} |",
        f"\nGoal (v1): the pass <= 5 s and within 10x of upstream: "
        f"{'met' if t_ours <= 5 and ratio <= 10 else 'NOT met'} (threshold pipeline {t_ours:.2f} s, {ratio:.1f}x).",
        f"Goal (groups, issue #12): <= 10 s on this module: {'met' if t_groups <= 10 else 'NOT met'} "
        f"({t_groups:.2f} s).",
    ]), args.report)


if __name__ == "__main__":
    main()

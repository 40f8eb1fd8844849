"""Time ``featurize.features`` per fused generic (the issue's budget: <= 1 ms on average).

Corpus: every fusion group of ``--seeds`` programs of each family (the
dataset's kernels), each with its heuristic launch config.  Reported: the
median over ``--repeats`` of the mean time per generic for ``features()``,
and, as the anchor measured in the same run (docs/design.md §8), the time to parse
the generic's standalone module text -- what the pass or the trainer pays
anyway to have the op.

    .venv/bin/python experiments/bench_featurize.py [--seeds 4] [--repeats 5] [--report PATH]

Writes its Markdown report to ``experiments/results/bench_featurize.md``, the
figures ``docs/training.md`` quotes.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from costfuse.data.families import FAMILIES, generate
from costfuse.data.edge_groups import enumerate_groups, fuse_group
from costfuse.data.lowering.reference_functions import generic_as_function
from costfuse.featurize.features import analyze_generic, features, find_generic
from iree.compiler import ir

from costfuse.ir import parse_module
from costfuse.launch import heuristic_config

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_report import add_report_arg, command_line, conditions, emit  # noqa: E402


def corpus(seeds: int) -> list[str]:
    """Standalone module texts of every group's fused generic."""
    texts = []
    for family in FAMILIES:
        for seed in range(seeds):
            program = generate(family, seed)
            for group in enumerate_groups(parse_module(program.text)):
                module = parse_module(program.text)
                op = fuse_group(module, group)
                with module.context:
                    texts.append(generic_as_function(op))
    return texts


def per_item_ms(fn, items, repeats: int) -> float:
    """Median over ``repeats`` of the mean milliseconds ``fn(item)`` takes."""
    runs = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for item in items:
            fn(item)
        runs.append((time.perf_counter() - t0) / len(items) * 1e3)
    return statistics.median(runs)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=4, help="programs per family")
    ap.add_argument("--repeats", type=int, default=5)
    add_report_arg(ap, "bench_featurize")
    args = ap.parse_args(argv)
    command, conds = command_line("bench_featurize.py", argv), conditions()

    texts = corpus(args.seeds)
    ctx = ir.Context()
    modules = [ir.Module.parse(t, ctx) for t in texts]
    with ctx:
        ops = [find_generic(m) for m in modules]
        configs = []
        for op in ops:
            s = analyze_generic(op).values
            configs.append(heuristic_config(int(s["xnumel"]), int(s["rnumel"])))
        pairs = list(zip(ops, configs))
        sizes = [analyze_generic(op).values["n_body_ops"] for op in ops]
        feat = per_item_ms(lambda p: features(*p), pairs, args.repeats)
        parse = per_item_ms(lambda t: ir.Module.parse(t, ctx), texts, args.repeats)
        cut = sorted(sizes)[int(0.9 * len(sizes))]
        big = [p for p, n in zip(pairs, sizes) if n >= cut]
        feat_big = per_item_ms(lambda p: features(*p), big, args.repeats)
    emit("\n".join([
        f"# bench_featurize\n\n```\n{command}\n```\n",
        f"{conds}; corpus: {len(ops)} fused generics ({args.seeds} programs x {len(FAMILIES)} families, all groups), "
        f"mean {statistics.mean(sizes):.1f} body ops, max {max(sizes):.0f}; median of {args.repeats} passes.\n",
        "| what | ms per generic |",
        "|---|---|",
        f"| `features()`, all generics | {feat:.3f} |",
        f"| `features()`, largest 10% ({len(big)} generics, >= {cut:.0f} body ops) | {feat_big:.3f} |",
        f"| anchor: parsing the generic's module text | {parse:.3f} |",
        f"\nfeatures / parse = {feat / parse:.2f}x. Goal <= 1 ms per generic on average: "
        f"{'met' if feat <= 1.0 else 'NOT met'}.",
    ]), args.report)


if __name__ == "__main__":
    main()

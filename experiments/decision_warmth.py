"""Where a decision's time goes inside Inductor's codegen: describing the nodes, work done once per kernel, and
a cold first call (issue #25, "<= 2 ms per kernel decision").

``experiments/inductor_report.py`` times each decision as Inductor's codegen makes it, and a reference
decision (``Decider.pick`` on a kernel rebuilt from its stored description, in a loop of its own) before and
after the blocks: inside codegen a decision cost 2.3-3.7 times the reference.  Is Inductor's codegen a slower
place to run (its allocator, its hooks), or is a decision slower there because it runs once, cold?  For
every kernel the handler decides, inside the very hook that decided it, this script times again:

* ``fresh``: the pick on a copy of the described kernel (rebuilt from its fields: nothing cached on it), as
  the reference decision does;
* ``warm``: the pick again on the kernel the decision described (its per-kernel columns, costs and
  liveness already computed);

then the same two once codegen is over, each the median of :data:`LOOP` picks in a loop of their own.  With ``decision`` (the handler's own seconds, checks + description
+ first pick) and ``describe`` (``describe_features`` alone), the medians over the decisions part a
decision into describing, the first pick's cold penalty (``decision - checks - describe - fresh``),
per-kernel work (``fresh - warm``) and the warm pick.

    python experiments/decision_warmth.py [--repeats 3] [--only NAME,...]   # -> experiments/results/decision_warmth.md
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from experiments.bench_report import add_report_arg, command_line, conditions, emit  # noqa: E402

LOOP = 5   # picks per kernel after codegen, in a loop of their own (the median), as the reference decision runs
PARTS = ("decision", "describe", "fresh in codegen", "warm in codegen", "fresh after codegen",
         "warm after codegen")


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def instrumented_handler():
    """A ``pin`` handler whose decisions also record, inside the hook, ``describe`` seconds and the fresh and
    warm picks (``handler.timings``: one dict per decided kernel)."""
    import costfuse.inductor.choices as choices
    from costfuse.featurize.inductor_kernel import kernel_from_dict

    described = []
    original_describe = choices.describe_features

    def describe_features(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return original_describe(*args, **kwargs)
        finally:
            described.append(time.perf_counter() - t0)

    choices.describe_features = describe_features
    handler = choices.CostFuseChoices("pin")
    handler.timings = []
    original_decide = handler.decide

    def decide(features, kernel_kwargs=None, tiling=None):
        before = len(handler.decisions)
        described.clear()
        decision = original_decide(features, kernel_kwargs, tiling)
        if len(handler.decisions) > before and decision.pick is not None:   # a new decision, not a remembered one
            kernel = decision.kernel
            fresh = kernel_from_dict(dataclasses.asdict(kernel))
            handler.timings.append({
                "kernel": kernel, "decision": decision.seconds, "describe": sum(described),
                "fresh in codegen": _timed(lambda: handler.decider.pick(fresh)),
                "warm in codegen": _timed(lambda: handler.decider.pick(kernel))})
        return decision

    handler.decide = decide
    return handler, lambda: setattr(choices, "describe_features", original_describe)


def run(only: str, repeats: int) -> list[dict]:
    from costfuse.data.inductor_codegen import inductor_code
    from costfuse.data.inductor_report import _inputs
    from costfuse.featurize.inductor_kernel import kernel_from_dict
    from costfuse.torch_import import build_module, load_factory, parse_input
    from experiments.inductor_report import blocks

    handler, restore = instrumented_handler()
    rows = []
    try:
        for name, _, target, shapes, dtype in blocks():
            if only and not any(o in name for o in only.split(",")):
                continue
            module = build_module(load_factory(target), 0, dtype)
            inputs = _inputs([parse_input(s) for s in shapes], dtype)
            inductor_code(module, inputs, choices=handler)   # untimed: the first codegen of a block warms imports
            for _ in range(max(1, repeats)):
                handler.reset()
                handler.timings.clear()
                inductor_code(module, inputs, choices=handler)
                for t in handler.timings:
                    kernel = t.pop("kernel")
                    copies = [kernel_from_dict(dataclasses.asdict(kernel)) for _ in range(LOOP)]
                    t["fresh after codegen"] = statistics.median(_timed(lambda: handler.decider.pick(c))
                                                                 for c in copies)
                    t["warm after codegen"] = statistics.median(_timed(lambda: handler.decider.pick(kernel))
                                                                for _ in range(LOOP))
                    rows.append({"block": name, **t})
            print(f"[{name}] {len(rows)} decisions timed", file=sys.stderr, flush=True)
    finally:
        restore()
    return rows


def summary(rows: list[dict]) -> dict[str, float]:
    """Milliseconds: the median of each part over ``rows``, and the derived parts."""
    med = {p: 1e3 * statistics.median(r[p] for r in rows) for p in PARTS}
    med["checks + first pick"] = 1e3 * statistics.median(r["decision"] - r["describe"] for r in rows)
    med["cold penalty"] = 1e3 * statistics.median(r["decision"] - r["describe"] - r["fresh in codegen"]
                                                  for r in rows)
    med["per-kernel work"] = 1e3 * statistics.median(r["fresh in codegen"] - r["warm in codegen"] for r in rows)
    return med


def markdown(rows: list[dict], command: str, reference: tuple[float, float]) -> str:
    s = summary(rows)
    lines = [
        "# Where a decision's time goes inside Inductor's codegen (issue #25)",
        "",
        f"Command: `{command}`  ",
        f"Conditions: {conditions()}",
        "",
        f"- {len(rows)} decisions (the kernels the heads decided in every block, each codegen run); the "
        f"reference decision of `experiments/inductor_report.py` took {reference[0]:.2f} ms before the blocks "
        f"and {reference[1]:.2f} ms after (this machine's speed moves between runs and within one)",
        "- each figure is the median over the decisions, in ms; `fresh`: the pick on a copy of the described "
        "kernel with nothing cached on it; `warm`: the pick again on the kernel the decision described",
        "",
        "| part | ms (median) |",
        "|---|---|",
    ]
    lines += [f"| {p} | {s[p]:.3f} |" for p in PARTS]
    lines += [
        f"| checks + first pick (decision - describe) | {s['checks + first pick']:.3f} |",
        f"| cold penalty (decision - describe - fresh in codegen) | {s['cold penalty']:.3f} |",
        f"| per-kernel work (fresh - warm, in codegen) | {s['per-kernel work']:.3f} |",
        "",
        f"A fresh pick costs {s['fresh in codegen'] / s['fresh after codegen']:.2f} times inside codegen what it "
        f"costs after it, and a warm one {s['warm in codegen'] / s['warm after codegen']:.2f} times; the "
        f"decision costs {s['decision'] / s['fresh after codegen']:.2f} times a fresh pick after codegen.",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from experiments.inductor_report import reference_pick_ms

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="", help="blocks whose name holds one of these (comma-separated)")
    ap.add_argument("--repeats", type=int, default=3, help="codegen runs per block (default 3)")
    add_report_arg(ap, "decision_warmth")
    args = ap.parse_args(argv)
    before = reference_pick_ms()
    rows = run(args.only, args.repeats)
    if not rows:
        raise SystemExit("decision_warmth: no block matched or no kernel was decided")
    emit(markdown(rows, command_line("decision_warmth.py", argv), (before, reference_pick_ms())), args.report)
    return 0


if __name__ == "__main__":
    sys.exit(main())

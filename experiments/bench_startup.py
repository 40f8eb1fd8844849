"""Time ``costfuse-opt`` end to end with the learned model against the threshold model, in the same run.

    .venv/bin/python experiments/bench_startup.py [--repeats 5] [--input examples/softmax_gelu.mlir]

On a small input the wall time is mostly start-up: imports and, for
``learned``, reading the shipped model.  The learned pass used to import
XGBoost, scikit-learn and pandas through the trainer (3.3 s against 0.5 s);
the goal is within 2x of ``threshold``.  Runs alternate between the two
models after one untimed warm-up each (docs/design.md §8: a ratio against its
anchor, same run, median of the repeats).  Writes
``experiments/results/bench_startup.md``.
"""

from __future__ import annotations

import argparse
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MODELS = ("threshold", "learned")
GOAL = 2.0


def opt_command() -> list[str]:
    """The installed ``costfuse-opt`` beside this interpreter (else on PATH): what a user runs."""
    script = Path(sys.executable).parent / "costfuse-opt"
    found = script if script.is_file() else shutil.which("costfuse-opt")
    if found is None:
        raise SystemExit("bench_startup: costfuse-opt is not installed (pip install -e .)")
    return [str(found)]


def time_once(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--input", default="examples/softmax_gelu.mlir")
    p.add_argument("--out", default=str(REPO / "experiments" / "results" / "bench_startup.md"))
    args = p.parse_args(argv)
    commands = {m: opt_command() + [args.input, "--cost-model", m, "-o", "/dev/null"] for m in MODELS}
    for cmd in commands.values():  # warm-up: page cache, .pyc files
        time_once(cmd)
    times: dict[str, list[float]] = {m: [] for m in MODELS}
    for _ in range(args.repeats):
        for m in MODELS:
            times[m].append(time_once(commands[m]))
    median = {m: statistics.median(t) for m, t in times.items()}
    ratio = median["learned"] / median["threshold"]
    shown = " ".join(["costfuse-opt", args.input, "--cost-model {threshold,learned}", "-o /dev/null"])
    lines = [
        "# bench_startup", "",
        "```", "python experiments/bench_startup.py" + (f" --repeats {args.repeats}" if args.repeats != 5 else ""),
        "```", "",
        f"{platform.node()} ({platform.machine()}, Python {platform.python_version()}); `{shown}`; "
        f"median of {args.repeats} alternating runs after one warm-up each.", "",
        "| cost model | median s | all runs (s) | vs threshold |",
        "|---|---|---|---|",
        *(f"| `{m}` | {median[m]:.3f} | {', '.join(f'{t:.2f}' for t in times[m])} "
          f"| {median[m] / median['threshold']:.2f}x |" for m in MODELS),
        "",
        f"Goal: learned within {GOAL:g}x of threshold: {'met' if ratio <= GOAL else 'not met'} ({ratio:.2f}x).",
    ]
    report = "\n".join(lines) + "\n"
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(report)
    print(report, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())

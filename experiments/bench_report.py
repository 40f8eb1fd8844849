"""Where the benches write their reports, and the run conditions every report states.

A figure quoted in the README or the docs must come from a committed script's
own output (docs/design.md §8: the command, the machine, medians, same-run anchors).
Each bench therefore writes its Markdown report to ``experiments/results/NAME.md``
(``--report``; ``-`` prints only), opening with the exact command and the
conditions of the run: this machine is shared, so the load average is part of
the figure.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shlex
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def add_report_arg(ap: argparse.ArgumentParser, name: str) -> None:
    """``--report PATH`` (default ``experiments/results/NAME.md``; ``-``: stdout only)."""
    ap.add_argument("--report", default=str(RESULTS / f"{name}.md"),
                    help=f"Markdown report (default experiments/results/{name}.md; '-': stdout only)")


def command_line(script: str, argv: list[str] | None) -> str:
    """The command that reproduces this run, as typed from the repository root."""
    return f"python experiments/{script} {shlex.join(sys.argv[1:] if argv is None else argv)}".rstrip()


def conditions() -> str:
    """One line: date, machine, CPUs, load average (a shared machine makes timings noisy), Python."""
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    return (f"{datetime.date.today().isoformat()}, {platform.node()} ({platform.machine()}, "
            f"{os.cpu_count()} CPUs, load average {load} at the start), Python {platform.python_version()}, no GPU")


def emit(text: str, report: str) -> None:
    """Print ``text`` and, unless ``report`` is ``-``, write it to ``report``."""
    text = text.rstrip("\n") + "\n"
    print(text, end="")
    if report and report != "-":
        path = Path(report)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        print(f"[report] wrote {path}", file=sys.stderr)

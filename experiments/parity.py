"""The parity table: upstream fusion against ``costfuse-opt --cost-model always`` on the example programs.

    .venv/bin/python experiments/parity.py [--report experiments/results/parity.md]

Per example: generics in, generics left by upstream ``linalg-fuse-elementwise-ops``
+ canonicalize + cse, generics left by CostFuse's ``always`` + the same
cleanup, and how many contractions (``matmul``, ``batch_matmul``) upstream
turned into generics by fusing producers into them, which CostFuse never does
(docs/design.md §5).  ``tests/experiments/test_parity.py`` checks that every difference is
explained and that the README's table is this report's.  Counts only: no timing.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from iree.compiler import ir

from costfuse.fusion_pass import FusionPass, run_pipeline
from costfuse.ir import parse_module
from costfuse.upstream import count_generics, run_upstream

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((REPO / "examples").glob("*.mlir"))
CONTRACTIONS = ("linalg.matmul", "linalg.batch_matmul")


def op_names(module) -> list[str]:
    """Names of every op in ``module``, in walk order."""
    names = []
    module.operation.walk(lambda op: (names.append(op.name), ir.WalkResult.ADVANCE)[1])
    return names


def both(text: str):
    """(upstream's module, CostFuse ``always``'s module), each fused from ``text`` with its cleanup."""
    up = parse_module(text)
    run_upstream(up)
    ours = parse_module(text)
    run_pipeline(ours, FusionPass())
    return up, ours


def converted_contractions(up, ours) -> int:
    """Contractions present after CostFuse but gone after upstream (turned into generics)."""
    up_names, our_names = op_names(up), op_names(ours)
    return sum(our_names.count(n) - up_names.count(n) for n in CONTRACTIONS)


@dataclass(frozen=True)
class ParityRow:
    example: str
    generics_in: int
    upstream: int
    always: int
    converted: int

    def markdown(self) -> str:
        return f"| `{self.example}` | {self.generics_in} | {self.upstream} | {self.always} | {self.converted} |"


HEADER = ("| example | generics in | upstream | costfuse `always` | contractions upstream turned into generics |\n"
          "|---|---|---|---|---|")


def parity_row(path: Path) -> ParityRow:
    text = path.read_text()
    up, ours = both(text)
    return ParityRow(path.name, count_generics(parse_module(text)), count_generics(up), count_generics(ours),
                     converted_contractions(up, ours))


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_report import add_report_arg, command_line, emit

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_report_arg(ap, "parity")
    args = ap.parse_args(argv)
    rows = [parity_row(p).markdown() for p in EXAMPLES]
    emit("\n".join([f"# parity\n\n```\n{command_line('parity.py', argv)}\n```\n", HEADER, *rows]), args.report)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Upstream MLIR's elementwise fusion, the reference for parity tests and benchmarks."""

from __future__ import annotations

from iree.compiler import ir
from iree.compiler.passmanager import PassManager

UPSTREAM_PIPELINE = "builtin.module(func.func(linalg-fuse-elementwise-ops,canonicalize,cse))"


def run_upstream(module: ir.Module) -> None:
    """Fuse ``module`` in place with ``linalg-fuse-elementwise-ops`` + canonicalize + cse."""
    with module.context:
        PassManager.parse(UPSTREAM_PIPELINE).run(module.operation)


def count_generics(module: ir.Module) -> int:
    """``linalg.generic`` ops anywhere in ``module``."""
    n = 0

    def visit(op):
        nonlocal n
        n += op.name == "linalg.generic"
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return n

"""Inductor kernels as Inductor's scheduler describes them, in plain numbers (featurize/inductor_kernel.py)."""

from __future__ import annotations

from costfuse.featurize.inductor_kernel import FULL, REDUCE, InductorKernel, KernelBuffer, KernelNode

ROWS, N = 4096, 8192


def softmax_kernel(dtype_bits: int = 16) -> InductorKernel:
    """Inductor's softmax as its scheduler describes it: max, sum of exp, then the normalized store."""
    x = KernelBuffer("x", ROWS * N, dtype_bits)
    return InductorKernel(ROWS, N, (
        KernelNode("op0", REDUCE, (("load", 1), ("to_dtype", 1)), ("x",), ("buf0",), "max", 2),
        KernelNode("op1", REDUCE, (("exp", 1), ("load", 2), ("sub", 1), ("to_dtype", 1)), ("x", "buf0"),
                   ("buf1",), "sum", 3),
        KernelNode("op2", FULL, (("exp", 1), ("load", 3), ("sub", 1), ("to_dtype", 2), ("truediv", 1)),
                   ("x", "buf0", "buf1"), ("out",), None, 4),
    ), (x, KernelBuffer("buf0", ROWS, 32), KernelBuffer("buf1", ROWS, 32), KernelBuffer("out", ROWS * N, 16)),
        ("out",))

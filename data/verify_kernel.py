"""Check a kernel function's Triton kernel against IREE on the CPU.

The v2 counterpart of :func:`data.verify.verify_generic`: IREE llvm-cpu runs
a public copy of the kernel function
(:func:`data.lowering.reference_functions.kernel_as_function`)
on seeded random arguments, the lowered kernel runs under Triton's
interpreter on the same arguments, and the results are compared with the
loosest tolerance among the float types the members compute in, scaled for
the row length when the kernel reduces.

Outputs are handed to the kernel filled with NaN (integers with -1): a
kernel function's results are fresh, so any element the kernel fails to
store shows up as a mismatch instead of passing on a lucky initial value.
"""

from __future__ import annotations

import numpy as np

from costfuse.data.lowering.kernel import lower_kernel
from costfuse.data.lowering.kernel_function import kernel_members
from costfuse.data.lowering.reference_functions import kernel_as_function
from costfuse.data.lowering.source import LoweredKernel
from costfuse.data.verify import float_types_of, reduction_tolerance_scale, verify_generic
from costfuse.graph import iterator_kinds
from costfuse.kernel import NotAKernel, analyze_kernel
from costfuse.launch import KernelLaunch
from costfuse.reference import TOLERANCES, Tolerance

FUNCTION = "kernel"


def kernel_tolerance(func_op, n: int):
    """Loosest per-dtype tolerance over every member's float types, scaled by
    ``sqrt(n / 16)`` when a member reduces rows of ``n``."""
    members = kernel_members(func_op)
    types = set().union(*(float_types_of(m) for m in members))
    tols = [TOLERANCES[t] for t in types] or [Tolerance(0.0, 0.0)]
    scale = reduction_tolerance_scale(n) if any("reduction" in iterator_kinds(m) for m in members) else 1.0
    return Tolerance(max(t.rtol for t in tols) * scale, max(t.atol for t in tols) * scale)


def _fresh(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    return np.full(shape, np.nan if dtype.kind == "f" or dtype.name == "bfloat16" else -1, dtype=dtype)


def verify_kernel(func_op, launch: KernelLaunch | None = None, seed: int = 0, rtol: float | None = None,
                  atol: float | None = None, kernel_dir=None, args: list | None = None) -> LoweredKernel:
    """Raise ``AssertionError`` if the Triton kernel of the kernel function
    ``func_op`` (at ``launch``, default its own) disagrees with IREE on
    ``args`` (default: seeded random arguments); return the kernel.

    A function lowered by v1 (its single member is not a row kernel) is
    checked as v1 checks a generic (:func:`data.verify.verify_generic`).
    """
    from costfuse.data.interpret import run_interpreted
    from costfuse.reference import compare_outputs, random_inputs, run_mlir

    kernel = lower_kernel(func_op, launch)
    members = kernel_members(func_op)
    try:
        analyze_kernel(members)
    except NotAKernel:  # lower_kernel took v1's path
        verify_generic(members[0], kernel.config, seed, rtol, atol, kernel_dir)
        return kernel
    text = kernel_as_function(func_op, FUNCTION)
    args = random_inputs(text, FUNCTION, seed) if args is None else args
    expected = run_mlir(text, FUNCTION, args)
    actual = run_interpreted(kernel.source, list(args) + [_fresh(e.shape, e.dtype) for e in expected], kernel_dir)
    tol = kernel_tolerance(func_op, kernel.rnumel)
    compare_outputs(expected, actual, f"@{kernel.kernel} {kernel.mode} {kernel.config.short()}",
                    tol.rtol if rtol is None else rtol, tol.atol if atol is None else atol)
    return kernel

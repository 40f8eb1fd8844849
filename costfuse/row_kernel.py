"""What the config space, the analytical time and the group features read of a row kernel.

Two things are row kernels: a group of Linalg generics
(:class:`costfuse.kernel.KernelShape`, read from the IR through IREE's
bindings) and a kernel Inductor is about to generate
(:class:`costfuse.featurize.inductor_kernel.InductorKernel`, read from
Inductor's own description of it).  The learned group policy, its features
(group schema v3) and the analytical time take either, so the Inductor handler
decides with the same code, the same heads and the same config space as the
pass (docs/inductor.md), and needs no MLIR on a GPU machine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from costfuse.estimates import l2_holds

if TYPE_CHECKING:
    from costfuse.launch import KernelLaunch
    from costfuse.targets import Target


class RowKernel(Protocol):
    """A kernel over ``n_rows`` rows of ``n`` elements (``pointwise``: no reduction, one flat loop)."""

    n: int                  # row length (elements reduced per row)
    n_rows: int             # rows
    pointwise: bool
    live_full: int          # full-row values live at once in a persistent tile
    reductions: int         # reductions over the row
    words: int              # 32-bit registers per element of a value (2 for 64-bit values)
    n_passes: int           # passes over the row a looped kernel makes
    read_elem_bytes: float  # bytes per element of the widest tensor read
    reread_row_bytes: float  # bytes per row of the per-row inputs a looped kernel reads more than once

    def issued_bytes(self, mode: str) -> int:
        """Bytes the loads and stores of ``mode`` issue (a looped kernel re-reads per pass)."""

    def dram_bytes(self, mode: str, l2_holds_rows: bool = True) -> int:
        """Estimated DRAM bytes of ``mode``: :meth:`issued_bytes` less the re-reads L2 holds."""

    def flops(self, mode: str) -> float:
        """Weighted body ops executed in ``mode``."""


def dram_bytes_at(kernel: RowKernel, launch: KernelLaunch, target: Target) -> int:
    """``kernel``'s :meth:`RowKernel.dram_bytes` at ``launch`` on ``target``: whether L2 holds a looped
    kernel's rows between passes comes from :func:`costfuse.estimates.l2_holds` at that launch (one home
    for a Linalg group and an Inductor kernel)."""
    programs = -(-kernel.n_rows // launch.xblock)
    holds = launch.mode != "looped" or bool(l2_holds(kernel.reread_row_bytes, launch.xblock, programs,
                                                      launch.num_warps, target))
    return kernel.dram_bytes(launch.mode, holds)

"""What the config space, the analytical time and the group features read of a row kernel.

Two things are row kernels: a group of Linalg generics
(:class:`costfuse.kernel.KernelShape`, read from the IR through IREE's
bindings) and a kernel Inductor is about to generate
(:class:`costfuse.featurize.inductor_kernel.InductorKernel`, read from
Inductor's own description of it).  The learned group policy, its features
(group schema v5) and the analytical time take either, so the Inductor handler
decides with the same code, the same heads and the same config space as the
pass (docs/inductor.md), and needs no MLIR on a GPU machine.

What a config's time depends on in the kernel itself, its bytes and flops in
each mode and its size, is one value, :class:`ModeCosts`, that a row kernel
computes once (its ``costs``): the analytical time scores a whole config space
from it without asking the kernel a question per mode (issue #28: a decision
that asks its kernel seven questions crosses seven module boundaries).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from costfuse.estimates import l2_holds
from costfuse.launch import MODES

if TYPE_CHECKING:
    from costfuse.launch import KernelLaunch
    from costfuse.targets import Target


@dataclass(frozen=True)
class ModeCosts:
    """A row kernel's bytes and flops in each mode (tuples in ``costfuse.launch.MODES`` order) and its size.

    ``issued``: :meth:`RowKernel.issued_bytes`; ``flops``: :meth:`RowKernel.flops`; ``dram_held``: the
    DRAM bytes of any mode whose re-reads hit L2 (one read of every input, a write of every output: the
    persistent issued bytes); ``dram_missed``: those of a looped kernel whose re-read rows L2 does not hold
    (``dram_bytes("looped", False)``); ``numel``: rows x row length.  :meth:`dram` applies the L2 model
    of :mod:`costfuse.estimates`.
    """

    issued: tuple[int, int, int]
    flops: tuple[float, float, float]
    dram_held: int
    dram_missed: int
    n_rows: int
    numel: int

    @classmethod
    def of(cls, kernel: RowKernel) -> ModeCosts:
        """The costs of ``kernel`` read through its per-mode methods (a kernel that computes them itself
        need not)."""
        return cls(tuple(kernel.issued_bytes(m) for m in MODES), tuple(kernel.flops(m) for m in MODES),
                   kernel.dram_bytes("persistent"), kernel.dram_bytes("looped", False), kernel.n_rows,
                   kernel.n_rows * kernel.n)

    def dram(self, mode: str, l2_holds_rows: bool = True) -> int:
        """Estimated DRAM bytes of ``mode``: :attr:`dram_held`, unless a looped kernel's re-read rows miss L2
        (``l2_holds_rows`` false: :func:`costfuse.estimates.l2_holds`)."""
        return self.dram_held if mode != "looped" or l2_holds_rows else self.dram_missed


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
    costs: ModeCosts        # its bytes and flops per mode and its size, computed once

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
    return kernel.costs.dram(launch.mode, holds)

"""The byte measure the exact optimum prices kernels by: one function, so the measure is one change.

docs/design.md §11 ("Issued bytes are not DRAM bytes") asks for two figures
per kernel: ``issued`` (every load and store the kernel issues:
:meth:`costfuse.kernel.KernelShape.hbm_bytes`, today's figure) and ``dram``
(what reaches DRAM once L2 serves the re-reads: an L2 model, not built yet).
The optimum minimizes DRAM bytes where they exist and issued bytes otherwise,
and within one kernel it breaks ties on issued bytes; :attr:`KernelBytes.key`
is that order.  Until ``costfuse.kernel`` has ``dram_bytes``,
:func:`kernel_bytes` leaves ``dram`` as ``None`` (no DRAM figure is invented),
reports ``measure == "issued"``, and every report prints ``dram_bytes`` as
null.  Adding the L2 model is the one marked line in :func:`kernel_bytes`.

Experiments only: not part of the installed package.
"""

from __future__ import annotations

from dataclasses import dataclass

from costfuse.kernel import KernelShape
from costfuse.launch import KernelLaunch


@dataclass(frozen=True)
class KernelBytes:
    """One kernel at one launch: ``issued`` bytes and ``dram`` bytes (``None``: no L2 model yet)."""

    issued: int
    dram: int | None = None

    @property
    def measure(self) -> str:
        """Which figure :attr:`primary` is: ``dram`` or ``issued``."""
        return "issued" if self.dram is None else "dram"

    @property
    def primary(self) -> int:
        """What the optimum minimizes: DRAM bytes where modelled, else issued bytes."""
        return self.issued if self.dram is None else self.dram

    @property
    def key(self) -> tuple[int, int]:
        """The order configs of one kernel are priced in: the fewest primary bytes, then the fewest issued."""
        return self.primary, self.issued


def kernel_bytes(shape: KernelShape, launch: KernelLaunch) -> KernelBytes:
    """The bytes ``shape`` moves at ``launch``."""
    dram = None   # the L2 model, once it exists: dram = shape.dram_bytes(launch)
    return KernelBytes(shape.hbm_bytes(launch.mode), dram)

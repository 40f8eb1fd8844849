"""What lowering every kernel of a module gives: the kernels, and the refusals with their reasons.

Lowering a whole model must not stop at its first odd op, so both module-wide
entry points (``generic.lower_module``, ``kernel.lower_kernels``) collect
:class:`~data.lowering.unsupported.UnsupportedOp` per kernel instead of
raising it, into one report that ``costfuse-data compile`` and the
experiments print the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from costfuse.data.lowering.source import LoweredKernel
from costfuse.data.lowering.unsupported import UnsupportedOp


@dataclass
class LoweringReport:
    """Result of lowering every generic of a module: ``kernels`` holds
    ``(index, LoweredKernel)``, ``unsupported`` ``(index, UnsupportedOp)``, where
    ``index`` is the generic's position in :func:`~data.lowering.walk.generics_of`
    order (or the kernel function's, for ``data.lowering.kernel.lower_kernels``:
    ``what`` says which)."""

    kernels: list[tuple[int, LoweredKernel]] = field(default_factory=list)
    unsupported: list[tuple[int, UnsupportedOp]] = field(default_factory=list)
    what: str = "generics"

    @property
    def total(self) -> int:
        return len(self.kernels) + len(self.unsupported)

    def summary(self) -> str:
        reasons: dict[str, int] = {}
        for _, err in self.unsupported:
            reasons[str(err)] = reasons.get(str(err), 0) + 1
        lines = [f"{len(self.kernels)}/{self.total} {self.what} lowered, {len(self.unsupported)} unsupported"]
        lines += [f"  {n} x {r}" for r, n in sorted(reasons.items(), key=lambda kv: -kv[1])]
        return "\n".join(lines)

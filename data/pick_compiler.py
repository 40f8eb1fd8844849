"""The compile ``--verify-picks`` injects into the groups pass: lower a kernel function, run ptxas, report spills.

The pass (:mod:`costfuse.verify_picks`) may not import the dataset side
(docs/design.md §7), so the CLI builds this callable and hands it in.  It
lowers with the same lowering the kernels are emitted with
(:func:`costfuse.data.lowering.kernel.lower_kernel`) and compiles through a
:class:`costfuse.data.compile.CompilePool`, whose on-disk cache (keyed by
kernel id) answers a config already compiled, by this run or an earlier one.
"""

from __future__ import annotations

from costfuse.data.compile import CompilePool, CompileTask, parse_arch
from costfuse.data.lowering.kernel import lower_kernel
from costfuse.data.lowering.unsupported import UnsupportedOp

from costfuse.launch import KernelLaunch
from costfuse.verify_picks import PickCheck


def ptxas_check(pool: CompilePool, arch: str):
    """``compile(fn, launch) -> PickCheck`` for ``arch``: one lowering and one (cached) ptxas compile."""
    target = parse_arch(arch)

    def compile_pick(fn, launch: KernelLaunch) -> PickCheck:
        try:
            lowered = lower_kernel(fn, launch)
        except (UnsupportedOp, ValueError) as err:
            return PickCheck("unsupported", error=str(err))
        (res,) = pool.run([CompileTask(lowered.source, lowered.config, target)])
        if res.status != "ok":
            return PickCheck(res.status, cached=bool(res.cached), error=res.error or "")
        return PickCheck("ok", res.regs, res.spill_bytes, bool(res.cached))

    return compile_pick

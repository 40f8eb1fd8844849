"""Pricing a kernel by ptxas: lower a candidate group at a config, compile it, and ask whether it spills.

The two searches over kernel groups that price candidates by compile labels
share this: the greedy, compile-checked formation (``oracle_groups.py``) and
the exact optimum (``optimum_groups.py``).  Both build the candidate as the
kernel function outlining would write (:func:`costfuse.outline.scratch_function`), lower it at
each config they try (:func:`compile_task`), compile through the caller's
:class:`costfuse.data.compile.CompilePool` (its on-disk cache keyed by kernel
id, so a rerun compiles nothing twice), try configs in ascending *analytical*
register estimate (:func:`by_register_estimate`: spill-free configs come
early), and count what it cost (:class:`CompileCounts`).  A config is
*spill-free* when ptxas compiles it with no spill store (:func:`spill_free`);
a timeout or a compiler error is not.

The scratch function has one name in both searches, so their sources, and so
their cache entries, coincide for the same group and config.

Experiments only: not part of the installed package.
"""

from __future__ import annotations

from dataclasses import dataclass

from iree.compiler import ir

from costfuse.data.compile import CompileResult, CompileTask
from costfuse.data.lowering.unsupported import UnsupportedOp
from costfuse.data.lowering.kernel import lower_kernel
from costfuse.kernel import KernelShape
from costfuse.launch import LAUNCH_ATTR, KernelLaunch
from costfuse.targets import Target



@dataclass
class CompileCounts:
    """What pricing cost: ``compiles`` configs compiled (``cached`` of them answered by the on-disk
    cache), ``compile_s`` their summed compile seconds (a cached one at the time it took when it
    ran), ``timeouts`` of them stopped by the pool's timeout (counted as not spill-free),
    ``decisions`` kernels priced, ``unlowered`` configs the lowering refused, ``refused`` kernels with
    no spill-free config."""

    decisions: int = 0
    compiles: int = 0
    cached: int = 0
    compile_s: float = 0.0
    timeouts: int = 0
    unlowered: int = 0
    refused: int = 0
    truncated: int = 0     # greedy, compile-checked: modes given up after ``max_per_mode`` spilling configs, others untried

    @property
    def mean_compile_s(self) -> float:
        """Seconds per compiled config (nan before any compile)."""
        return self.compile_s / self.compiles if self.compiles else float("nan")

    def add(self, res: CompileResult) -> None:
        self.compiles += 1
        self.cached += bool(res.cached)
        self.compile_s += res.compile_s
        self.timeouts += res.status == "timeout"


def spill_free(res: CompileResult) -> bool:
    """ptxas compiled it and stored nothing to local memory."""
    return res.status == "ok" and res.spill_store_bytes == 0


def compile_task(fn: ir.Operation, launch: KernelLaunch, arch: int) -> CompileTask | None:
    """The compile of kernel function ``fn`` at ``launch`` (written on ``fn``, so the embedded IR names
    the config it is compiled at), or ``None`` when the lowering refuses that config."""
    fn.attributes[LAUNCH_ATTR] = launch.to_attr()
    try:
        lowered = lower_kernel(fn, launch)
    except (UnsupportedOp, ValueError):
        return None
    return CompileTask(lowered.source, lowered.config, arch)


def by_register_estimate(shape: KernelShape, configs: list[KernelLaunch], target: Target) -> list[KernelLaunch]:
    """``configs`` in ascending analytical register estimate (:func:`costfuse.cost_models.group_time.score_configs`),
    ties in their given order: the order to compile them in when the first spill-free one is wanted."""
    from costfuse.cost_models.group_time import score_configs

    regs = score_configs(shape, configs, target).regs
    return [c for _, _, c in sorted((float(r), i, c) for i, (r, c) in enumerate(zip(regs, configs)))]

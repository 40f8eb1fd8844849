"""ptxas's labels of a kernel shape at a list of configs: what Inductor's autotuner reads (issue #26).

Inductor filters its candidate configs on the compiled kernel's registers
and local memory (``_dynamic_scale_rblock``, ``CachingAutotuner.bench``;
docs/peers.md I5), so the ``inductor`` policy takes a *labeller*: a callable
``(shape, configs) -> costfuse.estimates.ConfigLabels``.  The policy lives
in the core, which must not import data/ (tests/test_layers.py); this
module is the labeller a caller injects (``compare_groups.py``, the oracle
and the optimum share :func:`costfuse.outline.scratch_kernel_function`).  It lowers the shape as
the outlining would write it, compiles each config with Triton's own ptxas
through a :class:`~costfuse.data.compile.CompilePool` (cached on disk by
kernel id, so a rerun compiles nothing) and reads registers, spill bytes
(stored + loaded) and the stack frame (``CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES``,
what Triton's ``n_spills`` divides by 4).  A config the lowering refuses or
ptxas fails on is ``ok = False``: no candidate at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from costfuse.data.compile import CompileTask, parse_arch
from costfuse.data.lowering.kernel import lower_kernel
from costfuse.data.lowering.unsupported import UnsupportedOp

from costfuse.estimates import ConfigLabels
from costfuse.kernel import KernelShape
from costfuse.launch import LAUNCH_ATTR, KernelLaunch
from costfuse.outline import scratch_kernel_function

PTXAS = "ptxas labels"   # ConfigLabels.source of PtxasLabeller


@dataclass
class PtxasLabeller:
    """``labeller(shape, configs)``: ptxas's :class:`ConfigLabels` of ``shape`` at ``configs``.

    ``pool``: a ``CompilePool`` (the caller's, who closes it); ``arch``: the compile target.
    ``compiles`` and ``unlowered`` count what it cost.
    """

    pool: object
    arch: str = "sm_90"
    compiles: int = 0
    unlowered: int = 0
    _arch: int = field(init=False, repr=False)

    def __post_init__(self):
        self._arch = parse_arch(self.arch)

    def __call__(self, shape: KernelShape, configs: list[KernelLaunch]) -> ConfigLabels:
        n = len(configs)
        regs, spill, local = np.zeros(n), np.zeros(n), np.zeros(n)
        ok = np.zeros(n, dtype=bool)
        tasks, where = [], []
        with shape.members[0].op.context:
            _module, fn = scratch_kernel_function(shape, configs[0])   # the scratch module lives as long as this call
            for i, launch in enumerate(configs):
                fn.attributes[LAUNCH_ATTR] = launch.to_attr()   # the embedded IR names the config it is compiled at
                try:
                    lowered = lower_kernel(fn, launch)
                except (UnsupportedOp, ValueError):
                    self.unlowered += 1
                    continue
                tasks.append(CompileTask(lowered.source, lowered.config, self._arch))
                where.append(i)
        for i, res in zip(where, self.pool.run(tasks) if tasks else []):
            self.compiles += 1
            if res.status != "ok":
                continue
            ok[i] = True
            regs[i], spill[i], local[i] = res.regs, res.spill_bytes or 0, res.stack_bytes or 0
        return ConfigLabels(regs, spill, local, ok, PTXAS)

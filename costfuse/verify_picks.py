"""``--verify-picks``: every kernel's config confirmed by a ptxas compile before it is emitted (issue #29).

Why: a policy's spill verdict is a prediction.  On the configs the learned
policy picks, its spill head's recall was 0.50 (issue #29), and a kernel that
spills can cost more than the fusion saved.  A compile costs a fraction of a
second per kernel on a CPU, so a user who can spend that gets a guarantee
instead: a config is emitted only once ptxas has compiled it without spilling.

How, per row kernel, after formation and before outlining (so the groups are
final and their shapes still live in the caller's block):

1. compile the policy's pick (one compile, cached by kernel id);
2. if it spills, or does not compile, compile the policy's next-best config,
   and so on, in the policy's own order (:func:`ranked_configs`), at most
   ``max_compiles`` per kernel;
3. keep the first spill-free config; if none of those compiled is, keep the
   one that spilled least, and say so in the kernel's reason.

Only the config changes: which ops form a group is the policy's decision and
is not revisited.  A kernel that is no row kernel (a lone generic the
lowering takes as it is) has no config space and is not verified.

The core neither lowers nor runs ptxas (docs/design.md §7: the passes never
import ``costfuse.data``), so the compile is *injected*: ``compile(fn, launch)``
takes a kernel function (built by :func:`costfuse.outline.scratch_kernel_function`,
the function outlining would write) and returns a :class:`PickCheck`.  The
CLI injects :func:`costfuse.data.pick_compiler.ptxas_check`; tests inject fakes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
from iree.compiler import ir

from costfuse.cost_models.group_time import ConfigScores, score_configs
from costfuse.groups import Kernel
from costfuse.kernel import KernelShape
from costfuse.launch import LAUNCH_ATTR, KernelLaunch, config_space
from costfuse.outline import scratch_kernel_function
from costfuse.policy import GroupPolicy

DEFAULT_MAX_COMPILES = 8   # per kernel: the pick plus seven next-best configs (a hard-spilling compile is slow)
SCRATCH_NAME = "verify_kernel"


@dataclass(frozen=True)
class PickCheck:
    """What one compile of a kernel at one config says: ``status`` (``ok`` | ``error`` | ``timeout`` |
    ``unsupported``), registers and spill bytes per thread (stored + loaded), and whether a cache answered."""

    status: str
    regs: int = 0
    spill_bytes: int = 0
    cached: bool = False
    error: str = ""

    @property
    def spill_free(self) -> bool:
        return self.status == "ok" and self.spill_bytes == 0


Compile = Callable[[ir.Operation, KernelLaunch], PickCheck]


@dataclass
class VerifyCounts:
    """What verifying cost and changed: row kernels verified, compiles (``cached`` of them answered by the
    cache), picks replaced by a next-best config, kernels left spilling, kernels not verified (no row kernel)."""

    kernels: int = 0
    compiles: int = 0
    cached: int = 0
    replaced: int = 0
    spilling: int = 0
    skipped: int = 0

    @property
    def per_kernel(self) -> float:
        return self.compiles / self.kernels if self.kernels else float("nan")

    def line(self) -> str:
        """The ``--explain`` total: the compiles are what the guarantee cost."""
        return (f"# verify-picks: {self.compiles} ptxas compiles ({self.cached} cached) for {self.kernels} row "
                f"kernels ({self.per_kernel:.2f} per kernel), {self.replaced} picks replaced by a next-best "
                f"config, {self.spilling} still spilling" + (f", {self.skipped} not row kernels (not verified)"
                                                            if self.skipped else ""))


def ranked_configs(policy: GroupPolicy, shape: KernelShape) -> tuple[ConfigScores, list[int]]:
    """The configs of ``shape``'s space with the policy's estimates, and their indices best first.

    A policy that ranks configs itself (a ``ranked_configs(shape)`` method returning the same pair,
    as the learned policy does with its predicted spills) is asked; otherwise the analytical time at
    the policy's arch orders them (its register estimate's spill traffic included, so configs it
    expects to spill come late)."""
    own = getattr(policy, "ranked_configs", None)
    ranked = own(shape) if own is not None else None
    if ranked is not None:
        return ranked
    scores = score_configs(shape, config_space(shape), policy.target)
    return scores, [int(i) for i in np.argsort(scores.time_s, kind="stable")]


@dataclass
class PickVerifier:
    """Confirms each kernel's config with ``compile`` (the module docstring); counts what it did."""

    compile: Compile
    max_compiles: int = DEFAULT_MAX_COMPILES
    counts: VerifyCounts = field(default_factory=VerifyCounts)

    def __post_init__(self):
        if self.max_compiles < 1:
            raise ValueError(f"--verify-picks needs at least one compile per kernel, got {self.max_compiles}")

    def verify_all(self, kernels: list[Kernel], policy: GroupPolicy) -> list[Kernel]:
        return [self.verify(k, policy) for k in kernels]

    def verify(self, kernel: Kernel, policy: GroupPolicy) -> Kernel:
        """``kernel`` at its first spill-free config in the policy's order (or its least-spilling one)."""
        if kernel.shape is None:
            self.counts.skipped += 1
            return kernel
        self.counts.kernels += 1
        pick = kernel.estimate.launch
        _module, fn = scratch_kernel_function(kernel.shape, pick, SCRATCH_NAME)   # lives while fn is used
        first = self._check(fn, pick)
        if first.spill_free:
            return replace(kernel, estimate=replace(kernel.estimate, regs=float(first.regs), spill_bytes=0.0,
                                                    reason=_join(kernel.estimate.reason,
                                                                 "ptxas: spill-free at the pick (1 compile)")))
        tried: list[tuple[KernelLaunch, PickCheck, int | None]] = [(pick, first, None)]
        scores, order = ranked_configs(policy, kernel.shape)
        for i in order:
            if len(tried) >= self.max_compiles:
                break
            launch = scores.configs[i]
            if launch == pick:
                continue
            check = self._check(fn, launch)
            tried.append((launch, check, i))
            if check.spill_free:
                self.counts.replaced += 1
                est = scores.estimate(i, _join(kernel.estimate.reason,
                                               f"ptxas: the pick {pick.short()} {_said(first)}; next-best "
                                               f"{launch.short()} spill-free ({len(tried)} compiles)"))
                return replace(kernel, estimate=replace(est, regs=float(check.regs), spill_bytes=0.0))
        return self._least_spilling(kernel, tried, scores)

    def _check(self, fn: ir.Operation, launch: KernelLaunch) -> PickCheck:
        fn.attributes[LAUNCH_ATTR] = launch.to_attr()   # the lowered source embeds the config it is compiled at
        check = self.compile(fn, launch)
        self.counts.compiles += 1
        self.counts.cached += bool(check.cached)
        return check

    def _least_spilling(self, kernel: Kernel, tried, scores: ConfigScores) -> Kernel:
        """No compiled config was spill-free: keep the one that compiled and spilled least (the pick on ties)."""
        self.counts.spilling += 1
        ok = [(c.spill_bytes, n, launch, c, i) for n, (launch, c, i) in enumerate(tried) if c.status == "ok"]
        why = f"ptxas: none of {len(tried)} configs compiled spill-free"
        if not ok:
            return replace(kernel, estimate=replace(kernel.estimate, reason=_join(
                kernel.estimate.reason, f"{why} (none compiled: {tried[0][1].status}); the pick kept")))
        nbytes, _, launch, check, i = min(ok, key=lambda t: t[:2])
        if i is None:
            est = replace(kernel.estimate, reason=_join(kernel.estimate.reason, f"{why}; the pick spills least"))
        else:
            self.counts.replaced += 1
            est = scores.estimate(i, _join(kernel.estimate.reason, f"{why}; {launch.short()} spills least"))
        return replace(kernel, estimate=replace(est, regs=float(check.regs), spill_bytes=float(nbytes)))


def _said(check: PickCheck) -> str:
    return f"spills {check.spill_bytes} B" if check.status == "ok" else f"did not compile ({check.status})"


def _join(reason: str, more: str) -> str:
    return f"{reason}; {more}" if reason else more

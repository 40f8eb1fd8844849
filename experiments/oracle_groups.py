"""Greedy, compile-checked kernel groups: priority formation with every config decision checked by ptxas (issue #13).

Not an optimum.  This is :mod:`costfuse.groups`' greedy priority formation
(merges taken largest saving first, never undone) in which every candidate
kernel is priced by compile labels: Inductor's ``benchmark_fusion`` run
exhaustively on compile labels for each candidate, not a search over all
partitions of the graph.  It was called "the compile-label oracle" until
issue #26: ``learned`` moves 1.5% fewer bytes than it, all on
``cross_entropy_bwd_32k_f32``, where the greedy step stores a value that
``learned`` recomputes, which no optimum would allow.  The exact optimum over
partitions is ``optimum_groups.py``.

:class:`GreedyCompileChecked` is a :class:`~costfuse.policy.GroupPolicy`
whose :meth:`~GreedyCompileChecked.best_config` answers from compile labels
instead of a prediction: for a kernel shape it returns the config that ptxas
compiles **without spilling** in the mode with the **least HBM bytes**.

Why the per-kernel answer is exact, and cheap.  A kernel's HBM bytes depend
only on its mode (:meth:`costfuse.kernel.KernelShape.issued_bytes`), never on
the tile or the warps.  So the modes are tried in ascending HBM order; within
a mode its configs (:func:`costfuse.launch.config_space`) are compiled in
ascending *analytical* register estimate (:func:`spill_free.by_register_estimate`),
a few at a time (one per compile worker), and the search stops at the first
config, in that order, that compiles with ``spill_store_bytes == 0``.  A mode
moves on to the next only once every one of its configs has been compiled and
spills (or fails to lower or compile).  Per kernel the answer is therefore
exact on HBM: no spill-free config of any mode moves fewer bytes.  The config
it returns is the spill-free one with the lowest analytical register estimate
in that mode (ties in config-space order); which of several spill-free
configs would run fastest is not asked: there is no GPU latency here.  A
shape none of whose configs compiles spill-free is refused (``None``), as the
GroupPolicy contract has it: formation then keeps it apart, at the heuristic
config.

Its objective is ``time_s = hbm_bytes / bandwidth + launch overhead``, so the
default :meth:`~costfuse.policy.GroupPolicy.merge_verdict` prefers the
fewest HBM bytes and then the fewest kernels (a merge is taken when the merged
kernel moves no more bytes than the two apart plus one launch's worth:
4.8 MB on sm_90), and the default recompute verdict likewise.

Bounded variant (``max_per_mode=K``): a mode is given up after its K
lowest-estimate configs all spill, and every such give-up is counted
(``CompileCounts.truncated``): rows of 128k elements make every persistent
config spill by hundreds of kilobytes, each ptxas run then taking minutes
(or the compile timeout), and K keeps such a workload to minutes.  A
give-up can only make it choose a mode with *more* HBM bytes, never fewer,
so per kernel the bound never flatters a policy compared with it.

It counts what it costs (:class:`spill_free.CompileCounts`): compiles (from
the cache too, at the compile time recorded when they ran), their summed
compile seconds, the decisions and the configs that failed to lower.  The
pool is the caller's (:class:`costfuse.data.compile.CompilePool`, results
cached on disk by kernel id), so it and a report's own compiles share workers
and cache.

Experiments only: not part of the installed package.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from iree.compiler import ir

from costfuse.policy import Decision, EdgePolicy, FusionCandidate, GroupEstimate, GroupPolicy
from costfuse.data.compile import parse_arch
from costfuse.kernel import KernelShape
from costfuse.launch import KernelLaunch, config_space
from costfuse.outline import scratch_kernel_function
from costfuse.targets import get_target

sys.path.insert(0, str(Path(__file__).resolve().parent))

from spill_free import CompileCounts, by_register_estimate, compile_task, spill_free  # noqa: E402


@dataclass
class GreedyCompileChecked(EdgePolicy, GroupPolicy):
    """Greedy, compile-checked: the least-HBM mode's first spill-free config (see the module docstring).

    ``pool``: a started or startable ``CompilePool`` (the caller owns and closes it);
    ``arch``: the compile target and the target whose bandwidth and launch overhead price HBM.
    """

    name = "greedy-compile-checked"
    pool: object = None
    arch: str = "sm_90"
    max_per_mode: int | None = None
    counts: CompileCounts = field(default_factory=CompileCounts)

    def __post_init__(self):
        if self.pool is None:
            raise ValueError("experiments/oracle_groups.py: GreedyCompileChecked needs a CompilePool (pool=...)")
        self._target = get_target(self.arch)
        self._arch = parse_arch(self.arch)

    def decide(self, candidate: FusionCandidate) -> Decision:
        raise NotImplementedError("experiments/oracle_groups.py: the greedy, compile-checked policy decides kernel "
                                  "groups (--fusion groups), not v1 edges")

    def time_s(self, hbm_bytes: int) -> float:
        """The objective: HBM time plus one launch, so fewer bytes win, then fewer kernels."""
        return hbm_bytes / self._target.hbm_bytes_per_s + self._target.launch_overhead_s

    def best_config(self, shape: KernelShape) -> GroupEstimate | None:
        self.counts.decisions += 1
        configs = config_space(shape)
        _module, fn = scratch_kernel_function(shape, configs[0])   # the scratch module lives as long as this call
        tried = 0
        for mode in sorted({c.mode for c in configs}, key=lambda m: (shape.issued_bytes(m), m != "persistent")):
            ordered = by_register_estimate(shape, [c for c in configs if c.mode == mode], self._target)
            found, compiled = self._first_spill_free(fn, ordered)
            tried += compiled
            if found is not None:
                launch, res = found
                hbm = shape.issued_bytes(mode)
                return GroupEstimate(launch, self.time_s(hbm), hbm, float(res.regs), 0.0,
                                     f"greedy, compile-checked: {mode}, the least-HBM mode spill-free under ptxas "
                                     f"({tried} of {len(configs)} configs compiled)")
        self.counts.refused += 1
        return None

    def _first_spill_free(self, fn: ir.Operation, ordered: list[KernelLaunch]):
        """((config, result) of the first config of ``ordered`` ptxas compiles spill-free, or ``None``;
        configs compiled).  Compiles ``pool.jobs`` configs at a time, in order; with ``max_per_mode``, gives
        the mode up after that many (counted in ``counts.truncated`` when configs were left untried)."""
        if self.max_per_mode is not None and len(ordered) > self.max_per_mode:
            found, tried = self._first_spill_free(fn, ordered[:self.max_per_mode]) if self.max_per_mode else (None, 0)
            if found is None:
                self.counts.truncated += 1
            return found, tried
        tried = 0
        step = max(1, getattr(self.pool, "jobs", 1))
        for k in range(0, len(ordered), step):
            chunk, tasks = [], []
            for launch in ordered[k:k + step]:
                task = compile_task(fn, launch, self._arch)
                if task is None:
                    self.counts.unlowered += 1
                    continue
                chunk.append(launch)
                tasks.append(task)
            results = self.pool.run(tasks) if tasks else []
            for launch, res in zip(chunk, results):
                self.counts.add(res)
                tried += 1
            for launch, res in zip(chunk, results):
                if spill_free(res):
                    return (launch, res), tried
        return None, tried

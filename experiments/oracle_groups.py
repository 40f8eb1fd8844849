"""The compile-label oracle for kernel groups: every config decision checked by ptxas (issue #13).

:class:`CompileOracle` is a :class:`~costfuse.policy.GroupPolicy` whose
:meth:`~CompileOracle.best_config` answers from compile labels instead of a
prediction: for a kernel shape it returns the config that ptxas compiles
**without spilling** in the mode with the **least HBM bytes**.

Why this is exact, and cheap.  A kernel's HBM bytes depend only on its mode
(:meth:`costfuse.kernel.KernelShape.hbm_bytes`), never on the tile or the
warps.  So the modes are tried in ascending HBM order; within a mode its
configs (:func:`costfuse.launch.config_space`) are compiled in ascending
*analytical* register estimate (:func:`costfuse.cost_models.group_time.score_configs`),
a few at a time (one per compile worker), and the search stops at the first
config, in that order, that compiles with ``spill_store_bytes == 0``.  A mode
moves on to the next only once every one of its configs has been compiled and
spills (or fails to lower or compile).  The answer is therefore exact on HBM:
no spill-free config of any mode moves fewer bytes.  The config it returns is
the spill-free one with the lowest analytical register estimate in that mode
(ties in config-space order); which of several spill-free configs would run
fastest is not asked: there is no GPU latency here.  A shape none of whose
configs compiles spill-free is refused (``None``), as the GroupPolicy contract
has it: formation then keeps it apart, at the heuristic config.

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
give-up can only make the oracle choose a mode with *more* HBM bytes, never
fewer, so per kernel the bound never flatters a policy compared with the oracle.

Formation with the oracle is :mod:`costfuse.groups`' greedy priority
formation in which every candidate merge is priced by compile labels: Inductor's
``benchmark_fusion`` run exhaustively on compile labels for each candidate,
not a search over all partitions of the graph.

The oracle counts what it costs (:class:`CompileCounts`): compiles (from the
cache too, at the compile time recorded when they ran), their summed compile
seconds, the decisions and the configs that failed to lower.  The pool is the
caller's (:class:`costfuse.data.compile.CompilePool`, results cached on disk by
kernel id), so the oracle and a report's own compiles share workers and cache.

Experiments only: not part of the installed package.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from costfuse.data.compile import CompileResult, CompileTask, parse_arch
from costfuse.data.lowering.kernel import lower_kernel
from costfuse.data.lowering.unsupported import UnsupportedOp
from costfuse.data.ptxas_labels import SCRATCH_KERNEL
from iree.compiler import ir

from costfuse.kernel import KernelShape
from costfuse.launch import LAUNCH_ATTR, KernelLaunch, config_space
from costfuse.outline import scratch_kernel_function
from costfuse.policy import Decision, EdgePolicy, FusionCandidate, GroupEstimate, GroupPolicy
from costfuse.targets import get_target


@dataclass
class CompileCounts:
    """What the oracle's decisions cost: ``compiles`` configs compiled (``cached`` of them answered by the
    on-disk cache), ``compile_s`` their summed compile seconds (a cached one at the time it took when it
    ran), ``decisions`` shapes priced, ``unlowered`` configs the lowering refused, ``refused`` shapes
    with no spill-free config."""

    decisions: int = 0
    compiles: int = 0
    cached: int = 0
    compile_s: float = 0.0
    unlowered: int = 0
    refused: int = 0
    truncated: int = 0     # modes given up after ``max_per_mode`` spilling configs, others untried

    @property
    def mean_compile_s(self) -> float:
        """Seconds per compiled config (nan before any compile)."""
        return self.compile_s / self.compiles if self.compiles else float("nan")

    def add(self, res: CompileResult) -> None:
        self.compiles += 1
        self.cached += bool(res.cached)
        self.compile_s += res.compile_s


@dataclass
class CompileOracle(EdgePolicy, GroupPolicy):
    """Compile-label oracle: the least-HBM mode's first spill-free config (see the module docstring).

    ``pool``: a started or startable ``CompilePool`` (the caller owns and closes it);
    ``arch``: the compile target and the target whose bandwidth and launch overhead price HBM.
    """

    name = "oracle"
    pool: object = None
    arch: str = "sm_90"
    max_per_mode: int | None = None
    counts: CompileCounts = field(default_factory=CompileCounts)

    def __post_init__(self):
        if self.pool is None:
            raise ValueError("experiments/oracle_groups.py: CompileOracle needs a CompilePool (pool=...)")
        self._target = get_target(self.arch)
        self._arch = parse_arch(self.arch)

    def decide(self, candidate: FusionCandidate) -> Decision:
        raise NotImplementedError("experiments/oracle_groups.py: the compile oracle decides kernel groups "
                                  "(--fusion groups), not v1 edges")

    def time_s(self, hbm_bytes: int) -> float:
        """The objective: HBM time plus one launch, so fewer bytes win, then fewer kernels."""
        return hbm_bytes / self._target.hbm_bytes_per_s + self._target.launch_overhead_s

    def best_config(self, shape: KernelShape) -> GroupEstimate | None:
        from costfuse.cost_models.group_time import score_configs

        self.counts.decisions += 1
        configs = config_space(shape)
        regs = score_configs(shape, configs, self._target).regs
        by_mode: dict[str, list[tuple[float, KernelLaunch]]] = {}
        for i, c in enumerate(configs):
            by_mode.setdefault(c.mode, []).append((float(regs[i]), c))
        _module, fn = scratch_kernel_function(shape, configs[0], SCRATCH_KERNEL)   # the scratch module lives as long as this call
        tried = 0
        for mode in sorted(by_mode, key=lambda m: (shape.issued_bytes(m), m != "persistent")):
            ordered = [c for _, c in sorted(by_mode[mode], key=lambda rc: rc[0])]   # stable: config-space order on ties
            found, compiled = self._first_spill_free(fn, ordered)
            tried += compiled
            if found is not None:
                launch, res = found
                hbm = shape.issued_bytes(mode)
                return GroupEstimate(launch, self.time_s(hbm), hbm, float(res.regs), 0.0,
                                     f"oracle: {mode}, the least-HBM mode spill-free under ptxas "
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
                fn.attributes[LAUNCH_ATTR] = launch.to_attr()   # the embedded IR names the config it is compiled at
                try:
                    lowered = lower_kernel(fn, launch)
                except (UnsupportedOp, ValueError):
                    self.counts.unlowered += 1
                    continue
                chunk.append(launch)
                tasks.append(CompileTask(lowered.source, lowered.config, self._arch))
            results = self.pool.run(tasks) if tasks else []
            for launch, res in zip(chunk, results):
                self.counts.add(res)
                tried += 1
            for launch, res in zip(chunk, results):
                if res.status == "ok" and res.spill_store_bytes == 0:
                    return (launch, res), tried
        return None, tried

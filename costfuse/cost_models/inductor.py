"""``inductor``: PyTorch Inductor's fusion and launch-config rules, as a cost model for kernel groups.

Restated in our own words from docs/peers.md (rule ids I1-I7), which read
``pytorch/pytorch`` @ ``cf30153c4c131c8164ee7798e5022d810682e2cb`` (the torch
2.13.0 wheel in our ``.venv``; cross-checked at ``0012d881f374c673bf6f5a24f4634ca77ed15fa3``
and ``07498b52ccebdf4e49b8e590b38c0c0a8a512147``):

* I1 persistent or looped: ``torch/_inductor/choices.py:412``
  (``InductorChoices.should_use_persistent_reduction``): a row group reduces
  its contiguous last dim (INNER hint), so persistent iff ``N <= 1024``.
* I2 block and warp formulas: ``runtime/triton_heuristics.py`` ``_num_warps``
  (:3272), ``triton_config`` (:3320), ``pointwise`` (:3894),
  ``triton_config_reduction`` (:3477); size hints ``P(M)``, ``P(N)``
  (``codegen/triton.py:6344-6351``), ``TRITON_MAX_BLOCK["X"] = 4096``
  (``runtime/hints.py:15``).
* I3 persistent configs: ``_persistent_reduction_configs`` (:4686), CUDA branch.
* I4 looped configs: ``_reduction_configs`` (:4150) and ``add_persistent_rblock``
  (``codegen/triton.py:6285``).
* I5 choosing among several configs: ``CachingAutotuner.bench`` (:1211, configs
  with ``n_spills > 16`` are infinite; ``n_spills`` = local bytes / 4) and
  ``_dynamic_scale_rblock`` (:816, adds an RBLOCK-halved copy of a looped config
  when registers limit occupancy).  Both read the compiled kernel's registers and
  local bytes, so both read a *labeller*'s :class:`~costfuse.estimates.ConfigLabels`:
  ptxas's, injected by the caller (``costfuse.data.ptxas_labels``; the core may
  not import data/), or, as the documented fallback, the analytical register
  estimate (:func:`~costfuse.estimates.estimated_labels`), and every reason names
  which.  Inductor then times the survivors on the GPU; we cannot, so the kernel's
  figures are the survivor fastest by our analytical time ("benchmark emulated")
  and :class:`InductorEstimate` carries the range over all survivors: the fewest
  and the most DRAM bytes, and whether any survivor spills.  Formation prices
  candidates on the estimate (Inductor's fusion asks no config); the labeller is
  asked once per formed kernel (:meth:`Inductor.final_config`).
* I6 fusion: ``choices.py:569`` ``can_fuse`` (``max_fusion_size = 64``,
  ``config.py:964``), ``choices.py:671`` ``score_fusion`` (bytes saved).
  Inductor has no register-pressure veto: every legal pair merges.
* I7 recompute or store a multi-use producer: ``ir.py:10093``
  ``StorageBox.should_realize_on_reuse`` (> 4 reads or > 30 ops: store).
  :func:`realize_on_reuse` is the predicate; group formation does not
  recompute yet, so only v1's ``--allow-multi-use`` edges use it.

Split reductions (``choices.py:472``) are ignored: row groups rarely qualify.
The estimates a :class:`~costfuse.policy.GroupEstimate` reports are
our analytical ones at Inductor's config, so every policy is compared on the
same scale.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from iree.compiler import ir

from costfuse.estimates import ESTIMATED, ConfigLabels, estimated_labels
from costfuse.graph import body_ops, inputs
from costfuse.launch import launch_arrays, next_pow2
from costfuse.policy import Decision, EdgePolicy, FusionCandidate, GroupEstimate, GroupPolicy, MergeVerdict
from costfuse.targets import Target, arch_name, get_target

PERSISTENT_INNER_MAX = 1024          # I1: rnumel bound for the INNER hint
TRITON_MAX_BLOCK_X = 4096            # I2: runtime/hints.py:15
MAX_GRID_X = 2**31 - 1               # I2: maxGridSize[0]
MAX_PERSISTENT_BLOCK_NUMEL = 4096    # I3
PERSISTENT_XBLOCKS = (1, 8, 32, 128)  # I3, CUDA
ADD_PERSISTENT_RBLOCK_RANGE = (2048, 32768)  # I4: 2048 < N <= 32768
ADD_PERSISTENT_MIN_SAVING = 1.3      # I4: looped bytes / persistent bytes
ADD_PERSISTENT_MAX_MEM_OPS = 10      # I4: memory ops per thread
SPILL_THRESHOLD = 16                 # I5: n_spills = stack bytes / 4 above this is infinite time
N_SPILLS_BYTES = 4                   # I5: triton's driver: n_spills = CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES / 4
MAX_THREADS_PER_SM = 2048            # I5: sm_80/sm_90/sm_100
MAX_FUSION_SIZE = 64                 # I6: config.py:964
REALIZE_READS_THRESHOLD = 4          # I7: config.realize_reads_threshold
REALIZE_OPCOUNT_THRESHOLD = 30       # I7: _realize_opcount_threshold_default on GPU


def _num_warps(w: int, max_w: int = 8, min_w: int = 2, register_intensive: bool = False) -> int:
    """I2 ``_num_warps``: ``P(clamp(w, min, max))``, max halved when register-intensive."""
    if register_intensive:
        max_w //= 2
    return next_pow2(min(max(w, min_w), max_w))


def pointwise_config(numel_hint: int, x: int, per_warp: int) -> tuple[int, int]:
    """I2 ``triton_config``, 1-D: ``(XBLOCK, num_warps)`` for ``numel_hint = P(numel)`` elements."""
    target = x // 8 if numel_hint < x else x
    x = min(x, numel_hint)
    while x < min(numel_hint, TRITON_MAX_BLOCK_X) and (x * MAX_GRID_X < numel_hint or x < target):
        x *= 2
    warps = _num_warps(x // per_warp, min_w=1)
    if x >= 128:
        warps = max(warps, 4)
    return min(x, numel_hint), warps


def reduction_config(pm: int, pn: int, x: int, r: int, num_warps: int | None = None,
                     register_intensive: bool = False, min_warps: int = 2) -> tuple[int, int, int]:
    """I2 ``triton_config_reduction`` with the INNER hint: ``(XBLOCK, RBLOCK, num_warps)``.  ``r`` is first
    shrunk to the size hint ``pn``, as ``_get_nd_reduction_numels`` does (its warps still come from ``r``)."""
    x = min(x, pm)
    rr = min(r, pn)
    target = x * rr
    if pm * pn < target:
        target //= 8
    while x < pm and x * rr < target:
        x *= 2
    while rr < pn and x * rr < target:
        rr *= 2
    warps = _num_warps(r // 128 if num_warps is None else num_warps, 16 if r <= 8192 else 32, min_warps,
                       register_intensive)
    while x * rr > target and rr > 1:
        rr //= 2
    return x, rr, warps


def looped_configs(pm: int, pn: int, loads_and_red: int, add_persistent_rblock: bool,
                   arch: str = "sm_90") -> list[tuple[int, int, int]]:
    """I4 ``_reduction_configs``, INNER hint, max_autotune off: ``[whole-row candidate?] + [contiguous
    config]`` as ``(XBLOCK, RBLOCK, num_warps)``, for ``loads_and_red`` loads and reductions (the
    kernel's ``num_load + num_reduction``) and codegen's ``add_persistent_rblock`` flag."""
    max_r = 1024 if int(arch_name(arch).removeprefix("sm_")) >= 100 else 2048
    heavy = pm >= 1024 and loads_and_red >= 10
    if heavy:
        max_r = 1024
    out = []
    if add_persistent_rblock and loads_and_red <= 8:
        out.append(reduction_config(pm, pn, max(4096 // pn, 1), min(pn, ADD_PERSISTENT_RBLOCK_RANGE[1]),
                                    register_intensive=heavy))
    out.append(reduction_config(pm, pn, 2 if pn <= 2048 else 1, min(pn, max_r), register_intensive=heavy))
    return out


def realize_on_reuse(op: ir.Operation) -> tuple[bool, str]:
    """I7: whether Inductor stores (``True``) or recomputes in each user a producer ``op``, and why.

    Ops are counted as Inductor's ``OpCounterCSE`` does over the inlined body:
    payload ops (constants included) plus one load per input; reads are the
    distinct tensors it loads.  A producer with at most one user is inlined.
    """
    users = {u.owner.operation for res in op.results for u in res.uses}
    ins = inputs(op)
    reads = len(set(ins))
    ops = body_ops(op) + len(ins)
    if len(users) <= 1:
        return False, f"{len(users)} user: inlined"
    if reads > REALIZE_READS_THRESHOLD:
        return True, f"{len(users)} users and {reads} reads > {REALIZE_READS_THRESHOLD}: stored"
    if ops > REALIZE_OPCOUNT_THRESHOLD:
        return True, f"{len(users)} users and {ops} ops > {REALIZE_OPCOUNT_THRESHOLD}: stored"
    return False, (f"{len(users)} users, {reads} reads <= {REALIZE_READS_THRESHOLD} and "
                   f"{ops} ops <= {REALIZE_OPCOUNT_THRESHOLD}: recomputed in each user")


def _unique(configs: list) -> list:
    return list(dict.fromkeys(configs))


# What a compile says of a kernel shape at each of a list of configs (I5 reads registers and local bytes).
Labeller = Callable[[object, list], ConfigLabels]


@dataclass(frozen=True)
class InductorEstimate(GroupEstimate):
    """A :class:`GroupEstimate` at the survivor our analytical time ranks first, plus what Inductor's
    GPU benchmark (I5) would choose among: ``survivors`` configs, whose DRAM bytes run from
    ``dram_fewest`` to ``dram_most``; ``survivor_spills``: one of them spills; ``labels``: whose
    registers and spills filtered them (ptxas's, or the estimate's)."""

    survivors: int = 1
    dram_fewest: int | None = None
    dram_most: int | None = None
    survivor_spills: bool = False
    labels: str = ESTIMATED


@dataclass
class Inductor(EdgePolicy, GroupPolicy):
    """Inductor's launch configs (I1-I5) and ``max_fusion_size`` (I6) on ``arch``'s constants.

    ``labeller``: the registers and spills I5 filters on (``None``: the analytical estimate, the
    fallback); not a CLI option, the caller injects it (see the module docstring).
    """

    name = "inductor"
    arch: str = "sm_90"
    labeller: Labeller | None = field(default=None, repr=False, compare=False, metadata={"cli": False})
    _target: Target = field(init=False, repr=False, compare=False, default=None)  # type: ignore[assignment]

    def __post_init__(self):
        self._target = get_target(self.arch)

    # -- configs -------------------------------------------------------------------

    def candidates(self, shape) -> tuple[list, str]:
        """Inductor's config list for ``shape`` (benchmark order) and the rule that produced it."""
        from costfuse.launch import KernelLaunch, numel

        if shape.pointwise:
            hint = next_pow2(numel(shape))
            bs = max(256, min(hint // 128, 1024))
            out = [pointwise_config(hint, bs, 256), pointwise_config(hint, bs // 2, 64)]
            return _unique([KernelLaunch("pointwise", x, 1, w) for x, w in out]), "pointwise (autotune_pointwise)"
        pm, pn = next_pow2(shape.n_rows), next_pow2(shape.n)
        if shape.n <= PERSISTENT_INNER_MAX:
            out = self._persistent(pm, pn)
            return _unique([KernelLaunch("persistent", x, pn, w) for x, _, w in out]), \
                f"persistent (N={shape.n} <= {PERSISTENT_INNER_MAX}, INNER hint)"
        return _unique([KernelLaunch("looped", x, r, w) for x, r, w in self._looped(shape, pm, pn)]), \
            f"looped (N={shape.n} > {PERSISTENT_INNER_MAX})"

    @staticmethod
    def _persistent(pm: int, pn: int) -> list[tuple[int, int, int]]:
        """I3, INNER hint, max_autotune off, CUDA branch (a CPU-only torch would take another: we emulate CUDA)."""
        cands = [reduction_config(pm, pn, x, pn, register_intensive=True) for x in PERSISTENT_XBLOCKS
                 if x == 1 or (pn * x <= MAX_PERSISTENT_BLOCK_NUMEL and x <= pm)]
        if pn < 256:
            return cands
        if pn > 1024 or pm // 8 < 128:
            return cands[:1]
        return [reduction_config(pm, pn, min(1024 // pn, 8), pn, num_warps=1, register_intensive=True, min_warps=1)]

    def _looped(self, shape, pm: int, pn: int) -> list[tuple[int, int, int]]:
        """I4, INNER hint: ``[whole-row candidate?] + [contiguous config]``.

        Loads are counted as the looped kernel issues them (once per pass that
        reads an input); memory ops per thread as the persistent kernel's
        distinct loads and stores.
        """
        loads_and_red = sum(shape.passes_reading(i, "looped") for i in shape.inputs) + shape.reductions
        lo, hi = ADD_PERSISTENT_RBLOCK_RANGE
        add_persistent_rblock = (   # codegen/triton.py's flag; the heuristics check loads_and_red themselves
            lo < shape.n <= hi and len(shape.inputs) + len(shape.outputs) <= ADD_PERSISTENT_MAX_MEM_OPS
            and shape.issued_bytes("looped") >= ADD_PERSISTENT_MIN_SAVING * shape.issued_bytes("persistent"))
        return looped_configs(pm, pn, loads_and_red, add_persistent_rblock, self._target.arch)

    def _scale_rblock(self, shape, configs: list, regs, ok=None) -> list:
        """I5 ``_dynamic_scale_rblock``: a copy with RBLOCK halved of each compiled (``ok``, default all)
        looped config whose registers ``regs`` keep too few blocks resident for the grid."""
        from costfuse.launch import KernelLaunch

        t = self._target
        out = list(configs)
        for c, n_regs, compiled in zip(configs, regs, [True] * len(configs) if ok is None else ok):
            n_regs = min(float(n_regs), t.reg_cap(c.num_warps))
            if not compiled or c.mode != "looped" or c.rblock <= 64 or n_regs <= t.regs_per_sm // MAX_THREADS_PER_SM:
                continue
            blocks = -(-next_pow2(shape.n_rows) // c.xblock)
            if blocks > max(int(t.regs_per_sm // (n_regs * 32 * c.num_warps)), 1) * t.sms:
                out.append(KernelLaunch("looped", c.xblock, c.rblock // 2, c.num_warps))
        return _unique(out)

    def _estimated(self, shape, configs: list) -> ConfigLabels:
        return estimated_labels(shape, launch_arrays(configs), self._target)

    def _benchmark(self, shape, labeller: Labeller | None = None):
        """I2-I5 on ``shape``: (scores of the candidates after RBLOCK halving, their labels, the rule, which
        pass the spill filter, the survivor fastest by our analytical time or ``None`` when all spill).
        Labels are ``labeller``'s (default: this policy's, else the estimate)."""
        from costfuse.cost_models.group_time import score_configs

        label = labeller or self.labeller or self._estimated
        configs, rule = self.candidates(shape)
        labels = label(shape, configs)
        scaled = self._scale_rblock(shape, configs, labels.regs, labels.ok)
        if len(scaled) > len(configs):
            configs, labels = scaled, label(shape, scaled)
            rule += " + RBLOCK halved for occupancy"
        scores = score_configs(shape, configs, self._target, labels=labels)
        fits = labels.ok & (labels.local_bytes / N_SPILLS_BYTES <= SPILL_THRESHOLD)   # n_spills: spilled registers
        return scores, labels, rule, fits, scores.best(fits)

    def autotune(self, shape, labeller: Labeller | None = None) -> InductorEstimate:
        """The config Inductor runs ``shape`` at (:meth:`_benchmark`; Inductor times the survivors on the
        GPU, we take the fastest by our analytical time) and the range over every survivor."""
        scores, labels, rule, fits, best = self._benchmark(shape, labeller)
        n = len(scores.configs)
        if n == 1:
            survive = np.ones(1, dtype=bool)
            i, why = 0, "its one config"
        else:
            survive = fits if best is not None else np.arange(n) == 0
            pick = "all spill: the first" if best is None else "fastest by our analytical time"
            i = 0 if best is None else best
            why = (f"benchmark emulated over {n} configs, {int((~fits).sum())} dropped for "
                   f"> {SPILL_THRESHOLD} spills (stack/4), {pick}")
        dram = scores.dram_bytes[survive]
        spills = bool((labels.spill_bytes[survive] > 0).any())
        est = scores.estimate(i, f"inductor {rule}: {why}; {int(survive.sum())} survivor(s), DRAM "
                                 f"{dram.min() / 1e6:.3f}-{dram.max() / 1e6:.3f} MB"
                                 f"{', one spills' if spills else ''} ({labels.source})")
        return InductorEstimate(**vars(est), survivors=int(survive.sum()), dram_fewest=int(dram.min()),
                                dram_most=int(dram.max()), survivor_spills=spills, labels=labels.source)

    def best_config(self, shape) -> InductorEstimate:
        """The config Inductor would run ``shape`` at, on the estimate: what formation prices candidates
        with (Inductor's fusion asks no config, so no candidate costs a compile)."""
        return self.autotune(shape, self._estimated)

    def final_config(self, shape, estimate: GroupEstimate) -> GroupEstimate:
        """A formed kernel, autotuned again on the injected labeller's labels (unchanged without one)."""
        return estimate if self.labeller is None else self.autotune(shape, self.labeller)

    def weigh_configs(self, shape):
        """Inductor's candidates for ``shape`` (on the labeller's labels where one is injected), the spill
        filter's drops and the benchmark's pick (``--explain=configs``)."""
        scores, labels, rule, fits, i = self._benchmark(shape)
        if len(scores.configs) == 1:
            return scores.weighed(0, f"inductor {rule}: its one config")
        dropped = {j: f"dropped: > {SPILL_THRESHOLD} spills (stack/4)" for j, ok in enumerate(fits) if not ok}
        if i is None:
            dropped.pop(0)
        return scores.weighed(0 if i is None else i, f"inductor {rule}: " + (
            "all spill: the first" if i is None else "the fastest left, by our analytical time"), dropped)

    # -- formation -------------------------------------------------------------------

    def merge_verdict(self, a, b, ab, merged) -> MergeVerdict:
        """I6: merge every legal pair up to ``max_fusion_size`` members; priority = bytes saved."""
        size = len(merged.members)
        saved = float(a.issued_bytes + b.issued_bytes - ab.issued_bytes)
        if size > MAX_FUSION_SIZE:
            return MergeVerdict(False, saved, f"inductor: {size} members > max_fusion_size {MAX_FUSION_SIZE}")
        return MergeVerdict(True, saved, f"inductor fuses every legal pair: {size} members <= {MAX_FUSION_SIZE}, "
                                         f"score = {saved / 1e6:.3f} MB saved")

    def recompute_verdict(self, a, b, a_after, b_after, merged_b, producer_op=None) -> MergeVerdict:
        """I7: recompute a multi-use producer in each user unless it reads > 4 buffers or has > 30 ops;
        priority = bytes saved, as for merges."""
        store, why = realize_on_reuse(producer_op)
        saved = float(a.issued_bytes + b.issued_bytes - (0 if a_after is None else a_after.issued_bytes) - b_after.issued_bytes)
        if store:
            return MergeVerdict(False, saved, f"inductor realizes the producer: {why}")
        return MergeVerdict(True, max(saved, 0.0), f"inductor inlines the producer: {why}")

    def decide(self, candidate: FusionCandidate) -> Decision:
        """v1 edges: ``max_fusion_size`` on the chain, and I7 for a producer with other users."""
        chain = candidate.chain_length
        est = {"chain_length": chain}
        if chain > MAX_FUSION_SIZE:
            return Decision(False, f"chain length {chain} > max_fusion_size {MAX_FUSION_SIZE}", est)
        store, why = realize_on_reuse(candidate.producer)
        if store:
            return Decision(False, f"producer {why} (Inductor realizes it)", est)
        return Decision(True, f"chain length {chain} <= {MAX_FUSION_SIZE}; producer {why}", est)

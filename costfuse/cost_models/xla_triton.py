"""``xla-triton``: XLA GPU's Triton tiling and priority-fusion rules, as a cost model for kernel groups.

XLA takes this path only when one side of a fusion is already a Triton fusion
or under an experimental flag (``CanFuseTriton``, ``priority_fusion.cc``);
its default pipeline is ``xla`` (:mod:`costfuse.cost_models.xla`, native
emitters), which shares this module's budget and priority rules.

Restated in our own words from docs/peers.md (rules X-a to X-d), which read:

* X1 ``openxla/xla`` @ ``0c3b8dbf85566d72226c42cc81a779d883cf11a3``,
  ``xla/backends/gpu/transforms/priority_fusion.cc``: a producer fuses into
  all of its users or none (``CanFuseWithAllNonBitcastUsers``); priority =
  time unfused - time fused; priority < 0 is never fused.
* X2 ``openxla/xla`` @ ``01f5eba332cf135127741c5890cea18a28063852``,
  ``xla/service/gpu/model/gpu_indexing_performance_model.cc``: a padded tile
  above ``0.4 x registers_per_block_limit`` elements has infinite run time
  (``DoesTileFitInRegisters``, dtype ignored); warps by the largest padded
  tile (``GetNumWarps``: <= 256 -> 1, <= 1024 -> 2, <= 4096 -> 4, else 8).
* X3 ``openxla/xla`` @ ``3b29495bbb34dede6174a57da5574af357e68b7e``,
  ``xla/service/gpu/gpu_fusible.cc`` (``FusionFitsInBudget``): at most 8
  unnested reduction outputs per fusion.
* X4 ``ROCm/xla`` @ ``35033abbf6f190e8da4be62fcdac15edc53e2361``,
  ``xla/service/gpu/gpu_fusible.h``: at most 96 operands + outputs.
* X5 ``openxla/xla`` @ ``1b9862822510783e74956b8fc1d794a76c74411d`` and
  ``270c6f8fd27647d500e0277a787db44a687c7e22``,
  ``xla/service/gpu/model/gpu_performance_model.cc`` and
  ``gpu_performance_model_base.h``: per kernel ``t = compute + memory -
  0.95 min(compute, memory)``, plus ``kKernelLaunchOverhead`` = 1 us.
* X7 ``openxla/xla`` @ ``4336d12e0706168f6a382ddb231f3a83853b0657``,
  ``xla/backends/gpu/target_config/specs/h200.txtpb``:
  ``registers_per_block_limit`` 65536 (our ``Target.regs_per_sm``).

Our mapping: XLA's Triton tiling has no looped mode, so a row group is one
persistent tile ``[xblock, P(N)]`` per program (a pointwise group a flat
``[xblock]`` tile); among the tiles that fit, the fastest by our analytical
time stands in for XLA's indexing model.  A group with no tile that fits has
no config (``best_config`` returns ``None``) and stays split.  The merge
priority uses X5's formula with our byte and flop counts (reconstructed, not
XLA's own coalescing/occupancy terms).  Group formation does not recompute a
producer, so "fuse into all users" means all users end up in one kernel;
XLA would duplicate the producer into each user's fusion instead.  The
single-consumer multi-output exception (off by default in XLA) is not modelled.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from costfuse.launch import MAX_TILE_ELEMS, next_pow2
from costfuse.policy import Decision, EdgePolicy, FusionCandidate, GroupEstimate, GroupPolicy, MergeVerdict
from costfuse.targets import Target, get_target

TILE_REGISTER_FRACTION = 0.4             # X2: kFractionOfRegistersAvailableToStoreTile
MAX_OPERANDS_AND_OUTPUTS = 96            # X4: MaxOperandsAndOutputsPerFusion()
MAX_UNNESTED_REDUCTION_OUTPUTS = 8       # X3: kMaxUnnestedReductionOutputsPerFusion
MEMORY_COMPUTE_PARALLELISM = 0.95        # X5: PriorityFusion() options
WARPS_BY_TILE = ((256, 1), (1024, 2), (4096, 4))   # X2 GetNumWarps; larger tiles get 8


def num_warps(tile_elems: int) -> int:
    """X2 ``GetNumWarps``: warps from the largest padded tile of the fusion."""
    return next((w for bound, w in WARPS_BY_TILE if tile_elems <= bound), 8)


def tile_limit(target: Target) -> float:
    """X2: the most padded tile elements that fit, ``0.4 x registers per block`` (26214.4 on sm_90)."""
    return TILE_REGISTER_FRACTION * target.regs_per_sm


def xla_time(shape, mode: str, target: Target) -> float:
    """X5 without launch: ``compute + memory - 0.95 min(compute, memory)``, our bytes and flops."""
    peak = target.fp32_flops_per_s / (2.0 if shape.words == 2 else 1.0)
    compute = shape.flops(mode) / peak
    memory = shape.issued_bytes(mode) / target.hbm_bytes_per_s
    return compute + memory - MEMORY_COMPUTE_PARALLELISM * min(compute, memory)


def shared_results(shape) -> list[str]:
    """Members whose result is read inside the kernel *and* stored for a user outside it.

    Such a producer did not fuse into all of its users (X1), which XLA refuses.
    """
    ops = {m.op for m in shape.members}
    out = []
    for o in shape.outputs:
        res = shape.members[o.member].op.results[o.result]
        if any(u.owner.operation in ops for u in res.uses):
            out.append(f"member {o.member + 1}")
    return out


@dataclass(frozen=True)
class XlaEstimate(GroupEstimate):
    """A :class:`GroupEstimate` that also carries X5's time of the kernel (launch excluded)."""

    xla_time_s: float = float("nan")


@dataclass
class XlaTriton(EdgePolicy, GroupPolicy):
    """XLA GPU's Triton tile register rule, warps, fusion budget and priority on ``arch``'s constants."""

    name = "xla-triton"
    arch: str = "sm_90"
    _target: Target = field(init=False, repr=False, compare=False, default=None)  # type: ignore[assignment]

    def __post_init__(self):
        self._target = get_target(self.arch)

    def tiles(self, shape) -> list:
        """Every tile that fits X2's register bound, as launches; XLA searches power-of-two tiles."""
        from costfuse.launch import KernelLaunch, numel, pow2_upto

        limit = min(tile_limit(self._target), MAX_TILE_ELEMS)
        if shape.pointwise:
            return [KernelLaunch("pointwise", x, 1, num_warps(x)) for x in pow2_upto(next_pow2(numel(shape)))
                    if x <= limit]
        pn = next_pow2(shape.n)
        return [KernelLaunch("persistent", x, pn, num_warps(x * pn)) for x in pow2_upto(next_pow2(shape.n_rows))
                if x * pn <= limit]

    def best_config(self, shape) -> XlaEstimate | None:
        """The fastest tile that fits in registers, or ``None`` (infinite cost) when none does."""
        from costfuse.cost_models.group_time import score_configs

        tiles = self.tiles(shape)
        if not tiles:
            return None
        scores = score_configs(shape, tiles, self._target)
        i = scores.best()
        est = scores.estimate(i, f"xla: fastest of {len(tiles)} tiles <= {tile_limit(self._target):.0f} elements "
                                 f"by our analytical time, warps by tile size")
        return XlaEstimate(**vars(est), xla_time_s=xla_time(shape, tiles[i].mode, self._target))

    def weigh_configs(self, shape):
        """The tiles that fit X2's register bound (the others are never weighed), fastest first."""
        from costfuse.cost_models.group_time import score_configs

        tiles = self.tiles(shape)
        if not tiles:
            return []
        scores = score_configs(shape, tiles, self._target)
        return scores.weighed(scores.best(), f"xla: the fastest of {len(tiles)} tiles <= "
                                             f"{tile_limit(self._target):.0f} elements by our analytical time")

    def over_budget(self, merged) -> str | None:
        """X3/X4: why ``merged`` exceeds XLA's fusion budget, or ``None``."""
        io = len(merged.inputs) + len(merged.outputs)
        if io > MAX_OPERANDS_AND_OUTPUTS:
            return f"xla: {io} operands + outputs > {MAX_OPERANDS_AND_OUTPUTS}"
        reductions = sum(len(m.results) for m in merged.members if m.role == "reduce")
        if reductions > MAX_UNNESTED_REDUCTION_OUTPUTS:
            return f"xla: {reductions} reduction outputs > {MAX_UNNESTED_REDUCTION_OUTPUTS}"
        return None

    def priority(self, a, b, ab) -> float:
        """X5: time unfused - time fused of two kernels, one launch saved."""
        return self._target.launch_overhead_s + a.xla_time_s + b.xla_time_s - ab.xla_time_s

    def merge_verdict(self, a, b, ab, merged) -> MergeVerdict:
        """X3/X4 budget, X1 all users or none, then X5 priority = time saved (< 0: never fused)."""
        priority = self.priority(a, b, ab)
        if why := self.over_budget(merged):
            return MergeVerdict(False, priority, why)
        if shared := shared_results(merged):
            return MergeVerdict(False, priority, f"xla: a producer fuses into all its users or none; "
                                                 f"{', '.join(shared)} of the merged kernel is still read outside it")
        verdict = f"xla priority {priority * 1e6:.3f} us (X5: compute + memory - 0.95 min, 1 us launch)"
        if priority < 0:
            return MergeVerdict(False, priority, f"{verdict} < 0: never fused")
        return MergeVerdict(True, priority, f"{verdict} >= 0")

    def recompute_verdict(self, a, b, a_after, b_after, merged_b, producer_op=None) -> MergeVerdict:
        """Not modelled: XLA duplicates a producer into its users only as part of fusing it into all of
        them at once (X1), which formation's one-pair-at-a-time merges cannot express; it stores it."""
        return MergeVerdict(False, 0.0, "xla: a producer fuses into all of its users at once or is stored")

    def decide(self, candidate: FusionCandidate) -> Decision:
        """v1 edges: all users or none, the operand budget, and a tile that fits for the fused op."""
        from costfuse.graph import num_inputs
        from costfuse.kernel import NotAKernel

        fused = candidate.fused
        io = num_inputs(fused) + len(fused.results)
        est = {"operands_and_outputs": io, "chain_length": candidate.chain_length}
        if len({u.owner.operation for r in candidate.producer.results for u in r.uses}) > 1:
            return Decision(False, "xla: a producer fuses into all its users or none; "
                                   "v1 fuses one edge at a time", est)
        if io > MAX_OPERANDS_AND_OUTPUTS:
            return Decision(False, f"xla: {io} operands + outputs > {MAX_OPERANDS_AND_OUTPUTS}", est)
        try:
            shape = candidate.per_op("fused", _row_kernel)
        except NotAKernel:
            return Decision(True, "xla: not a row kernel (native loop emitter, no tile rule)", est)
        if why := self.unfit(shape):
            return Decision(False, why, est)
        return Decision(True, f"xla: {io} operands + outputs <= {MAX_OPERANDS_AND_OUTPUTS}, {self.fit_note}", est)

    fit_note = "a tile fits"   # what a fused op that :meth:`unfit` accepts has going for it

    def unfit(self, shape) -> str | None:
        """Why one fused op ``shape`` cannot be emitted (X2: no tile fits), or ``None``."""
        if self.best_config(shape) is None:
            return f"xla: no tile of the fused op fits {tile_limit(self._target):.0f} elements"
        return None


def _row_kernel(op):
    """The :class:`~costfuse.kernel.KernelShape` of one generic (raises ``NotAKernel``)."""
    from costfuse.kernel import analyze_kernel

    return analyze_kernel([op])

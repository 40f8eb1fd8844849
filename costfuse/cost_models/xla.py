"""``xla``: XLA GPU's default fusion pipeline (native emitters), as a cost model for kernel groups.

XLA's default GPU path is not Triton tiling (that is ``xla-triton``,
:mod:`costfuse.cost_models.xla_triton`, taken only when one side is already a
Triton fusion or under an experimental flag).  Restated in our own words from
docs/peers.md (rules X-f to X-j), which cite each line:

* X-f the pipeline (``xla/service/gpu/fusion_pipeline.cc``, ``FusionPipeline``):
  ``PriorityFusion``, then ``MultiOutputFusion``.  Formation's merges are the
  priority fusion; :attr:`multi_output_fusion` asks for the second phase.
* X-g native emitters fuse producers into a reduction with no tile limit, and
  emit no fusion that reads a full-row value computed from the reduction
  (``priority_fusion.cc`` refuses a producer and a consumer that both reduce,
  and a reduction whose consumer would turn it into a loop fusion): a native
  kernel makes **one pass** over the row (``KernelShape.n_passes == 1``).
* X-h the row-reduction emitter (``RowReductionFusion``, ``reduction.cc``;
  ``GetVectorSizeForMlir``): 16 elements per thread, ``min(1024,
  roundup(ceil(N / 16), 32))`` threads per row, several rows per block while a
  block stays within 256 threads, vectors of 2 (4 for sub-32-bit inputs on
  long rows).  The loop emitter (``CalculateLaunchDimensions``,
  ``launch_dimensions.cc``): 128 threads per block.
* X-i producer duplication: priority fusion fuses a producer into *all* its
  users, duplicating it, when X5's priority is >= 0 (our
  :meth:`recompute_verdict`, one user at a time).
* X-j ``MultiOutputFusion`` (``multi_output_fusion.cc``): siblings of a
  shared non-scalar operand merge when not connected, one pass and within the
  budget (no cost model); a producer merges into a reader that keeps it stored
  when the cost model says no slower.

The budget (X3/X4) and priority (X5) are ``xla-triton``'s.  Departures are
listed in docs/peers.md ("xla: departures").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from iree.compiler import ir

from costfuse.cost_models.xla_triton import XlaEstimate, XlaTriton, xla_time
from costfuse.estimates import elem_bits
from costfuse.launch import KernelLaunch, next_pow2
from costfuse.policy import MergeVerdict

ELEMS_PER_THREAD = 16            # X-h: kMinorReducedElementsPerThread
MAX_ROW_THREADS = 1024           # X-h: MinThreadsXRowReduction
THREADS_PER_BLOCK_TARGET = 256   # X-h: kThreadsPerBlockTarget (rows packed per block)
WARP = 32
LOOP_THREADS = 128               # X-h: CalculateLaunchDimensions, warp size x kWarpSchedulers (4)
LOOP_UNROLL = 4                  # X-h: the loop emitter's unroll (vectorized) factor, at most 4


def _round_up(x: int, m: int) -> int:
    return -(-x // m) * m


def smallest_input_bits(shape) -> int:
    """The narrowest element type the kernel reads, in bits (XLA's ``smallest_input_dtype_bits``)."""
    bits = [elem_bits(str(ir.RankedTensorType(i.value.type).element_type)) for i in shape.inputs]
    return min(bits, default=32)


def row_threads(n: int) -> int:
    """X-h: threads reducing one row of ``n`` elements."""
    return min(MAX_ROW_THREADS, _round_up(-(-n // ELEMS_PER_THREAD), WARP))


def rows_per_block(rows: int, threads: int) -> int:
    """X-h: rows a block reduces at once, filling up to 256 threads when one row needs half or fewer."""
    if threads * 2 > THREADS_PER_BLOCK_TARGET:
        return 1
    return rows if rows * threads <= THREADS_PER_BLOCK_TARGET else THREADS_PER_BLOCK_TARGET // threads


def vector_size(n: int, threads: int, bits: int) -> int:
    """X-h ``GetVectorSizeForMlir``: elements per load of a row-reduction thread."""
    if n % 2 or threads * 2 > n:
        return 1
    if bits >= 32 or threads * 4 > n:
        return 2
    return 4 if n % 4 == 0 else 2


def native_launch(shape) -> tuple[KernelLaunch, str]:
    """The launch XLA's native emitter gives ``shape``, in our terms, and how it was derived."""
    if shape.pointwise:
        from costfuse.launch import numel

        x = min(LOOP_THREADS * LOOP_UNROLL, next_pow2(numel(shape)))
        return KernelLaunch("pointwise", x, 1, LOOP_THREADS // WARP), \
            f"loop emitter: {LOOP_THREADS} threads x {LOOP_UNROLL} elements"
    threads = row_threads(shape.n)
    rows = rows_per_block(shape.n_rows, threads)
    vec = vector_size(shape.n, threads, smallest_input_bits(shape))
    warps = next_pow2(-(-rows * threads // WARP))
    xblock = next_pow2(rows)
    rblock = next_pow2(threads * vec)
    return KernelLaunch("looped", xblock, rblock, warps), \
        f"row-reduction emitter: {threads} threads per row x {rows} row(s), vector {vec}"


@dataclass
class Xla(XlaTriton):
    """XLA GPU's default pipeline: native emitters, producer duplication, then multi-output fusion."""

    name = "xla"
    multi_output_fusion: ClassVar[bool] = True
    fit_note = "native emitters (no tile rule)"

    def best_config(self, shape) -> XlaEstimate:
        """X-h: the native emitter's launch (no tile limit: always a config), our estimates there."""
        from costfuse.cost_models.group_time import score_configs

        launch, how = native_launch(shape)
        est = score_configs(shape, [launch], self._target).estimate(0, f"xla native {how}")
        return XlaEstimate(**vars(est), xla_time_s=xla_time(shape, launch.mode, self._target))

    def unfit(self, shape) -> str | None:
        """X-g: a native kernel makes one pass over the row."""
        passes = shape.passes_without_online   # XLA computes no online softmax, nor a Welford variance
        if passes > 1:
            return (f"xla: the native emitters make one pass over the row; this kernel needs {passes} "
                    f"(a full-row value computed from a reduction)")
        return None

    def weigh_configs(self, shape):
        """The native emitter's one launch: XLA weighs no configs (``--explain=configs``)."""
        from costfuse.cost_models.group_time import score_configs

        launch, how = native_launch(shape)
        return score_configs(shape, [launch], self._target).weighed(0, f"xla native {how}, its only launch")

    def merge_verdict(self, a, b, ab, merged) -> MergeVerdict:
        """X-g one pass, then ``xla-triton``'s budget, all-users and X5 priority rules."""
        if why := self.unfit(merged):
            return MergeVerdict(False, self.priority(a, b, ab), why)
        return super().merge_verdict(a, b, ab, merged)

    def recompute_verdict(self, a, b, a_after, b_after, merged_b, producer_op=None) -> MergeVerdict:
        """X-i: duplicate the producer into ``b`` when ``b`` stays one pass within the budget and X5's
        priority of fusing it into *all* its users is >= 0: ``launch + t(P) - sum_i (t(P o C_i) - t(C_i))``,
        each user's added time taken as ``b``'s (formation asks one user at a time)."""
        users = len({u.owner.operation for r in producer_op.results for u in r.uses}) if producer_op else 1
        alone = self._alone_time(producer_op, a)
        added = b_after.xla_time_s - b.xla_time_s
        priority = self._target.launch_overhead_s + alone - users * added
        if why := self.unfit(merged_b) or self.over_budget(merged_b):
            return MergeVerdict(False, priority, why)
        verdict = f"xla duplicates the producer into its {users} users: priority {priority * 1e6:.3f} us (X5)"
        if priority < 0:
            return MergeVerdict(False, priority, f"{verdict} < 0: not fused")
        return MergeVerdict(True, priority, verdict)

    def _alone_time(self, producer_op, a) -> float:
        """X5 time of the producer as a kernel of its own (``a``'s when it is no row kernel alone)."""
        from costfuse.kernel import NotAKernel, analyze_kernel

        if producer_op is None:
            return a.xla_time_s
        try:
            shape = analyze_kernel([producer_op])
        except NotAKernel:
            return a.xla_time_s
        return xla_time(shape, native_launch(shape)[0].mode, self._target)

    def multi_output_verdict(self, kind, a, b, ab, merged, parts) -> MergeVerdict:
        """X-j: siblings merge when one pass and within the budget (the phase checks they are not
        connected and share a non-scalar operand); a producer-consumer pair also when X5 says the
        multi-output kernel is no slower."""
        if why := self.unfit(merged) or self.over_budget(merged):
            return MergeVerdict(False, 0.0, why)
        if kind == "siblings":
            return MergeVerdict(True, 0.0, "xla MultiOutputFusion: siblings, one pass, within the budget")
        saving = self.priority(a, b, ab)
        if saving < 0:
            return MergeVerdict(False, saving, f"xla MultiOutputFusion: slower fused ({saving * 1e6:.3f} us, X5)")
        return MergeVerdict(True, saving, f"xla MultiOutputFusion: producer-consumer, saves {saving * 1e6:.3f} us (X5)")

"""The seams the passes ask their questions through: one policy per kind of decision (docs/design.md §4).

Shaped like Inductor's ``InductorChoices``: the pass owns the mechanics
(legality, rewriting, formation order) and a *policy* answers the questions
whose answers are a matter of cost, each answer with its reason, so
``--explain`` can print every choice with its numbers, as Inductor's
``can_fuse`` logs do.

* :class:`EdgePolicy` (v1, ``--fusion elementwise``): one question per legal
  producer→consumer edge, *fuse this producer into this consumer?*  It sees a
  :class:`FusionCandidate` and answers a :class:`Decision`.
* :class:`GroupPolicy` (``--fusion groups``, docs/groups.md): the best config
  of one kernel (:meth:`~GroupPolicy.best_config`), whether two kernels become
  one (:meth:`~GroupPolicy.merge_verdict`), whether a kernel recomputes a
  producer instead of reading it (:meth:`~GroupPolicy.recompute_verdict`), and
  what a kernel gets when no config is acceptable or it is not a row kernel.

Policies are dataclasses whose fields are their CLI options (the xDSL pass
style): ``--max-chain-length`` is ``Threshold.max_chain_length``.  A cost model
(``costfuse/cost_models/``) may implement both seams in one class; the
learned model implements each in its own (``LearnedEdges``, ``LearnedGroups``),
and :mod:`costfuse.cost_models` names which class answers for each CLI name.
This module is the compiler core's: it imports no cost model.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from costfuse.launch import KernelLaunch, heuristic_launch, heuristic_launch_for
from costfuse.targets import Target, get_target

if TYPE_CHECKING:   # the Linalg side loads IREE's bindings when used: the Inductor handler runs without them
    from iree.compiler import ir

ROLES = ("producer", "consumer", "fused")


@dataclass(frozen=True)
class FusionCandidate:
    """A legal edge and the generic its fusion would produce.

    ``fused`` is detached from the IR; it is inserted only if the policy says yes.

    ``keys`` and ``memo`` let a policy analyze each op once per pass run
    instead of once per candidate (:meth:`per_op`).  The pass gives every op
    a name that is unique while the op's content stays the same (``g3``, and
    ``g3+g4`` for the op fusing them), and one ``memo`` dict per run; outside
    the pass both are ``None`` and nothing is memoized.  Op handles cannot be
    the keys: once an op is erased its address, and so its handle's hash, can
    be reused by a new op.
    """

    producer: ir.Operation
    consumer: ir.Operation
    fused: ir.Operation
    keys: tuple[str, str, str] | None = None   # names of (producer, consumer, fused) in this pass run
    memo: dict | None = field(default=None, compare=False, repr=False)

    def per_op(self, role: str, analysis: Callable[[ir.Operation], Any]) -> Any:
        """``analysis(op)`` of the ``role`` op (``producer | consumer | fused``), memoized across the run."""
        op = getattr(self, role)
        if self.memo is None or self.keys is None:
            return analysis(op)
        key = (self.keys[ROLES.index(role)], analysis)
        if key not in self.memo:
            self.memo[key] = analysis(op)
        return self.memo[key]

    @property
    def chain_length(self) -> int:
        """Original generics the fused op would merge."""
        from costfuse.graph import chain_length

        return chain_length(self.fused)

    @property
    def body_ops(self) -> int:
        """Payload ops of the fused op, ``linalg.yield`` excluded."""
        from costfuse.graph import body_ops

        return body_ops(self.fused)


@dataclass(frozen=True)
class Decision:
    """``fuse`` or not, a one-line human ``reason``, and the numbers behind it."""

    fuse: bool
    reason: str
    estimates: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class GroupEstimate:
    """A kernel group at the config a policy chose, and what the policy predicts there.

    ``time_s`` is the policy's objective (seconds for the analytical time);
    ``regs`` and ``spill_bytes`` are per thread, as ptxas reports them
    (spill bytes stored + loaded, :mod:`costfuse.estimates`).  ``issued_bytes``:
    what the kernel's loads and stores move; ``dram_bytes``: those of them
    that miss L2, by the L2 model (an estimate); ``None`` where not estimated.
    ``p_spill``: the learned policy's P(spill) at the config (NaN for a policy
    that predicts none).
    """

    launch: KernelLaunch
    time_s: float
    issued_bytes: int
    regs: float = float("nan")
    spill_bytes: float = 0.0
    reason: str = ""
    dram_bytes: int | None = None
    p_spill: float = float("nan")

    def line(self) -> str:
        """One line for ``--explain``; what the policy did not estimate says so in words."""
        regs = "regs not estimated" if self.regs != self.regs else f"regs {self.regs:.0f}"
        dram = "dram not estimated" if self.dram_bytes is None else f"dram {self.dram_bytes / 1e6:.3f} MB"
        time = "time not estimated" if self.time_s != self.time_s else f"{self.time_s * 1e6:.2f} us"
        return (f"{self.launch.short()}, {regs}, spill {self.spill_bytes:.0f} B, "
                f"issued {self.issued_bytes / 1e6:.3f} MB, {dram}, {time}")


@dataclass(frozen=True)
class WeighedConfig:
    """One config a policy weighed for a kernel (``--explain=configs``): its estimates, the P(spill) a
    learned policy predicted there (``None`` where none was), and the verdict: ``picked: why`` for the
    one it chose, else why not (predicted to spill, outside the training range, slower than the pick)."""

    launch: KernelLaunch
    time_s: float
    issued_bytes: int
    dram_bytes: int | None
    regs: float
    spill_bytes: float
    p_spill: float | None
    verdict: str

    @property
    def picked(self) -> bool:
        return self.verdict.startswith("picked")

    def line(self) -> str:
        """``  * persistent x1 r1024 w4     P(spill) 0.03  regs 40  spill 0 B  issued ... us  picked: ...``."""
        p = "P(spill)  -  " if self.p_spill is None or self.p_spill != self.p_spill else f"P(spill) {self.p_spill:.2f}"
        regs = "regs  ?" if self.regs != self.regs else f"regs {self.regs:3.0f}"
        spill = "spill ? B" if self.spill_bytes != self.spill_bytes else f"spill {self.spill_bytes:.0f} B"
        dram = "dram ?" if self.dram_bytes is None else f"dram {self.dram_bytes / 1e6:.3f} MB"
        time = "time ?" if self.time_s != self.time_s else f"{self.time_s * 1e6:.2f} us"
        return (f"  {'*' if self.picked else ' '} {self.launch.short():<27} {p}  {regs}  "
                f"{spill}  issued {self.issued_bytes / 1e6:.3f} MB  {dram}  {time}  "
                f"{self.verdict}")


@dataclass(frozen=True)
class MergeVerdict:
    """Whether two groups become one kernel; ``priority`` orders the merges (highest first)."""

    merge: bool
    priority: float
    reason: str


class EdgePolicy(ABC):
    """Decides v1's producer→consumer edges.  ``name`` is the CLI choice."""

    name: ClassVar[str]

    @abstractmethod
    def decide(self, candidate: FusionCandidate) -> Decision:
        """Whether to fuse ``candidate.producer`` into ``candidate.consumer``."""

    def decide_batch(self, candidates: list[FusionCandidate]) -> list[Decision]:
        """Decide several candidates at once; learned policies override this to batch."""
        return [self.decide(c) for c in candidates]


class GroupPolicy(ABC):
    """Decides kernel groups and their configs (docs/groups.md).  ``name`` is the CLI choice.

    By default two kernels merge when the merged kernel at its best config is
    no slower than the two apart (``margin`` below), largest saving first, and a
    kernel recomputes a producer when the two kernels are no slower after.
    """

    name: ClassVar[str]
    margin: float = 0.0
    arch: str = "sm_90"

    @property
    def target(self) -> Target:
        """The constants the policy's estimates use (its ``arch``)."""
        return get_target(self.arch)

    @abstractmethod
    def best_config(self, shape) -> GroupEstimate | None:
        """The best config of the kernel ``shape`` (a ``costfuse.kernel.KernelShape``),
        or ``None`` when no config is acceptable (the group is refused)."""

    def merge_verdict(self, a: GroupEstimate, b: GroupEstimate, ab: GroupEstimate, merged) -> MergeVerdict:
        """Merge iff ``t(ab) <= (1 - margin) * (t(a) + t(b))``; priority = the time saved."""
        apart = a.time_s + b.time_s
        saving = apart - ab.time_s
        merged, parts = microseconds(ab.time_s, apart)
        if ab.time_s <= (1.0 - self.margin) * apart:
            return MergeVerdict(True, saving, f"saves {saving * 1e6:.2f} us ({merged} vs {parts})")
        if ab.time_s <= apart:   # within the margin
            return MergeVerdict(False, saving, f"saves less than the margin {self.margin:g}: {merged} us vs {parts} apart")
        return MergeVerdict(False, saving, f"slower merged: {merged} us vs {parts} apart")

    def recompute_verdict(self, a: GroupEstimate, b: GroupEstimate, a_after: GroupEstimate | None,
                          b_after: GroupEstimate, merged_b, producer_op=None) -> MergeVerdict:
        """Whether kernel ``b`` should recompute a producer of kernel ``a`` (``producer_op``) instead of
        reading what ``a`` stores.  ``a_after``: ``a`` once it no longer stores that value (``None``:
        ``a`` then stores nothing and goes).  By default: iff the two kernels are no slower after."""
        before = a.time_s + b.time_s
        after = (0.0 if a_after is None else a_after.time_s) + b_after.time_s
        saving = before - after
        gone = "; the producer's kernel goes" if a_after is None else ""
        if after <= (1.0 - self.margin) * before:
            return MergeVerdict(True, saving, f"recompute saves {saving * 1e6:.2f} us{gone}")
        t_after, t_before = microseconds(after, before)
        if after == before:
            return MergeVerdict(False, saving, f"recompute saves nothing: {t_after} us either way{gone}")
        if after < before:   # within the margin
            return MergeVerdict(False, saving, f"recompute saves less than the margin {self.margin:g}: "
                                               f"{t_after} us vs {t_before}{gone}")
        return MergeVerdict(False, saving, f"recompute is slower: {t_after} us vs {t_before}{gone}")

    def weigh_configs(self, shape) -> list[WeighedConfig] | None:
        """Every config :meth:`best_config` weighed for ``shape``, fastest first, with why each lost or won
        (``--explain=configs``); ``None`` for a policy that weighs none (it runs a fixed config)."""
        return None

    # Whether formation, once no merge is left, runs a multi-output phase asking
    # :meth:`multi_output_verdict` (XLA's MultiOutputFusion pass runs after its priority fusion).
    multi_output_fusion: ClassVar[bool] = False

    def multi_output_verdict(self, kind: str, a: GroupEstimate, b: GroupEstimate, ab: GroupEstimate, merged,
                             parts: tuple) -> MergeVerdict:
        """After forming, only when :attr:`multi_output_fusion` is set: whether kernels ``a`` and ``b``
        become one kernel storing both their outputs.  ``kind`` is ``siblings`` (both read one tensor,
        neither reads the other) or ``producer-consumer`` (``b`` reads ``a``, whose value other readers
        still read, so it stays stored); ``parts`` are the two kernels' shapes.  By default: never."""
        return MergeVerdict(False, 0.0, f"{self.name} merges no kernels after forming")

    def final_config(self, shape, estimate: GroupEstimate) -> GroupEstimate:
        """The config a formed kernel runs at, asked once per kernel when formation is done; by default
        the one formation priced it at.  A policy whose compiler picks a kernel's config only after
        fusing (Inductor autotunes the fused kernel) overrides this, so labels that cost a compile each
        are asked for the kernels that exist, not for every candidate formation priced."""
        return estimate

    @property
    def group_fallbacks(self) -> tuple[int, int]:
        """(group decisions made, of which a fallback policy took) so far: none, unless the policy has one."""
        return (0, 0)

    def refused_estimate(self, shape) -> GroupEstimate:
        """What a kernel the policy accepts no config for runs at: the heuristic config."""
        launch = heuristic_launch(shape)
        return GroupEstimate(launch, float("nan"), shape.issued_bytes(launch.mode),
                             reason=f"{self.name} accepts no config: heuristic config",
                             dram_bytes=shape.dram_bytes_at(launch, self.target))

    def lone_estimate(self, op: ir.Operation) -> GroupEstimate:
        """A generic that is not a row kernel keeps v1's config (it never merges)."""
        from iree.compiler import ir

        from costfuse.graph import body, num_inputs
        from costfuse.kernel import tensor_bytes

        ins = list(op.operands)[: num_inputs(op)]
        # an input the body never reads is not loaded (data/lowering/generic.py loads an operand where it is used)
        read = [v for v, arg in zip(ins, body(op).arguments) if any(True for _ in arg.uses)]
        nbytes = sum(tensor_bytes(v) for v in read + list(op.results))   # index counts 64 bits, as kernels do
        kinds = [str(t) for t in ir.ArrayAttr(op.attributes["iterator_types"])]
        rows = _tensor_elems(op.results[0]) if op.results else 1
        red = 1
        if any("reduction" in k for k in kinds):
            red = max(1, _tensor_elems(ins[0]) // max(1, rows)) if ins else 1
            # a reduction also loads each output's initial value, as its lowering does (data/lowering/generic.py)
            nbytes += sum(tensor_bytes(v) for v in list(op.operands)[num_inputs(op):])
        return GroupEstimate(heuristic_launch_for(rows, red), float("nan"), nbytes, reason="not a row kernel: v1 config",
                             dram_bytes=nbytes)   # one pass: every byte once


def microseconds(a: float, b: float) -> tuple[str, str]:
    """Two times in µs, printed with as many decimals (2 to 4) as it takes to tell them apart, so an
    explanation never calls two times that print alike slower and faster."""
    for digits in (2, 3, 4):
        x, y = f"{a * 1e6:.{digits}f}", f"{b * 1e6:.{digits}f}"
        if x != y:
            return x, y
    return f"{a * 1e6:.2f}", f"{b * 1e6:.2f}"   # equal to 4 decimals: equal


def _tensor_elems(v: ir.Value) -> int:
    from iree.compiler import ir

    n = 1
    for s in ir.RankedTensorType(v.type).shape:
        n *= s
    return n

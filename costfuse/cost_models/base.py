"""The cost-model interface the fusion pass talks to (docs/design.md §4).

One question per legal producer→consumer edge: *should this producer be
fused into this consumer?*  A model sees a :class:`FusionCandidate` (the two
ops and the generic the fusion would produce) and answers with a
:class:`Decision` that explains itself, so ``--explain`` can print every
choice with its reason and numbers, as Inductor's ``can_fuse`` logs do.

Models are dataclasses whose fields are their CLI options (the xDSL pass
style): ``--max-chain-length`` is ``Threshold.max_chain_length``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from iree.compiler import ir

from costfuse.graph import body_ops, chain_length


ROLES = ("producer", "consumer", "fused")


@dataclass(frozen=True)
class FusionCandidate:
    """A legal edge and the generic its fusion would produce.

    ``fused`` is detached from the IR; it is inserted only if the model says yes.

    ``keys`` and ``memo`` let a model analyze each op once per pass run
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
        return chain_length(self.fused)

    @property
    def body_ops(self) -> int:
        """Payload ops of the fused op, ``linalg.yield`` excluded."""
        return body_ops(self.fused)


@dataclass(frozen=True)
class Decision:
    """``fuse`` or not, a one-line human ``reason``, and the numbers behind it."""

    fuse: bool
    reason: str
    estimates: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class GroupEstimate:
    """A kernel group at the config a model chose, and what the model predicts there.

    ``time_s`` is the model's objective (seconds for the analytical time);
    ``regs`` and ``spill_bytes`` are per thread, as ptxas reports them.
    """

    launch: Any              # costfuse.launch.KernelLaunch
    time_s: float
    hbm_bytes: int
    regs: float = float("nan")
    spill_bytes: float = 0.0
    reason: str = ""

    def line(self) -> str:
        regs = "?" if self.regs != self.regs else f"{self.regs:.0f}"
        return (f"{self.launch.short()}, regs {regs}, spill {self.spill_bytes:.0f} B, "
                f"hbm {self.hbm_bytes / 1e6:.3f} MB, {self.time_s * 1e6:.2f} us")


@dataclass(frozen=True)
class MergeVerdict:
    """Whether two groups become one kernel; ``priority`` orders the merges (highest first)."""

    merge: bool
    priority: float
    reason: str


class CostModel(ABC):
    """Decides fusion edges (v1) and kernel groups (``--fusion groups``).

    Subclasses are dataclasses; ``name`` is the CLI choice.  For groups a
    model answers two questions (docs/groups.md): the best config of one
    kernel (:meth:`best_config`) and whether two kernels should become one
    (:meth:`merge_verdict`, by default: merge when the merged kernel at its
    best config is no slower than the two apart, largest saving first).
    """

    name: ClassVar[str]

    def best_config(self, shape) -> GroupEstimate | None:
        """The best config of the kernel ``shape`` (a ``costfuse.kernel.KernelShape``),
        or ``None`` when no config is acceptable (the group is refused)."""
        raise NotImplementedError(f"cost model {self.name!r} does not decide kernel groups")

    def merge_verdict(self, a: GroupEstimate, b: GroupEstimate, ab: GroupEstimate, merged) -> MergeVerdict:
        """Merge iff ``t(ab) <= (1 - margin) * (t(a) + t(b))``; priority = the time saved."""
        apart = a.time_s + b.time_s
        saving = apart - ab.time_s
        if ab.time_s <= (1.0 - getattr(self, "margin", 0.0)) * apart:
            return MergeVerdict(True, saving, f"saves {saving * 1e6:.2f} us ({ab.time_s * 1e6:.2f} vs {apart * 1e6:.2f})")
        return MergeVerdict(False, saving, f"slower merged: {ab.time_s * 1e6:.2f} us vs {apart * 1e6:.2f} apart")

    def recompute_verdict(self, a: GroupEstimate, b: GroupEstimate, a_after: GroupEstimate | None,
                          b_after: GroupEstimate, merged_b, producer_op=None) -> MergeVerdict:
        """Whether kernel ``b`` should recompute a producer of kernel ``a`` (``producer_op``) instead of
        reading what ``a`` stores.  ``a_after``: ``a`` once it no longer stores that value (``None``:
        ``a`` then stores nothing and goes).  By default: iff the two kernels are no slower after."""
        before = a.time_s + b.time_s
        after = (0.0 if a_after is None else a_after.time_s) + b_after.time_s
        saving = before - after
        gone = "; the producer's kernel goes" if a_after is None else ""
        if after <= (1.0 - getattr(self, "margin", 0.0)) * before:
            return MergeVerdict(True, saving, f"recompute saves {saving * 1e6:.2f} us{gone}")
        return MergeVerdict(False, saving, f"recompute is slower: {after * 1e6:.2f} us vs {before * 1e6:.2f}{gone}")

    @abstractmethod
    def decide(self, candidate: FusionCandidate) -> Decision:
        """Whether to fuse ``candidate.producer`` into ``candidate.consumer``."""

    def decide_batch(self, candidates: list[FusionCandidate]) -> list[Decision]:
        """Decide several candidates at once; learned models override this to batch."""
        return [self.decide(c) for c in candidates]

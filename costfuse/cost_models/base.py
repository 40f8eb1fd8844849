"""The cost-model interface the fusion pass talks to (DESIGN §4).

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


class CostModel(ABC):
    """Decides fusion edges.  Subclasses are dataclasses; ``name`` is the CLI choice."""

    name: ClassVar[str]

    @abstractmethod
    def decide(self, candidate: FusionCandidate) -> Decision:
        """Whether to fuse ``candidate.producer`` into ``candidate.consumer``."""

    def decide_batch(self, candidates: list[FusionCandidate]) -> list[Decision]:
        """Decide several candidates at once; learned models override this to batch."""
        return [self.decide(c) for c in candidates]

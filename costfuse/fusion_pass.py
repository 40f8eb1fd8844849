"""The CostFuse pass: fuse producer generics into consumers when the cost model agrees.

A Python-defined MLIR pass anchored on the module (docs/design.md §5: anchoring on
``func.func`` aborts the process).  It walks every function's generics in
program order; for each consumer it visits the edges from its generic
producers in operand order, builds the would-be fused generic, asks the cost
model, and fuses on a yes.  After a fusion the fused op is the consumer and
its (new) producers are visited again.  The model is never asked twice about
the same producer for one consumer; legality is re-checked, since fusing
can remove the other uses of a producer.  The walk is deterministic, so the same IR and model always give
the same output and the same ``--explain`` log.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from iree.compiler import ir
from iree.compiler.passmanager import PassManager

from costfuse.cost_models.always import Always
from costfuse.graph import Edge, edges_into, function_blocks, generics_in, legality
from costfuse.policy import Decision, EdgePolicy, FusionCandidate
from costfuse.rewrite import Unfusable, build_fused, commit, discard


@dataclass(frozen=True)
class DecisionRecord:
    """One edge the pass looked at, for ``--explain`` and for experiments."""

    producer: str
    consumer: str
    legal: bool
    fuse: bool
    reason: str
    estimates: dict[str, float] = field(default_factory=dict)

    def line(self) -> str:
        verdict = "fuse" if self.fuse else ("keep" if self.legal else "skip")
        est = " ".join(f"{k}={_fmt(v)}" for k, v in self.estimates.items())
        return f"{verdict:4} {self.producer} -> {self.consumer}: {self.reason}" + (f" [{est}]" if est else "")


def _fmt(v) -> str:
    return f"{v:.4g}" if isinstance(v, float) else str(v)


@dataclass
class FusionPass:
    """Fuse ``linalg.generic`` producers into consumers as ``cost_model`` decides.

    Use it as ``FusionPass(Threshold(3, 16)).run(module)``, or add it to a
    ``PassManager`` with :meth:`add_to`.  ``allow_multi_use`` also fuses a
    producer whose result has other users, recomputing it in the consumer
    (upstream's default refuses those edges, and so do we).
    """

    NAME: ClassVar[str] = "costfuse-fuse"
    cost_model: EdgePolicy = field(default_factory=Always)
    allow_multi_use: bool = False
    decisions: list[DecisionRecord] = field(default_factory=list, init=False)

    def run(self, module: ir.Module | ir.Operation) -> list[DecisionRecord]:
        """Fuse in place; return the decisions of this run."""
        start = len(self.decisions)
        with module.context:
            for block in function_blocks(module):
                self._run_block(block)
        return self.decisions[start:]

    def __call__(self, op: ir.Operation, pass_=None) -> None:
        """The callable ``PassManager.add`` runs on the module."""
        self.run(op)

    def add_to(self, pm: PassManager) -> PassManager:
        pm.add(self, name=self.NAME, argument=self.NAME)
        return pm

    def _run_block(self, block: ir.Block) -> None:
        # Python handles of MLIR ops are not stable dict keys once ops are
        # erased, so each generic carries its label as a temporary attribute.
        generics = generics_in(block)
        for i, op in enumerate(generics, 1):
            _set_label(op, f"g{i}")
        memo: dict = {}  # the cost model's per-op analyses for this run, keyed by label (FusionCandidate.per_op)
        try:
            for consumer in generics:  # producers precede consumers: each is alive when reached
                refused: set[str] = set()
                while (fused := self._fuse_one(consumer, refused, memo)) is not None:
                    consumer = fused
        finally:
            for op in generics_in(block):
                del op.attributes[_LABEL]

    def _fuse_one(self, consumer: ir.Operation, refused: set[str], memo: dict) -> ir.Operation | None:
        """Try the consumer's edges in order; fuse the first one the model accepts.

        A producer read through several operands is one edge: it is judged
        (and explained) once, at its first operand.
        """
        seen: set[str] = set()
        for edge in edges_into(consumer):
            key = _label(edge.producer)
            if key in refused or key in seen:
                continue
            seen.add(key)
            ok = legality(edge, self.allow_multi_use)
            if not ok:  # re-checked after each fusion: use counts change
                self._record(edge, Decision(False, ok.reason), legal=False)
                continue
            try:
                fused = build_fused(edge)
            except Unfusable as err:  # the fused op would not verify: refused like an illegal edge
                self._record(edge, Decision(False, str(err)), legal=False)
                continue
            refused.add(key)
            consumer_key = _label(edge.consumer)
            # Within one run a label names one content: each generic's final label is unique, so
            # "P+C" spells out which ops were fused in which order (FusionCandidate.per_op relies on it).
            label = f"{key}+{consumer_key}"
            candidate = FusionCandidate(edge.producer, edge.consumer, fused, (key, consumer_key, label), memo)
            decision = self.cost_model.decide(candidate)
            self._record(edge, decision, legal=True)
            if not decision.fuse:
                discard(fused)
                continue
            fused = commit(edge, fused)
            _set_label(fused, label)
            refused.discard(key)
            return fused
        return None

    def _record(self, edge: Edge, d: Decision, legal: bool) -> None:
        self.decisions.append(
            DecisionRecord(_label(edge.producer), _label(edge.consumer), legal, d.fuse, d.reason, dict(d.estimates))
        )


_LABEL = "costfuse.label"


def _label(op: ir.Operation) -> str:
    return ir.StringAttr(op.attributes[_LABEL]).value


def _set_label(op: ir.Operation, label: str) -> None:
    op.attributes[_LABEL] = ir.StringAttr.get(label)


def run_pipeline(module: ir.Module, fusion: FusionPass, cleanup: bool = True) -> list[DecisionRecord]:
    """Run the pass through a real ``PassManager``, then ``canonicalize,cse`` as upstream's pipeline does."""
    return run_with_cleanup(module, fusion, fusion.decisions, cleanup)


def run_with_cleanup(module: ir.Module, fusion, records: list, cleanup: bool = True) -> list:
    """Run ``fusion`` (any pass with ``add_to``) through a ``PassManager``, then ``canonicalize,cse``;
    return what the run appended to ``records`` (the pass's own list of decisions or kernels)."""
    with module.context:
        pm = fusion.add_to(PassManager("builtin.module"))
        if cleanup:
            pm.add("canonicalize,cse")
        start = len(records)
        pm.run(module.operation)
    return records[start:]

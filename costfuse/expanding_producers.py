"""Recompute expanding producers in their consumers before forming kernel groups.

A causal mask or an ALiBi bias is computed from indices (or from a small
tensor) over a *smaller* iteration space than the scores it is applied to:
``mask[s, t]`` is read by ``scores[b, h, s, t]`` as a broadcast.  Its loops
are not the consumer's rows, so it cannot be a member of the consumer's row
group (docs/groups.md), and as a kernel of its own it would write a tensor
that the group then reads back.  IREE and Inductor both inline such
producers into their users; so does this step, with v1's producer→consumer
rewrite (:mod:`costfuse.rewrite`, upstream's legality: all-parallel; a
producer with several users is recomputed in each), for producers that

* do not fit their consumer's rows (as a full-row or a per-row member), and
* *expand* data, one of two ways: the tensors they read are at most
  ``1 / MIN_EXPANSION`` of the tensor they write (a mask from indices), or
  the consumer reads their result broadcast, over at least ``MIN_EXPANSION``
  times as many loop points as it has elements (a weight cast, read by
  every row).  Recomputing them per use then re-reads only small, broadcast
  inputs, which L2 serves (docs/groups.md counts a broadcast read once).

Everything else is left to the cost model's group formation.
"""

from __future__ import annotations

from dataclasses import dataclass

from iree.compiler import ir

from costfuse.fusion_pass import DecisionRecord, FusionPass
from costfuse.graph import CHAIN_ATTR, inputs, walk_ops
from costfuse.kernel import tensor_bytes
from costfuse.policy import Decision, EdgePolicy, FusionCandidate
from costfuse.rowspace import NotGroupable, op_space

MIN_EXPANSION = 8


@dataclass
class _ExpandingProducers(EdgePolicy):
    """Fuse an edge iff its producer expands data over loops its consumer does not share."""

    name = "expanding-producers"

    def decide(self, candidate: FusionCandidate) -> Decision:
        p, c = op_space(candidate.producer), op_space(candidate.consumer)
        if not isinstance(p, NotGroupable) and not isinstance(c, NotGroupable) \
                and p.role_in(c.loops[:-1], c.loops[-1]) is not None:
            return Decision(False, "fits its consumer's rows: a group member, not a recompute")
        read = sum(tensor_bytes(v) for v in inputs(candidate.producer))
        wrote = tensor_bytes(candidate.producer.results[0])
        elems = _prod(candidate.producer.results[0].type.shape)
        uses = _prod(c.loops) if not isinstance(c, NotGroupable) else elems
        if read * MIN_EXPANSION <= wrote:
            return Decision(True, f"recomputed in its consumer: reads {read} B, writes {wrote} B")
        if uses >= MIN_EXPANSION * elems:
            return Decision(True, f"recomputed in its consumer: it reads each of {elems} elements {uses // elems} times")
        return Decision(False, f"reads {read} B to write {wrote} B, read {uses // max(1, elems)}x: not expanding")


def _prod(xs) -> int:
    p = 1
    for x in xs:
        p *= x
    return p


def recompute_expanding_producers(module) -> list[DecisionRecord]:
    """Inline expanding producers into their consumers in every function of ``module``; the decisions made.

    The v1 rewrite marks each op it fuses with ``costfuse.chain_length`` (v1's output contract); kernel
    groups have no chains, so the mark is dropped from what this rewrite fused."""
    fusion = FusionPass(_ExpandingProducers(), allow_multi_use=True)
    decisions = [d for d in fusion.run(module) if d.fuse]
    top = module.operation if isinstance(module, ir.Module) else module
    for op in walk_ops(top):
        if CHAIN_ATTR in op.attributes:
            del op.attributes[CHAIN_ATTR]
    return decisions

"""Producer→consumer edges between ``linalg.generic`` ops, and their legality.

Legality follows upstream ``linalg-fuse-elementwise-ops``
(``areElementwiseOpsFusable`` plus its default control function): the
producer is an all-parallel generic with one result whose indexing map is a
permutation, it feeds an *input* of the consumer, and by default that result
has a single use.  We add the restrictions our Python rewrite needs (static
shapes, no ops with regions in the producer body, the producer does not read
its init).  Anything else, named ops, ``tensor.*`` and other dialects
included, is simply never an edge: it passes through the pass untouched.
"""

from __future__ import annotations

from dataclasses import dataclass

from iree.compiler import ir

GENERIC = "linalg.generic"
CHAIN_ATTR = "costfuse.chain_length"
"""Discardable attribute on a fused op: how many original generics it merges."""


@dataclass(frozen=True)
class Edge:
    """``producer``'s result feeds input ``operand`` of ``consumer`` (both generics)."""

    producer: ir.Operation
    consumer: ir.Operation
    operand: int


@dataclass(frozen=True)
class Legality:
    ok: bool
    reason: str

    def __bool__(self) -> bool:
        return self.ok


LEGAL = Legality(True, "legal")


def is_generic(op: ir.Operation | ir.OpView) -> bool:
    return op.operation.name == GENERIC


def num_inputs(op: ir.Operation) -> int:
    """Inputs of a generic on tensors (one init per result; cheaper than ``opview.inputs``)."""
    return len(op.operands) - len(op.results)


def inputs(op: ir.Operation) -> list[ir.Value]:
    return list(op.operands)[: num_inputs(op)]


def walk_ops(op: ir.Operation):
    """Every op nested in ``op``'s regions, depth first in textual order (``op`` itself excluded)."""
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                yield child.operation
                yield from walk_ops(child.operation)


def indexing_maps(op: ir.Operation) -> list[ir.AffineMap]:
    return [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]


def iterator_kinds(op: ir.Operation) -> list[str]:
    """``["parallel", "reduction", ...]`` for a generic."""
    return [str(t).split("<")[-1].rstrip(">") for t in ir.ArrayAttr(op.attributes["iterator_types"])]


def body(op: ir.Operation) -> ir.Block:
    return op.regions[0].blocks[0]


def body_ops(op: ir.Operation) -> int:
    """Ops in the payload, not counting the ``linalg.yield`` terminator."""
    return sum(1 for o in body(op).operations if o.name != "linalg.yield")


def chain_length(op: ir.Operation) -> int:
    """Original generics merged into ``op`` (1 for an unfused op)."""
    attrs = op.attributes
    return ir.IntegerAttr(attrs[CHAIN_ATTR]).value if CHAIN_ATTR in attrs else 1


def generics_in(block: ir.Block) -> list[ir.Operation]:
    """The generics directly in ``block``, in program order."""
    return [op.operation for op in block.operations if op.operation.name == GENERIC]


def function_blocks(module: ir.Module | ir.Operation) -> list[ir.Block]:
    """Entry blocks of every ``func.func`` in the module, in order."""
    top = module.operation if isinstance(module, ir.Module) else module
    out = []
    for op in top.regions[0].blocks[0].operations:
        if op.operation.name == "func.func" and len(op.regions[0].blocks) > 0:
            out.append(op.regions[0].blocks[0])
    return out


def edges_into(consumer: ir.Operation) -> list[Edge]:
    """Edges from generic producers into ``consumer``'s inputs, in operand order."""
    out = []
    for i, value in enumerate(inputs(consumer)):
        owner = value.owner
        if isinstance(owner, ir.Block):  # block argument
            continue
        if owner.operation.name == GENERIC:
            out.append(Edge(owner.operation, consumer, i))
    return out


def _static(value: ir.Value) -> bool:
    t = value.type
    return isinstance(t, ir.RankedTensorType) and t.has_static_shape


def producer_loop_exprs(edge: Edge) -> list[ir.AffineExpr]:
    """For each producer loop dim, its expression in the consumer's (= fused op's) loops.

    The producer result map is a permutation, so producer dim ``p`` is read at
    ``consumer_map.results[k]`` where ``result_map.results[k] == d_p``.
    """
    producer_maps = indexing_maps(edge.producer)
    result_map = producer_maps[num_inputs(edge.producer)]
    consumer_map = indexing_maps(edge.consumer)[edge.operand]
    exprs: list[ir.AffineExpr | None] = [None] * result_map.n_dims
    for k, r in enumerate(result_map.results):
        exprs[r.position] = consumer_map.results[k]
    return exprs  # type: ignore[return-value]


def legality(edge: Edge, allow_multi_use: bool = False) -> Legality:
    """Whether ``edge`` may be fused, and why not if it may not."""
    producer, consumer = edge.producer, edge.consumer
    if producer.parent != consumer.parent or producer.block != consumer.block:
        return Legality(False, "producer and consumer are in different blocks")
    if len(producer.results) != 1:
        return Legality(False, f"producer has {len(producer.results)} results")
    operands = list(producer.operands) + list(consumer.operands) + list(consumer.results)
    if not all(_static(v) for v in operands):
        return Legality(False, "dynamic or non-tensor shapes")
    if any(k != "parallel" for k in iterator_kinds(producer)):
        return Legality(False, "producer has reduction iterators")
    uses = sum(1 for _ in producer.results[0].uses)
    if uses != 1 and not allow_multi_use:
        return Legality(False, f"producer result has {uses} uses")
    if not indexing_maps(producer)[num_inputs(producer)].is_permutation:
        return Legality(False, "producer result map is not a permutation")
    if sum(1 for v in inputs(consumer) if v == producer.results[0]) != 1 and not allow_multi_use:
        # With recomputation allowed, each read is fused in turn: the first leaves the other reading the
        # producer, which then has another use.
        return Legality(False, "consumer reads the producer result more than once")
    pbody = body(producer)
    if any(True for _ in pbody.arguments[num_inputs(producer)].uses):
        return Legality(False, "producer reads its init")
    exprs = producer_loop_exprs(edge)
    for op in pbody.operations:
        if len(op.regions) > 0:
            return Legality(False, f"producer body op {op.name} has regions")
        if op.name == "linalg.index":
            dim = ir.IntegerAttr(op.attributes["dim"]).value
            e = exprs[dim]
            if not (isinstance(e, ir.AffineDimExpr) or isinstance(e, ir.AffineConstantExpr)):
                return Legality(False, "linalg.index of a producer dim that is not a consumer loop")
    if "reduction" in iterator_kinds(consumer) and not _loops_covered(edge, exprs):
        return Legality(False, "fusion would drop the size of a reduction loop")
    return LEGAL


def _loops_covered(edge: Edge, exprs: list[ir.AffineExpr]) -> bool:
    """Upstream's check: after fusion every consumer loop is still indexed by some operand."""
    consumer_maps = indexing_maps(edge.consumer)
    covered: set[int] = set()
    for i, m in enumerate(consumer_maps):
        if i != edge.operand:
            covered |= {r.position for r in m.results if isinstance(r, ir.AffineDimExpr)}
    n = consumer_maps[0].n_dims
    for m in indexing_maps(edge.producer)[: num_inputs(edge.producer)]:
        for r in m.results:
            e = r.compose(ir.AffineMap.get(n, 0, exprs)).maybe_downcast()
            if isinstance(e, ir.AffineDimExpr):
                covered.add(e.position)
    return len(covered) == n

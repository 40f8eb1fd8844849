"""Row spaces: which ``linalg.generic`` ops can share one row kernel (docs/groups.md).

A kernel group runs over *rows*: each program handles some rows, and each
member computes either a full-row value (loops ``rows + (n,)``) or one value
per row (loops ``rows``).  This module answers the two questions group
formation asks, from the IR alone:

* what a generic's loops and iterator kinds are (:func:`op_space`), and
  whether it can be a group member at all;
* whether one member may read another member's result inside the kernel
  (:func:`reads_in_row`): the value must be the one the consumer's loop point
  needs, computed at the same row (and the same column, for a full-row value).
* which tensors from outside a member's body gathers with ``tensor.extract``
  (:func:`gathers`): kernel inputs read at the indices the body computes.
"""

from __future__ import annotations

from dataclasses import dataclass

from iree.compiler import ir

from costfuse.graph import body, indexing_maps, iterator_kinds, num_inputs

FULL, REDUCE, ROWWISE = "full", "reduce", "rowwise"
DYNAMIC = "dynamic or non-tensor shapes"


@dataclass(frozen=True)
class OpSpace:
    """Loops of one generic: extents and whether the last one reduces."""

    loops: tuple[int, ...]
    reduces: bool            # the last loop is a reduction (all others are parallel)

    def role_in(self, rows: tuple[int, ...], n: int) -> str | None:
        """This op's role in a group over ``(rows, n)``, ``None`` if it does not fit."""
        if self.loops == rows + (n,) and n > 1:
            return REDUCE if self.reduces else FULL
        if not self.reduces and self.loops in (rows, rows + (1,)):
            return ROWWISE      # one value per row; ``rows + (1,)`` is PyTorch's keepdim form
        return None


@dataclass(frozen=True)
class NotGroupable:
    """Why a generic stays a kernel of its own."""

    reason: str


def _static_tensor(v: ir.Value) -> bool:
    t = v.type
    return isinstance(t, ir.RankedTensorType) and t.has_static_shape


def _defined_outside(v: ir.Value, block: ir.Block) -> bool:
    """Whether ``v`` (used in ``block``) comes from outside it: a value of the
    enclosing function (an op result or a function argument)."""
    if isinstance(v.owner, ir.Block):
        return v.owner != block
    return v.owner.operation.block != block


def gathers(op: ir.Operation) -> dict[ir.Value, int]:
    """Tensors defined outside ``op`` that its body reads with ``tensor.extract``
    (a gather, such as cross-entropy's ``logits[row, label[row]]``), in
    first-use order, each with how many extracts read it.

    A gathered tensor is an input of the kernel like any operand, but the
    kernel reads only the elements the indices name (docs/groups.md, "HBM bytes").
    """
    block, out = body(op), {}
    for inner in block.operations:
        if inner.name == "tensor.extract" and _defined_outside(inner.operands[0], block):
            v = inner.operands[0]
            out[v] = out.get(v, 0) + 1
    return out


def _outside_read(op: ir.Operation) -> str | None:
    """Why ``op``'s body reads a value from outside that no kernel can take,
    ``None`` if every such value is a scalar ``arith.constant`` (cloned in) or
    a static tensor read by ``tensor.extract`` (a gather)."""
    block = body(op)
    for inner in block.operations:
        for k, v in enumerate(inner.operands):
            if not _defined_outside(v, block):
                continue
            if not isinstance(v.owner, ir.Block) and v.owner.operation.name == "arith.constant":
                continue
            what = "a function argument" if isinstance(v.owner, ir.Block) else f"a {v.owner.operation.name} result"
            if inner.name == "tensor.extract" and k == 0:
                if not _static_tensor(v):
                    return f"its body gathers from {what} of type {v.type}, not a static tensor"
                continue
            return f"its body uses {what} from outside, neither a scalar constant nor a tensor it gathers from"
    return None


def static_shapes(op: ir.Operation) -> bool:
    """Whether every operand and result of ``op`` is a tensor of static shape.

    A kernel's launch config, its HBM bytes and its Triton lowering all need
    the extents; an op without them is left where it is (docs/groups.md)."""
    return all(_static_tensor(v) for v in list(op.operands) + list(op.results))


def op_space(op: ir.Operation) -> OpSpace | NotGroupable:
    """The loops of ``op``, or why it cannot join a row group."""
    kinds = iterator_kinds(op)
    if not kinds:
        return NotGroupable("zero-dimensional generic")
    if "reduction" in kinds[:-1]:
        return NotGroupable("a reduction loop that is not the innermost one")
    if not static_shapes(op):
        return NotGroupable(DYNAMIC)
    block = body(op)
    if any(len(o.regions) > 0 for o in block.operations):
        return NotGroupable("a body op with regions")
    outside = _outside_read(op)
    if outside is not None:
        return NotGroupable(outside)
    maps = indexing_maps(op)
    extents: list[int | None] = [None] * len(kinds)
    for value, amap in zip(op.operands, maps):
        for size, expr in zip(value.type.shape, amap.results):
            if isinstance(expr, ir.AffineDimExpr):
                extents[expr.position] = size
            elif not isinstance(expr, ir.AffineConstantExpr):
                return NotGroupable(f"indexing map result {expr} is not a dim or a constant")
    if None in extents:
        return NotGroupable("a loop that no operand indexes")
    n_in = num_inputs(op)
    for amap in maps[n_in:]:
        dims = [e.position for e in amap.results if isinstance(e, ir.AffineDimExpr)]
        parallel = [d for d, k in enumerate(kinds) if k == "parallel"]
        if sorted(dims) != parallel:
            return NotGroupable("an output map that is not a permutation of the parallel loops")
    return OpSpace(tuple(extents), kinds[-1] == "reduction")


def _result_positions(amap: ir.AffineMap, loops: tuple[int, ...]) -> list[tuple[str, int]]:
    """Each map result as ``("d", loop)`` or ``("c", value)``; a loop of extent 1 reads index 0."""
    out = []
    for e in amap.results:
        if isinstance(e, ir.AffineDimExpr) and loops[e.position] != 1:
            out.append(("d", e.position))
        else:
            out.append(("c", ir.AffineConstantExpr(e).value if isinstance(e, ir.AffineConstantExpr) else 0))
    return out


def reads_in_row(producer: ir.Operation, result: int, consumer: ir.Operation, operand: int) -> bool:
    """Whether ``consumer``'s operand ``operand`` (its ``result``-th value from
    ``producer``) reads, at each consumer loop point ``(r, j)``, the value the
    producer computed at ``(r, j)`` or at ``(r)``.

    Both ops' loops are aligned by position (rows first, then the row's own
    dim), as :meth:`OpSpace.role_in` requires, so the two maps must name the
    same loop position (or the same constant) for every tensor dim; a loop
    of extent 1 (keepdim) counts as the constant 0.
    """
    pspace, cspace = op_space(producer), op_space(consumer)
    if isinstance(pspace, NotGroupable) or isinstance(cspace, NotGroupable):
        return False
    pmap = indexing_maps(producer)[num_inputs(producer) + result]
    cmap = indexing_maps(consumer)[operand]
    return _result_positions(pmap, pspace.loops) == _result_positions(cmap, cspace.loops)

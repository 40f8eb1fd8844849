"""Fold reshapes that only add or drop unit dims into the generics that read them.

PyTorch exports put a ``tensor.expand_shape`` between a keepdim reduction
and its broadcast consumer (``tensor<4096xf32>`` -> ``tensor<4096x1xf32>``,
read as ``(d0, d1) -> (d0, 0)``).  The reshape is a caller op, so it would
cut the row group in two.  When every user of such a reshape is a generic
reading it as an input, the generic can read the reshape's source directly:
each source dim is indexed by the expression of its one non-unit result dim
(or ``0`` for a unit dim), which is the same element.  Anything else is left
alone.  This is the only rewrite ``--fusion groups`` makes outside the groups
(docs/groups.md).
"""

from __future__ import annotations

from iree.compiler import ir

from costfuse.graph import GENERIC, indexing_maps, num_inputs

RESHAPES = ("tensor.expand_shape", "tensor.collapse_shape")


def _reassociation(op: ir.Operation) -> list[list[int]]:
    return [[ir.IntegerAttr(i).value for i in ir.ArrayAttr(g)] for g in ir.ArrayAttr(op.attributes["reassociation"])]


def _static_shape(v: ir.Value) -> list[int] | None:
    t = v.type
    return list(t.shape) if isinstance(t, ir.RankedTensorType) and t.has_static_shape else None


def _source_exprs(op: ir.Operation, result_exprs: list[ir.AffineExpr]) -> list[ir.AffineExpr] | None:
    """For each source dim, the expression that indexes it, given ``result_exprs``
    (one per result dim); ``None`` unless the reshape only adds or drops unit dims."""
    src, res = _static_shape(op.operands[0]), _static_shape(op.results[0])
    if src is None or res is None:
        return None
    groups = _reassociation(op)
    zero = ir.AffineConstantExpr.get(0)
    if op.name == "tensor.expand_shape":        # result dims grouped per source dim
        out = []
        for j, g in enumerate(groups):
            big = [d for d in g if res[d] != 1]
            if len(big) > 1 or (big and res[big[0]] != src[j]):
                return None
            out.append(result_exprs[big[0]] if big else zero)
        return out
    out = [zero] * len(src)                      # collapse: source dims grouped per result dim
    for j, g in enumerate(groups):
        big = [d for d in g if src[d] != 1]
        if len(big) > 1 or (big and src[big[0]] != res[j]):
            return None
        if big:
            out[big[0]] = result_exprs[j]
    return out


def fold_unit_reshapes(block: ir.Block) -> int:
    """Rewrite the generics of ``block`` to read through unit-dim reshapes; return how many reads moved."""
    moved = 0
    for op in [o.operation for o in block.operations if o.operation.name in RESHAPES]:
        uses = [(u.owner.operation, u.operand_number) for u in op.results[0].uses]
        if not uses or any(o.name != GENERIC or k >= num_inputs(o) for o, k in uses):
            continue
        plans = []
        for user, k in uses:
            amap = indexing_maps(user)[k]
            exprs = _source_exprs(op, list(amap.results))
            if exprs is None:
                break
            plans.append((user, k, ir.AffineMap.get(amap.n_dims, amap.n_symbols, exprs)))
        else:
            for user, k, new_map in plans:
                maps = [ir.AffineMapAttr.get(m) for m in indexing_maps(user)]
                maps[k] = ir.AffineMapAttr.get(new_map)
                user.attributes["indexing_maps"] = ir.ArrayAttr.get(maps)
                user.operands[k] = op.operands[0]
                moved += 1
            op.erase()
    return moved

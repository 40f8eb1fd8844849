"""Softmax-like sums a looped kernel folds into the pass of their max (Inductor's online softmax).

A softmax, log-softmax or cross-entropy row takes its max ``m``, then the sum
of ``exp(x - m)``.  Lowered as written, a looped kernel needs the whole row's
``m`` before it can start the sum: one pass for the max, one for the sum, and
one for the outputs, so the row is read three times.  Inductor
(``config.online_softmax``, on by default in torch 2.13;
``torch/_inductor/codegen/triton.py``, ``online_softmax_reduce``) keeps, per
lane, the running max and the sum of ``exp(x - running max)``, rescaling the
sum by ``exp(old max - new max)`` whenever the max grows; after the loop each
lane's sum is rescaled to the row's max and the lanes are summed.  The sum
then needs no pass of its own, and the row is read twice (once, when nothing
full-size is stored).

:func:`online_sums` finds the sums that qualify from the IR alone, so the
kernel's byte model (:mod:`costfuse.kernel`: its passes, issued and DRAM
bytes) and the lowering (``data/lowering/kernel.py``) agree on the passes by
construction, whatever the policy.  A sum qualifies when:

* its member reduces one output along the row with ``arith.addf`` of
  ``math.exp(a - b)``; the exp and the subtraction may sit in its body or in
  the full member generics that feed it;
* ``b`` is the value result of a max member (``arith.maximumf`` or
  ``arith.maxnumf``, alone or paired with its arg-max index, as
  ``torch.export`` writes softmax's max);
* ``a`` is the very value that max reduces (the same argument through the
  same map, or the same member's result), so ``a - running max <= 0``: the
  rescaled terms cannot overflow where the three-pass sum would not;
* the exp, the subtraction and the sum are in f32 or f64.  A narrower type
  rounds after each op, which the one-pass form would not (exported bf16 and
  f16 models upcast to f32 before the max, and qualify).
"""

from __future__ import annotations

from iree.compiler import ir

from costfuse.graph import body, indexing_maps, num_inputs
from costfuse.rowspace import FULL, REDUCE

MAX_COMBINERS = ("arith.maximumf", "arith.maxnumf")
WIDE_FLOATS = ("f32", "f64")


def defining(v: ir.Value) -> ir.Operation | None:
    return None if isinstance(v.owner, ir.Block) else v.owner.operation


def yields(op: ir.Operation) -> list[ir.Value]:
    return list(list(body(op).operations)[-1].operands)


class Sources:
    """Where a value inside a member's body comes from, followed across the members' boundaries:
    ``("op", op)`` for an op of some member's body, ``("row", j, r)`` for member ``j``'s per-row
    result ``r``, ``("load", tensor, map)`` for an argument of the kernel, ``("other",)`` otherwise."""

    def __init__(self, ops: list[ir.Operation], roles: list[str]):
        self.ops, self.roles = ops, roles
        self.index = {op: i for i, op in enumerate(ops)}

    def of(self, i: int, v: ir.Value) -> tuple:
        op = self.ops[i]
        owner = defining(v)
        if owner is not None:
            return ("op", owner)
        args = list(body(op).arguments)
        k = next((k for k, a in enumerate(args) if a == v), None)
        if k is None or k >= num_inputs(op):
            return ("other",)
        operand = op.operands[k]
        j = self.index.get(defining(operand))
        if j is None:
            return ("load", operand, str(indexing_maps(op)[k]))
        r = ir.OpResult(operand).result_number
        if self.roles[j] != FULL:
            return ("row", j, r)
        return self.of(j, yields(self.ops[j])[r])

    def member_of(self, op: ir.Operation) -> int:
        """The member whose body holds ``op``."""
        return next(i for i, m in enumerate(self.ops) if any(o == op for o in body(m).operations))


def combined(op: ir.Operation, r: int) -> tuple[str, ir.Value] | None:
    """``(combiner name, reduced value)`` of output ``r`` of reduction ``op`` when it yields
    ``combiner(value, acc_r)``; ``None`` otherwise."""
    y = yields(op)[r]
    comb = defining(y)
    if comb is None or len(comb.operands) != 2:
        return None
    acc = list(body(op).arguments)[num_inputs(op) + r]
    a, b = comb.operands
    if (a == acc) == (b == acc):
        return None
    return comb.name, (b if a == acc else a)


def is_wide(v: ir.Value) -> bool:
    """``v`` (a scalar, or a tensor by its elements) is f32 or f64."""
    t = v.type
    return str(t.element_type if isinstance(t, ir.RankedTensorType) else t) in WIDE_FLOATS


def online_sums(ops: list[ir.Operation], roles: list[str]) -> tuple[tuple[int, int, int], ...]:
    """``((sum member, max member, max output), ...)``: the sums of ``ops`` (a kernel's members in
    program order, with their roles) that a looped kernel computes in the pass of their max
    (see the module docstring)."""
    src = Sources(ops, roles)
    found = []
    for s, op in enumerate(ops):
        if roles[s] != REDUCE or len(op.results) != 1:
            continue
        summed = combined(op, 0)
        if summed is None or summed[0] != "arith.addf" or not is_wide(op.results[0]):
            continue
        exp = src.of(s, summed[1])
        if exp[0] != "op" or exp[1].name != "math.exp" or not is_wide(exp[1].results[0]):
            continue
        e = src.member_of(exp[1])
        sub = src.of(e, exp[1].operands[0])
        if sub[0] != "op" or sub[1].name != "arith.subf" or not is_wide(sub[1].results[0]):
            continue
        d = src.member_of(sub[1])
        m = src.of(d, sub[1].operands[1])
        if m[0] != "row" or roles[m[1]] != REDUCE or m[1] == s:
            continue
        maxed = combined(ops[m[1]], m[2])
        if maxed is None or maxed[0] not in MAX_COMBINERS:
            continue
        if src.of(m[1], maxed[1]) == src.of(d, sub[1].operands[0]) != ("other",):
            found.append((s, m[1], m[2]))
    return tuple(found)

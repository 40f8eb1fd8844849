"""Variances a looped kernel folds into the pass of their mean (Inductor's Welford reduction).

A layer norm's row takes its sum ``s``, its mean ``s / n``, then the sum of
``(x - mean)^2``.  Lowered as written, a looped kernel needs the whole row's
mean before it can start that sum: one pass for the sum, one for the squares,
and one for the outputs, so the row is read three times.  Inductor lowers
``var_mean`` to a Welford reduction (``triton_helpers.welford_reduce``, then
``welford`` to combine the lanes; ``torch/_inductor/codegen/triton.py``): per
lane a running count, mean and sum of squared deviations ``m2``, updated as
each element arrives (``delta = x - mean; mean += delta / count;
m2 += delta * (x - mean)``), and the lanes combined after the loop with Chan's
rule.  The squares then need no pass of their own, and the row is read twice.

:func:`welford_sums` finds the sums that qualify from the IR alone, so the
kernel's byte model (:mod:`costfuse.kernel`: its passes, issued and DRAM
bytes) and the lowering (``data/lowering/kernel.py``) agree on the passes by
construction, whatever the policy, as for online softmax
(:mod:`costfuse.online_softmax`, whose tracing of values across members this
reuses).  A sum of squares qualifies when:

* its member reduces one output along the row with ``arith.addf`` of
  ``d * d``, where ``d = a - b`` (the product and the subtraction in its body
  or in the full members that feed it);
* ``b`` is a rowwise member's ``s / n`` (``arith.divf`` by the constant row
  length ``n``, or ``arith.mulf`` by ``1 / n`` rounded to its type), and ``s`` is the one output of a sum member (``arith.addf``)
  whose initial value is a fill of zero: so ``b`` is the row's mean;
* ``a`` is the very value that sum reduces (the same argument through the
  same map, or the same member's result), so the squares sum the deviations
  about the row's own mean, which is what ``m2`` is;
* the sums, the mean, the subtraction and the product are in f32 or f64.  A
  narrower type rounds after each op, which the one-pass form would not
  (Inductor computes in f32 whatever the tensors hold; an exported bf16
  graph that rounds each op keeps its three passes here).

``m2`` and the three-pass sum are equal in exact arithmetic; in floating point
Welford's is the more accurate of the two (no cancellation against a mean
computed before it).
"""

from __future__ import annotations

import numpy as np
from iree.compiler import ir

from costfuse.graph import body, num_inputs
from costfuse.online_softmax import Sources, combined, defining, is_wide, yields
from costfuse.rowspace import REDUCE, ROWWISE


def _constant(v: ir.Value) -> float | None:
    """The value of a scalar float ``arith.constant`` ``v``; ``None`` for anything else."""
    op = defining(v)
    if op is None or op.name != "arith.constant" or not isinstance(op.attributes["value"], ir.FloatAttr):
        return None
    return ir.FloatAttr(op.attributes["value"]).value


def _zero_init(op: ir.Operation) -> bool:
    """Reduce member ``op``'s one output starts from a fill of zero."""
    fill = defining(op.operands[num_inputs(op)])
    return fill is not None and fill.name == "linalg.fill" and _constant(fill.operands[0]) == 0.0


def _divides_by(op: ir.Operation, n: int) -> bool:
    """``op`` is ``x / n`` or ``x * (1 / n)`` for a constant, ``1 / n`` rounded to the op's type (f32 or
    f64, as :func:`welford_sums` requires)."""
    c = _constant(op.operands[1])
    if op.name == "arith.divf":
        return c == float(n)
    inverse = float(np.float32(1.0 / n)) if str(op.results[0].type) == "f32" else 1.0 / n
    return op.name == "arith.mulf" and c == inverse


def _mean_of(src: Sources, roles: list[str], j: int, r: int, n: int) -> int | None:
    """The sum member whose zero-started sum rowwise member ``j`` divides by ``n`` in its output ``r``
    (so output ``r`` is that sum's mean), or ``None``."""
    if roles[j] != ROWWISE:
        return None
    div = defining(yields(src.ops[j])[r])
    if div is None or not is_wide(div.results[0]) or not _divides_by(div, n):
        return None
    s = src.of(j, div.operands[0])
    if s[0] != "row" or roles[s[1]] != REDUCE or len(src.ops[s[1]].results) != 1:
        return None
    summed = combined(src.ops[s[1]], 0)
    if summed is None or summed[0] != "arith.addf" or not is_wide(src.ops[s[1]].results[0]) \
            or not _zero_init(src.ops[s[1]]):
        return None
    return s[1]


def welford_sums(ops: list[ir.Operation], roles: list[str], n: int) -> tuple[tuple[int, int], ...]:
    """``((squares member, sum member), ...)``: the sums of squared deviations of ``ops`` (a kernel's
    members in program order, with their roles, over rows of ``n`` elements) that a looped kernel
    computes in the pass of the sum whose mean they subtract (see the module docstring)."""
    src = Sources(ops, roles)
    found = []
    for v, op in enumerate(ops):
        if roles[v] != REDUCE or len(op.results) != 1 or not is_wide(op.results[0]):
            continue
        summed = combined(op, 0)
        if summed is None or summed[0] != "arith.addf":
            continue
        sq = src.of(v, summed[1])
        if sq[0] != "op" or sq[1].name != "arith.mulf" or not is_wide(sq[1].results[0]):
            continue
        p = src.member_of(sq[1])
        d, other = (src.of(p, x) for x in sq[1].operands)
        if d != other:
            continue
        if d[0] != "op" or d[1].name != "arith.subf" or not is_wide(d[1].results[0]):
            continue
        k = src.member_of(d[1])
        b = src.of(k, d[1].operands[1])
        if b[0] != "row":
            continue
        m = _mean_of(src, roles, b[1], b[2], n)
        if m is None or m == v:
            continue
        if src.of(m, combined(ops[m], 0)[1]) == src.of(k, d[1].operands[0]) != ("other",):
            found.append((v, m))
    return tuple(found)

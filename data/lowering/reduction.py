"""Reductions in a generic body: recognise them, and emit their Triton code.

Linalg expresses a reduction as a body that yields ``combiner(acc, value)``
for each output, where ``acc`` is the output's block argument.  We accept:

* **plain reductions**: ``combiner`` in :data:`COMBINERS`, ``acc`` used only by
  it, ``value`` computed without any accumulator;
* **arg-max / arg-min pairs**, which ``torch.export`` emits for every
  ``aten.max.dim`` (softmax's row max included): output ``v`` yields
  ``maximumf(x, acc_v)`` and output ``i`` yields
  ``select(cmpf ogt (x, acc_v), index_cast(linalg.index d), acc_i)``
  (``minimumf``/``olt`` for arg-min) with ``d`` the only reduction dim.  The
  sequential semantics -- the first index whose value beats everything
  before it -- is the smallest index attaining the maximum; that is what the
  kernel computes, with two cheap reductions.  (NaN inputs: IEEE order makes
  the sequential index stop at the first NaN; the kernel keeps the initial
  index instead.  Exported models never rely on that.)

Everything else raises :class:`~data.lowering.unsupported.UnsupportedOp`.

The code follows Inductor: values outside the row are masked to the
combiner's identity; a persistent kernel reduces its one tile, a looped one
keeps an elementwise ``[XBLOCK, RBLOCK]`` accumulator and reduces it once
after the loop.  f16/bf16 accumulate in f32.
"""

from __future__ import annotations

from dataclasses import dataclass

from iree.compiler import ir

from costfuse.data.lowering.body import Val, tl_type
from costfuse.data.lowering.element_types import ELEM_TYPES, NARROW_FLOATS
from costfuse.data.lowering.unsupported import UnsupportedOp
from costfuse.data.lowering.walk import block_ops, defined_by, depends_on, use_counts


@dataclass(frozen=True)
class Combiner:
    """How a combiner op is emitted: the elementwise update of an accumulator,
    the combine function (in :data:`data.lowering.jit_helpers.HELPERS`) that
    ``tl.reduce`` uses along axis 1, and the identity literal ("min"/"max" for
    an integer type's extremes)."""

    update: str
    helper: str
    identity: str

    def reduce(self, v: str) -> str:
        return f"tl.reduce({v}, 1, {self.helper})"


# Reductions go through tl.reduce with combine functions emitted into the
# kernel file, never tl.sum/tl.max: those are @triton.jit functions of
# triton.language.standard, fixed as compiled functions when triton is
# imported, so an interpreter scope opened later cannot run them (and the
# compiled TTIR is the same: tl.sum *is* tl.reduce with an add).
COMBINERS: dict[str, Combiner] = {
    "arith.addf": Combiner("{a} + {b}", "_sum_combine", "0.0"),
    "arith.mulf": Combiner("{a} * {b}", "_prod_combine", "1.0"),
    "arith.maximumf": Combiner("tl.maximum({a}, {b}, propagate_nan=tl.PropagateNan.ALL)", "_maximum_combine",
                               'float("-inf")'),
    "arith.minimumf": Combiner("tl.minimum({a}, {b}, propagate_nan=tl.PropagateNan.ALL)", "_minimum_combine",
                               'float("inf")'),
    "arith.maxnumf": Combiner("tl.maximum({a}, {b})", "_maxnum_combine", 'float("-inf")'),
    "arith.minnumf": Combiner("tl.minimum({a}, {b})", "_minnum_combine", 'float("inf")'),
    "arith.addi": Combiner("{a} + {b}", "_sum_combine", "0"),
    "arith.maxsi": Combiner("tl.maximum({a}, {b})", "_maxnum_combine", "min"),
    "arith.minsi": Combiner("tl.minimum({a}, {b})", "_minnum_combine", "max"),
}
FLOAT_COMBINERS = {"arith.addf", "arith.mulf", "arith.maximumf", "arith.minimumf", "arith.maxnumf", "arith.minnumf"}
# value combiner -> the cmpf predicate that makes the select pick the new index
ARG_PREDICATES = {"arith.maximumf": 2, "arith.minimumf": 4}  # ogt, olt (CmpFPredicate enum)
_MIN_INDEX = COMBINERS["arith.minsi"]


@dataclass(frozen=True)
class ReductionSlot:
    """How output ``out`` is reduced.  For the index output of an arg-max pair,
    ``arg_of`` is the paired value output and ``value`` the index value."""

    out: int
    combiner: str
    value: ir.Value
    arg_of: int | None = None


def match_reductions(block: ir.Block, n_in: int, n_out: int, reduction_dims: list[int]):
    """(slots by output index, positions of body ops the emitter must skip)."""
    ops = block_ops(block)
    yields = list(ops[-1].operands)
    accs = [block.arguments[n_in + j] for j in range(n_out)]
    uses = use_counts(ops)
    slots: dict[int, ReductionSlot] = {}
    skip: list[ir.Operation] = []

    # Arg-max / arg-min pairs first: their value accumulator has two users.
    for i, y in enumerate(yields):
        sel = defined_by(y, "arith.select")
        if sel is None or sel.operands[2] != accs[i]:
            continue
        cmp = defined_by(sel.operands[0], "arith.cmpf")
        if cmp is None or cmp.operands[1] not in accs:
            continue
        j = accs.index(cmp.operands[1])
        comb = defined_by(yields[j], "arith.maximumf") or defined_by(yields[j], "arith.minimumf")
        x = cmp.operands[0]
        if comb is None or ir.IntegerAttr(cmp.attributes["predicate"]).value != ARG_PREDICATES[comb.name] \
                or set(comb.operands) != {x, accs[j]}:
            raise UnsupportedOp("arith.select", f"output {i} looks like an arg-max/arg-min but does not match "
                                                "select(cmpf ogt|olt (x, acc), index, acc_i) with maximumf|minimumf(x, acc)")
        if len(reduction_dims) != 1:
            raise UnsupportedOp("arith.select", f"arg-max/arg-min output {i} over {len(reduction_dims)} reduction "
                                                "dims (only one is supported)")
        index = sel.operands[1]
        cast = defined_by(index, "arith.index_cast")
        lin = defined_by(cast.operands[0], "linalg.index") if cast is not None else None
        if lin is None or ir.IntegerAttr(lin.attributes["dim"]).value != reduction_dims[0]:
            raise UnsupportedOp("arith.select", f"arg-max/arg-min output {i}: the selected index must be "
                                                "index_cast(linalg.index <reduction dim>)")
        if uses.get(accs[j]) != 2 or uses.get(accs[i]) != 1 or uses.get(sel.operands[0]) != 1 \
                or uses.get(y) != 1 or uses.get(yields[j]) != 1:
            raise UnsupportedOp("arith.select", f"arg-max/arg-min output {i}: accumulators may be used only by "
                                                "the max, the compare and the select")
        if depends_on(x, set(accs), block):
            raise UnsupportedOp(comb.name, f"output {j} of a reduction: the reduced value depends on an accumulator")
        slots[j] = ReductionSlot(j, comb.name, x)
        slots[i] = ReductionSlot(i, "arith.minsi", index, arg_of=j)
        skip += [comb, cmp, sel]

    for j, (acc, y) in enumerate(zip(accs, yields)):
        if j in slots:
            continue
        where = f"output {j} of a reduction"
        if not isinstance(y, ir.OpResult) or y.owner.name not in COMBINERS:
            got = y.owner.name if isinstance(y, ir.OpResult) else "a block argument"
            raise UnsupportedOp(got, f"{where} must yield combiner(acc, value) with combiner in "
                                     f"{', '.join(COMBINERS)}, or be an arg-max/arg-min index")
        comb = y.owner.operation
        if str(acc.type) == "i1":  # every integer combiner is signed or arithmetic: see body._refuse_signed_i1
            raise UnsupportedOp(comb.name, f"{where}: an i1 reduction (MLIR reads true as -1, Triton as 1)")
        a, b = comb.operands
        if a == acc and b != acc:
            value = b
        elif b == acc and a != acc:
            value = a
        else:
            raise UnsupportedOp(comb.name, f"{where}: the combiner must take the accumulator exactly once")
        if uses.get(acc, 0) != 1 or uses.get(y, 0) != 1:
            raise UnsupportedOp(comb.name, f"{where}: the accumulator and the combined value may be used only "
                                           "by the combiner and the yield")
        if depends_on(value, set(accs), block):
            raise UnsupportedOp(comb.name, f"{where}: the reduced value depends on an accumulator")
        slots[j] = ReductionSlot(j, comb.name, value)
        skip.append(comb)
    positions = frozenset(k for k, o in enumerate(ops) if any(o == s for s in skip))
    return [slots[j] for j in range(n_out)], positions


def acc_type(t: str) -> str:
    """Accumulator type: f32 for f16/bf16 (as Inductor), else the type itself."""
    return "f32" if t in NARROW_FLOATS else t


def identity(comb: Combiner, t: str) -> str:
    if comb.identity in ("min", "max"):
        bits = ELEM_TYPES[t].bits
        return str(-(2 ** (bits - 1)) if comb.identity == "min" else 2 ** (bits - 1) - 1)
    return comb.identity


@dataclass
class ReductionCode:
    """Lines of a reduction: ``init`` before the loop, ``step`` inside it (or
    the tile code of a persistent kernel), ``finish`` after it -- which leaves
    ``red{j}`` of shape ``[XBLOCK, 1]`` per output -- and ``store`` combining
    with the output's initial value."""

    init: list[str]
    step: list[str]
    finish: list[str]


def emit_reductions(slots: list[ReductionSlot], values: dict[int, Val], out_types: list[str], persistent: bool,
                    tag: str = "") -> ReductionCode:
    """Code for every slot; ``values[j]`` is slot ``j``'s reduced value (for
    arg slots, the index).  ``tag`` goes into every name (``acc{tag}{j}``,
    ``red{tag}{j}``), so several reducing generics can share one kernel."""
    code = ReductionCode([], [], [])
    mask = "xmask & rmask"
    for s in slots:
        j, t = s.out, out_types[s.out]
        comb = COMBINERS[s.combiner]
        v = values[j]
        if s.arg_of is not None:
            continue  # emitted with its value slot
        if (s.combiner in FLOAT_COMBINERS) != (t in NARROW_FLOATS or t in ("f32", "f64")):
            raise UnsupportedOp(s.combiner, f"output {j}: combiner does not match element type {t}")
        at = acc_type(t)
        ident = identity(comb, t)
        expr = f"{v.expr}.to({tl_type(at)})" if at != v.type else v.expr
        masked = f"tl.where({mask}, {expr}, {ident})"
        arg = next((a for a in slots if a.arg_of == j), None)
        if arg is None and persistent:
            code.finish.append(f"red{tag}{j} = {comb.reduce(masked)}[:, None]")
            continue
        if arg is None:
            code.init.append(f"acc{tag}{j} = tl.full([XBLOCK, RBLOCK], {ident}, {tl_type(at)})")
            code.step.append(f"acc{tag}{j} = {comb.update.format(a=f'acc{tag}{j}', b=masked)}")
            code.finish.append(f"red{tag}{j} = {comb.reduce(f'acc{tag}{j}')}[:, None]")
            continue
        # arg-max/min pair: per-lane best value and its first index, then the
        # smallest index among lanes holding the row's best value.
        i, it = arg.out, out_types[arg.out]
        big = identity(_MIN_INDEX, it)
        better = ">" if s.combiner == "arith.maximumf" else "<"
        idx = values[i].expr
        if persistent:
            code.step += [f"acc{tag}{j} = {masked}", f"acc{tag}{i} = tl.where({mask}, {idx}, {big})"]
        else:
            code.init += [f"acc{tag}{j} = tl.full([XBLOCK, RBLOCK], {ident}, {tl_type(at)})",
                          f"acc{tag}{i} = tl.full([XBLOCK, RBLOCK], {big}, {tl_type(it)})"]
            code.step += [f"cand{tag}{j} = {masked}",
                          f"acc{tag}{i} = tl.where(cand{tag}{j} {better} acc{tag}{j}, {idx}, acc{tag}{i})",
                          f"acc{tag}{j} = {comb.update.format(a=f'acc{tag}{j}', b=f'cand{tag}{j}')}"]
        first = _MIN_INDEX.reduce(f"tl.where(acc{tag}{j} == red{tag}{j}, acc{tag}{i}, {big})")
        code.finish += [f"red{tag}{j} = {comb.reduce(f'acc{tag}{j}')}[:, None]", f"red{tag}{i} = {first}[:, None]"]
    return code


def final_value(s: ReductionSlot, slots: list[ReductionSlot], out_types: list[str], tag: str = "") -> str:
    """Expression of output ``s.out``'s final value from ``init{tag}{j}`` and ``red{tag}{j}``
    (``init{tag}{j}`` is already in the accumulator type)."""
    j, t = s.out, out_types[s.out]
    if s.arg_of is not None:
        v = s.arg_of
        better = ">" if slots[v].combiner == "arith.maximumf" else "<"
        return f"tl.where(red{tag}{v} {better} init{tag}{v}, red{tag}{j}, init{tag}{j})"
    res = COMBINERS[s.combiner].update.format(a=f"init{tag}{j}", b=f"red{tag}{j}")
    return f"({res}).to({tl_type(t)})" if acc_type(t) != t else res

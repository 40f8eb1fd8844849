"""Translate the scalar body of a ``linalg.generic`` into Triton expressions.

Each body op becomes one line ``tN = <expr>`` over Triton tensors; the caller
(``generic.py``, ``kernel.py``) decides where the line goes (before or inside the
reduction loop) from the value's dependence on reduction indices, which this
module tracks.  Semantics follow MLIR exactly, with three deliberate rules:

* **bf16 arithmetic is done in f32 and rounded back after every op.**  For
  ``+ - * /`` this is bit-identical to native bf16 (f32 has more than
  2·8+2 mantissa bits), it is what Inductor does, and the Triton interpreter
  cannot do native bf16 arithmetic at all (it stores bf16 as raw uint16).
* **Math functions on f16/bf16 are computed in f32** and rounded back:
  ``tl.exp`` & co. accept only fp32/fp64, and IREE's llvm-cpu does the same.
* **Only builtins of ``triton.language``.**  ``tl.sum``, ``tl.zeros`` & co.
  are ``@triton.jit`` functions fixed as compiled when triton is imported, so
  they cannot run in an interpreter scope opened later (:mod:`data.interpret`);
  reductions use ``tl.reduce`` with the combine helpers of ``jit_helpers.py``
  instead.
* **Functions without a core ``tl`` op** (tanh, log1p, general powf/powi) are small
  ``@triton.jit`` helpers written in core ops (``jit_helpers.py``), not
  ``libdevice`` calls: the interpreter cannot run ``libdevice`` (its stubs
  return ``None``), and one code path that is tested on CPU beats a faster one
  that never is.

A ``tensor.extract`` from a tensor defined outside the body (a gather, such
as cross-entropy's ``logits[row, label[row]]``) becomes a masked load through
a pointer the caller provides (``pointer``): int64 offsets, and indices
outside the tensor are masked off, so the kernel never reads out of bounds
(MLIR's ``cf.assert`` guards them in the IR and is dropped here).

Anything else raises :class:`UnsupportedOp` naming the op and the reason.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

from iree.compiler import ir

from costfuse.data.lowering.element_types import ELEM_TYPES, FLOAT_TYPES, NARROW_FLOATS
from costfuse.data.lowering.kernel_args import row_major_strides
from costfuse.data.lowering.unsupported import UnsupportedOp
from costfuse.data.lowering.walk import block_ops, defined_by, defining_block


@dataclass(frozen=True)
class Val:
    """A Triton value in the generated code: its expression (a name or a
    literal), its MLIR element type and whether it varies along reduction dims."""

    expr: str
    type: str
    rdep: bool = False


_FLOAT_BINARY = {"arith.addf": "{a} + {b}", "arith.subf": "{a} - {b}", "arith.mulf": "{a} * {b}", "arith.divf": "{a} / {b}"}
_FLOAT_MINMAX = {
    "arith.maximumf": "tl.maximum({a}, {b}, propagate_nan=tl.PropagateNan.ALL)",
    "arith.minimumf": "tl.minimum({a}, {b}, propagate_nan=tl.PropagateNan.ALL)",
    "arith.maxnumf": "tl.maximum({a}, {b})",
    "arith.minnumf": "tl.minimum({a}, {b})",
}
_MATH_UNARY = {
    "math.exp": "tl.exp({a})", "math.exp2": "tl.exp2({a})", "math.log": "tl.log({a})",
    "math.log2": "tl.log2({a})", "math.sqrt": "tl.sqrt({a})", "math.rsqrt": "tl.rsqrt({a})",
    "math.sin": "tl.sin({a})", "math.cos": "tl.cos({a})", "math.erf": "tl.erf({a})",
    "math.floor": "tl.floor({a})", "math.ceil": "tl.ceil({a})", "math.absf": "tl.abs({a})",
    "math.tanh": "_tanh({a})", "math.log1p": "_log1p({a})",
}
_INT_BINARY = {
    "arith.addi": "{a} + {b}", "arith.subi": "{a} - {b}", "arith.muli": "{a} * {b}",
    # Triton's // and % on signed ints truncate toward zero, like divsi/remsi.
    "arith.divsi": "{a} // {b}", "arith.remsi": "{a} % {b}",
    "arith.maxsi": "tl.maximum({a}, {b})", "arith.minsi": "tl.minimum({a}, {b})",
    "arith.andi": "{a} & {b}", "arith.ori": "{a} | {b}", "arith.xori": "{a} ^ {b}",
}
# cmpf predicates.  Python comparisons on floats are the *ordered* ones (false
# on NaN) except !=, which is unordered; the rest are spelled out (without
# `~`, which the interpreter mishandles on scalar booleans).
_CMPF = {
    "false": "tl.full({unit}, 0, tl.int1)", "true": "tl.full({unit}, 1, tl.int1)",
    "oeq": "{a} == {b}", "ogt": "{a} > {b}", "oge": "{a} >= {b}", "olt": "{a} < {b}", "ole": "{a} <= {b}",
    "one": "({a} != {b}) & ({a} == {a}) & ({b} == {b})", "ord": "({a} == {a}) & ({b} == {b})",
    "ueq": "({a} == {b}) | ({a} != {a}) | ({b} != {b})", "ugt": "({a} > {b}) | ({a} != {a}) | ({b} != {b})",
    "uge": "({a} >= {b}) | ({a} != {a}) | ({b} != {b})", "ult": "({a} < {b}) | ({a} != {a}) | ({b} != {b})",
    "ule": "({a} <= {b}) | ({a} != {a}) | ({b} != {b})", "une": "{a} != {b}", "uno": "({a} != {a}) | ({b} != {b})",
}
_BITWISE = ("arith.andi", "arith.ori", "arith.xori")
_CMPI = {"eq": "{a} == {b}", "ne": "{a} != {b}", "slt": "{a} < {b}", "sle": "{a} <= {b}",
         "sgt": "{a} > {b}", "sge": "{a} >= {b}"}
_CASTS = ("arith.extf", "arith.truncf", "arith.sitofp", "arith.uitofp", "arith.fptosi", "arith.extsi",
          "arith.extui", "arith.trunci", "arith.index_cast", "arith.index_castui")

SUPPORTED_BODY_OPS = tuple(sorted(
    set(_FLOAT_BINARY) | set(_FLOAT_MINMAX) | set(_MATH_UNARY) | set(_INT_BINARY) | set(_CASTS)
    | {"arith.negf", "arith.cmpf", "arith.cmpi", "arith.select", "arith.constant", "math.powf",
       "math.fpowi", "math.fma", "linalg.index", "linalg.yield", "cf.assert", "tensor.extract"}))


POWI_UNROLL_MAX = 1024
"""Largest constant ``math.fpowi`` exponent (in magnitude) lowered to multiplies:
at most 2·log2 of it (19 here); larger ones use the ``_powi`` helper."""


def tl_type(t: str) -> str:
    return ELEM_TYPES[t].tl


def _f32(v: Val) -> str:
    """``v`` as an fp32 expression if it is a narrow float, else unchanged."""
    return f"{v.expr}.to(tl.float32)" if v.type in NARROW_FLOATS else v.expr


def _compute_type(t: str) -> str:
    return "f32" if t in NARROW_FLOATS else t


def _back(expr: str, t: str) -> str:
    """Round an expression computed in f32 back to the narrow type ``t``."""
    return f"({expr}).to({tl_type(t)})" if t in NARROW_FLOATS else expr


def float_literal(value: float) -> str:
    if math.isnan(value):
        return 'float("nan")'
    if math.isinf(value):
        return 'float("inf")' if value > 0 else 'float("-inf")'
    return repr(float(value))


def constant_expr(value, t: str, unit: str) -> str:
    """A one-element Triton constant of MLIR type ``t`` and shape ``unit``
    (``[1]`` or ``[1, 1]``: 0-d values trip the interpreter, whose comparisons
    on 0-d arrays return float-typed results).  Narrow floats are built in f32
    and converted (the value is exact in f32; the interpreter has no bf16 literals)."""
    if t in FLOAT_TYPES:
        base = f"tl.full({unit}, {float_literal(value)}, {'tl.float32' if t in NARROW_FLOATS else tl_type(t)})"
        return f"{base}.to({tl_type(t)})" if t in NARROW_FLOATS else base
    if t == "i1":
        return f"tl.full({unit}, {int(bool(value))}, tl.int1)"
    return f"tl.full({unit}, {int(value)}, {tl_type(t)})"


def _refuse_signed_i1(op_name: str, args) -> None:
    """MLIR's signed and arithmetic ops read an ``i1`` true as -1 (``maxsi`` is an and, ``addi``
    an xor); Triton's int1 reads it as 1.  Only the bitwise ops and eq/ne agree, so the rest are
    refused on ``i1`` rather than lowered to a kernel that computes something else."""
    if any(a.type == "i1" for a in args):
        raise UnsupportedOp(op_name, "signed or arithmetic op on i1 (MLIR reads true as -1, Triton as 1); "
                                     "only andi, ori, xori and cmpi eq/ne are lowered on i1")


def scalar_value(attr: ir.Attribute, op_name: str, what: str):
    """The Python value of a scalar constant: a float, an integer or a bool (the bindings
    give an ``i1`` constant a ``BoolAttr``, which is no ``IntegerAttr``)."""
    if isinstance(attr, (ir.FloatAttr, ir.IntegerAttr, ir.BoolAttr)):
        return attr.value
    raise UnsupportedOp(op_name, f"{what} {attr} is not a scalar float, integer or bool")


def scalar_type(value: ir.Value, op_name: str) -> str:
    """MLIR element type name of a scalar SSA value; unsupported types raise."""
    t = str(value.type)
    if t not in ELEM_TYPES:
        raise UnsupportedOp(op_name, f"element type {t} is not supported (supported: {', '.join(ELEM_TYPES)})")
    return t


# MLIR's CmpFPredicate / CmpIPredicate enums, in declaration order.
_CMPF_ENUM = ("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
              "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true")
_CMPI_ENUM = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")


def _predicate(op: ir.Operation) -> str:
    """The predicate mnemonic (``ogt``, ``slt``) of an ``arith.cmpf``/``cmpi``."""
    names = _CMPF_ENUM if op.name == "arith.cmpf" else _CMPI_ENUM
    return names[ir.IntegerAttr(op.attributes["predicate"]).value]


@dataclass
class BodyEmitter:
    """Emits one generic body.  ``load(i)`` returns the :class:`Val` of block
    argument ``i`` (the caller emits the load); ``index(d)`` the int64 index of
    loop dim ``d``.  ``lines`` collects ``(rdep, line)`` pairs in program order.
    ``unit`` is the shape of a one-element tile (``[1]`` or ``[1, 1]``).
    ``pointer(t)`` returns ``(kernel parameter, shape, element type)`` of a
    tensor ``t`` from outside the body that a ``tensor.extract`` gathers from;
    it is called once per gather emitted, so the caller can count the bytes.
    Without it, a gather is unsupported."""

    block: ir.Block
    load: Callable[[int], Val]
    index: Callable[[int], Val]
    unit: str = "[1]"
    lines: list[tuple[bool, str]] = field(default_factory=list)
    helpers: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)
    values: dict = field(default_factory=dict)
    _n: int = 0
    pointer: Callable[[ir.Value], tuple[str, tuple[int, ...], str]] | None = None

    def fresh(self) -> str:
        self._n += 1
        return f"t{self._n}"

    def emit(self, expr: str, t: str, rdep: bool) -> Val:
        name = self.fresh()
        self.lines.append((rdep, f"{name} = {expr}"))
        return Val(name, t, rdep)

    # -- values ---------------------------------------------------------------

    def value(self, v: ir.Value, user: str) -> Val:
        """The :class:`Val` of SSA value ``v`` used by op ``user``."""
        if v in self.values:
            return self.values[v]
        if isinstance(v, ir.BlockArgument) and v.owner == self.block:
            val = self.load(v.arg_number)
        elif (constant := defined_by(v, "arith.constant")) is not None:
            # A scalar constant defined outside the body (captured): hoist it.
            val = self._constant(constant, "arith.constant (captured)")
        else:
            owner = v.owner.name if isinstance(v, ir.OpResult) else "a block argument"
            raise UnsupportedOp(user, f"uses a value defined outside the body by {owner}; only scalar "
                                      "arith.constant values may be captured (and tensors gathered by "
                                      "tensor.extract)")
        self.values[v] = val
        return val

    def _constant(self, op: ir.Operation, name: str) -> Val:
        t = scalar_type(op.results[0], name)
        value = scalar_value(op.attributes["value"], name, "constant")
        return self.emit(constant_expr(value, t, self.unit), t, False)

    # -- ops ------------------------------------------------------------------

    def run(self, skip: frozenset[int] = frozenset()) -> ir.Operation:
        """Emit every op of the body except those at positions in ``skip``;
        return the terminating ``linalg.yield``."""
        for pos, op in enumerate(block_ops(self.block)):
            if op.name == "linalg.yield":
                return op
            if pos in skip:
                continue
            self.op(op)
        raise UnsupportedOp("linalg.generic", "body has no linalg.yield terminator")

    def op(self, op: ir.Operation) -> None:
        name = op.name
        if name == "cf.assert":
            # Assertions do not change any value; a kernel cannot report them.
            self.notes.append("cf.assert in the body was dropped (it guards, it computes nothing)")
            return
        if len(op.results) != 1:
            raise UnsupportedOp(name, f"has {len(op.results)} results; body ops must have exactly one")
        rt = scalar_type(op.results[0], name)
        if name == "arith.constant":
            self.values[op.results[0]] = self._constant(op, name)
            return
        if name == "linalg.index":
            dim = ir.IntegerAttr(op.attributes["dim"]).value
            self.values[op.results[0]] = self.index(dim)
            return
        if name == "tensor.extract":
            self.values[op.results[0]] = self._gather(op, rt)
            return
        args = [self.value(v, name) for v in op.operands]
        rdep = any(a.rdep for a in args)
        expr = self._expr(op, name, args, rt)
        self.values[op.results[0]] = self.emit(expr, rt, rdep)

    def _expr(self, op: ir.Operation, name: str, args: list[Val], rt: str) -> str:
        if name in _FLOAT_BINARY or name in _FLOAT_MINMAX:
            self._require_float(name, args)
            pattern = _FLOAT_BINARY.get(name) or _FLOAT_MINMAX[name]
            a, b = (_f32(x) if rt == "bf16" else x.expr for x in args)
            return _back(pattern.format(a=a, b=b), "bf16") if rt == "bf16" else pattern.format(a=a, b=b)
        if name == "arith.negf":
            self._require_float(name, args)
            return _back(f"-{_f32(args[0])}", "bf16") if rt == "bf16" else f"-{args[0].expr}"
        if name in _MATH_UNARY:
            self._require_float(name, args)
            pattern = _MATH_UNARY[name]
            if pattern.startswith("_"):
                self.helpers.add(pattern.split("(")[0])
            if name == "math.absf" and rt != "bf16":
                return pattern.format(a=args[0].expr)
            return _back(pattern.format(a=_f32(args[0])), rt)
        if name == "math.powf":
            self._require_float(name, args)
            return self._powf(op, args, rt)
        if name == "math.fpowi":  # the verifier guarantees the exponent is an integer
            self._require_float(name, args[:1])
            return self._fpowi(op, args, rt)
        if name == "math.fma":
            self._require_float(name, args)
            return _back("tl.fma({}, {}, {})".format(*(_f32(a) for a in args)), rt)
        if name == "arith.cmpf":
            self._require_float(name, args)
            pred = _predicate(op)
            a, b = (_f32(x) if x.type == "bf16" else x.expr for x in args)
            return _CMPF[pred].format(a=a, b=b, unit=self.unit)
        if name == "arith.cmpi":
            pred = _predicate(op)
            if pred not in _CMPI:
                raise UnsupportedOp(name, f"predicate {pred} (unsigned comparisons are not supported)")
            if pred not in ("eq", "ne"):
                _refuse_signed_i1(name, args)
            return _CMPI[pred].format(a=args[0].expr, b=args[1].expr)
        if name == "arith.select":
            return f"tl.where({args[0].expr}, {args[1].expr}, {args[2].expr})"
        if name in _INT_BINARY:
            if any(a.type in FLOAT_TYPES for a in args):
                raise UnsupportedOp(name, "integer op on float operands")
            if name not in _BITWISE:
                _refuse_signed_i1(name, args)
            return _INT_BINARY[name].format(a=args[0].expr, b=args[1].expr)
        if name in _CASTS:
            return self._cast(name, args[0], rt)
        raise UnsupportedOp(name, "no Triton lowering for this body op (supported: "
                                  + ", ".join(o for o in SUPPORTED_BODY_OPS if o != "linalg.yield") + ")")

    def _gather(self, op: ir.Operation, rt: str) -> Val:
        """``tensor.extract %t[%i, ...]`` of a tensor from outside the body: a
        load at ``sum(i_k * stride_k)`` (int64) under the tile's mask and the
        indices' bounds; an out-of-range offset is clamped to 0 and masked off."""
        source = op.operands[0]
        if defining_block(source) == self.block:
            raise UnsupportedOp("tensor.extract", "extracts from a tensor computed inside the body")
        if self.pointer is None:
            raise UnsupportedOp("tensor.extract", "gathers from a tensor defined outside the body, and this "
                                                  "kernel has no pointer for it")
        ptr, shape, _ = self.pointer(source)
        idx = [self.value(v, "tensor.extract") for v in op.operands[1:]]
        if not idx:  # a 0-d tensor: one in-bounds scalar, broadcast
            return self.emit(f"tl.broadcast_to(tl.load({ptr}), {self.unit})", rt, False)
        rdep = any(i.rdep for i in idx)
        strides = row_major_strides(shape)
        offset = " + ".join(i.expr if st == 1 else f"{i.expr} * {st}" for i, st in zip(idx, strides))
        bounds = " & ".join(f"({i.expr} >= 0) & ({i.expr} < {size})" for i, size in zip(idx, shape))
        mask = self.emit(f"{bounds} & {'xmask & rmask' if rdep else 'xmask'}", "i1", rdep)
        return self.emit(f"tl.load({ptr} + tl.where({mask.expr}, {offset}, 0), mask={mask.expr})", rt, rdep)

    @staticmethod
    def _require_float(name: str, args: list[Val]) -> None:
        bad = [a.type for a in args if a.type not in FLOAT_TYPES]
        if bad:
            raise UnsupportedOp(name, f"float op on non-float operand type {bad[0]}")

    def _powf(self, op: ir.Operation, args: list[Val], rt: str) -> str:
        base, exp = args
        exponent = defined_by(op.operands[1], "arith.constant")
        if exponent is not None:
            y = ir.FloatAttr(exponent.attributes["value"]).value
            b = _f32(base)
            # Small integer and half exponents as Inductor does: exact and cheap.
            special = {1.0: f"{b}", 2.0: f"{b} * {b}", 3.0: f"{b} * {b} * {b}", 0.5: f"tl.sqrt({b})",
                       -1.0: f"1.0 / {b}", 0.0: f"tl.full({self.unit}, 1.0, {tl_type(_compute_type(rt))})"}
            if y in special:
                return _back(special[y], rt)
        self.helpers.add("_powf")
        return _back(f"_powf({_f32(base)}, {_f32(exp)})", rt)

    def _fpowi(self, op: ir.Operation, args: list[Val], rt: str) -> str:
        """``math.fpowi`` (what ``torch``'s ``x.pow(2)`` imports as): a constant
        exponent up to :data:`POWI_UNROLL_MAX` in magnitude becomes multiplies
        (and a reciprocal when negative), as LLVM expands a constant ``powi``;
        any other exponent goes to the ``_powi`` helper."""
        base, exp = args
        ct = _compute_type(rt)
        exponent = defined_by(op.operands[1], "arith.constant")
        n = None
        if exponent is not None:
            n = ir.IntegerAttr(exponent.attributes["value"]).value
        if n is None or abs(n) > POWI_UNROLL_MAX:
            self.helpers.add("_powi")
            return _back(f"_powi({_f32(base)}, {exp.expr})", rt)
        if n == 0:
            return _back(f"tl.full({self.unit}, 1.0, {tl_type(ct)})", rt)
        product = self._int_power(_f32(base), abs(n), ct, base.rdep)
        return _back(product if n > 0 else f"1.0 / ({product})", rt)

    def _int_power(self, b: str, n: int, t: str, rdep: bool) -> str:
        """``b ** n`` (``n >= 1``) by binary exponentiation: each square but the
        last is named, so ``n = 2`` is ``b * b`` and ``n = 4`` two multiplies."""
        factors, square = [], b
        while True:
            if n & 1:
                factors.append(square)
            n >>= 1
            if not n:
                return " * ".join(factors)
            square = f"{square} * {square}" if n == 1 else self.emit(f"{square} * {square}", t, rdep).expr

    @staticmethod
    def _cast(name: str, a: Val, rt: str) -> str:
        src = a.type
        if name in ("arith.extf", "arith.truncf"):
            return f"{a.expr}.to({tl_type(rt)})"
        if name == "arith.sitofp":
            return f"{a.expr}.to({tl_type(rt)})"
        if name == "arith.uitofp":
            if src != "i1":
                raise UnsupportedOp(name, f"unsigned conversion from {src} (only i1 is supported)")
            return f"{a.expr}.to({tl_type(rt)})"
        if name == "arith.fptosi":
            return f"{_f32(a)}.to({tl_type(rt)})"
        if name == "arith.extsi" and src == "i1":
            return f"-({a.expr}.to({tl_type(rt)}))"  # sign-extending i1 true gives -1
        if name == "arith.extui" and src != "i1":
            raise UnsupportedOp(name, f"zero-extension of {src} (only i1 is supported)")
        if rt == "i1":  # trunci to i1 keeps the low bit; Triton's .to(int1) would test != 0
            return f"({a.expr} & 1) != 0"
        return f"{a.expr}.to({tl_type(rt)})"

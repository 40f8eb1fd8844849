"""Seeded random program families: small DAGs of ``linalg.generic`` on tensors.

A program is reproducible from ``(family, seed)`` alone: every random choice
comes from ``random.Random(f"{family}:{seed}")`` and is recorded in
``params``.  Different seeds can still draw the same program (``act-322`` and
``act-340`` are one GELU at one shape), so a program is also named by its
content, :func:`program_hash`, which the dataset job and the training split
use to keep one copy of each.  Programs mirror what torch-mlir emits (one
generic per aten op, broadcast side inputs, reductions initialised by
``linalg.fill``) so that the cost model learns on IR like the IR it will judge.

Families and their parameters (documented in ``data/DATASET.md``):

``chain``   2-24 elementwise ops (log-uniform length), each unary, binary with a broadcast side
            input (row, column or scalar) or with a constant.
``tree``    a fan-in expression over 3-12 transformed inputs, then a second
            pass that reuses a random fraction of them, so values are reused
            far from their definition: the fused body keeps many values live.
``reduce``  a 1-6 op elementwise prologue into a row reduction (sum, max,
            mean or variance), optionally followed by an epilogue op.
``norm``    softmax, layernorm or rmsnorm over the last dim, decomposed.
``act``     GELU (tanh or erf form), SiLU gating, each with a residual add.
``cast``    mixed precision: f16/bf16 inputs extended to f32, computed on,
            truncated back.

Sizes run log-uniformly from 2^10 to 2^26 elements (tiny to ~4x the H200's
60 MB L2 in f32), ranks 1-3; reduction rows from 32 to 32768 elements.
"""

from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass, field

from costfuse.data.mlir_text import Program, amap, ident, tensor

FAMILIES = ("chain", "tree", "reduce", "norm", "act", "cast")
MIN_LOG2_NUMEL, MAX_LOG2_NUMEL = 10, 26
MIN_LOG2_ROW, MAX_LOG2_ROW = 5, 15

# Unary ops as body lines on %x (safe domains: sqrt/log/rsqrt take |x| + 1).
# Body names must not clash with function argument names (regions see them).
UNARY = {
    "exp": ["%r = math.exp %x : {t}"],
    "tanh": ["%r = math.tanh %x : {t}"],
    "neg": ["%r = arith.negf %x : {t}"],
    "abs": ["%r = math.absf %x : {t}"],
    "sin": ["%r = math.sin %x : {t}"],
    "cos": ["%r = math.cos %x : {t}"],
    "erf": ["%r = math.erf %x : {t}"],
    "sqrt": ["%a = math.absf %x : {t}", "%r = math.sqrt %a : {t}"],
    "log1p": ["%a = math.absf %x : {t}", "%r = math.log1p %a : {t}"],
    "rsqrt": ["%a = math.absf %x : {t}", "%one = arith.constant 1.0 : {t}", "%p = arith.addf %a, %one : {t}",
              "%r = math.rsqrt %p : {t}"],
    "sigmoid": ["%n = arith.negf %x : {t}", "%e = math.exp %n : {t}", "%one = arith.constant 1.0 : {t}",
                "%d = arith.addf %e, %one : {t}", "%r = arith.divf %one, %d : {t}"],
    "square": ["%r = arith.mulf %x, %x : {t}"],
}
BINARY = {"add": "arith.addf", "sub": "arith.subf", "mul": "arith.mulf", "div": "arith.divf",
          "max": "arith.maximumf", "min": "arith.minimumf"}


@dataclass(frozen=True)
class RandomProgram:
    """One generated program: MLIR text with a single ``func.func @main``."""

    family: str
    seed: int
    text: str
    params: dict = field(default_factory=dict)

    @property
    def program_id(self) -> str:
        return f"{self.family}-{self.seed}"

    @property
    def content_hash(self) -> str:
        return program_hash(self.text)


def program_hash(text: str) -> str:
    """The content hash of a generated program: SHA-256 of its MLIR text (16 hex digits).

    The generated text is already canonical, so no MLIR round trip is needed:
    the builders name SSA values and arguments in build order, print
    constants in one format, and the function is always ``@main``, so the text
    names neither the family nor the seed and equal programs print equal.
    (Checked: over 300 seeds of every family, hashing MLIR's own printout of
    the parsed text finds exactly the same classes.)
    """
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def generate(family: str, seed: int) -> RandomProgram:
    """The program of ``family`` for ``seed``; the same arguments give the same text."""
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}; choose from {', '.join(FAMILIES)}")
    rng = random.Random(f"{family}:{seed}")
    params: dict = {}
    text = _BUILDERS[family](rng, params)
    return RandomProgram(family, seed, text, params)


# --- shapes -----------------------------------------------------------------

def _split(numel_log2: int, rank: int, rng: random.Random) -> tuple[int, ...]:
    """A rank-``rank`` shape of 2**numel_log2 elements, sometimes with a non-power-of-two dim."""
    cuts = sorted(rng.randint(0, numel_log2) for _ in range(rank - 1))
    logs = [b - a for a, b in zip([0] + cuts, cuts + [numel_log2])]
    shape = [1 << k for k in logs]
    if rng.random() < 0.3 and shape[-1] >= 8:  # e.g. 768 = 3 * 256, as in real models
        shape[-1] = shape[-1] // 4 * 3
    return tuple(shape)


def _pointwise_shape(rng: random.Random, params: dict) -> tuple[int, ...]:
    rank = rng.randint(1, 3)
    shape = _split(rng.randint(MIN_LOG2_NUMEL, MAX_LOG2_NUMEL), rank, rng)
    params["shape"] = list(shape)
    return shape


def _row_shape(rng: random.Random, params: dict) -> tuple[int, ...]:
    """(rows..., row): the reduced last dim has 32..32768 elements."""
    row_log2 = rng.randint(MIN_LOG2_ROW, MAX_LOG2_ROW)
    row = 1 << row_log2
    if rng.random() < 0.3:
        row = row // 4 * 3
    rows_log2 = rng.randint(max(0, MIN_LOG2_NUMEL - row_log2), max(0, MAX_LOG2_NUMEL - 2 - row_log2))
    lead = _split(rows_log2, rng.randint(1, 2), rng) if rows_log2 > 0 else (1,)
    shape = tuple(lead) + (row,)
    params["shape"] = list(shape)
    return shape


# --- building blocks ----------------------------------------------------------

def _par(n: int) -> list[str]:
    return ["parallel"] * n


def _unary(p: Program, x: str, ty: str, name: str, dtype: str) -> str:
    n = ty.count("x")
    body = [line.format(t=dtype).replace("%x", "%a0") for line in UNARY[name]] + ["yield %r"]
    return p.generic([(x, ty, ident(n))], ty, ident(n), _par(n), body)


def _binary(p: Program, a: str, b: str, ty: str, name: str, dtype: str, b_ty: str | None = None,
            b_map: str | None = None) -> str:
    n = ty.count("x")
    return p.generic([(a, ty, ident(n)), (b, b_ty or ty, b_map or ident(n))], ty, ident(n), _par(n),
                     [f"%r = {BINARY[name]} %a0, %a1 : {dtype}", "yield %r"])


def _const_op(p: Program, a: str, ty: str, name: str, c: float, dtype: str) -> str:
    n = ty.count("x")
    return p.generic([(a, ty, ident(n))], ty, ident(n), _par(n),
                     [f"%c = arith.constant {c:.9e} : {dtype}", f"%r = {BINARY[name]} %a0, %c : {dtype}", "yield %r"])


def _reduce(p: Program, x: str, shape: tuple[int, ...], combiner: str, dtype: str) -> str:
    """Reduce the last dim of ``x``: a fill then a generic with a trailing reduction iterator."""
    n = len(shape)
    ty, rty = tensor(shape, dtype), tensor(shape[:-1], dtype)
    init_value = {"addf": "0.0", "maximumf": "0xFF800000" if dtype == "f32" else "-65504.0"}[combiner]
    c, init = p.fresh(), p.fresh()
    p.raw(f"{c} = arith.constant {init_value} : {dtype}")
    p.raw(f"{init} = linalg.fill ins({c} : {dtype}) outs({p.empty(rty)} : {rty}) -> {rty}")
    lead = ", ".join(f"d{i}" for i in range(n - 1))
    return p.generic([(x, ty, ident(n))], rty, amap(n, lead), _par(n - 1) + ["reduction"],
                     [f"%r = arith.{combiner} %a0, %o : {dtype}", "yield %r"], init=init)


def _row_broadcast(p: Program, x: str, v: str, shape: tuple[int, ...], name: str, dtype: str) -> str:
    """x (op) v where v has the row dims only (one value per row), as after a reduction."""
    n = len(shape)
    lead = ", ".join(f"d{i}" for i in range(n - 1))
    return _binary(p, x, v, tensor(shape, dtype), name, dtype, tensor(shape[:-1], dtype), amap(n, lead))


def _scale(p: Program, v: str, shape: tuple[int, ...], c: float, dtype: str) -> str:
    return _const_op(p, v, tensor(shape, dtype), "mul", c, dtype)


# --- families -------------------------------------------------------------------

def _chain(rng: random.Random, params: dict) -> str:
    shape = _pointwise_shape(rng, params)
    n, dtype = len(shape), "f32"
    ty = tensor(shape, dtype)
    side = {"row": (tensor(shape[-1:], dtype), amap(n, f"d{n - 1}")),
            "col": (tensor(shape[:-1] + (1,), dtype), amap(n, ", ".join([f"d{i}" for i in range(n - 1)] + ["0"]))),
            "scalar": (f"tensor<{dtype}>", amap(n, ""))}
    if n == 1:
        del side["col"]
    length = int(2 ** rng.uniform(1, math.log2(25)))  # 2..24, log-uniform: short chains are common
    ops, args = [], [("%x", ty)]
    p = Program(args)
    v = "%x"
    for _ in range(length):
        kind = rng.choice(["unary", "unary", "side", "const"])
        if kind == "unary":
            name = rng.choice(sorted(UNARY))
            v = _unary(p, v, ty, name, dtype)
        elif kind == "side":
            where, name = rng.choice(sorted(side)), rng.choice(["add", "mul", "sub", "max"])
            arg = f"%s{len(args)}"
            args.append((arg, side[where][0]))
            v = _binary(p, v, arg, ty, name, dtype, *side[where])
            name = f"{name}_{where}"
        else:
            name = rng.choice(["add", "mul"])
            v = _const_op(p, v, ty, name, round(rng.uniform(0.5, 2.0), 3), dtype)
        ops.append(name)
    params.update(length=length, ops=ops)
    return p.text(v, ty)


def _tree(rng: random.Random, params: dict) -> str:
    """Fan-in over 3-12 transformed inputs, then a second pass that reuses a
    random fraction of them: those values stay live across the whole first
    pass, which is what drives a fused kernel's register pressure."""
    shape = _pointwise_shape(rng, params)
    dtype, ty = "f32", tensor(shape, "f32")
    leaves = rng.randint(3, 12)
    p = Program([(f"%x{i}", ty) for i in range(leaves)])
    nodes = [_unary(p, f"%x{i}", ty, rng.choice(sorted(UNARY)), dtype) for i in range(leaves)]
    acc = nodes[0]
    for k in range(1, leaves):
        acc = _binary(p, acc, nodes[k], ty, rng.choice(["add", "mul", "max", "sub"]), dtype)
    reuse = rng.uniform(0.0, 1.0)
    reused = sorted(rng.sample(range(leaves), int(round(reuse * leaves))))
    for k in reused:
        acc = _binary(p, acc, nodes[k], ty, rng.choice(["add", "mul"]), dtype)
    params.update(leaves=leaves, reused=reused)
    return p.text(acc, ty)


def _reduce_family(rng: random.Random, params: dict) -> str:
    shape = _row_shape(rng, params)
    dtype, ty = "f32", tensor(shape, "f32")
    p = Program([("%x", ty), ("%y", ty)])
    v = _binary(p, "%x", "%y", ty, rng.choice(["add", "mul"]), dtype)
    prologue = [rng.choice(sorted(UNARY)) for _ in range(rng.randint(0, 5))]
    for name in prologue:
        v = _unary(p, v, ty, name, dtype)
    kind = rng.choice(["sum", "max", "mean", "var"])
    rshape = shape[:-1]
    if kind == "max":
        out = _reduce(p, v, shape, "maximumf", dtype)
    else:
        out = _reduce(p, v, shape, "addf", dtype)
        if kind in ("mean", "var"):
            out = _scale(p, out, rshape, 1.0 / shape[-1], dtype)
        if kind == "var":
            centered = _row_broadcast(p, v, out, shape, "sub", dtype)
            sq = _unary(p, centered, ty, "square", dtype)
            out = _scale(p, _reduce(p, sq, shape, "addf", dtype), rshape, 1.0 / shape[-1], dtype)
    if rng.random() < 0.5:
        out = _unary(p, out, tensor(rshape, dtype), rng.choice(["sqrt", "exp", "neg"]), dtype)
    params.update(prologue=prologue, reduction=kind)
    return p.text(out, tensor(rshape, dtype))


def _norm(rng: random.Random, params: dict) -> str:
    shape = _row_shape(rng, params)
    dtype, ty, n = "f32", tensor(shape, "f32"), len(shape)
    rshape, row = shape[:-1], shape[-1]
    wty, wmap = tensor(shape[-1:], dtype), amap(n, f"d{n - 1}")
    kind = rng.choice(["softmax", "layernorm", "rmsnorm"])
    p = Program([("%x", ty), ("%w", wty), ("%bias", wty)])
    if kind == "softmax":
        m = _reduce(p, "%x", shape, "maximumf", dtype)
        e = _unary(p, _row_broadcast(p, "%x", m, shape, "sub", dtype), ty, "exp", dtype)
        s = _reduce(p, e, shape, "addf", dtype)
        out = _row_broadcast(p, e, s, shape, "div", dtype)
    else:
        x = "%x"
        if kind == "layernorm":
            mean = _scale(p, _reduce(p, x, shape, "addf", dtype), rshape, 1.0 / row, dtype)
            x = _row_broadcast(p, x, mean, shape, "sub", dtype)
        var = _scale(p, _reduce(p, _unary(p, x, ty, "square", dtype), shape, "addf", dtype), rshape, 1.0 / row, dtype)
        eps = _const_op(p, var, tensor(rshape, dtype), "add", 1e-5, dtype)
        inv = _unary(p, eps, tensor(rshape, dtype), "rsqrt", dtype)
        out = _row_broadcast(p, x, inv, shape, "mul", dtype)
        out = _binary(p, out, "%w", ty, "mul", dtype, wty, wmap)
        if kind == "layernorm":
            out = _binary(p, out, "%bias", ty, "add", dtype, wty, wmap)
    params.update(norm=kind)
    return p.text(out, ty)


def _gelu(p: Program, x: str, ty: str, dtype: str, form: str) -> str:
    if form == "tanh":
        cube = _unary(p, _unary(p, x, ty, "square", dtype), ty, "neg", dtype)
        cube = _binary(p, cube, x, ty, "mul", dtype)
        inner = _binary(p, x, _scale_ty(p, cube, ty, -0.044715, dtype), ty, "add", dtype)
        t = _unary(p, _scale_ty(p, inner, ty, 0.7978845608, dtype), ty, "tanh", dtype)
    else:
        t = _unary(p, _scale_ty(p, x, ty, 0.7071067811865476, dtype), ty, "erf", dtype)
    one = _const_op(p, t, ty, "add", 1.0, dtype)
    return _binary(p, _scale_ty(p, x, ty, 0.5, dtype), one, ty, "mul", dtype)


def _scale_ty(p: Program, v: str, ty: str, c: float, dtype: str) -> str:
    return _const_op(p, v, ty, "mul", c, dtype)


def _act(rng: random.Random, params: dict) -> str:
    shape = _pointwise_shape(rng, params)
    dtype, ty = "f32", tensor(shape, "f32")
    kind = rng.choice(["gelu_tanh", "gelu_erf", "silu_gate"])
    p = Program([("%x", ty), ("%g", ty), ("%res", ty)])
    if kind == "silu_gate":
        sig = _unary(p, "%g", ty, "sigmoid", dtype)
        out = _binary(p, _binary(p, "%g", sig, ty, "mul", dtype), "%x", ty, "mul", dtype)
    else:
        out = _gelu(p, "%x", ty, dtype, kind.split("_")[1])
    residual = rng.random() < 0.6
    if residual:
        out = _binary(p, out, "%res", ty, "add", dtype)
    params.update(act=kind, residual=residual)
    return p.text(out, ty)


def _cast(rng: random.Random, params: dict) -> str:
    shape = _pointwise_shape(rng, params)
    low = rng.choice(["f16", "bf16"])
    lty, hty, n = tensor(shape, low), tensor(shape, "f32"), len(shape)
    p = Program([("%x", lty), ("%y", lty)])
    ext = [p.generic([(a, lty, ident(n))], hty, ident(n), _par(n), [f"%r = arith.extf %a0 : {low} to f32", "yield %r"])
           for a in ("%x", "%y")]
    v = _binary(p, ext[0], ext[1], hty, rng.choice(["add", "mul"]), "f32")
    ops = [rng.choice(sorted(UNARY)) for _ in range(rng.randint(1, 8))]
    for name in ops:
        v = _unary(p, v, hty, name, "f32")
    out = p.generic([(v, hty, ident(n))], lty, ident(n), _par(n), [f"%r = arith.truncf %a0 : f32 to {low}", "yield %r"])
    params.update(low=low, ops=ops)
    return p.text(out, lty)


_BUILDERS = {"chain": _chain, "tree": _tree, "reduce": _reduce_family, "norm": _norm, "act": _act, "cast": _cast}
assert set(_BUILDERS) == set(FAMILIES)

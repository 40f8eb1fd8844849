"""Small Linalg programs for the pass tests, written out as MLIR text.

Each builder returns a complete module with one ``func.func @main``.  The
programs mirror what torch-mlir emits: one generic per op, broadcast side
inputs, reductions initialised by ``linalg.fill``, named ops in between.
"""

from __future__ import annotations

from costfuse.data.mlir_text import Program, amap, ident, tensor

UNARY = ["math.exp {x}", "math.tanh {x}", "arith.negf {x}", "math.absf {x}", "math.sin {x}"]
# f64 tanh/sin need the reference's slower system-linker fallback; f64 chains avoid them.
UNARY_F64 = ["math.exp {x}", "arith.negf {x}", "math.absf {x}", "math.sqrt {x}"]


def elementwise_chain(length: int = 4, shape=(8, 16), dtype: str = "f32", ops=UNARY) -> str:
    """x -> op -> op -> ...: every producer has one use, so ``always`` fuses it all."""
    ty = tensor(shape, dtype)
    p = Program([("%x", ty)])
    v, m = "%x", ident(len(shape))
    for k in range(length):
        op = ops[k % len(ops)].format(x="%a0")
        v = p.generic([(v, ty, m)], ty, m, ["parallel"] * len(shape),
                      [f"%r = {op} : {dtype}", "yield %r"])
    return p.text(v, ty)


def broadcast_chain(shape=(4, 8, 16), dtype: str = "f32") -> str:
    """Row, column and scalar side inputs, plus a constant-0 map as torch-mlir emits."""
    n = len(shape)
    ty = tensor(shape, dtype)
    row, col = tensor(shape[-1:], dtype), tensor(shape[:-1] + (1,), dtype)
    scal = f"tensor<{dtype}>"
    p = Program([("%x", ty), ("%row", row), ("%col", col), ("%s", scal)])
    m = ident(n)
    lead = ", ".join(f"d{i}" for i in range(n - 1))
    v = p.generic([("%x", ty, m), ("%row", row, amap(n, f"d{n - 1}"))], ty, m, ["parallel"] * n,
                  [f"%r = arith.addf %a0, %a1 : {dtype}", "yield %r"])
    v = p.generic([(v, ty, m), ("%col", col, amap(n, f"{lead}, 0"))], ty, m, ["parallel"] * n,
                  [f"%r = arith.mulf %a0, %a1 : {dtype}", "yield %r"])
    v = p.generic([(v, ty, m), ("%s", scal, amap(n, ""))], ty, m, ["parallel"] * n,
                  [f"%r = arith.subf %a0, %a1 : {dtype}", "yield %r"])
    v = p.generic([(v, ty, m)], ty, m, ["parallel"] * n, [f"%r = math.tanh %a0 : {dtype}", "yield %r"])
    return p.text(v, ty)


def reduction_consumer(shape=(8, 32), dtype: str = "f32", combiner: str = "arith.addf") -> str:
    """exp(x * y) then a row reduction: elementwise producers fuse into the reduction."""
    ty = tensor(shape, dtype)
    rty = tensor(shape[:1], dtype)
    p = Program([("%x", ty), ("%y", ty)])
    m = ident(2)
    v = p.generic([("%x", ty, m), ("%y", ty, m)], ty, m, ["parallel"] * 2,
                  [f"%r = arith.mulf %a0, %a1 : {dtype}", "yield %r"])
    v = p.generic([(v, ty, m)], ty, m, ["parallel"] * 2, [f"%r = math.exp %a0 : {dtype}", "yield %r"])
    zero = p.fresh()
    p.raw(f"{zero} = arith.constant 0.0 : {dtype}")
    init = p.fresh()
    p.raw(f"{init} = linalg.fill ins({zero} : {dtype}) outs({p.empty(rty)} : {rty}) -> {rty}")
    v = p.generic([(v, ty, m)], rty, amap(2, "d0"), ["parallel", "reduction"],
                  [f"%r = {combiner} %a0, %o : {dtype}", "yield %r"], init=init)
    v = p.generic([(v, rty, ident(1))], rty, ident(1), ["parallel"], [f"%r = math.sqrt %a0 : {dtype}", "yield %r"])
    return p.text(v, rty)


def multi_use(shape=(8, 16), dtype: str = "f32") -> str:
    """A diamond: t = exp(x) feeds both a*t and t+1, which are then added."""
    ty = tensor(shape, dtype)
    p = Program([("%x", ty)])
    m = ident(2)
    par = ["parallel"] * 2
    t = p.generic([("%x", ty, m)], ty, m, par, [f"%r = math.exp %a0 : {dtype}", "yield %r"])
    a = p.generic([(t, ty, m), ("%x", ty, m)], ty, m, par, [f"%r = arith.mulf %a0, %a1 : {dtype}", "yield %r"])
    b = p.generic([(t, ty, m)], ty, m, par, [f"%r = math.tanh %a0 : {dtype}", "yield %r"])
    v = p.generic([(a, ty, m), (b, ty, m)], ty, m, par, [f"%r = arith.addf %a0, %a1 : {dtype}", "yield %r"])
    return p.text(v, ty)


def transpose_and_index(shape=(8, 16)) -> str:
    """A producer with a permuted result map, and one whose body reads ``linalg.index``."""
    a, b = shape
    ty, tty = tensor(shape, "f32"), tensor((b, a), "f32")
    p = Program([("%x", ty)])
    t = p.generic([("%x", ty, ident(2))], tty, amap(2, "d1, d0"), ["parallel"] * 2,
                  ["%r = math.exp %a0 : f32", "yield %r"])
    i = p.generic([(t, tty, ident(2))], tty, ident(2), ["parallel"] * 2,
                  ["%i = linalg.index 1 : index", "%c = arith.index_cast %i : index to i32",
                   "%f = arith.sitofp %c : i32 to f32", "%r = arith.addf %a0, %f : f32", "yield %r"])
    v = p.generic([(i, tty, amap(2, "d1, d0"))], ty, ident(2), ["parallel"] * 2,
                  ["%r = math.tanh %a0 : f32", "yield %r"])
    return p.text(v, ty)


def with_named_ops(m: int = 8, k: int = 16, n: int = 12) -> str:
    """Elementwise around a ``linalg.matmul``: CostFuse leaves the matmul a matmul."""
    a_ty, b_ty, c_ty = tensor((m, k), "f32"), tensor((k, n), "f32"), tensor((m, n), "f32")
    p = Program([("%a", a_ty), ("%b", b_ty)])
    par = ["parallel"] * 2
    a = p.generic([("%a", a_ty, ident(2))], a_ty, ident(2), par, ["%r = math.tanh %a0 : f32", "yield %r"])
    zero, init = p.fresh(), p.fresh()
    p.raw(f"{zero} = arith.constant 0.0 : f32")
    p.raw(f"{init} = linalg.fill ins({zero} : f32) outs({p.empty(c_ty)} : {c_ty}) -> {c_ty}")
    mm = p.fresh()
    p.raw(f"{mm} = linalg.matmul ins({a}, %b : {a_ty}, {b_ty}) outs({init} : {c_ty}) -> {c_ty}")
    v = p.generic([(mm, c_ty, ident(2))], c_ty, ident(2), par, ["%r = math.exp %a0 : f32", "yield %r"])
    v = p.generic([(v, c_ty, ident(2))], c_ty, ident(2), par, ["%r = arith.negf %a0 : f32", "yield %r"])
    return p.text(v, c_ty)


def cast_chain(shape=(8, 16), low: str = "f16") -> str:
    """Mixed precision: extf to f32, compute, truncf back."""
    lty, hty = tensor(shape, low), tensor(shape, "f32")
    p = Program([("%x", lty)])
    m, par = ident(2), ["parallel"] * 2
    v = p.generic([("%x", lty, m)], hty, m, par, [f"%r = arith.extf %a0 : {low} to f32", "yield %r"])
    v = p.generic([(v, hty, m)], hty, m, par, ["%r = math.exp %a0 : f32", "yield %r"])
    v = p.generic([(v, hty, m)], lty, m, par, [f"%r = arith.truncf %a0 : f32 to {low}", "yield %r"])
    return p.text(v, lty)


CORPUS = {
    "chain_f32": lambda: elementwise_chain(5),
    "chain_f16": lambda: elementwise_chain(3, dtype="f16"),
    "chain_bf16": lambda: elementwise_chain(3, dtype="bf16"),
    "chain_f64": lambda: elementwise_chain(4, dtype="f64", ops=UNARY_F64),
    "chain_rank3": lambda: elementwise_chain(3, shape=(2, 4, 8)),
    "broadcast": broadcast_chain,
    "reduction_sum": reduction_consumer,
    "reduction_max": lambda: reduction_consumer(combiner="arith.maximumf"),
    "multi_use": multi_use,
    "transpose_index": transpose_and_index,
    "named_matmul": with_named_ops,
    "cast_f16": cast_chain,
    "cast_bf16": lambda: cast_chain(low="bf16"),
}

"""Kernel-group programs and a harness that prices their groups, shared by the peer models' (inductor, xla),
the group time's and formation's tests."""

from __future__ import annotations

from pathlib import Path

from costfuse.data.mlir_text import Program, amap, ident, tensor

from costfuse.data.compile import CompileResult
from costfuse.graph import function_blocks, generics_in
from costfuse.ir import parse_module
from costfuse.kernel import analyze_kernel

ROW = amap(2, "d0")


# --- programs -------------------------------------------------------------------------
def softmax(rows: int, n: int) -> str:
    """max, exp(x - max), sum, divide: g2's result is read by g3 and g4."""
    ty, rty = tensor((rows, n), "f32"), tensor((rows,), "f32")
    p = Program([("%x", ty)])
    m = p.generic([("%x", ty, ident(2))], rty, ROW, ["parallel", "reduction"],
                  ["%r = arith.maximumf %a0, %o : f32", "yield %r"], init=_fill(p, rty, "0xFF800000"))
    e = p.generic([("%x", ty, ident(2)), (m, rty, ROW)], ty, ident(2), ["parallel"] * 2,
                  ["%s = arith.subf %a0, %a1 : f32", "%r = math.exp %s : f32", "yield %r"])
    s = p.generic([(e, ty, ident(2))], rty, ROW, ["parallel", "reduction"],
                  ["%r = arith.addf %a0, %o : f32", "yield %r"], init=_fill(p, rty, "0.0"))
    y = p.generic([(e, ty, ident(2)), (s, rty, ROW)], ty, ident(2), ["parallel"] * 2,
                  ["%r = arith.divf %a0, %a1 : f32", "yield %r"])
    return p.text(y, ty)

EXAMPLE = Path(__file__).parents[2] / "examples" / "softmax_gelu.mlir"


def rmsnorm(rows: int, n: int) -> str:
    """x^2, row mean, rstd = rsqrt(mean + eps) per row, y = x * rstd * w."""
    ty, rty, wty = tensor((rows, n), "f32"), tensor((rows,), "f32"), tensor((n,), "f32")
    p = Program([("%x", ty), ("%w", wty)])
    sq = p.generic([("%x", ty, ident(2))], ty, ident(2), ["parallel"] * 2,
                   ["%r = arith.mulf %a0, %a0 : f32", "yield %r"])
    ss = p.generic([(sq, ty, ident(2))], rty, ROW, ["parallel", "reduction"],
                   ["%r = arith.addf %a0, %o : f32", "yield %r"], init=_fill(p, rty, "0.0"))
    rstd = p.generic([(ss, rty, ident(1))], rty, ident(1), ["parallel"],
                     [f"%k = arith.constant {1.0 / n} : f32", "%m = arith.mulf %a0, %k : f32",
                      "%r = math.rsqrt %m : f32", "yield %r"])
    y = p.generic([("%x", ty, ident(2)), (rstd, rty, ROW), ("%w", wty, amap(2, "d1"))], ty, ident(2),
                  ["parallel"] * 2, ["%t = arith.mulf %a0, %a1 : f32", "%r = arith.mulf %t, %a2 : f32", "yield %r"])
    return p.text(y, ty)



def _fill(p: Program, rty: str, value: str) -> str:
    """A ``linalg.fill`` of ``value`` into a new ``rty`` tensor (a reduction's init), as torch-mlir writes it."""
    c, e, f = p.fresh(), p.fresh(), p.fresh()
    p.raw(f"{c} = arith.constant {value} : f32")
    p.raw(f"{e} = tensor.empty() : {rty}")
    p.raw(f"{f} = linalg.fill ins({c} : f32) outs({e} : {rty}) -> {rty}")
    return f


def chain(length: int, shape=(8, 32)) -> str:
    """``length`` elementwise generics in a row."""
    ty = tensor(shape, "f32")
    p = Program([("%x", ty)])
    x = "%x"
    for k in range(length):
        op = ("math.exp", "arith.negf")[k % 2]
        x = p.generic([(x, ty, ident(2))], ty, ident(2), ["parallel"] * 2, [f"%r = {op} %a0 : f32", "yield %r"])
    return p.text(x, ty)


def wide(first: int, second: int) -> str:
    """g1 sums ``first`` arguments; g2 adds ``second`` more to g1's result."""
    ty = tensor((8, 32), "f32")
    p = Program([(f"%x{i}", ty) for i in range(first + second)])

    def add_all(ins):
        body, acc = [], "%a0"
        for i in range(1, len(ins)):
            body.append(f"%s{i} = arith.addf {acc}, %a{i} : f32")
            acc = f"%s{i}"
        return p.generic([(v, ty, ident(2)) for v in ins], ty, ident(2), ["parallel"] * 2, body + [f"yield {acc}"])

    g1 = add_all([f"%x{i}" for i in range(first)])
    return p.text(add_all([g1] + [f"%x{i}" for i in range(first, first + second)]), ty)


def many_reductions(k: int) -> str:
    """``k`` row sums of x * c_i, then one generic adding all of them to x."""
    ty, rty = tensor((8, 32), "f32"), tensor((8,), "f32")
    p = Program([("%x", ty)])
    sums = [p.generic([("%x", ty, ident(2))], rty, ROW, ["parallel", "reduction"],
                      [f"%c = arith.constant {i + 1}.0 : f32", "%t = arith.mulf %a0, %c : f32",
                       "%r = arith.addf %t, %o : f32", "yield %r"], init=_fill(p, rty, "0.0")) for i in range(k)]
    body, acc = [], "%a0"
    for i in range(1, k + 1):
        body.append(f"%s{i} = arith.addf {acc}, %a{i} : f32")
        acc = f"%s{i}"
    y = p.generic([("%x", ty, ident(2))] + [(s, rty, ROW) for s in sums], ty, ident(2), ["parallel"] * 2,
                  body + [f"yield {acc}"])
    return p.text(y, ty)


def multi_use(n_inputs: int, extra_ops: int) -> str:
    """A producer of ``n_inputs`` inputs and ``extra_ops`` more body ops, read by two consumers."""
    ty = tensor((8, 32), "f32")
    p = Program([(f"%x{i}", ty) for i in range(n_inputs)])
    body, acc = [], "%a0"
    for i in range(1, n_inputs):
        body.append(f"%s{i} = arith.addf {acc}, %a{i} : f32")
        acc = f"%s{i}"
    for i in range(extra_ops):
        body.append(f"%m{i} = arith.mulf {acc}, {acc} : f32")
        acc = f"%m{i}"
    prod = p.generic([(f"%x{i}", ty, ident(2)) for i in range(n_inputs)], ty, ident(2), ["parallel"] * 2,
                     body + [f"yield {acc}"])
    c1 = p.generic([(prod, ty, ident(2))], ty, ident(2), ["parallel"] * 2, ["%r = math.exp %a0 : f32", "yield %r"])
    c2 = p.generic([(prod, ty, ident(2)), (c1, ty, ident(2))], ty, ident(2), ["parallel"] * 2,
                   ["%r = arith.addf %a0, %a1 : f32", "yield %r"])
    return p.text(c2, ty)


class Kernels:
    """A parsed program's generics; ``shape(i, j, ...)`` is the kernel of those members (0-based)."""

    def __init__(self, text: str):
        self.module = parse_module(text)            # keeps the ops alive
        self.ops = generics_in(function_blocks(self.module)[0])

    def shape(self, *members):
        return analyze_kernel([self.ops[i] for i in (members or range(len(self.ops)))])


def whole(text: str):
    """``(Kernels, the shape of every generic of ``text`` fused into one kernel)``."""
    k = Kernels(text)
    return k, k.shape()


# --- a compile pool answering as ptxas would ---------------------------------------------

class FakePool:
    """Answers compiles as ptxas would label them: the full-row config spills, RBLOCK 1024 fails."""

    jobs = 1

    def run(self, tasks):
        out = []
        for t in tasks:
            if "rblock = 1024" in t.source:
                out.append(CompileResult("k", "sm_90", "error", error="ptxas failed"))
            elif "rblock = 8192" in t.source:
                out.append(CompileResult("k", "sm_90", "ok", regs=255, spill_store_bytes=300, spill_load_bytes=200,
                                         stack_bytes=320))
            else:
                out.append(CompileResult("k", "sm_90", "ok", regs=72, spill_store_bytes=0, spill_load_bytes=0,
                                         stack_bytes=0))
        return out

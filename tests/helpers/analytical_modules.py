"""Modules and v1 fusion candidates built for the analytical model's tests; the learned model's and the
peer models' tests decide the same candidates."""

from __future__ import annotations

from contextlib import contextmanager

from costfuse.data.mlir_text import Program, amap, ident, tensor

from costfuse.graph import edges_into, function_blocks, generics_in
from costfuse.ir import parse_module
from costfuse.policy import FusionCandidate
from costfuse.rewrite import build_fused, discard


# --- IR builders shared with test_learned ------------------------------------------
def chain_module(length: int = 3, shape=(256, 1024)) -> str:
    """``length`` same-shape elementwise generics (exp, tanh, neg, ...) in a row."""
    ty, m = tensor(shape, "f32"), ident(len(shape))
    p = Program([("%x", ty)])
    x = "%x"
    for k in range(length):
        op = ("math.exp", "math.tanh", "arith.negf")[k % 3]
        x = p.generic([(x, ty, m)], ty, m, ["parallel"] * len(shape), [f"%r = {op} %a0 : f32", "yield %r"])
    return p.text(x, ty)


def row_reduce_module(rows: int = 512, cols: int = 768) -> str:
    """exp(x) into a row sum: a pointwise producer fused into a persistent reduction."""
    ty, rty = tensor((rows, cols), "f32"), tensor((rows,), "f32")
    p = Program([("%x", ty)])
    e = p.generic([("%x", ty, ident(2))], ty, ident(2), ["parallel"] * 2, ["%r = math.exp %a0 : f32", "yield %r"])
    p.raw(f"%zero = arith.constant 0.0 : f32")
    p.raw(f"%e0 = tensor.empty() : {rty}")
    p.raw(f"%init = linalg.fill ins(%zero : f32) outs(%e0 : {rty}) -> {rty}")
    s = p.generic([(e, ty, ident(2))], rty, amap(2, "d0"), ["parallel", "reduction"],
                  ["%r = arith.addf %a0, %o : f32", "yield %r"], init="%init")
    return p.text(s, rty)


def pressure_into_reduction_module(k: int = 20, rows: int = 64, cols: int = 4096) -> str:
    """A pointwise producer of ``k`` inputs, each reused after their sum, feeding a row sum.

    Apart, the producer runs at 8 elements per thread (about ``k*8`` live words)
    and the reduction at 16 with 2 live values; fused, the producer's body runs
    at the reduction's 16 elements per thread (``k*16`` words, past the
    255-register cap): the fusion itself creates the pressure.
    """
    ty, rty = tensor((rows, cols), "f32"), tensor((rows,), "f32")
    p = Program([(f"%x{i}", ty) for i in range(k)])
    body, acc = [], "%a0"
    for i in range(1, k):
        body.append(f"%s{i} = arith.addf {acc}, %a{i} : f32")
        acc = f"%s{i}"
    total = acc
    for i in range(k):
        body += [f"%p{i} = arith.mulf %a{i}, {total} : f32", f"%t{i} = arith.addf {acc}, %p{i} : f32"]
        acc = f"%t{i}"
    e = p.generic([(f"%x{i}", ty, ident(2)) for i in range(k)], ty, ident(2), ["parallel"] * 2,
                  body + [f"yield {acc}"])
    p.raw("%zero = arith.constant 0.0 : f32")
    p.raw(f"%e0 = tensor.empty() : {rty}")
    p.raw(f"%init = linalg.fill ins(%zero : f32) outs(%e0 : {rty}) -> {rty}")
    s = p.generic([(e, ty, ident(2))], rty, amap(2, "d0"), ["parallel", "reduction"],
                  ["%r = arith.addf %a0, %o : f32", "yield %r"], init="%init")
    return p.text(s, rty)


@contextmanager
def candidate(text: str):
    """The :class:`FusionCandidate` of the first edge into the last generic of ``text``.

    The fused op is detached from the IR; it is discarded on exit (a detached op
    outliving its context crashes the interpreter at exit).
    """
    module = parse_module(text)
    with module.context:
        consumer = generics_in(function_blocks(module)[0])[-1]
        edge = edges_into(consumer)[0]
        cand = FusionCandidate(edge.producer, edge.consumer, build_fused(edge))
        try:
            yield cand
        finally:
            discard(cand.fused)


# --- the roofline -----------------------------------------------------------------
def _f(**kw):
    """A v1 feature row of a 1 Mi-element f32 kernel (one add per element, 16 live registers), ``kw`` overriding
    any feature: the roofline tests vary one term at a time from it."""
    base = dict(numel=1 << 20, bytes_total=8 << 20, compute_dtype_bits=32, n_add_mul=1, n_compare_select=0,
                n_cast=0, n_div_sqrt=0, n_transcendental=0, live_regs_est=16, num_warps=4, grid_size=1024,
                reduction_iters=1)
    return {**base, **kw}

"""data.lowering.generic: linalg.generic -> Triton kernel, checked on the CPU.

Every numerical test runs the generated kernel under Triton's interpreter on
torch CPU tensors and compares it with IREE llvm-cpu running the same generic
(data.verify).  Structure tests read the generated source.
"""

from __future__ import annotations

import re

import helpers.kernel_cases as kc
import numpy as np
import pytest
from costfuse.data.interpret import run_interpreted
from costfuse.launch import LaunchConfig, neighbour_configs
from costfuse.data.lowering.generic import lower_generic, lower_module
from costfuse.data.lowering.generic_info import analyze
from costfuse.data.lowering.index_space import IndexSpace
from costfuse.data.lowering.reference_functions import generic_as_function
from costfuse.data.lowering.unsupported import UnsupportedOp
from costfuse.data.lowering.walk import generics_of
from costfuse.data.verify import verify_generic, verify_module
from helpers.lower_checks import MASKED_TAILS, _arg_body, _unsupported, check, only_generic
from helpers.lowering_cases import (
    Operand,
    elementwise,
    generic_module,
    ident,
    random_generic,
    refusal_of,
    row_reduction,
)
from hypothesis import HealthCheck, given, settings

from costfuse.ir import parse_module

# ---------------------------------------------------------------------------
# Structure of the generated source


def _source(text: str, config=None) -> str:
    module, g = only_generic(text)
    return lower_generic(g, config).source


def test_source_is_self_contained():
    src = _source(elementwise((8, 16), "f32", ["%e = math.exp %a0 : f32", "yield %e"]))
    imports = {ln for ln in src.splitlines() if ln.startswith(("import ", "from "))}
    assert imports == {"import triton", "import triton.language as tl"}
    assert "linalg.generic" in src  # the IR rides along as a comment
    compile(src, "<kernel>", "exec")


def test_source_avoids_jit_library_functions():
    """tl.sum & co. are jit functions that cannot be interpreted in-process (see data.interpret)."""
    srcs = [_source(row_reduction((4, 8), "f32", c)) for c in ("arith.addf", "arith.maximumf", "arith.mulf")]
    srcs.append(_source(elementwise((4, 8), "f32", ["%e = math.tanh %a0 : f32", "yield %e"])))
    for src in srcs:
        assert not re.search(r"tl\.(sum|max|min|zeros|zeros_like|cdiv|sigmoid|softmax|argmax|xor_sum)\(", src)


def test_persistent_vs_looped_reduction():
    text = row_reduction((4, 64), "f32", "arith.addf")
    persistent = _source(text, LaunchConfig(4, 64, 2))
    looped = _source(text, LaunchConfig(4, 16, 2))
    assert "tl.static_assert(RBLOCK >= 64)" in persistent and "for roffset" not in persistent
    assert "for roffset in range(0, 64, RBLOCK)" in looped


def test_loop_invariant_values_are_hoisted():
    """A broadcast operand that does not vary along the reduction is loaded before the loop."""
    text = generic_module(2, ["parallel", "reduction"],
                          [Operand((4, 64), "f32", "d0, d1"), Operand((4,), "f32", "d0")],
                          [Operand((4,), "f32", "d0")],
                          ["%s = arith.subf %a0, %a1 : f32", "%e = math.exp %s : f32",
                           "%r = arith.addf %e, %o0 : f32", "yield %r"])
    src = _source(text, LaunchConfig(4, 16, 2))
    before_loop = src.split("for roffset")[0]
    assert "in_ptr1" in before_loop.split("def kernel")[1] and "in_ptr0 +" not in before_loop.split("def kernel")[1]


def test_pointwise_rejects_rblock():
    module, g = only_generic(elementwise((8,), "f32", ["yield %a0"]))
    with pytest.raises(ValueError, match="RBLOCK"):
        lower_generic(g, LaunchConfig(8, 4, 1))


def test_analyze_extents_and_kinds():
    module, g = only_generic(row_reduction((3, 5, 7), "f32", "arith.addf"))
    info = analyze(g)
    assert info.extents == (3, 5, 7) and info.xnumel == 15 and info.rnumel == 7
    assert info.iterators == ("parallel", "parallel", "reduction")


def test_x_runs_over_every_parallel_dim_the_layout_does_not_name_in_loop_order():
    """x follows the layout's dims, then the other parallel dims of extent > 1.  A kernel function that
    stores nothing has no layout at all (test_lower_kernel.py's kernel without results): x is then every
    parallel loop, in loop order; the reduction dims are r's."""
    space = IndexSpace((6, 1, 100, 4), ("parallel", "parallel", "parallel", "reduction"), (), "[1, 1]")
    assert (space.order("x"), space.order("r")) == ([0, 2], [3])


def test_generic_as_function_round_trips():
    text = row_reduction((4, 8), "f32", "arith.maximumf")
    module, g = only_generic(text)
    wrapped = generic_as_function(g)
    assert "func.func @generic" in wrapped
    parse_module(wrapped)  # verifies


def test_generic_as_function_clones_captured_constants(kdir):
    text = """func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c = arith.constant 3.5 : f32
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
      iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%x : tensor<8xf32>) {
    ^bb0(%a: f32, %o: f32):
      %y = arith.mulf %a, %c : f32
      linalg.yield %y : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}"""
    module, g = only_generic(text)
    assert "arith.constant 3.5" in generic_as_function(g)
    verify_generic(g, kernel_dir=kdir)


# ---------------------------------------------------------------------------
# Numerics: one construct at a time (interpreter vs IREE)

UNARY_F32 = ["math.exp", "math.exp2", "math.log", "math.log2", "math.log1p", "math.tanh", "math.erf", "math.sqrt",
             "math.rsqrt", "math.absf", "math.sin", "math.cos", "arith.negf", "math.floor", "math.ceil"]
BINARY_F32 = ["arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.maximumf", "arith.minimumf",
              "math.powf"]


@pytest.mark.parametrize("op", UNARY_F32)
def test_unary_f32(op, kdir):
    check(elementwise((8, 33), "f32", [f"%y = {op} %a0 : f32", "yield %y"]), kdir)


@pytest.mark.parametrize("op", BINARY_F32)
def test_binary_f32(op, kdir):
    check(elementwise((8, 33), "f32", [f"%y = {op} %a0, %a1 : f32", "yield %y"], n_inputs=2), kdir)


@pytest.mark.parametrize("dtype", ["f32", "bf16"])
def test_fma(dtype, kdir):
    body = [f"%y = math.fma %a0, %a1, %a0 : {dtype}", "yield %y"]
    check(elementwise((8, 33), dtype, body, n_inputs=2), kdir)


def _fpowi(n: int | None, dtype: str = "f32", itype: str = "i64", base: str = "%a0") -> str:
    """``x.pow(n)`` as torch imports it: ``math.fpowi`` on a captured integer
    constant.  ``n=None`` reads the exponent from an i32 input shifted to [-2, 1];
    ``base="%p"`` raises ``|x|`` instead of ``x``."""
    itype = "i32" if n is None else itype
    body = [f"%p = math.absf %a0 : {dtype}", f"%y = math.fpowi {base}, %cn : {dtype}, {itype}", "yield %y"]
    if n is None:
        body[1:1] = ["%c2 = arith.constant 2 : i32", "%cn = arith.subi %a1, %c2 : i32"]
        return generic_module(2, ["parallel"] * 2,
                              [Operand((8, 33), dtype, ident(2)), Operand((8, 33), "i32", ident(2))],
                              [Operand((8, 33), dtype, ident(2))], body)
    text = elementwise((8, 33), dtype, body)
    return text.replace("{\n", f"{{\n  %cn = arith.constant {n} : {itype}\n", 1)


@pytest.mark.parametrize("n, itype", [(2, "i64"), (0, "i64"), (1, "i32"), (3, "i32"), (5, "i64"), (-1, "i64"),
                                      (-3, "i64"), (-4, "i32"), (13, "i64")])
def test_fpowi_constant_exponent(n, itype, kdir):
    check(_fpowi(n, itype=itype), kdir)


# f16 stays at n >= -1: IREE flushes f16 subnormals, so 1 / x**2 of a small x is inf there.
@pytest.mark.parametrize("dtype, n", [("bf16", 2), ("bf16", -3), ("f16", 2), ("f16", -1), ("f64", 2), ("f64", -3)])
def test_fpowi_in_other_float_types(dtype, n, kdir):
    check(_fpowi(n, dtype), kdir)


@pytest.mark.parametrize("config", [None, LaunchConfig(2, 16, 2)])
def test_fpowi_in_a_reduction(config, kdir):
    """RMSNorm's sum of squares, at x**6 so a named square lands inside the reduction loop."""
    pre = ["%c6 = arith.constant 6 : i64", "%v = math.fpowi %a0, %c6 : f32, i64"]
    check(row_reduction((4, 48), "f32", "arith.addf", pre), kdir, config)


def test_fpowi_dynamic_exponent_uses_helper(kdir):
    """IREE lowers a non-constant ``fpowi`` through ``powf``, which is NaN for every
    negative base, so IREE checks the helper on ``|x|`` and numpy on ``x``."""
    text = _fpowi(None, base="%p")
    assert "_powi(" in _source(text)
    check(text, kdir)
    module, g = only_generic(_fpowi(None))
    x = np.linspace(-2.0, 2.0, 264, dtype=np.float32).reshape(8, 33)  # never exactly 0
    raw_n = np.arange(264, dtype=np.int32).reshape(8, 33) % 4
    (out,) = run_interpreted(lower_generic(g).source, [x, raw_n, np.zeros_like(x)], kdir)
    np.testing.assert_allclose(out, np.power(x.astype(np.float64), raw_n - 2.0), rtol=1e-5)


def test_fpowi_small_exponents_are_multiplies():
    """x.pow(2) (RMSNorm's square) is one multiply; a large constant goes to the helper."""
    square = _source(_fpowi(2)).split("def kernel")[1]
    assert "_powi" not in square and "_powf" not in square and "t1 * t1" in square
    assert "1.0 / (" in _source(_fpowi(-3)).split("def kernel")[1]
    assert "_powi(" in _source(_fpowi(5000))


def test_integer_casts_and_reductions(kdir):
    """extsi/trunci/extui on i32 data, then an addi and a maxsi reduction."""
    text = generic_module(2, ["parallel", "reduction"],
                          [Operand((4, 16), "i32", "d0, d1"), Operand((4, 16), "f32", "d0, d1")],
                          [Operand((4,), "i64", "d0"), Operand((4,), "i32", "d0")],
                          ["%w = arith.extsi %a0 : i32 to i64", "%z = arith.constant 0.0 : f32",
                           "%p = arith.cmpf ogt, %a1, %z : f32", "%b = arith.extui %p : i1 to i64",
                           "%n = arith.extsi %p : i1 to i32", "%t = arith.trunci %a0 : i32 to i1",
                           "%tt = arith.extui %t : i1 to i32", "%m = arith.addi %n, %tt : i32",
                           "%s = arith.addi %w, %b : i64", "%r0 = arith.addi %s, %o0 : i64",
                           "%r1 = arith.maxsi %m, %o1 : i32", "yield %r0, %r1"])
    check(text, kdir)
    check(text, kdir, LaunchConfig(2, 4, 2))


def test_cf_assert_in_body_is_dropped_with_a_note(kdir):
    body = ["%z = arith.constant 0.0 : f32", "%ok = arith.cmpf oge, %a0, %a0 : f32",
            'cf.assert %ok, "not NaN"', "%y = math.exp %a0 : f32", "yield %y"]
    text = elementwise((16,), "f32", body)
    module, g = only_generic(text)
    assert any("cf.assert" in n for n in lower_generic(g).notes)
    check(text, kdir)


@pytest.mark.parametrize("dtype", ["f16", "bf16", "f64"])
def test_body_in_each_float_type(dtype, kdir):
    ops = ["math.exp", "math.tanh", "math.sqrt", "math.log1p", "arith.negf", "math.absf"]
    if dtype != "f64":
        ops.append("math.erf")  # llvm-cpu has no f64 erf, so the reference cannot run it
    body, prev = [], "%a0"
    for i, op in enumerate(ops):
        body.append(f"%u{i} = {op} {prev} : {dtype}")
        body.append(f"%v{i} = arith.addf %u{i}, %a1 : {dtype}")  # mulf chains underflow; IREE flushes f16 subnormals
        prev = f"%v{i}"
    body += [f"%w = math.powf {prev}, %a1 : {dtype}", f"%z = arith.divf %w, %a0 : {dtype}",
             f"%m = arith.maximumf %z, %a1 : {dtype}", "yield %m"]
    check(elementwise((4, 40), dtype, body, n_inputs=2), kdir)


@pytest.mark.parametrize("src, dst", [("f16", "f32"), ("bf16", "f32"), ("f32", "f64"), ("f32", "bf16"),
                                      ("f32", "f16"), ("f64", "f32"), ("f64", "bf16")])
def test_float_casts(src, dst, kdir):
    cast = "arith.extf" if {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}[src] < {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}[dst] else "arith.truncf"
    body = [f"%e = math.exp %a0 : {src}", f"%c = {cast} %e : {src} to {dst}", f"%y = arith.addf %c, %c : {dst}",
            "yield %y"]
    check(elementwise((64,), src, body, out_dtype=dst), kdir)


def test_int_float_casts_and_index_math(kdir):
    body = ["%i = linalg.index 0 : index", "%j = linalg.index 1 : index",
            "%c7 = arith.constant 7 : index", "%k = arith.muli %i, %c7 : index", "%s = arith.addi %k, %j : index",
            "%c3 = arith.constant 3 : index", "%q = arith.divsi %s, %c3 : index", "%m = arith.remsi %s, %c3 : index",
            "%t = arith.subi %q, %m : index", "%i32 = arith.index_cast %t : index to i32",
            "%f = arith.sitofp %i32 : i32 to f32", "%x = arith.mulf %a0, %f : f32",
            "%n = arith.fptosi %x : f32 to i32", "%lt = arith.cmpi slt, %n, %i32 : i32",
            "%g = arith.sitofp %n : i32 to f32", "%y = arith.select %lt, %g, %x : f32", "yield %y"]
    check(elementwise((5, 7), "f32", body), kdir)


def test_integer_tensors_and_bool_mask(kdir):
    text = generic_module(2, ["parallel", "parallel"],
                          [Operand((4, 8), "f32", "d0, d1"), Operand((4, 8), "i64", "d0, d1"),
                           Operand((4, 8), "i1", "d0, d1")],
                          [Operand((4, 8), "f32", "d0, d1")],
                          ["%f = arith.sitofp %a1 : i64 to f32", "%z = arith.constant 0.0 : f32",
                           "%m = arith.select %a2, %f, %z : f32", "%y = arith.addf %a0, %m : f32", "yield %y"])
    check(text, kdir)


@pytest.mark.parametrize("pred", ["oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult",
                                  "ule", "une", "uno"])
def test_cmpf_predicates(pred, kdir):
    # %a1 is %a0 rounded to a multiple of 0.5 so the == predicates see equal values
    body = ["%h = arith.constant 2.0 : f32", "%t = arith.mulf %a0, %h : f32", "%r = math.floor %t : f32",
            "%b = arith.divf %r, %h : f32", f"%p = arith.cmpf {pred}, %a1, %b : f32",
            "%y = arith.select %p, %a0, %a1 : f32", "yield %y"]
    check(elementwise((64,), "f32", body, n_inputs=2), kdir)


@pytest.mark.parametrize("results, shape", [
    ("d1, d0", (16, 8)),          # transpose
    ("d0", (8,)),                 # projection (row broadcast)
    ("d1", (16,)),                # column broadcast
    ("d0, 0", (8, 1)),            # constant-0 result
    ("0, d1", (1, 16)),
])
def test_indexing_maps(results, shape, kdir):
    text = generic_module(2, ["parallel"] * 2, [Operand((8, 16), "f32", "d0, d1"), Operand(shape, "f32", results)],
                          [Operand((8, 16), "f32", "d0, d1")], ["%y = arith.subf %a0, %a1 : f32", "yield %y"])
    check(text, kdir)


def test_permuted_output_map(kdir):
    text = generic_module(3, ["parallel"] * 3, [Operand((2, 3, 4), "f32", "d0, d1, d2")],
                          [Operand((4, 2, 3), "f32", "d2, d0, d1")], ["%y = math.exp %a0 : f32", "yield %y"])
    check(text, kdir)


def test_rank4_broadcast_constant_map(kdir):
    """The shape torch exports for LayerNorm statistics: (d0,d1,d2,d3) -> (d0,d1,d2,0)."""
    text = generic_module(4, ["parallel"] * 4,
                          [Operand((2, 3, 4, 5), "f64", ident(4)), Operand((2, 3, 4, 1), "f64", "d0, d1, d2, 0")],
                          [Operand((2, 3, 4, 5), "f32", ident(4))],
                          ["%d = arith.subf %a0, %a1 : f64", "%y = arith.truncf %d : f64 to f32", "yield %y"])
    check(text, kdir)


def test_rank0_output_full_reduction(kdir):
    text = generic_module(2, ["reduction", "reduction"], [Operand((6, 10), "f32", "d0, d1")],
                          [Operand((), "f32", "")], ["%r = arith.addf %a0, %o0 : f32", "yield %r"])
    check(text, kdir)
    check(text, kdir, LaunchConfig(1, 16, 2))  # looped


def test_fill_like_constant_yield(kdir):
    text = generic_module(2, ["parallel"] * 2, [], [Operand((4, 8), "f32", "d0, d1")],
                          ["%c = arith.constant -2.5 : f32", "yield %c"])
    check(text, kdir)


def test_output_init_is_read_in_pointwise(kdir):
    text = generic_module(1, ["parallel"], [Operand((32,), "f32", "d0")], [Operand((32,), "f32", "d0")],
                          ["%y = arith.addf %a0, %o0 : f32", "yield %y"])
    check(text, kdir)


def test_multiple_outputs(kdir):
    text = generic_module(2, ["parallel"] * 2, [Operand((4, 8), "f32", "d0, d1")],
                          [Operand((4, 8), "f32", "d0, d1"), Operand((8, 4), "f16", "d1, d0")],
                          ["%e = math.exp %a0 : f32", "%h = arith.truncf %e : f32 to f16", "yield %e, %h"])
    check(text, kdir)


@pytest.mark.parametrize("combiner", ["arith.addf", "arith.mulf", "arith.maximumf", "arith.minimumf"])
@pytest.mark.parametrize("rnumel, config", [(48, None), (48, LaunchConfig(2, 16, 2)), (5000, None)])
def test_reductions(combiner, rnumel, config, kdir):
    pre = ["%t = math.tanh %a0 : f32", "%one = arith.constant 1.0 : f32", "%v = arith.addf %t, %one : f32"] \
        if combiner == "arith.mulf" else ["%v = math.sin %a0 : f32"]
    if combiner == "arith.mulf" and rnumel > 100:
        pytest.skip("long products under/overflow")
    check(row_reduction((3, rnumel), "f32", combiner, pre), kdir, config)


@pytest.mark.parametrize("dtype", ["f16", "bf16", "f64"])
def test_reductions_other_types(dtype, kdir):
    pre = [f"%v = math.exp %a0 : {dtype}"]
    check(row_reduction((4, 64), dtype, "arith.addf", pre), kdir)
    check(row_reduction((4, 64), dtype, "arith.maximumf", pre), kdir, LaunchConfig(2, 16, 2))


def test_two_trailing_reduction_dims_with_broadcast(kdir):
    text = generic_module(3, ["parallel", "reduction", "reduction"],
                          [Operand((4, 6, 10), "f32", "d0, d1, d2"), Operand((10,), "f32", "d2")],
                          [Operand((4,), "f32", "d0")],
                          # subf, not mulf: IREE's llvm-cpu fails on this mul-add contraction (vector.contract)
                          ["%m = arith.subf %a0, %a1 : f32", "%r = arith.addf %o0, %m : f32", "yield %r"])
    check(text, kdir)
    check(text, kdir, LaunchConfig(2, 8, 2))


def test_non_trailing_reduction_dim(kdir):
    """Column sums: the reduction dim is d0; the kernel flattens loop dims by kind."""
    text = generic_module(2, ["reduction", "parallel"], [Operand((24, 8), "f32", "d0, d1")],
                          [Operand((8,), "f32", "d1")], ["%r = arith.addf %a0, %o0 : f32", "yield %r"])
    check(text, kdir)


def test_multi_output_reduction(kdir):
    """sum and sum of squares in one pass (what fused LayerNorm statistics look like)."""
    text = generic_module(2, ["parallel", "reduction"], [Operand((4, 32), "f32", "d0, d1")],
                          [Operand((4,), "f32", "d0"), Operand((4,), "f32", "d0")],
                          ["%s = arith.addf %a0, %o0 : f32", "%q = arith.mulf %a0, %a0 : f32",
                           "%t = arith.addf %q, %o1 : f32", "yield %s, %t"])
    check(text, kdir)
    check(text, kdir, LaunchConfig(2, 8, 2))


@pytest.mark.parametrize("pred, comb", [("ogt", "maximumf"), ("olt", "minimumf")])
@pytest.mark.parametrize("config", [None, LaunchConfig(2, 8, 2)])
def test_arg_max_min_pairs(pred, comb, config, kdir):
    text = generic_module(2, ["parallel", "reduction"], [Operand((4, 48), "f32", "d0, d1")],
                          [Operand((4,), "f32", "d0"), Operand((4,), "i64", "d0")], _arg_body(pred, comb))
    check(text, kdir, config)
    # ties: values rounded to 0.5 steps repeat often; the first index must win
    tied = text.replace("^bb0(%a0: f32", "^bb0(%a0raw: f32").replace(
        "      %i = linalg.index", "      %h = arith.constant 2.0 : f32\n      %t = arith.mulf %a0raw, %h : f32\n"
        "      %f = math.floor %t : f32\n      %a0 = arith.divf %f, %h : f32\n      %i = linalg.index")
    check(tied, kdir, config, seed=3)


# Each extreme reduction, with the sign of row values that its identity must lose against.
ONE_SIGNED = {"arith.maximumf": -1.0, "arith.maxnumf": -1.0, "arith.minimumf": 1.0, "arith.minnumf": 1.0}


def _one_signed_rows(rnumel: int, sign: float) -> np.ndarray:
    """(3, rnumel) f32 rows whose values all have ``sign``, magnitudes in [1, 3)."""
    return (sign * np.random.default_rng(7).uniform(1.0, 3.0, (3, rnumel))).astype(np.float32)


@pytest.mark.parametrize("combiner", sorted(ONE_SIGNED))
@pytest.mark.parametrize("rnumel, config", MASKED_TAILS)
def test_max_min_reductions_of_one_signed_rows(combiner, rnumel, config, kdir):
    """The reduced value is the output and its init is -inf (+inf for min), as torch exports it, and
    every row value is negative (positive for min), so a masked lane's identity that is not -inf (+inf)
    -- 0.0, say -- would win.  No row length is a power of two: tiles and loop tails have masked lanes.
    (Softmax cannot catch this: it is invariant to its max, and random rows straddle 0.)"""
    sign = ONE_SIGNED[combiner]
    args = [_one_signed_rows(rnumel, sign), np.full(3, sign * np.inf, np.float32)]
    check(row_reduction((3, rnumel), "f32", combiner), kdir, config, args=args)


@pytest.mark.parametrize("pred, comb", [("ogt", "maximumf"), ("olt", "minimumf")])
@pytest.mark.parametrize("rnumel, config", MASKED_TAILS)
def test_arg_max_min_of_one_signed_rows(pred, comb, rnumel, config, kdir):
    """torch's aten.max.dim / aten.min.dim pair with its inits (value -inf / +inf, index 0) on rows of one
    sign: both the value and its first index must come from the row, never from a masked lane."""
    sign = ONE_SIGNED[f"arith.{comb}"]
    text = generic_module(2, ["parallel", "reduction"], [Operand((3, rnumel), "f32", "d0, d1")],
                          [Operand((3,), "f32", "d0"), Operand((3,), "i64", "d0")], _arg_body(pred, comb))
    args = [_one_signed_rows(rnumel, sign), np.full(3, sign * np.inf, np.float32), np.zeros(3, np.int64)]
    check(text, kdir, config, args=args)


# ---------------------------------------------------------------------------
# Unsupported constructs: precise errors, never wrong code


def test_unsupported_body_op_is_named():
    err = _unsupported(elementwise((8,), "f32", ["%y = math.atan %a0 : f32", "yield %y"]))
    assert err.op == "math.atan" and "no Triton lowering" in err.reason


def test_argmax_over_two_reduction_dims_is_unsupported():
    text = generic_module(3, ["parallel", "reduction", "reduction"], [Operand((4, 3, 8), "f32", "d0, d1, d2")],
                          [Operand((4,), "f32", "d0"), Operand((4,), "i64", "d0")], _arg_body("ogt", "maximumf", 2))
    err = _unsupported(text)
    assert err.op == "arith.select" and "2 reduction dims" in err.reason


def test_argmax_with_wrong_predicate_is_unsupported():
    text = generic_module(2, ["parallel", "reduction"], [Operand((4, 8), "f32", "d0, d1")],
                          [Operand((4,), "f32", "d0"), Operand((4,), "i64", "d0")], _arg_body("oge", "maximumf"))
    assert "arg-max" in _unsupported(text).reason


def test_reduction_with_non_combiner_use_of_acc():
    text = generic_module(2, ["parallel", "reduction"], [Operand((4, 8), "f32", "d0, d1")],
                          [Operand((4,), "f32", "d0")],
                          ["%h = arith.mulf %o0, %o0 : f32", "%r = arith.addf %a0, %h : f32", "yield %r"])
    err = _unsupported(text)
    assert "accumulator" in err.reason


@pytest.mark.parametrize("op", ["arith.maxsi", "arith.minsi", "arith.addi", "arith.muli", "arith.cmpi slt"])
def test_signed_and_arithmetic_ops_on_i1_are_refused(op):
    """MLIR reads an i1 true as -1 (maxsi is an and), Triton's int1 as 1: refused, not miscomputed."""
    line = f"%r = {op}, %a0, %a1 : i1" if op.startswith("arith.cmpi") else f"%r = {op} %a0, %a1 : i1"
    err = _unsupported(elementwise((8,), "i1", [line, "yield %r"], n_inputs=2))
    assert err.op == op.split()[0] and "on i1 (MLIR reads true as -1, Triton as 1)" in err.reason


def test_i1_reductions_are_refused():
    err = _unsupported(row_reduction((4, 8), "i1", "arith.maxsi"))
    assert (err.op, err.reason) == ("arith.maxsi", "output 0 of a reduction: an i1 reduction (MLIR reads true as -1, "
                                                   "Triton as 1)")


def test_bitwise_ops_and_equality_on_i1_match_iree(kdir):
    body = ["%x = arith.xori %a0, %a1 : i1", "%o = arith.ori %x, %a0 : i1", "%n = arith.andi %o, %a1 : i1",
            "%e = arith.cmpi eq, %n, %a0 : i1", "%t = arith.constant true", "%r = arith.xori %e, %t : i1",
            "yield %r"]
    check(elementwise((37,), "i1", body, n_inputs=2), kdir)


def test_non_projected_map_is_unsupported():
    text = generic_module(1, ["parallel"], [Operand((16,), "f32", "d0 * 2")], [Operand((8,), "f32", "d0")],
                          ["yield %a0"])
    err = _unsupported(text)
    assert "not a dim or a constant" in err.reason


def test_dynamic_shapes_are_unsupported():
    text = """func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
      iterator_types = ["parallel"]} ins(%x : tensor<?xf32>) outs(%x : tensor<?xf32>) {
    ^bb0(%a: f32, %o: f32):
      linalg.yield %a : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}"""
    assert "dynamic shape" in _unsupported(text).reason


def test_unsigned_ops_are_unsupported():
    body = ["%i = linalg.index 0 : index", "%c = arith.constant 3 : index", "%q = arith.divui %i, %c : index",
            "%f = arith.index_cast %q : index to i32", "%g = arith.sitofp %f : i32 to f32", "yield %g"]
    assert _unsupported(elementwise((8,), "f32", body)).op == "arith.divui"


def test_lower_module_collects_unsupported():
    good = elementwise((8,), "f32", ["%y = math.exp %a0 : f32", "yield %y"])
    bad = elementwise((8,), "f32", ["%y = math.atan %a0 : f32", "yield %y"]).replace("@main", "@other")
    module = parse_module(good + bad)
    report = lower_module(module)
    assert (len(report.kernels), len(report.unsupported)) == (1, 1)
    assert report.unsupported[0][0] == 1 and "math.atan" in report.summary()


# ---------------------------------------------------------------------------
# Programs written by others: the pass corpus and an exported encoder layer


def test_corpus_generics_match_iree(kdir):
    """Every distinct generic of the pass-test corpus (tests/helpers/corpus.py)."""
    from helpers.corpus import CORPUS

    seen, modules = set(), []
    for name, build in sorted(CORPUS.items()):
        module = parse_module(build())
        modules.append(module)
        for g in generics_of(module):
            text = generic_as_function(g)
            if text in seen:
                continue
            seen.add(text)
            verify_generic(g, kernel_dir=kdir)
    assert len(seen) > 20


def test_encoder_layer_lowers_every_generic(encoder_layer_mlir):
    module = parse_module(encoder_layer_mlir)
    report = lower_module(module)
    assert report.total == len(generics_of(module)) > 30
    assert not report.unsupported, report.summary()


@pytest.mark.slow
def test_encoder_layer_generics_match_iree(encoder_layer_mlir, kdir):
    module = parse_module(encoder_layer_mlir)
    verdicts = verify_module(module, kernel_dir=kdir)
    assert all(v.status == "ok" for v in verdicts), [v for v in verdicts if v.status != "ok"]


# ---------------------------------------------------------------------------
# Property-based: random generics


@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(text=random_generic())
def test_random_generics_match_iree(text, tmp_path_factory):
    module, g = only_generic(text)
    verify_generic(g, kernel_dir=tmp_path_factory.getbasetemp() / "random_kernels")


@settings(max_examples=10, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(text=random_generic(max_numel=1024))
def test_random_generics_match_iree_at_neighbour_configs(text, tmp_path_factory):
    module, g = only_generic(text)
    info = analyze(g)
    rnumel = info.rnumel if info.reduction else 1
    for config in neighbour_configs(info.xnumel, rnumel)[1:3]:
        verify_generic(g, config, kernel_dir=tmp_path_factory.getbasetemp() / "random_kernels")


# ---------------------------------------------------------------------------
# The module report's text, the per-generic configs of lower_module, and the refusals and index
# arithmetic the numerical tests above cannot tell apart.


def _module(*bodies: list[str]) -> str:
    """One function per body, each an elementwise generic on 8 f32 values."""
    return "".join(elementwise((8,), "f32", body).replace("@main", f"@f{i}") for i, body in enumerate(bodies))


def test_the_report_counts_each_refusal_reason_most_frequent_first():
    atan = ["%y = math.atan %a0 : f32", "yield %y"]
    acos = ["%y = math.acos %a0 : f32", "yield %y"]
    module = parse_module(_module(["%y = math.exp %a0 : f32", "yield %y"], acos, atan, atan))
    report = lower_module(module)
    assert [i for i, _ in report.kernels] == [0] and [i for i, _ in report.unsupported] == [1, 2, 3]
    assert report.total == 4
    atan_reason, acos_reason = str(report.unsupported[1][1]), str(report.unsupported[0][1])
    assert report.summary() == (f"1/4 generics lowered, 3 unsupported\n  2 x {atan_reason}\n  1 x {acos_reason}")


def test_the_report_of_a_fully_lowered_module_has_one_line():
    module = parse_module(_module(["%y = math.exp %a0 : f32", "yield %y"]))
    assert lower_module(module).summary() == "1/1 generics lowered, 0 unsupported"


def test_config_for_sees_each_generic_and_picks_its_config():
    """``config_for(info)`` is called with each generic's own :func:`analyze` facts, and the
    kernel is lowered at the config it returns."""
    text = (elementwise((4, 16), "f32", ["%y = math.exp %a0 : f32", "yield %y"])
            + row_reduction((4, 64), "f32", "arith.addf").replace("@main", "@other"))
    module = parse_module(text)
    seen = []

    def config_for(info):
        seen.append(info)
        return LaunchConfig(2, 1, 1) if info.iterators == ("parallel", "parallel") else LaunchConfig(2, 16, 1)

    report = lower_module(module, config_for)
    assert seen == [analyze(g) for g in generics_of(module)]
    assert [k.config for _, k in report.kernels] == [LaunchConfig(2, 1, 1), LaunchConfig(2, 16, 1)]


def _captured_scalar(iterators: str) -> str:
    """A generic whose body reads the function's scalar argument ``%s`` (not a constant)."""
    if iterators == "pr":
        out, body = ((4,), "d0"), ["%r = arith.addf %s, %o0 : f32", "yield %r"]
    else:
        out, body = ((4, 8), "d0, d1"), ["yield %s"]
    generic = kc.generic("%y", 2, iterators, [("%x", (4, 8), "f32", "d0, d1")], [("%e", out[0], "f32", out[1])], body)
    return kc.main_function([("%x", (4, 8), "f32"), ("%s", None, "f32")], generic, ("%y", out[0], "f32"))


@pytest.mark.parametrize("iterators", ["pp", "pr"], ids=["pointwise", "reduction"])
def test_a_yielded_value_captured_from_a_function_argument_is_refused_at_the_yield(iterators):
    module = parse_module(_captured_scalar(iterators))
    (g,) = generics_of(module)
    with pytest.raises(UnsupportedOp) as err:
        lower_generic(g)
    assert (err.value.op, err.value.reason) == (
        "linalg.yield", "uses a value defined outside the body by a block argument; only scalar arith.constant "
                        "values may be captured (and tensors gathered by tensor.extract)")


def test_a_gather_from_a_dynamic_tensor_is_refused_naming_its_pointer():
    body = ["%i = linalg.index 0 : index", "%c1 = arith.constant 1 : index",
            "%g = tensor.extract %x[%i, %c1] : tensor<?x8xf32>", "yield %g"]
    generic = kc.generic("%y", 1, "p", [], [("%e", (4,), "f32", "d0")], body)
    module = parse_module(kc.main_function([("%x", ("?", 8), "f32")], generic, ("%y", (4,), "f32")))
    (g,) = generics_of(module)
    with pytest.raises(UnsupportedOp) as err:
        lower_generic(g)
    assert (err.value.op, err.value.reason) == (
        "linalg.generic", "operand in_ptr0 has dynamic shape tensor<?x8xf32>; shapes must be static")


@pytest.mark.parametrize("shape", [(2, 3), (1, 4)])
def test_linalg_index_of_dims_of_size_1_and_2(shape, tmp_path):
    """``y[i, j] = 10 i + j``: a dim of size 1 has index 0 (no index tensor of its own); a dim of
    size 2 has its own index."""
    body = ["%i = linalg.index 0 : index", "%j = linalg.index 1 : index", "%c10 = arith.constant 10 : index",
            "%t = arith.muli %i, %c10 : index", "%s = arith.addi %t, %j : index",
            "%n = arith.index_cast %s : index to i64", "%f = arith.sitofp %n : i64 to f32", "yield %f"]
    generic = kc.generic("%y", 2, "pp", [], [("%e", shape, "f32", "d0, d1")], body)
    module = parse_module(kc.main_function([], generic, ("%y", shape, "f32")))
    (g,) = generics_of(module)
    (out,) = run_interpreted(lower_generic(g).source, [np.full(shape, np.nan, np.float32)], tmp_path)
    i, j = np.indices(shape)
    np.testing.assert_array_equal(out, (10 * i + j).astype(np.float32))


def test_two_gathers_from_one_tensor_each_read_their_elements():
    """``y[r] = x[r, 0] + x[r, 1]``: each gather reads one element per loop point (docs/groups.md),
    so the two count twice; ``x`` itself is never loaded whole."""
    body = ["%i = linalg.index 0 : index", "%c0 = arith.constant 0 : index", "%c1 = arith.constant 1 : index",
            "%g0 = tensor.extract %x[%i, %c0] : tensor<6x5xf32>", "%g1 = tensor.extract %x[%i, %c1] : tensor<6x5xf32>",
            "%s = arith.addf %g0, %g1 : f32", "yield %s"]
    generic = kc.generic("%y", 1, "p", [], [("%e", (6,), "f32", "d0")], body)
    module = parse_module(kc.main_function([("%x", (6, 5), "f32")], generic, ("%y", (6,), "f32")))
    (g,) = generics_of(module)
    assert lower_generic(g).hbm_bytes == 6 * 4 + 2 * 6 * 4


def test_a_persistent_reduction_reduces_the_tile_and_widens_a_narrow_init():
    """Persistent: one ``tl.reduce`` over the tile, no accumulator and no loop; the output's initial
    value is loaded into the f32 accumulator type before it is combined (final_value's contract)."""
    module = parse_module(row_reduction((4, 64), "bf16", "arith.maximumf"))
    (g,) = generics_of(module)
    source = lower_generic(g, LaunchConfig(2, 64, 1)).source
    assert "acc" not in source and "for roffset" not in source
    assert "red0 = tl.reduce(tl.where(xmask & rmask, t1.to(tl.float32), float(\"-inf\")), 1, _maximum_combine)" in source
    assert "init0 = tl.load(out_ptr0 + (xindex), mask=xmask).to(tl.float32)\n" in source


def _capturing(outside: list[str], body: list[str], scalar_arg: bool = False) -> str:
    """``y = f(x)`` on 8 f32 values, with ``outside`` lines before the generic (and a scalar ``%s`` argument)."""
    generic = kc.generic("%y", 1, "p", [("%x", (8,), "f32", "d0")], [("%e", (8,), "f32", "d0")], body)
    args = [("%x", (8,), "f32")] + ([("%s", None, "f32")] if scalar_arg else [])
    return kc.main_function(args, generic, ("%y", (8,), "f32"), tuple(outside))


def test_the_reference_clones_each_captured_constant_once_however_it_is_read(tmp_path):
    """``y = x * 2 + (2 + 3)``: the second op reads the already-captured 2 first, then 3 for the first
    time; both constants are cloned into the reference function, which runs."""
    from costfuse.data.lowering.reference_functions import generic_as_function
    from costfuse.data.verify import verify_generic

    text = _capturing(["%c2 = arith.constant 2.0 : f32", "%c3 = arith.constant 3.0 : f32"],
                      ["%m = arith.mulf %a0, %c2 : f32", "%k = arith.addf %c2, %c3 : f32",
                       "%r = arith.addf %m, %k : f32", "yield %r"])
    module = parse_module(text)
    (g,) = generics_of(module)
    wrapper = generic_as_function(g)
    assert wrapper.count("arith.constant 2.000000e+00 : f32") == 1
    assert wrapper.count("arith.constant 3.000000e+00 : f32") == 1
    x = np.linspace(-1, 1, 8, dtype=np.float32)
    verify_generic(g, kernel_dir=tmp_path, args=[x, np.zeros(8, np.float32)])


def test_the_reference_refuses_a_captured_value_that_is_not_a_constant():
    from costfuse.data.lowering.reference_functions import generic_as_function

    text = _capturing(["%t = arith.addf %s, %s : f32"], ["%r = arith.addf %a0, %t : f32", "yield %r"],
                      scalar_arg=True)
    module = parse_module(text)
    (g,) = generics_of(module)
    with pytest.raises(UnsupportedOp) as err:
        generic_as_function(g)
    assert (err.value.op, err.value.reason) == ("arith.addf", "generic body captures a non-constant value")


def test_the_reference_refuses_a_body_reading_a_function_argument():
    from costfuse.data.lowering.reference_functions import generic_as_function

    text = _capturing([], ["%r = arith.addf %a0, %s : f32", "yield %r"], scalar_arg=True)
    module = parse_module(text)
    (g,) = generics_of(module)
    with pytest.raises(UnsupportedOp) as err:
        generic_as_function(g)
    assert (err.value.op, err.value.reason) == ("arith.addf", "generic body captures a function argument")


@pytest.mark.parametrize("iterators, out_map, reason", [
    ("pp", "d0, d0", "out_ptr0 map repeats a dim; outputs must be projected permutations"),
    ("pr", "d1, d0", "out_ptr0 map uses reduction dims; outputs index parallel dims only"),
    ("ppp", "d0", "out_ptr0 map omits parallel dims d1, d2 (writes would race)"),
])
def test_an_output_map_that_is_no_projected_permutation_of_parallel_dims_is_refused(iterators, out_map, reason):
    n = len(iterators)
    x_shape, out_shape = (4,) * n, (4,) * len(out_map.split(","))
    x_map = ", ".join(f"d{d}" for d in range(n))
    generic = kc.generic("%y", n, iterators, [("%x", x_shape, "f32", x_map)], [("%e", out_shape, "f32", out_map)],
                         ["yield %a0"])
    module = parse_module(kc.main_function([("%x", x_shape, "f32")], generic, ("%y", out_shape, "f32")))
    (g,) = generics_of(module)
    with pytest.raises(UnsupportedOp) as err:
        lower_generic(g)
    assert (err.value.op, err.value.reason) == ("linalg.generic", reason)


def test_a_body_constant_in_a_reduction_is_a_tile_of_rank_2():
    """A reduction computes on [XBLOCK, RBLOCK] tiles: its body constants are [1, 1] tiles."""
    module = parse_module(row_reduction((4, 64), "f32", "arith.addf",
                                        ["%c = arith.constant 1.5 : f32", "%v = arith.mulf %a0, %c : f32"]))
    (g,) = generics_of(module)
    assert "tl.full([1, 1], 1.5, tl.float32)" in lower_generic(g, LaunchConfig(2, 64, 1)).source


def test_a_reduction_with_two_outputs_reads_both_inits_and_writes_both():
    """Max and arg-max of 4 rows of 64 f32: x, then each output read (its initial value) and written."""
    body = ["%i = linalg.index 1 : index", "%ii = arith.index_cast %i : index to i64",
            "%gt = arith.cmpf ogt, %a0, %o0 : f32", "%m = arith.maximumf %a0, %o0 : f32",
            "%k = arith.select %gt, %ii, %o1 : i64", "yield %m, %k"]
    generic = kc.generic("%y:2", 2, "pr", [("%x", (4, 64), "f32", "d0, d1")],
                         [("%v", (4,), "f32", "d0"), ("%n", (4,), "i64", "d0")], body)
    module = parse_module("func.func @main(%x: tensor<4x64xf32>, %v: tensor<4xf32>, %n: tensor<4xi64>) "
                          "-> (tensor<4xf32>, tensor<4xi64>) {\n" + generic
                          + "  return %y#0, %y#1 : tensor<4xf32>, tensor<4xi64>\n}\n")
    (g,) = generics_of(module)
    assert lower_generic(g).hbm_bytes == 4 * 64 * 4 + 2 * (4 * 4 + 4 * 8)


def test_the_default_config_is_the_heuristic_for_the_generics_own_sizes():
    """A reduction gets ``heuristic_config(rows, row length)``; a pointwise generic ``(elements, 1)``."""
    from costfuse.launch import heuristic_config

    module = parse_module(row_reduction((4, 64), "f32", "arith.addf"))
    (g,) = generics_of(module)
    assert heuristic_config(4, 64) != heuristic_config(4, 1)
    assert lower_generic(g).config == heuristic_config(4, 64)
    module = parse_module(elementwise((4, 64), "f32", ["%y = math.exp %a0 : f32", "yield %y"]))
    (g,) = generics_of(module)
    assert lower_generic(g).config == heuristic_config(256, 1)


def test_body_ops_counts_the_ops_but_the_yield():
    module = parse_module(elementwise((8,), "f32", ["%e = math.exp %a0 : f32", "%y = arith.addf %e, %a0 : f32",
                                                    "yield %y"]))
    (g,) = generics_of(module)
    assert lower_generic(g).body_ops == 2


@pytest.mark.parametrize("case, config, mode", [
    ("pointwise", None, "pointwise"),
    ("reduction", LaunchConfig(2, 64, 1), "persistent"),
    ("reduction", LaunchConfig(2, 16, 1), "looped"),
])
def test_a_lowered_generic_describes_itself(case, config, mode):
    """Mode, kind, sizes, outputs and IR of the kernel, as the dataset rows and the compile step read them."""
    if case == "pointwise":
        text, sizes = elementwise((4, 64), "f32", ["%y = math.exp %a0 : f32", "yield %y"]), (256, 1)
    else:
        text, sizes = row_reduction((4, 64), "f32", "arith.addf"), (4, 64)
    module = parse_module(text)
    (g,) = generics_of(module)
    kernel, info = lower_generic(g, config), analyze(g)
    assert (kernel.mode, kernel.reduction, (kernel.xnumel, kernel.rnumel)) == (mode, case == "reduction", sizes)
    assert kernel.outputs == info.outputs and [a.name for a in kernel.outputs] == ["out_ptr0"]
    assert kernel.ir == info.ir and kernel.ir.lstrip().startswith("%") and "linalg.generic" in kernel.ir
    # f32 x read once, the output written (a reduction also reads its init): docs/groups.md
    assert kernel.hbm_bytes == (256 * 4 * 2 if case == "pointwise" else 256 * 4 + 2 * 4 * 4)


def test_a_generic_without_outputs_is_refused():
    module = parse_module("func.func @main(%x: tensor<4xf32>) {\n"
                          "  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = [\"parallel\"]}"
                          " ins(%x : tensor<4xf32>) {\n  ^bb0(%a: f32):\n    linalg.yield\n  }\n  return\n}\n")
    (g,) = generics_of(module)
    with pytest.raises(UnsupportedOp) as err:
        analyze(g)
    assert (err.value.op, err.value.reason) == ("linalg.generic", "has no outputs")


def test_a_loop_dim_sized_only_after_a_constant_index_of_a_map(tmp_path):
    """``s[r] = sum_j b[0, j]``: ``b``'s map is ``(0, d1)``, the only operand that sizes ``d1``; the
    constant index before it does not end the reading of that map."""
    from costfuse.data.verify import verify_generic

    generic = kc.generic("%s", 2, "pr", [("%b", (1, 8), "f32", "0, d1")], [("%z", (4,), "f32", "d0")],
                         ["%r = arith.addf %a0, %o0 : f32", "yield %r"])
    module = parse_module("func.func @main(%b: tensor<1x8xf32>, %z: tensor<4xf32>) -> tensor<4xf32> {\n" + generic
                          + "  return %s : tensor<4xf32>\n}\n")
    (g,) = generics_of(module)
    assert analyze(g).extents == (4, 8)
    b = np.arange(8, dtype=np.float32).reshape(1, 8)
    verify_generic(g, kernel_dir=tmp_path, args=[b, np.ones(4, np.float32)])


def test_two_gathered_tensors_take_the_pointers_after_the_inputs_in_first_use_order(tmp_path):
    """``y[r] = w[r] * a[r, 1] + b[r, 0]``: ``w`` is in_ptr0, then ``a`` in_ptr1 and ``b`` in_ptr2."""
    from costfuse.data.verify import verify_generic

    body = ["%i = linalg.index 0 : index", "%c0 = arith.constant 0 : index", "%c1 = arith.constant 1 : index",
            "%ga = tensor.extract %a[%i, %c1] : tensor<6x3xf32>", "%gb = tensor.extract %b[%i, %c0] : tensor<6x2xf32>",
            "%m = arith.mulf %a0, %ga : f32", "%s = arith.addf %m, %gb : f32", "yield %s"]
    generic = kc.generic("%y", 1, "p", [("%w", (6,), "f32", "d0")], [("%e", (6,), "f32", "d0")], body)
    module = parse_module(kc.main_function([("%w", (6,), "f32"), ("%a", (6, 3), "f32"), ("%b", (6, 2), "f32")],
                                           generic, ("%y", (6,), "f32")))
    (g,) = generics_of(module)
    kernel = lower_generic(g)
    assert [(a.name, a.shape) for a in kernel.inputs] == [("in_ptr0", (6,)), ("in_ptr1", (6, 3)), ("in_ptr2", (6, 2))]
    rng = np.random.default_rng(4)
    args = [rng.standard_normal(s).astype(np.float32) for s in ((6,), (6, 3), (6, 2))] + [np.zeros(6, np.float32)]
    verify_generic(g, kernel_dir=tmp_path, args=args)


def test_loads_in_a_looped_reduction_masked_and_placed_by_what_they_vary_with():
    """``s[r] = sum_j x[r, j] * b[0]``: x varies along the row, so its load is in the loop and masked by
    both masks (no read past a row); the constant-offset ``b[0]`` is loaded once, before the loop.
    Bytes are whole numbers."""
    generic = kc.generic("%s", 2, "pr", [("%x", (4, 40), "f32", "d0, d1"), ("%b", (1,), "f32", "0")],
                         [("%z", (4,), "f32", "d0")],
                         ["%p = arith.mulf %a0, %a1 : f32", "%r = arith.addf %p, %o0 : f32", "yield %r"])
    module = parse_module("func.func @main(%x: tensor<4x40xf32>, %b: tensor<1xf32>, %z: tensor<4xf32>) "
                          "-> tensor<4xf32> {\n" + generic + "  return %s : tensor<4xf32>\n}\n")
    (g,) = generics_of(module)
    kernel = lower_generic(g, LaunchConfig(2, 16, 1))
    source, loop = kernel.source, kernel.source.index("for roffset")
    assert source.index("tl.broadcast_to(tl.load(in_ptr1 + (0)), [1, 1])") < loop
    assert "tl.load(in_ptr0 + (40 * xindex + rindex), mask=xmask & rmask)" in source[loop:]
    assert type(kernel.hbm_bytes) is int and kernel.hbm_bytes == 4 * 40 * 4 + 4 + 2 * 4 * 4


def test_a_named_linalg_op_is_refused():
    module = parse_module("func.func @main(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {\n"
                          "  %e = tensor.empty() : tensor<4x4xf32>\n"
                          "  %m = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) "
                          "outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>\n  return %m : tensor<4x4xf32>\n}\n")
    matmul = module.body.operations[0].regions[0].blocks[0].operations[1]
    with pytest.raises(UnsupportedOp) as err:
        lower_generic(matmul)
    assert (err.value.op, err.value.reason) == (
        "linalg.matmul", "only linalg.generic ops are lowered (named ops stay library calls)")


def test_constant_map_indices_add_up_to_the_offset(tmp_path):
    """``y[j] = x[1, 2, j]`` on x of shape (2, 3, 8): the constant indices give 1 * 24 + 2 * 8 = 40."""
    generic = kc.generic("%y", 1, "p", [("%x", (2, 3, 8), "f32", "1, 2, d0")], [("%z", (8,), "f32", "d0")],
                         ["yield %a0"])
    module = parse_module(kc.main_function([("%x", (2, 3, 8), "f32"), ("%z", (8,), "f32")], generic,
                                           ("%y", (8,), "f32")))
    (g,) = generics_of(module)
    source = lower_generic(g).source
    assert "in_ptr0 + (xindex + 40)" in source
    x = np.arange(48, dtype=np.float32).reshape(2, 3, 8)
    (out,) = run_interpreted(source, [x, np.zeros(8, np.float32)], tmp_path)
    np.testing.assert_array_equal(out, x[1, 2])


def test_a_generic_kernel_file_quotes_its_ir_and_says_where_it_came_from():
    from costfuse.data.lowering.generic import ORIGIN, OUTPUTS_NOTE
    from costfuse.data.lowering.source import render_source

    module = parse_module(elementwise((8,), "f32", ["%y = math.exp %a0 : f32", "yield %y"]))
    (g,) = generics_of(module)
    source = lower_generic(g).source
    assert source.startswith(f"# Generated by CostFuse {ORIGIN}.  Do not edit.\n")
    assert "\n#   %1 = math.exp %in : f32\n" in source  # the generic's IR, each line a comment
    blank = render_source("a\n\nb", [], [], LaunchConfig(8, 1, 1), 8, 1, [], set(), False, origin=ORIGIN,
                          outputs_note=OUTPUTS_NOTE)
    assert "\n# a\n#\n# b\n" in blank  # a blank IR line is a bare '#', with no trailing space


def test_an_operand_of_dynamic_shape_is_refused_naming_its_pointer():
    generic = kc.generic("%y", 1, "p", [("%x", ("?",), "f32", "d0")], [("%e", (8,), "f32", "d0")], ["yield %a0"])
    err = refusal_of(kc.main_function([("%x", ("?",), "f32")], generic, ("%y", (8,), "f32")))
    assert (err.op, err.reason) == ("linalg.generic",
                                                "operand in_ptr0 has dynamic shape tensor<?xf32>; shapes must be static")


def test_x_follows_the_first_outputs_layout_so_its_store_is_contiguous(tmp_path):
    """``y[j, i] = x[i, j]`` (y's map ``(d1, d0)``): xindex runs over y's elements in memory order, so the
    store is at ``xindex`` and the transposed read takes the div/mod."""
    generic = kc.generic("%y", 2, "pp", [("%x", (4, 6), "f32", "d0, d1")], [("%e", (6, 4), "f32", "d1, d0")],
                         ["yield %a0"])
    module = parse_module(kc.main_function([("%x", (4, 6), "f32")], generic, ("%y", (6, 4), "f32")))
    (g,) = generics_of(module)
    source = lower_generic(g).source
    assert "tl.store(out_ptr0 + (xindex)," in source
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    (out,) = run_interpreted(source, [x, np.zeros((6, 4), np.float32)], tmp_path)
    np.testing.assert_array_equal(out, x.T)


def test_dims_of_size_1_take_no_place_in_the_flat_index():
    """Over (4, 1, 8) an identity operand is one contiguous run of the two dims of size > 1: ``xindex``."""
    module = parse_module(elementwise((4, 1, 8), "f32", ["%y = math.exp %a0 : f32", "yield %y"]))
    (g,) = generics_of(module)
    source = lower_generic(g).source
    assert "tl.load(in_ptr0 + (xindex), mask=xmask)" in source and "tl.store(out_ptr0 + (xindex), " in source
    assert "//" not in source.split("def kernel")[1]


def test_partial_index_runs_of_one_dim_and_of_several_are_distinct(tmp_path):
    """Over (2, 3, 4, 2), operands read the runs (d0), (d0, d1) and (d0, d1, d2): three partial indices,
    each its own name and its own ``xindex // inner`` (inner 24, 8 and 2)."""
    shape = (2, 3, 4, 2)
    ins = [("%a", (2,), "f32", "d0"), ("%b", (2, 3), "f32", "d0, d1"), ("%c", (2, 3, 4), "f32", "d0, d1, d2")]
    generic = kc.generic("%y", 4, "pppp", ins, [("%e", shape, "f32", "d0, d1, d2, d3")],
                         ["%s = arith.addf %a0, %a1 : f32", "%t = arith.addf %s, %a2 : f32", "yield %t"])
    module = parse_module(kc.main_function([(v, s, t) for v, s, t, _ in ins], generic, ("%y", shape, "f32")))
    (g,) = generics_of(module)
    source = lower_generic(g).source
    for inner in (24, 8, 2):
        assert f"(xindex // {inner})" in source
    rng = np.random.default_rng(0)
    a, b, c = (rng.integers(0, 100, s).astype(np.float32) for _, s, _, _ in ins)
    (out,) = run_interpreted(source, [a, b, c, np.zeros(shape, np.float32)], tmp_path)
    np.testing.assert_array_equal(out, np.broadcast_to((a[:, None, None] + b[:, :, None] + c)[..., None], shape))


def test_a_map_result_that_is_no_dim_or_constant_is_refused():
    """``y[i] = sum_j x[i + j] * w[j]`` (a 1-D convolution): ``d0 + d1`` is no projection."""
    generic = kc.generic("%y", 2, "pr", [("%x", (9,), "f32", "d0 + d1"), ("%w", (6,), "f32", "d1")],
                         [("%e", (4,), "f32", "d0")],
                         ["%m = arith.mulf %a0, %a1 : f32", "%r = arith.addf %m, %o0 : f32", "yield %r"])
    err = refusal_of(kc.main_function([("%x", (9,), "f32"), ("%w", (6,), "f32")], generic, ("%y", (4,), "f32")))
    assert (err.op, err.reason) == (
        "linalg.generic", "operand in_ptr0 map result d0 + d1 is not a dim or a constant "
                          "(only permutations, projections and broadcasts are lowered)")


def test_a_scalar_operand_is_refused_as_no_ranked_tensor():
    """linalg.generic may take a bare scalar input; the kernel takes pointers to tensors only."""
    generic = ("  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, "
               "affine_map<(d0) -> (d0)>], iterator_types = [\"parallel\"]} ins(%x, %s : tensor<8xf32>, f32) "
               "outs(%e : tensor<8xf32>) {\n  ^bb0(%a: f32, %b: f32, %o: f32):\n    %r = arith.addf %a, %b : f32\n"
               "    linalg.yield %r : f32\n  } -> tensor<8xf32>\n")
    err = refusal_of(kc.main_function([("%x", (8,), "f32"), ("%s", None, "f32")], generic, ("%y", (8,), "f32")))
    assert (err.op, err.reason) == ("linalg.generic",
                                                "operand in_ptr1 has type f32; only ranked tensors are lowered")


def test_an_operand_of_an_element_type_not_in_memory_is_refused():
    from costfuse.data.lowering.element_types import MEMORY_TYPES

    generic = kc.generic("%y", 1, "p", [("%x", (8,), "index", "d0")], [("%e", (8,), "i32", "d0")],
                         ["%c = arith.index_cast %a0 : index to i32", "yield %c"])
    err = refusal_of(kc.main_function([("%x", (8,), "index")], generic, ("%y", (8,), "i32")))
    assert (err.op, err.reason) == (
        "linalg.generic", f"operand in_ptr0 has element type index (supported: {', '.join(MEMORY_TYPES)})")


def test_operands_up_to_2_31_minus_1_elements_are_lowered_and_larger_ones_refused():
    """Offsets are int32: 2**31 - 1 elements still fit (only the IR is built, nothing is allocated)."""
    fits = parse_module(elementwise((2**31 - 1,), "i8", ["yield %a0"]))
    (g,) = generics_of(fits)
    assert "xmask = xindex < 2147483647" in lower_generic(g).source
    err = refusal_of(elementwise((2**31,), "i8", ["yield %a0"]))
    assert (err.op, err.reason) == ("linalg.generic",
                                                "operand in_ptr0 has 2147483648 elements; int32 offsets need < 2**31")

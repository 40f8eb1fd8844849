"""The body emitter (``data/lower_body.py``): gathers, casts, constants, narrow-float rounding, refusals.

A gather's offset is ``sum(index_k * stride_k)`` with row-major strides: only a rank-3 tensor tells a
wrong stride product apart, and only a dimension of size 2 a stride of 2 written as 1.  A 0-d tensor
is one scalar, loaded once and broadcast.  A refusal names the op and says why.  The lowering's
numerical tests (test_lower.py) run whole generics; these pin what they did not (issue #15).
"""

from __future__ import annotations

import numpy as np
import pytest

import helpers.kernel_cases as kc
from costfuse.data.lowering.element_types import ELEM_TYPES
from costfuse.data.interpret import run_interpreted
from costfuse.launch import LaunchConfig
from costfuse.data.lowering.body import BodyEmitter, Val
from costfuse.data.lowering.generic import lower_generic
from costfuse.data.lowering.unsupported import UnsupportedOp
from costfuse.data.lowering.walk import generics_of
from costfuse.ir import parse_module
from helpers.lowering_cases import refusal_of, tensor

M = 6


def test_a_rank_3_gather_with_a_dimension_of_2_reads_the_right_elements(kdir):
    """``p[r] = x[r, j[r], k[r]]`` on x of shape (6, 3, 2): strides (6, 2, 1)."""
    shape = (M, 3, 2)
    generic = kc.generic("%p", 2, "pp", [("%j", (M, 1), "i64", "d0, d1"), ("%k", (M, 1), "i64", "d0, d1")],
                         [("%e", (M, 1), "f32", "d0, d1")],
                         ["%i = linalg.index 0 : index", "%jj = arith.index_cast %a0 : i64 to index",
                          "%kk = arith.index_cast %a1 : i64 to index",
                          f"%g = tensor.extract %x[%i, %jj, %kk] : {tensor(shape, 'f32')}", "yield %g"])
    args = [("%j", (M, 1), "i64"), ("%k", (M, 1), "i64"), ("%x", shape, "f32")]
    module = parse_module(kc.main_function(args, generic, ("%p", (M, 1), "f32")))
    (g,) = generics_of(module)
    source = lower_generic(g).source
    j = np.array([[0], [1], [2], [2], [1], [0]], np.int64)
    k = np.array([[1], [0], [1], [0], [1], [0]], np.int64)
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    (out,) = run_interpreted(source, [j, k, x, np.full((M, 1), np.nan, np.float32)], kdir)
    np.testing.assert_array_equal(out[:, 0], x[np.arange(M), j[:, 0], k[:, 0]])


def _scalar_gather(rows: int, n: int, reduce: bool) -> str:
    """``y = x + s`` (pointwise) or ``y[r] = sum_j x[r, j] * s`` with ``s`` a 0-d tensor gathered in the body."""
    body = ["%g = tensor.extract %s[] : tensor<f32>"]
    if reduce:
        generic = kc.generic("%y", 2, "pr", [("%x", (rows, n), "f32", "d0, d1")], [("%e", (rows,), "f32", "d0")],
                             body + ["%m = arith.mulf %a0, %g : f32", "%r = arith.addf %m, %o0 : f32", "yield %r"])
        return kc.main_function([("%x", (rows, n), "f32"), ("%s", (), "f32")], generic, ("%y", (rows,), "f32"))
    generic = kc.generic("%y", 2, "pp", [("%x", (rows, n), "f32", "d0, d1")], [("%e", (rows, n), "f32", "d0, d1")],
                         body + ["%r = arith.addf %a0, %g : f32", "yield %r"])
    return kc.main_function([("%x", (rows, n), "f32"), ("%s", (), "f32")], generic, ("%y", (rows, n), "f32"))


def test_a_0d_gather_is_one_scalar_broadcast(kdir):
    module = parse_module(_scalar_gather(M, 10, reduce=False))
    (g,) = generics_of(module)
    source = lower_generic(g).source
    assert "tl.broadcast_to(tl.load(in_ptr1), [1])" in source
    x = np.arange(M * 10, dtype=np.float32).reshape(M, 10)
    (out,) = run_interpreted(source, [x, np.array(2.5, np.float32), np.full((M, 10), np.nan, np.float32)], kdir)
    np.testing.assert_array_equal(out, x + np.float32(2.5))


def test_a_0d_gather_in_a_looped_reduction_loads_once_before_the_loop(kdir):
    """The scalar does not vary along the row: it is loaded before the row loop, not once per chunk."""
    module = parse_module(_scalar_gather(M, 40, reduce=True))
    (g,) = generics_of(module)
    source = lower_generic(g, LaunchConfig(2, 8, 1)).source
    load, loop = source.index("tl.load(in_ptr1)"), source.index("for roffset")
    assert load < loop
    x = np.linspace(-1, 1, M * 40, dtype=np.float32).reshape(M, 40)
    init = np.arange(M, dtype=np.float32)              # the accumulator starts from the output operand
    (out,) = run_interpreted(source, [x, np.array(-3.0, np.float32), init.copy()], kdir)
    np.testing.assert_allclose(out, init + (x * np.float32(-3.0)).sum(axis=1), rtol=1e-5, atol=1e-5)


def test_a_gather_index_captured_from_outside_the_body_is_refused_naming_the_extract():
    generic = kc.generic("%y", 1, "p", [("%x", (8,), "f32", "d0")], [("%e", (8,), "f32", "d0")],
                         [f"%g = tensor.extract %t[%n] : {tensor((8,), 'f32')}", "%r = arith.addf %a0, %g : f32",
                          "yield %r"])
    module = parse_module("func.func @main(%x: tensor<8xf32>, %t: tensor<8xf32>, %n: index) -> tensor<8xf32> {\n"
                          "  %e = tensor.empty() : tensor<8xf32>\n" + generic + "  return %y : tensor<8xf32>\n}\n")
    (g,) = generics_of(module)
    with pytest.raises(UnsupportedOp) as err:
        lower_generic(g)
    assert err.value.op == "tensor.extract"
    assert err.value.reason.startswith("uses a value defined outside the body by a block argument")


def _emitter(module, pointer=None) -> BodyEmitter:
    (g,) = generics_of(module)
    block = g.regions[0].blocks[0]
    return BodyEmitter(block, lambda i: Val(f"a{i}", "f32", False), lambda d: Val(f"i{d}", "index", False),
                       pointer=pointer)


EXTRACT_FROM_BODY = kc.generic("%y", 1, "p", [("%x", (4,), "f32", "d0")], [("%e", (4,), "f32", "d0")],
                               ["%t = tensor.from_elements %a0 : tensor<1xf32>", "%c0 = arith.constant 0 : index",
                                "%g = tensor.extract %t[%c0] : tensor<1xf32>", "yield %g"])
EXTRACT_FROM_ARG = kc.generic("%y", 1, "p", [("%x", (4,), "f32", "d0")], [("%e", (4,), "f32", "d0")],
                              ["%c0 = arith.constant 0 : index", "%g = tensor.extract %t[%c0] : tensor<4xf32>",
                               "yield %g"])


@pytest.mark.parametrize("pointer", [None, lambda t: ("in_ptr1", (1,), "f32")], ids=["no pointer", "pointer"])
def test_an_extract_from_a_tensor_made_in_the_body_is_refused(pointer):
    """Such a tensor has no memory to load from, whether or not the kernel could load gathered tensors."""
    module = parse_module(kc.main_function([("%x", (4,), "f32")], EXTRACT_FROM_BODY, ("%y", (4,), "f32")))
    with pytest.raises(UnsupportedOp) as err:
        _emitter(module, pointer).run(skip=frozenset({0}))   # past the from_elements (refused on its own)
    assert (err.value.op, err.value.reason) == ("tensor.extract", "extracts from a tensor computed inside the body")


def test_a_gather_without_a_pointer_for_its_tensor_is_refused():
    module = parse_module(kc.main_function([("%x", (4,), "f32"), ("%t", (4,), "f32")], EXTRACT_FROM_ARG, ("%y", (4,), "f32")))
    with pytest.raises(UnsupportedOp) as err:
        _emitter(module).run()
    assert (err.value.op, err.value.reason) == (
        "tensor.extract", "gathers from a tensor defined outside the body, and this kernel has no pointer for it")


def test_i1_refusal_says_which_ops_are_lowered():
    from helpers.lowering_cases import elementwise

    module = parse_module(elementwise((8,), "i1", ["%r = arith.addi %a0, %a1 : i1", "yield %r"], n_inputs=2))
    (g,) = generics_of(module)
    with pytest.raises(UnsupportedOp) as err:
        lower_generic(g)
    assert (err.value.op, err.value.reason) == (
        "arith.addi", "signed or arithmetic op on i1 (MLIR reads true as -1, Triton as 1); "
                      "only andi, ori, xori and cmpi eq/ne are lowered on i1")


@pytest.mark.parametrize("pred", ["eq", "ne"])
def test_i1_equality_comparisons_are_lowered(pred, kdir):
    """``cmpi eq/ne`` read i1 the same whether true is 1 or -1, so they are lowered, not refused."""
    from helpers.lowering_cases import elementwise

    module = parse_module(elementwise((8,), "i1", [f"%r = arith.cmpi {pred}, %a0, %a1 : i1", "yield %r"],
                                      n_inputs=2))
    (g,) = generics_of(module)
    a, b = np.array([0, 0, 1, 1] * 2, bool), np.array([0, 1, 0, 1] * 2, bool)
    (out,) = run_interpreted(lower_generic(g).source, [a, b, np.zeros(8, bool)], kdir)
    np.testing.assert_array_equal(out, a == b if pred == "eq" else a != b)


def test_an_op_without_a_lowering_is_refused_listing_the_supported_ops():
    from helpers.lowering_cases import elementwise

    from costfuse.data.lowering.body import SUPPORTED_BODY_OPS

    err = refusal_of(elementwise((8,), "f32", ["%y = math.atan %a0 : f32", "yield %y"]))
    listed = [o for o in SUPPORTED_BODY_OPS if o != "linalg.yield"]
    assert (err.op, err.reason) == ("math.atan", f"no Triton lowering for this body op (supported: {', '.join(listed)})")
    assert "linalg.yield" not in err.reason and "math.exp, " in err.reason


def _refusal(body: list[str], outside: tuple[str, ...] = (), dtype: str = "i32") -> UnsupportedOp:
    """The error of lowering an elementwise generic on 8 values of ``dtype`` (two inputs) whose body is
    ``body``, with ``outside`` lines defined in the function before it."""
    generic = kc.generic("%y", 1, "p", [("%x", (8,), dtype, "d0"), ("%w", (8,), dtype, "d0")],
                         [("%e", (8,), dtype, "d0")], body)
    return refusal_of(kc.main_function([("%x", (8,), dtype), ("%w", (8,), dtype), ("%s", None, dtype)], generic,
                                       ("%y", (8,), dtype), outside=outside))


def test_a_body_op_reading_a_computed_value_from_outside_is_refused_naming_both_ops():
    err = _refusal(["%r = arith.muli %a0, %t : i32", "yield %r"], ("%t = arith.addi %s, %s : i32",))
    assert (err.op, err.reason) == ("arith.muli", "uses a value defined outside the body by arith.addi; only scalar "
                                    "arith.constant values may be captured (and tensors gathered by tensor.extract)")


def test_a_body_op_with_two_results_is_refused():
    err = _refusal(["%r:2 = arith.addui_extended %a0, %a1 : i32, i1", "yield %r#0"])
    assert (err.op, err.reason) == ("arith.addui_extended", "has 2 results; body ops must have exactly one")


@pytest.mark.parametrize("line", ["%b = arith.extsi %a0 : i32 to i128", "%b = arith.constant 7 : i128"])
def test_a_body_value_of_an_unsupported_type_is_refused_naming_its_op(line):
    err = _refusal([line, "%t = arith.trunci %b : i128 to i32", "yield %t"])
    assert err.op == line.split()[2] and "element type i128 is not supported" in err.reason
    assert err.reason.endswith(f"(supported: {', '.join(ELEM_TYPES)})"), err.reason     # and it lists what is


def _power(n: int, dtype: str, op: str = "math.fpowi") -> str:
    """``y = x ** n`` with a constant exponent, as torch imports it (``fpowi``) or as ``powf``."""
    from helpers.lowering_cases import elementwise

    if op == "math.fpowi":
        const, line = f"%cn = arith.constant {n} : i64", f"%y = math.fpowi %a0, %cn : {dtype}, i64"
    else:
        const, line = f"%cn = arith.constant {float(n)} : {dtype}", f"%y = math.powf %a0, %cn : {dtype}"
    text = elementwise((4, 16), dtype, [line, "yield %y"])
    return text.replace("{\n", f"{{\n  {const}\n", 1)


@pytest.mark.parametrize("n", [4, 8])
def test_a_constant_power_squares_as_llvm_expands_it(n, kdir):
    """``x**4`` is ``(x*x) * (x*x)``, not ``((x*x)*x)*x``: the two round differently in f32, and
    binary exponentiation is what LLVM (and so the GPU compiler) does with a constant ``powi``."""
    module = parse_module(_power(n, "f32"))
    (g,) = generics_of(module)
    source = lower_generic(g).source
    x = np.random.default_rng(n).uniform(0.5, 3.0, (4, 16)).astype(np.float32)
    (out,) = run_interpreted(source, [x, np.zeros_like(x)], kdir)
    expected = x
    for _ in range(n.bit_length() - 1):
        expected = (expected * expected).astype(np.float32)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("op", ["math.fpowi", "math.powf"])
@pytest.mark.parametrize("dtype", ["bf16", "f16"])
def test_a_narrow_float_to_the_power_0_is_one(op, dtype, kdir):
    """The constant 1 is made in f32 (the narrow types' compute type) and rounded back."""
    import ml_dtypes

    module = parse_module(_power(0, dtype, op))
    (g,) = generics_of(module)
    source = lower_generic(g).source
    triton = "tl.bfloat16" if dtype == "bf16" else "tl.float16"
    assert f"(tl.full([1], 1.0, tl.float32)).to({triton})" in source  # the value keeps its narrow type
    np_type = ml_dtypes.bfloat16 if dtype == "bf16" else np.float16
    x = np.linspace(-4, 4, 64).reshape(4, 16).astype(np_type)
    (out,) = run_interpreted(source, [x, np.zeros_like(x)], kdir)
    assert (out.astype(np.float32) == 1.0).all()


@pytest.mark.parametrize("op", ["math.fpowi", "math.powf"])
def test_f64_to_the_power_0_stays_in_f64(op):
    """Only the narrow floats compute in f32; f64 keeps its own type."""
    module = parse_module(_power(0, "f64", op))
    (g,) = generics_of(module)
    assert "tl.full([1], 1.0, tl.float64)" in lower_generic(g).source


@pytest.mark.parametrize("y", [1, 2, 3, 0.5, -1])
def test_powf_by_a_small_constant_is_exact_arithmetic_not_the_helper(y, kdir):
    """``powf(x, y)`` for y in {1, 2, 3, 0.5, -1} is written out as Inductor does (x, x*x, x*x*x,
    sqrt(x), 1/x): exact, and no call to the general ``_powf`` helper."""
    module = parse_module(_power(y, "f32", "math.powf"))
    (g,) = generics_of(module)
    source = lower_generic(g).source
    assert "_powf(" not in source
    x = np.random.default_rng(7).uniform(0.25, 4.0, (4, 16)).astype(np.float32)
    (out,) = run_interpreted(source, [x, np.zeros_like(x)], kdir)
    exact = {1: x, 2: x * x, 3: x * x * x, 0.5: np.sqrt(x), -1: np.float32(1.0) / x}[y]
    np.testing.assert_array_equal(out, exact)


def test_a_narrow_powf_result_is_rounded_before_the_next_op_reads_it(kdir):
    """``y = x**2 + x`` in bf16: the square is rounded to bf16 (as IREE computes it) before the add."""
    import ml_dtypes
    from helpers.lowering_cases import elementwise

    text = elementwise((4, 16), "bf16", ["%s = math.powf %a0, %c2 : bf16", "%y = arith.addf %s, %a0 : bf16",
                                         "yield %y"])
    module = parse_module(text.replace("{\n", "{\n  %c2 = arith.constant 2.0 : bf16\n", 1))
    (g,) = generics_of(module)
    source = lower_generic(g).source
    bf16 = ml_dtypes.bfloat16
    x = (1 + np.arange(64, dtype=np.float32) / 128).reshape(4, 16).astype(bf16)   # squares need rounding
    (out,) = run_interpreted(source, [x, np.zeros_like(x)], kdir)
    xf = x.astype(np.float32)
    square = (xf * xf).astype(bf16).astype(np.float32)
    np.testing.assert_array_equal(out.astype(np.float32), (square + xf).astype(bf16).astype(np.float32))


def test_fpowi_unrolls_exponents_up_to_1024_and_calls_the_helper_above():
    for n, helper in ((1024, False), (-1024, False), (1025, True)):
        module = parse_module(_power(n, "f32"))
        (g,) = generics_of(module)
        assert ("_powi(" in lower_generic(g).source) is helper, n


def _bf16_round(a):
    import ml_dtypes

    return np.asarray(a, np.float32).astype(ml_dtypes.bfloat16).astype(np.float32)


@pytest.mark.parametrize("exponent", ["constant", "tensor"])
def test_a_bf16_fpowi_result_is_rounded_before_the_next_op_reads_it(exponent, kdir):
    """``y = x**k + x`` in bf16, ``k`` a constant 2 (multiplies) or an i32 tensor (the ``_powi`` helper):
    the power is rounded to bf16, as IREE computes it, before the add reads it."""
    import ml_dtypes
    from helpers.lowering_cases import Operand, elementwise, generic_module, ident

    body = ["%y = math.fpowi %a0, %k : bf16, i32", "%z = arith.addf %y, %a0 : bf16", "yield %z"]
    if exponent == "constant":
        text = elementwise((4, 16), "bf16", body).replace("{\n", "{\n  %k = arith.constant 2 : i32\n", 1)
    else:
        text = generic_module(2, ["parallel"] * 2, [Operand((4, 16), "bf16", ident(2)), Operand((4, 16), "i32", ident(2))],
                              [Operand((4, 16), "bf16", ident(2))], [body[0].replace("%k", "%a1"), *body[1:]])
    module = parse_module(text)
    (g,) = generics_of(module)
    source = lower_generic(g).source
    bf16 = ml_dtypes.bfloat16
    x = (1 + np.arange(64, dtype=np.float32) / 128).reshape(4, 16).astype(bf16)
    xf = x.astype(np.float32)
    if exponent == "constant":
        (out,) = run_interpreted(source, [x, np.zeros_like(x)], kdir)
        power = xf * xf
    else:
        k = np.full((4, 16), 2, np.int32)
        (out,) = run_interpreted(source, [x, k, np.zeros_like(x)], kdir)
        power = np.exp2(np.float32(2) * np.log2(np.abs(xf)))   # the helper's formula, in f32
    np.testing.assert_array_equal(out.astype(np.float32), _bf16_round(_bf16_round(power) + xf))


def test_uitofp_is_lowered_from_i1_and_refused_from_wider_integers(kdir):
    """``uitofp`` of an i1 (a comparison turned into 0.0/1.0) is what the pass meets; from a wider
    integer it would need an unsigned conversion Triton's ``.to`` does not do, so it is refused."""
    from helpers.lowering_cases import elementwise

    compare = parse_module(elementwise((4, 16), "f32", ["%c = arith.cmpf ogt, %a0, %a1 : f32",
                                                        "%y = arith.uitofp %c : i1 to f32", "yield %y"], n_inputs=2))
    (g,) = generics_of(compare)
    a, b = np.random.default_rng(3).standard_normal((2, 4, 16)).astype(np.float32)
    (out,) = run_interpreted(lower_generic(g).source, [a, b, np.zeros_like(a)], kdir)
    np.testing.assert_array_equal(out, (a > b).astype(np.float32))

    wide = parse_module(elementwise((8,), "i32", ["%y = arith.uitofp %a0 : i32 to f32", "yield %y"], out_dtype="f32"))
    (g,) = generics_of(wide)
    with pytest.raises(UnsupportedOp) as err:
        lower_generic(g)
    assert (err.value.op, err.value.reason) == ("arith.uitofp", "unsigned conversion from i32 (only i1 is supported)")


def test_extui_of_a_wider_integer_is_refused():
    """Zero-extending an i32 would need an unsigned conversion Triton's ``.to`` does not do."""
    from helpers.lowering_cases import elementwise

    module = parse_module(elementwise((8,), "i32", ["%y = arith.extui %a0 : i32 to i64", "yield %y"], out_dtype="i64"))
    (g,) = generics_of(module)
    with pytest.raises(UnsupportedOp) as err:
        lower_generic(g)
    assert (err.value.op, err.value.reason) == ("arith.extui", "zero-extension of i32 (only i1 is supported)")


@pytest.mark.parametrize("case", ["inf", "nan"])
def test_infinite_and_nan_constants_in_a_body(case, kdir):
    """``max`` identities and masks write infinities and NaN as constants: they must come out as such."""
    from helpers.lowering_cases import elementwise

    if case == "inf":
        consts = ["%pinf = arith.constant 0x7F800000 : f32", "%ninf = arith.constant 0xFF800000 : f32"]
        body = ["%z = arith.constant 0.0 : f32", "%c = arith.cmpf ogt, %a0, %z : f32",
                "%y = arith.select %c, %pinf, %ninf : f32", "yield %y"]
    else:
        consts = ["%nan = arith.constant 0x7FC00000 : f32"]
        body = ["%z = arith.constant 0.0 : f32", "%c = arith.cmpf ogt, %a0, %z : f32",
                "%y = arith.select %c, %nan, %a0 : f32", "yield %y"]
    module = parse_module(elementwise((4, 16), "f32", [*consts, *body]))
    (g,) = generics_of(module)
    x = np.random.default_rng(5).standard_normal((4, 16)).astype(np.float32)
    (out,) = run_interpreted(lower_generic(g).source, [x, np.zeros_like(x)], kdir)
    expected = np.where(x > 0, np.inf, -np.inf) if case == "inf" else np.where(x > 0, np.nan, x)
    np.testing.assert_array_equal(out, expected.astype(np.float32))


def test_a_captured_constant_of_an_unsupported_type_is_refused_as_captured():
    generic = kc.generic("%y", 1, "p", [("%x", (8,), "i32", "d0")], [("%e", (8,), "i32", "d0")],
                         ["%t = arith.trunci %big : i128 to i32", "%r = arith.addi %a0, %t : i32", "yield %r"])
    module = parse_module("func.func @main(%x: tensor<8xi32>) -> tensor<8xi32> {\n"
                          "  %big = arith.constant 7 : i128\n  %e = tensor.empty() : tensor<8xi32>\n" + generic
                          + "  return %y : tensor<8xi32>\n}\n")
    (g,) = generics_of(module)
    with pytest.raises(UnsupportedOp) as err:
        lower_generic(g)
    assert err.value.op == "arith.constant (captured)"
    assert "element type i128 is not supported" in err.value.reason
    assert err.value.reason.endswith(f"(supported: {', '.join(ELEM_TYPES)})"), err.value.reason


def test_trunci_to_i1_keeps_the_low_bit(kdir):
    """MLIR's ``trunci`` to i1 keeps bit 0 (2 becomes false); Triton's ``.to(int1)`` would test != 0."""
    from helpers.lowering_cases import elementwise

    module = parse_module(elementwise((8,), "i32", ["%b = arith.trunci %a0 : i32 to i1",
                                                    "%y = arith.extui %b : i1 to i32", "yield %y"]))
    (g,) = generics_of(module)
    x = np.array([0, 1, 2, 3, -1, -2, 6, 7], np.int32)
    (out,) = run_interpreted(lower_generic(g).source, [x, np.zeros_like(x)], kdir)
    np.testing.assert_array_equal(out, x & 1)


def test_fptosi_to_i1_is_true_for_minus_one_and_false_for_zero(kdir):
    """``fptosi`` to i1 is a float-to-int conversion (i1's values are 0 and -1), not ``trunci``'s low bit,
    which a float has none of."""
    from helpers.lowering_cases import elementwise

    module = parse_module(elementwise((8,), "f32", ["%b = arith.fptosi %a0 : f32 to i1",
                                                    "%y = arith.extui %b : i1 to i32", "yield %y"], out_dtype="i32"))
    (g,) = generics_of(module)
    x = np.array([0, -1, -1, 0, -0.0, -1, 0, -1], np.float32)
    (out,) = run_interpreted(lower_generic(g).source, [x, np.zeros(8, np.int32)], kdir)
    np.testing.assert_array_equal(out, (x != 0).astype(np.int32))


@pytest.mark.parametrize("dtype", ["bf16", "f16"])
def test_fptosi_of_a_narrow_float_converts_through_f32(dtype, kdir):
    import ml_dtypes
    from helpers.lowering_cases import elementwise

    module = parse_module(elementwise((8,), dtype, [f"%y = arith.fptosi %a0 : {dtype} to i32", "yield %y"],
                                      out_dtype="i32"))
    (g,) = generics_of(module)
    source = lower_generic(g).source
    assert ".to(tl.float32).to(tl.int32)" in source
    np_type = ml_dtypes.bfloat16 if dtype == "bf16" else np.float16
    x = np.array([-2.5, -1, -0.5, 0, 0.5, 1.5, 7.75, 100], np.float32).astype(np_type)
    (out,) = run_interpreted(source, [x, np.zeros(8, np.int32)], kdir)
    np.testing.assert_array_equal(out, np.trunc(x.astype(np.float32)).astype(np.int32))


def test_an_f64_constant_keeps_its_f64_value(kdir):
    """Only the narrow floats are built in f32; an f64 constant such as 0.1 is made in f64, so
    ``x * 0.1`` is the f64 product, not the product with 0.1 rounded to f32."""
    from helpers.lowering_cases import elementwise

    text = elementwise((4, 16), "f64", ["%y = arith.mulf %a0, %c : f64", "yield %y"])
    module = parse_module(text.replace("{\n", "{\n  %c = arith.constant 0.1 : f64\n", 1))
    (g,) = generics_of(module)
    x = np.linspace(1, 9, 64).reshape(4, 16)
    (out,) = run_interpreted(lower_generic(g).source, [x, np.zeros_like(x)], kdir)
    np.testing.assert_array_equal(out, x * 0.1)


def test_a_constant_in_a_looped_reduction_is_made_before_the_row_loop(kdir):
    """A constant does not vary along the row: the looped kernel makes it once, before the loop, and
    only what reads the row is computed per chunk."""
    generic = kc.generic("%y", 2, "pr", [("%x", (M, 40), "f32", "d0, d1")], [("%e", (M,), "f32", "d0")],
                         ["%c = arith.constant 1.5 : f32", "%m = arith.mulf %a0, %c : f32",
                          "%r = arith.addf %m, %o0 : f32", "yield %r"])
    module = parse_module(kc.main_function([("%x", (M, 40), "f32")], generic, ("%y", (M,), "f32")))
    (g,) = generics_of(module)
    source = lower_generic(g, LaunchConfig(2, 8, 1)).source
    assert source.index("tl.full([1, 1], 1.5, tl.float32)") < source.index("for roffset")
    x = np.linspace(-1, 1, M * 40, dtype=np.float32).reshape(M, 40)
    (out,) = run_interpreted(source, [x, np.zeros(M, np.float32)], kdir)
    np.testing.assert_allclose(out, (x * np.float32(1.5)).sum(axis=1), rtol=1e-5, atol=1e-5)


def test_a_bf16_powf_by_the_helper_is_rounded_before_the_next_op_reads_it(kdir):
    """``y = x**2.5 + x`` in bf16: 2.5 goes to the ``_powf`` helper (in f32), whose result is rounded
    to bf16 before the add, as for the written-out exponents."""
    import ml_dtypes
    from helpers.lowering_cases import elementwise

    text = elementwise((4, 16), "bf16", ["%s = math.powf %a0, %c : bf16", "%y = arith.addf %s, %a0 : bf16",
                                         "yield %y"])
    module = parse_module(text.replace("{\n", "{\n  %c = arith.constant 2.5 : bf16\n", 1))
    (g,) = generics_of(module)
    source = lower_generic(g).source
    assert "_powf(" in source
    x = (1 + np.arange(64, dtype=np.float32) / 128).reshape(4, 16).astype(ml_dtypes.bfloat16)
    (out,) = run_interpreted(source, [x, np.zeros_like(x)], kdir)
    xf = x.astype(np.float32)
    power = np.exp2(np.float32(2.5) * np.log2(xf))   # the helper's formula, in f32
    np.testing.assert_array_equal(out.astype(np.float32), _bf16_round(_bf16_round(power) + xf))


@pytest.mark.parametrize("t, triton", [("bf16", "tl.bfloat16"), ("f16", "tl.float16")])
def test_a_narrow_constant_is_built_in_f32_and_given_its_own_type(t, triton):
    """The interpreter has no bf16 literal, so the constant is made in f32, then converted: a value
    of the MLIR type, so that what it meets (a select with a bf16 operand) keeps the kernel's types,
    and with them the registers ptxas reports."""
    from costfuse.data.lowering.body import constant_expr

    assert constant_expr(0.5, t, "[1]") == f"tl.full([1], 0.5, tl.float32).to({triton})"
    assert constant_expr(0.5, "f64", "[1, 1]") == "tl.full([1, 1], 0.5, tl.float64)"


def _run_narrow(dtype: str, body: list[str], seed: int, high: float, kdir):
    """Run an elementwise generic of three ``dtype`` inputs, each uniform in [0.5, ``high``) on (4, 16);
    return its output and inputs in f32, and rounding to ``dtype`` (the result back in f32)."""
    import ml_dtypes
    from helpers.lowering_cases import elementwise

    np_type = ml_dtypes.bfloat16 if dtype == "bf16" else np.float16
    module = parse_module(elementwise((4, 16), dtype, body, n_inputs=3))
    (g,) = generics_of(module)
    rng = np.random.default_rng(seed)
    a, b, c = (rng.uniform(0.5, high, (4, 16)).astype(np_type) for _ in range(3))
    (out,) = run_interpreted(lower_generic(g).source, [a, b, c, np.zeros_like(a)], kdir)

    def rounded(x):
        return np.asarray(x, np.float32).astype(np_type).astype(np.float32)

    return out.astype(np.float32), [x.astype(np.float32) for x in (a, b, c)], rounded


@pytest.mark.parametrize("dtype", ["bf16", "f16"])
def test_a_narrow_float_chain_rounds_after_each_op(dtype, kdir):
    """``y = (a + b) * c``: bf16 computes each op in f32 and rounds back, f16 computes in f16; either
    way the sum is rounded to the narrow type before the product reads it, as IREE computes it."""
    body = [f"%s = arith.addf %a0, %a1 : {dtype}", f"%y = arith.mulf %s, %a2 : {dtype}", "yield %y"]
    out, f, rounded = _run_narrow(dtype, body, 11, 4.0, kdir)
    np.testing.assert_array_equal(out, rounded(rounded(f[0] + f[1]) * f[2]))
    assert not np.array_equal(rounded((f[0] + f[1]) * f[2]), rounded(rounded(f[0] + f[1]) * f[2]))


@pytest.mark.parametrize("dtype", ["bf16", "f16"])
@pytest.mark.parametrize("first", ["math.exp", "math.fma"])
def test_a_narrow_math_result_is_rounded_before_the_next_op_reads_it(first, dtype, kdir):
    """``y = exp(a) * b`` or ``y = fma(a, b, c) * b``: math runs in f32 for both narrow types, and its
    result is rounded back before the product reads it (a result left in f32 gives a different product)."""
    lhs = f"math.exp %a0 : {dtype}" if first == "math.exp" else f"math.fma %a0, %a1, %a2 : {dtype}"
    out, f, rounded = _run_narrow(dtype, [f"%m = {lhs}", f"%y = arith.mulf %m, %a1 : {dtype}", "yield %y"], 5, 2.0,
                                  kdir)
    m = np.exp(f[0]) if first == "math.exp" else (f[0].astype(np.float64) * f[1] + f[2]).astype(np.float32)
    np.testing.assert_array_equal(out, rounded(rounded(m) * f[1]))
    assert not np.array_equal(rounded(m * f[1]), rounded(rounded(m) * f[1]))


@pytest.mark.parametrize("pred", ["true", "false"])
def test_cmpf_true_and_false_are_constant_masks(pred, kdir):
    from helpers.lowering_cases import elementwise

    module = parse_module(elementwise((4, 10), "f32", [f"%c = arith.cmpf {pred}, %a0, %a1 : f32",
                                                       "%y = arith.select %c, %a0, %a1 : f32", "yield %y"], n_inputs=2))
    (g,) = generics_of(module)
    a, b = np.arange(40, dtype=np.float32).reshape(4, 10), -np.ones((4, 10), np.float32)
    b[0, 0] = np.nan  # unordered: true and false do not look at the operands
    (out,) = run_interpreted(lower_generic(g).source, [a, b, np.zeros_like(a)], kdir)
    np.testing.assert_array_equal(out, a if pred == "true" else b)


def test_an_unsigned_integer_comparison_is_refused_naming_the_predicate():
    from helpers.lowering_cases import elementwise

    err = refusal_of(elementwise((8,), "i32", ["%c = arith.cmpi ult, %a0, %a1 : i32",
                                               "%y = arith.select %c, %a0, %a1 : i32", "yield %y"], n_inputs=2))
    assert (err.op, err.reason) == ("arith.cmpi", "predicate ult (unsigned comparisons are not supported)")


def test_a_fill_of_a_vector_constant_is_no_scalar():
    from costfuse.data.lowering.body import scalar_value

    module = parse_module("func.func @main() -> vector<4xf32> {\n  %v = arith.constant dense<1.0> : vector<4xf32>\n"
                          "  return %v : vector<4xf32>\n}\n")
    func = module.body.operations[0]
    const = func.regions[0].blocks[0].operations[0]
    with pytest.raises(UnsupportedOp) as err:
        scalar_value(const.attributes["value"], "linalg.fill", "@k init 0: fill constant")
    assert (err.value.op, err.value.reason) == (
        "linalg.fill", "@k init 0: fill constant dense<1.000000e+00> : vector<4xf32> is not a scalar float, integer or bool")


def test_an_i1_constant_is_0_or_1_whatever_integer_carries_it():
    """MLIR may carry an i1 true as the integer -1 (its two's complement); Triton's int1 wants 1."""
    from costfuse.data.lowering.body import constant_expr

    assert [constant_expr(v, "i1", "[1]") for v in (-1, True, 0)] == [
        "tl.full([1], 1, tl.int1)", "tl.full([1], 1, tl.int1)", "tl.full([1], 0, tl.int1)"]


@pytest.mark.parametrize("dtype, neg, abs_", [
    ("bf16", "(-t1.to(tl.float32)).to(tl.bfloat16)", "(tl.abs(t1.to(tl.float32))).to(tl.bfloat16)"),
    ("f16", "-t1", "tl.abs(t1)"), ("f32", "-t1", "tl.abs(t1)")])
def test_negf_and_absf_run_in_f32_only_for_bf16(dtype, neg, abs_):
    """bf16 arithmetic runs in f32 and is rounded back, as Inductor does (docs/lowering.md); f16's and f32's
    sign ops are exact on the value itself, with no round trip that would change the kernel's registers."""
    from helpers.lowering_cases import elementwise

    for op, expected in (("arith.negf", neg), ("math.absf", abs_)):
        module = parse_module(elementwise((8,), dtype, [f"%y = {op} %a0 : {dtype}", "yield %y"]))  # keeps g alive
        (g,) = generics_of(module)
        assert f"t2 = {expected}\n" in lower_generic(g).source, op

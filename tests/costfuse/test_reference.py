"""The IREE llvm-cpu oracle: runs IR, matches numpy, and catches semantic changes."""

from __future__ import annotations

import math
import uuid

import ml_dtypes
import numpy as np
import pytest

from costfuse.ir import IRError
from costfuse.reference import (
    NUMPY_DTYPES,
    assert_same_semantics,
    compare_outputs,
    function_signature,
    random_inputs,
    run_mlir,
    tolerance_for,
)

MAPS = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
"""


def generic(out: str, ins: list[tuple[str, str]], body: list[str], t: str, out_t: str | None = None, reduce=False) -> str:
    """One ``linalg.generic`` over 4x8 (or 4x8 -> 4 when ``reduce``), ``body`` yielding ``%y``."""
    out_t = out_t or t
    res_type, out_map = (f"tensor<4x{out_t}>", "#row") if reduce else (f"tensor<4x8x{out_t}>", "#id")
    names = ", ".join(v for v, _ in ins)
    types = ", ".join(f"tensor<4x8x{t}>" for _ in ins)
    args = ", ".join(f"%{b}: {t}" for _, b in ins)
    iters = '"parallel", "reduction"' if reduce else '"parallel", "parallel"'
    init = f"%{out}_init"
    make_init = (
        f"%zero_{out} = arith.constant 0.0 : {out_t}\n"
        f"  %{out}_e = tensor.empty() : {res_type}\n"
        f"  {init} = linalg.fill ins(%zero_{out} : {out_t}) outs(%{out}_e : {res_type}) -> {res_type}"
        if reduce
        else f"{init} = tensor.empty() : {res_type}"
    )
    lines = "\n    ".join(body)
    return f"""  {make_init}
  %{out} = linalg.generic {{indexing_maps = [{", ".join(["#id"] * len(ins))}, {out_map}], iterator_types = [{iters}]}}
      ins({names} : {types}) outs({init} : {res_type}) {{
  ^bb0({args}, %acc: {out_t}):
    {lines}
    linalg.yield %y : {out_t}
  }} -> {res_type}"""


def chain_module(t: str, op: str = "arith.addf", fused: bool = False) -> str:
    """``@main(a, b) -> (exp(a op b), rowsum(a), a < b)``, as two generics or one fused one."""
    if fused:
        expo = generic("r", [("%a", "x"), ("%b", "z")], [f"%s = {op} %x, %z : {t}", f"%y = math.exp %s : {t}"], t)
    else:
        expo = (
            generic("s", [("%a", "x"), ("%b", "z")], [f"%y = {op} %x, %z : {t}"], t)
            + "\n"
            + generic("r", [("%s", "x")], [f"%y = math.exp %x : {t}"], t)
        )
    rowsum = generic("m", [("%a", "x")], [f"%y = arith.addf %x, %acc : {t}"], t, reduce=True)
    less = generic("c", [("%a", "x"), ("%b", "z")], [f"%y = arith.cmpf olt, %x, %z : {t}"], t, out_t="i1")
    return f"""{MAPS}
func.func @main(%a: tensor<4x8x{t}>, %b: tensor<4x8x{t}>) -> (tensor<4x8x{t}>, tensor<4x{t}>, tensor<4x8xi1>) {{
{expo}
{rowsum}
{less}
  return %r, %m, %c : tensor<4x8x{t}>, tensor<4x{t}>, tensor<4x8xi1>
}}
"""


def numpy_chain(a: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    return [np.exp(a64 + b64), a64.sum(axis=1), a64 < b64]


@pytest.mark.parametrize("elem", ["f32", "f64", "f16", "bf16"])
def test_run_mlir_matches_numpy(elem):
    text = chain_module(elem)
    a, b = random_inputs(text, "main", seed=1)
    out = run_mlir(text, "main", [a, b])
    assert [o.dtype for o in out] == [NUMPY_DTYPES[elem], NUMPY_DTYPES[elem], np.dtype(np.bool_)]
    expected = numpy_chain(a, b)
    # The f64 numpy answer rounded to the output type, against the tolerance of that type.
    compare_outputs([e.astype(o.dtype) for e, o in zip(expected, out)], out, f"{elem} vs numpy")
    if elem == "f64":
        np.testing.assert_allclose(out[0], expected[0], rtol=1e-14)


def test_bf16_is_ml_dtypes():
    """numpy has no bfloat16; iree.runtime takes and returns ml_dtypes.bfloat16 arrays."""
    sig = function_signature(chain_module("bf16"), "main")
    assert sig == [((4, 8), "bf16"), ((4, 8), "bf16")]
    assert all(x.dtype == ml_dtypes.bfloat16 for x in random_inputs(chain_module("bf16"), "main", 0))


def test_function_signature_reads_types():
    text = """
func.func @other(%x: tensor<1xf32>) -> tensor<1xf32> { return %x : tensor<1xf32> }
func.func @f(%a: tensor<2x3xf32>, %b: tensor<4xi64>, %c: tensor<2xi1>, %d: tensor<3xbf16>, %e: f64) -> tensor<2x3xf32> {
  return %a : tensor<2x3xf32>
}
"""
    assert function_signature(text, "f") == [((2, 3), "f32"), ((4,), "i64"), ((2,), "i1"), ((3,), "bf16"), ((), "f64")]
    with pytest.raises(IRError, match=r"no func.func @g .*@other, @f"):
        function_signature(text, "g")


def test_function_signature_rejects_dynamic_shapes():
    text = "func.func @f(%a: tensor<?x3xf32>) -> tensor<?x3xf32> { return %a : tensor<?x3xf32> }"
    with pytest.raises(IRError, match="input 0 has dynamic shape"):
        function_signature(text, "f")


def test_random_inputs_are_seeded_and_tame():
    text = """
func.func @f(%a: tensor<64x64xf32>, %b: tensor<100xi64>, %c: tensor<100xi1>) -> tensor<64x64xf32> {
  return %a : tensor<64x64xf32>
}
"""
    a, b, c = random_inputs(text, "f", seed=3)
    assert (a.dtype, b.dtype, c.dtype) == (np.float32, np.int64, np.bool_)
    assert -2 <= a.min() < -1.9 and 1.9 < a.max() <= 2
    assert set(np.unique(b)) <= {0, 1, 2, 3} and c.any() and not c.all()
    again = random_inputs(text, "f", seed=3)
    assert all(np.array_equal(x, y) for x, y in zip([a, b, c], again))
    assert not np.array_equal(a, random_inputs(text, "f", seed=4)[0])


def test_fused_module_has_same_semantics():
    for elem in ("f32", "f16"):
        assert_same_semantics(chain_module(elem), chain_module(elem, fused=True), "main", seed=2)


def test_different_module_is_detected():
    with pytest.raises(AssertionError, match=r"output 0 \(float32.*max abs err .* at index"):
        assert_same_semantics(chain_module("f32"), chain_module("f32", op="arith.subf", fused=True), "main")


def test_different_signature_is_detected():
    with pytest.raises(AssertionError, match="signatures differ"):
        assert_same_semantics(chain_module("f32"), chain_module("f16"), "main")


def test_compiled_modules_are_cached(monkeypatch):
    import iree.compiler

    calls = []
    real = iree.compiler.compile_str
    monkeypatch.setattr(iree.compiler, "compile_str", lambda *a, **k: calls.append(1) or real(*a, **k))
    text = chain_module("f32") + f"// {uuid.uuid4()}\n"  # a text no other test compiled
    args = random_inputs(text, "main", 0)
    first, second = run_mlir(text, "main", args), run_mlir(text, "main", args)
    assert len(calls) == 1
    compare_outputs(first, second, rtol=0, atol=0)


def test_compiled_modules_are_kept_on_disk_where_asked(monkeypatch, tmp_path):
    """With ``$COSTFUSE_REFERENCE_CACHE`` set, a new process (an empty memory cache) reads the
    module back instead of compiling it; another text still compiles."""
    from collections import OrderedDict

    import iree.compiler

    from costfuse import reference

    monkeypatch.setenv(reference.DISK_CACHE_ENV, str(tmp_path / "vmfb"))
    text = chain_module("f32") + f"// {uuid.uuid4()}\n"
    args = random_inputs(text, "main", 0)
    first = run_mlir(text, "main", args)
    assert len(list((tmp_path / "vmfb").glob("*.vmfb"))) == 1
    monkeypatch.setattr(reference, "_VMFB_CACHE", OrderedDict())
    real, calls = iree.compiler.compile_str, []
    monkeypatch.setattr(iree.compiler, "compile_str", lambda *a, **k: calls.append(1) or real(*a, **k))
    compare_outputs(first, run_mlir(text, "main", args), rtol=0, atol=0)
    assert calls == []
    run_mlir(text + "// another text\n", "main", args)
    assert calls == [1] and len(list((tmp_path / "vmfb").glob("*.vmfb"))) == 2


def test_wrong_arguments_are_rejected():
    text = chain_module("f32")
    a, b = random_inputs(text, "main", 0)
    with pytest.raises(ValueError, match="takes 2 inputs, got 1"):
        run_mlir(text, "main", [a])
    with pytest.raises(ValueError, match=r"input 1: expected shape \(4, 8\) f32 .* got shape \(4, 8\) float64"):
        run_mlir(text, "main", [a, b.astype(np.float64)])


def test_compile_failure_names_the_reason():
    """llvm-cpu cannot lower f64 math.erf, and the oracle refuses to demote f64 (which would hide it)."""
    text = chain_module("f64").replace("math.exp", "math.erf")
    with pytest.raises(IRError, match=r"iree-compile \(llvm-cpu\) failed \(llvm-cpu has no f64 .*'math.erf'"):
        run_mlir(text, "main", random_inputs(text, "main", 0))


def test_compare_outputs_nan_and_tolerances():
    nan = np.array([1.0, math.nan], dtype=np.float32)
    compare_outputs([nan], [nan.copy()])  # NaN where the original has NaN is fine
    with pytest.raises(AssertionError, match="max abs err inf at index \\(1,\\)"):
        compare_outputs([nan], [np.array([1.0, 2.0], dtype=np.float32)])
    assert tolerance_for(np.float64).rtol < tolerance_for(np.float32).rtol < tolerance_for(np.float16).rtol
    assert tolerance_for(np.int64).atol == 0 and tolerance_for(np.float32, atol=1.0).atol == 1.0


def test_zero_d_tensors_and_scalars():
    """``tensor<f32>`` travels as a 0-d array, a bare ``f32``/``i64`` as a Python number."""
    text = """
func.func @main(%a: tensor<f32>, %s: f32, %i: i64) -> (tensor<f32>, f32, i64) {
  %x = tensor.extract %a[] : tensor<f32>
  %y = arith.addf %x, %s : f32
  %t = tensor.from_elements %y : tensor<f32>
  return %t, %y, %i : tensor<f32>, f32, i64
}
"""
    assert function_signature(text, "main") == [((), "f32"), ((), "f32"), ((), "i64")]
    a, s, i = random_inputs(text, "main", 0)
    t, y, j = run_mlir(text, "main", [a, s, i])
    assert (t.shape, t.dtype, y.dtype, j.dtype) == ((), np.float32, np.float32, np.int64)
    assert t == y == np.float32(a + s) and j == i


def test_libm_calls_fall_back_to_system_linking():
    """f64 tanh/sin become libm calls the embedded linker lacks; the oracle relinks instead of failing."""
    text = chain_module("f64").replace("math.exp", "math.tanh")
    a, b = random_inputs(text, "main", 0)
    np.testing.assert_allclose(run_mlir(text, "main", [a, b])[0], np.tanh(a + b), rtol=1e-14)

"""data.lower_kernel: what mutation testing (experiments/mutation.py) found unchecked.

test_lower_kernel.py checks the kernels' numbers against IREE, which cannot
see code that computes the same values differently (a persistent kernel
reducing through a looped accumulator, a per-row value recomputed in every
row chunk, an init not widened to f32) nor the errors for what the lowering
refuses.  These tests read the generated source and the :class:`UnsupportedOp`
raised, without running anything.
"""

from __future__ import annotations

import kernel_cases as kc
import pytest
from test_lower_kernel import KERNELS, kernel_function

from costfuse.data.lower import UnsupportedOp
from costfuse.data.lower_kernel import kernel_as_function, lower_kernel
from costfuse.data.verify_kernel import verify_kernel
from costfuse.launch import KernelLaunch

M, N = 6, 100
X = ("%x", (M, N), "f32", "d0, d1")
LOOPED = KernelLaunch("looped", 2, 32, 2)


def _kernel_lines(source: str) -> list[str]:
    """The lines of the ``@triton.jit def kernel`` body."""
    return source.split("\ndef kernel(", 1)[1].split("\n\n", 1)[0].splitlines()[1:]


def _refusal(text: str) -> UnsupportedOp:
    with pytest.raises(UnsupportedOp) as err:
        lower_kernel(kernel_function(text), LOOPED)
    return err.value


# ---------------------------------------------------------------------------
# Inits and reductions in the generated source


def test_persistent_reductions_reduce_the_tile_without_an_accumulator():
    source = lower_kernel(kernel_function(KERNELS["softmax"]), KernelLaunch("persistent", 2, 128, 2)).source
    assert "red0_0 = tl.reduce(tl.where(xmask & rmask, t1, float(\"-inf\")), 1, _maximum_combine)[:, None]" in source
    assert "acc" not in source and "for roffset" not in source


def test_narrow_float_inits_are_widened_to_the_f32_accumulator():
    source = lower_kernel(kernel_function(KERNELS["softmax_3d_bf16"]), KernelLaunch("persistent", 2, 64, 2)).source
    assert 'init0_0 = tl.full([XBLOCK, 1], float("-inf"), tl.float32).to(tl.bfloat16).to(tl.float32)\n' in source
    assert "init3_0 = tl.full([XBLOCK, 1], 0.0, tl.float32).to(tl.bfloat16).to(tl.float32)\n" in source


def test_arg_max_index_init_is_its_own_fill():
    source = lower_kernel(kernel_function(KERNELS["argmax_shift"]), KernelLaunch("persistent", 2, 128, 2)).source
    assert "init0_1 = tl.full([XBLOCK, 1], 0, tl.int64)\n" in source


# The arg-max of x * w (w broadcast along rows) whose initial value and index
# are arguments: each init loads its own argument per row, not through an input's map.
ARGMAX_INTO_ARGS = kc.kernel_function(
    [("%x", (M, N), "f32"), ("%w", (N,), "f32"), ("%m0", (M,), "f32"), ("%i0", (M,), "i64")],
    [("%mx#0", (M,), "f32"), ("%mx#1", (M,), "i64")],
    [kc.generic("%mx:2", 2, "pr", [X, ("%w", (N,), "f32", "d1")],
                [("%m0", (M,), "f32", "d0"), ("%i0", (M,), "i64", "d0")],
                ["%j = linalg.index 1 : index", "%ji = arith.index_cast %j : index to i64",
                 "%xw = arith.mulf %a0, %a1 : f32", "%v = arith.maximumf %xw, %o0 : f32",
                 "%gt = arith.cmpf ogt, %xw, %o0 : f32", "%i = arith.select %gt, %ji, %o1 : i64", "yield %v, %i"])])


def test_argument_inits_load_through_their_own_maps():
    lines = _kernel_lines(lower_kernel(kernel_function(ARGMAX_INTO_ARGS), LOOPED).source)
    for j in (0, 1):
        (init,) = [ln.strip() for ln in lines if ln.strip().startswith(f"init0_{j} = ")]
        (load,) = [ln.strip() for ln in lines if ln.strip().startswith(init.split(" = ")[1] + " = ")]
        assert load.endswith(f"= tl.load(in_ptr{j + 2} + (xindex), mask=xmask)"), (init, load)


# max over the row, then y = x - max * max: ``max * max`` is per row.
ROW_ONLY_PRODUCT = kc.kernel_function(
    [("%x", (M, N), "f32")], [("%y", (M, N), "f32")],
    kc._fill("%m0", (M,), "f32", kc.NEG_INF["f32"]) + kc._empty("%e", (M, N), "f32")
    + [kc.generic("%max", 2, "pr", [X], [("%m0", (M,), "f32", "d0")],
                  ["%r = arith.maximumf %a0, %o0 : f32", "yield %r"]),
       kc.generic("%y", 2, "pp", [X, ("%max", (M,), "f32", "d0")], [("%e", (M, N), "f32", "d0, d1")],
                  ["%h = arith.mulf %a1, %a1 : f32", "%r = arith.subf %a0, %h : f32", "yield %r"])])


def test_per_row_values_of_a_looped_pass_are_hoisted_out_of_the_row_loop():
    lines = _kernel_lines(lower_kernel(kernel_function(ROW_ONLY_PRODUCT), LOOPED).source)
    (product,) = [k for k, ln in enumerate(lines) if ln.endswith(" = v0_0 * v0_0")]
    loops = [k for k, ln in enumerate(lines) if ln.startswith("    for roffset in range(0, 100, RBLOCK):")]
    assert len(loops) == 2 and loops[0] < product < loops[1]
    assert lines[product].startswith("    t") and not lines[product].startswith("     ")


# ---------------------------------------------------------------------------
# What the lowering refuses, and where


def _gather_from_fill() -> str:
    body = kc._fill("%x", (M, N), "f32", "1.0") + kc._empty("%e1", (M, 1), "f32")
    body.append(f"  %cn = arith.constant {N} : index\n  %c0i = arith.constant 0 : i64\n")
    body.append(kc.generic("%p", 2, "pp", [("%label", (M, 1), "i64", "d0, d1")], [("%e1", (M, 1), "f32", "d0, d1")],
                           kc.gather_body("%x", (M, N), "f32") + ["yield %g"]))
    return kc.kernel_function([("%label", (M, 1), "i64")], [("%p", (M, 1), "f32")], body)


def test_a_gather_from_a_tensor_that_is_not_an_argument_is_refused():
    err = _refusal(_gather_from_fill())
    assert (err.op, err.reason) == ("tensor.extract",
                                    "@k member 0 gathers from a tensor that is not a function argument")


def test_a_reduction_into_an_empty_tensor_it_reads_is_refused_naming_the_init():
    body = kc._empty("%z", (M,), "f32") + [kc.generic("%s", 2, "pr", [X], [("%z", (M,), "f32", "d0")],
                                                      ["%r = arith.addf %a0, %o0 : f32", "yield %r"])]
    err = _refusal(kc.kernel_function([("%x", (M, N), "f32")], [("%s", (M,), "f32")], body))
    assert err.op == "tensor.empty"
    assert err.reason.startswith("@k member 0 init 0 reads a tensor defined by tensor.empty, neither a function ")


# i1 constants: the bindings give ``arith.constant true`` a BoolAttr, which is no IntegerAttr;
# a fill of one (read as an operand, or as an init the body reads) and a body constant lower
# and match IREE.
BOOL_OPERAND = kc.kernel_function(
    [("%x", (M, N), "f32")], [("%y", (M, N), "f32")],
    kc._fill("%t", (M, N), "i1", "1") + kc._empty("%e", (M, N), "f32")
    + [kc.generic("%y", 2, "pp", [X, ("%t", (M, N), "i1", "d0, d1")], [("%e", (M, N), "f32", "d0, d1")],
                  ["%z = arith.constant 0.0 : f32", "%r = arith.select %a1, %a0, %z : f32", "yield %r"])])
BOOL_INIT = kc.kernel_function(
    [("%x", (M, N), "f32")], [("%y", (M, N), "i1")],
    kc._fill("%t", (M, N), "i1", "0")
    + [kc.generic("%y", 2, "pp", [X], [("%t", (M, N), "i1", "d0, d1")],
                  ["%z = arith.constant 0.0 : f32", "%p = arith.cmpf ogt, %a0, %z : f32",
                   "%r = arith.ori %p, %o0 : i1", "yield %r"])])
BOOL_BODY = kc.kernel_function(
    [("%x", (M, N), "f32")], [("%y", (M, N), "f32")],
    kc._empty("%e", (M, N), "f32")
    + [kc.generic("%y", 2, "pp", [X], [("%e", (M, N), "f32", "d0, d1")],
                  ["%c = arith.constant false", "%z = arith.constant 0.0 : f32",
                   "%r = arith.select %c, %z, %a0 : f32", "yield %r"])])


@pytest.mark.parametrize("text", [BOOL_OPERAND, BOOL_INIT, BOOL_BODY], ids=["fill-operand", "fill-init", "body"])
def test_i1_constants_lower_and_match_iree(text, tmp_path):
    kernel = verify_kernel(kernel_function(text), LOOPED, kernel_dir=tmp_path)
    assert "tl.int1" in kernel.source


# ---------------------------------------------------------------------------
# The IREE oracle's function


def test_kernel_as_function_names_the_copy_kernel_by_default():
    text = kernel_as_function(kernel_function(KERNELS["softmax"]))
    assert "func.func @kernel(%arg0: tensor<6x100xf32>) -> tensor<6x100xf32>" in text
    assert "costfuse.kernel" not in text and "private" not in text

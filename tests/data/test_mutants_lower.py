"""What the one-generic lowering's own tests (``data/lowering/generic.py``) did not pin down (issue #15:
survivors of mutation testing): the module report's exact text and the per-generic configs of
:func:`lower_module`.
"""

from __future__ import annotations

import kernel_cases as kc
import numpy as np
import pytest
from lowering_cases import elementwise, refusal_of, row_reduction

from costfuse.launch import LaunchConfig
from costfuse.data.interpret import run_interpreted
from costfuse.data.lowering.generic import lower_generic, lower_module
from costfuse.data.lowering.generic_info import analyze
from costfuse.data.lowering.unsupported import UnsupportedOp
from costfuse.data.lowering.walk import generics_of
from costfuse.ir import parse_module


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


# ---------------------------------------------------------------------------
# Refusals name the op and the operand


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


# ---------------------------------------------------------------------------
# Indices, gathers, reductions


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


# ---------------------------------------------------------------------------
# The reference wrapper (what IREE runs to check the kernel)


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


# ---------------------------------------------------------------------------
# Outputs, constants and bytes of reductions


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

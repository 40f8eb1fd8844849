"""Row spaces, kernel shapes and their HBM bytes, launch spaces, unit-reshape folding (docs/groups.md)."""

from pathlib import Path

import numpy as np
import pytest

from costfuse.graph import function_blocks, generics_in
from costfuse.ir import load_module, parse_module
from costfuse.kernel import FULL, REDUCE, ROWWISE, NotAKernel, analyze_kernel
from costfuse.launch import MODES, KernelLaunch, config_space, heuristic_launch, launch_arrays, space_arrays
from costfuse.unit_reshapes import fold_unit_reshapes
from helpers.generic_ops import _ID2, _op

EXAMPLES = Path(__file__).parents[2] / "examples"
X, BIAS, ROW = 64 * 1024 * 4, 1024 * 4, 64 * 4


@pytest.fixture
def softmax_gelu():
    m = load_module(EXAMPLES / "softmax_gelu.mlir")
    with m.context:
        yield m, generics_in(function_blocks(m)[0])


def test_softmax_passes_and_bytes(softmax_gelu):
    _, g = softmax_gelu
    k = analyze_kernel(g[:6])       # x + bias, max, sub, exp, sum, div
    assert (k.rows, k.n) == ((64,), 1024)
    assert [m.role for m in k.members] == [FULL, REDUCE, FULL, FULL, REDUCE, FULL]
    # the sum of exp(x - max) runs in the max's pass (online softmax), the division in a second
    assert k.pass_of == (0, 0, 1, 1, 0, 1) and k.n_passes == 2 and k.online == ((4, 1, 0),)
    assert [len(i.readers) for i in k.inputs] == [1, 1]             # x and bias, read by the first member
    assert k.issued_bytes("persistent") == X + BIAS + X                 # read once, store the probabilities
    assert k.issued_bytes("looped") == 2 * (X + BIAS) + X              # one re-read per pass
    assert k.flops("looped") > k.flops("persistent")


def test_a_reduction_stored_and_read_back_is_an_output(softmax_gelu):
    _, g = softmax_gelu
    k = analyze_kernel(g[:2])       # x + bias and its row max: both used later, outside
    assert [(o.member, o.nbytes) for o in k.outputs] == [(0, X), (1, ROW)]


def test_members_at_different_rows_are_not_a_kernel():
    text = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
func.func @main(%x: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %e = tensor.empty() : tensor<16x16xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = arith.addf %i, %i : f32
    linalg.yield %r : f32
  } -> tensor<16x16xf32>
  %b = linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = arith.mulf %i, %i : f32
    linalg.yield %r : f32
  } -> tensor<16x16xf32>
  return %b : tensor<16x16xf32>
}
"""
    m = parse_module(text)
    with m.context:
        g = generics_in(function_blocks(m)[0])
        with pytest.raises(NotAKernel, match="different row or column"):
            analyze_kernel(g)


def test_keepdim_rows_fold_and_group():
    m = load_module(EXAMPLES / "layernorm_gelu_mlp.mlir")
    with m.context:
        block = function_blocks(m)[0]
        assert fold_unit_reshapes(block) == 2
        g = generics_in(block)
        k = analyze_kernel(g[:13])
        assert k.rows == (2, 16) and k.n == 32
        assert ROWWISE in {m.role for m in k.members} and k.reductions == 2


def test_launch_space_and_heuristic(softmax_gelu):
    _, g = softmax_gelu
    k = analyze_kernel(g[:6])
    space = config_space(k)
    assert {c.mode for c in space} == {"persistent", "looped"}
    assert all(c.rblock == 1024 for c in space if c.mode == "persistent")
    assert all(c.rblock < 1024 and c.xblock * c.rblock >= 32 * c.num_warps for c in space if c.mode == "looped")
    assert heuristic_launch(k) == KernelLaunch("persistent", 4, 1024, 8)
    pw = analyze_kernel(g[6:])
    assert pw.pointwise and {c.mode for c in config_space(pw)} == {"pointwise"}
    assert all(c.xblock >= 32 * c.num_warps for c in config_space(pw))



def test_what_the_scorers_read_is_asked_once_and_says_what_asking_one_by_one_says(softmax_gelu):
    """Issue #28: the scorers read a shape's bytes and flops per mode as one value (``costs``, computed once
    per shape) and a space's configs as arrays (``launch_arrays``), not one question per mode or config."""
    _, g = softmax_gelu
    k = analyze_kernel(g[:6])       # x per row, bias a broadcast weight; looped: two passes
    costs = k.costs
    assert costs is k.costs
    assert costs.issued == (X + BIAS + X, X + BIAS + X, 2 * (X + BIAS) + X)
    assert costs.issued == tuple(k.issued_bytes(m) for m in MODES)
    assert costs.flops == tuple(k.flops(m) for m in MODES) and costs.flops[0] == costs.flops[1] < costs.flops[2]
    assert (costs.dram_held, costs.dram_missed) == (X + BIAS + X, 2 * X + BIAS + X)   # the weight is read once
    assert [costs.dram(m, held) for m, held in (("looped", True), ("looped", False), ("persistent", False))] == \
        [k.dram_bytes("looped"), k.dram_bytes("looped", False), X + BIAS + X]
    assert (costs.n_rows, costs.numel) == (64, 64 * 1024)
    space = config_space(k)
    a = launch_arrays(space)
    assert list(a.mode) == [c.mode for c in space] and [MODES[i] for i in a.mode_index] == list(a.mode)
    assert [tuple(map(int, t)) for t in zip(a.xblock, a.rblock, a.num_warps)] == \
        [(c.xblock, c.rblock, c.num_warps) for c in space]
    assert list(a.elems_per_thread) == [c.elems_per_thread() for c in space]
    cached = space_arrays(k)
    assert cached is space_arrays(k) and not cached.elems_per_thread.flags.writeable
    assert all(np.array_equal(getattr(cached, f), getattr(a, f)) for f in vars(a))

# --- launch configs in detail (the mutation check's survivors, experiments/results/mutation.md) ---
def _kernel(rows: int, n: int, reduce: bool):
    """(module, kernel) of one generic on a rows x n f32 tensor: a row sum, or an elementwise exp."""
    from costfuse.data.mlir_text import Program, amap, ident, tensor

    ty, rty = tensor((rows, n), "f32"), tensor((rows,), "f32")
    p = Program([("%x", ty)])
    if reduce:
        v = p.generic([("%x", ty, ident(2))], rty, amap(2, "d0"), ["parallel", "reduction"],
                      ["%r = arith.addf %a0, %o : f32", "yield %r"])
    else:
        v = p.generic([("%x", ty, ident(2))], ty, ident(2), ["parallel"] * 2, ["%r = math.exp %a0 : f32", "yield %r"])
    module = parse_module(p.text(v, rty if reduce else ty))
    return module, analyze_kernel(generics_in(function_blocks(module)[0]))


def test_kernel_launch_checks_itself_and_converts_both_ways():
    from costfuse.launch import LaunchConfig

    from costfuse.launch import LAUNCH_ATTR

    with pytest.raises(ValueError, match=r"^launch mode must be one of \('pointwise', 'persistent', 'looped'\), got 'x'$"):
        KernelLaunch("x", 1, 1, 1)
    with pytest.raises(ValueError, match="^a pointwise launch has rblock 1, got 2$"):
        KernelLaunch("pointwise", 64, 2, 1)
    launch = KernelLaunch("persistent", 2, 256, 8)
    assert launch.as_config() == LaunchConfig(XBLOCK=2, RBLOCK=256, num_warps=8)
    assert launch.elems_per_thread() == 2.0
    module = parse_module("func.func @f() { return }")
    with module.context:
        attr = launch.to_attr()
        assert str(attr) == '{mode = "persistent", num_warps = 8 : i64, rblock = 256 : i64, xblock = 2 : i64}'
        assert KernelLaunch.from_attr(attr) == launch
        from iree.compiler import ir

        partial = ir.Attribute.parse('{mode = "looped", xblock = 1 : i64, rblock = 32 : i64}')
        with pytest.raises(ValueError, match=f"^{LAUNCH_ATTR} .* lacks num_warps; expected mode, xblock, rblock, "
                                             "num_warps$"):
            KernelLaunch.from_attr(partial)
        with pytest.raises(ValueError, match=" lacks xblock, rblock, num_warps; "):
            KernelLaunch.from_attr(ir.Attribute.parse('{mode = "looped"}'))


def test_pointwise_space_starts_at_one_element_per_thread_and_falls_back_for_tiny_kernels():
    _m, k = _kernel(64, 64, reduce=False)  # 4096 elements
    space = config_space(k)
    assert space[0] == KernelLaunch("pointwise", 32, 1, 1) and KernelLaunch("pointwise", 4096, 1, 32) in space
    assert len(space) == len(set(space)) == sum(min(6, x.bit_length() - 5) for x in (32, 64, 128, 256, 512, 1024,
                                                                                     2048, 4096))
    assert heuristic_launch(k) == KernelLaunch("pointwise", 1024, 1, 4)
    _m, tiny = _kernel(2, 4, reduce=False)  # 8 elements: fewer than a warp
    assert config_space(tiny) == [KernelLaunch("pointwise", 8, 1, 1)]


def test_row_space_bounds_tiles_chunks_and_warps_exactly():
    from costfuse.launch import MAX_TILE_ELEMS

    from costfuse.launch import MAX_LOOPED_TILE, MIN_RBLOCK

    _m, k = _kernel(8, 4096, reduce=True)
    space = config_space(k)
    persistent = [c for c in space if c.mode == "persistent"]
    looped = [c for c in space if c.mode == "looped"]
    assert {c.xblock for c in persistent} == {1, 2, 4, 8} and KernelLaunch("persistent", 1, 4096, 32) in persistent
    assert {c.rblock for c in looped} == {32 << i for i in range(7)}  # 32 .. 2048 = half the row
    assert KernelLaunch("looped", 4, 2048, 8) in looped  # a tile of exactly MAX_LOOPED_TILE elements
    assert KernelLaunch("looped", 1, 32, 1) in looped and KernelLaunch("looped", 1, 32, 2) not in looped
    assert max(c.xblock * c.rblock for c in looped) == MAX_LOOPED_TILE and min(c.rblock for c in looped) == MIN_RBLOCK
    assert heuristic_launch(k) == KernelLaunch("persistent", 1, 4096, 8)
    _m, wide = _kernel(2, 1 << 17, reduce=True)  # one row fills MAX_TILE_ELEMS
    assert [c.xblock * c.rblock for c in config_space(wide) if c.mode == "persistent"] == [MAX_TILE_ELEMS] * 6
    assert heuristic_launch(wide).mode == "looped"
    _m, small = _kernel(1, 32, reduce=True)  # a one-warp tile, and a 16-element one below it
    assert [c for c in config_space(small) if c.mode == "persistent"] == [KernelLaunch("persistent", 1, 32, 1)]
    _m, smaller = _kernel(1, 16, reduce=True)
    assert config_space(smaller) == [KernelLaunch("persistent", 1, 16, 1)]


_OUTSIDE = "from outside, neither a scalar constant nor a tensor it gathers from"


@pytest.mark.parametrize("case, reason", [
    (dict(body=["linalg.yield %a : f32"], ins="%s : tensor<f32>", args=", %s: tensor<f32>",
          maps=("affine_map<() -> ()>",) * 2, iters=(), out="tensor<f32>"), "zero-dimensional generic"),
    (dict(body=["%r = arith.addf %a, %o : f32", "linalg.yield %r : f32"], maps=(_ID2, "affine_map<(d0, d1) -> (d1)>"),
          iters=("reduction", "parallel"), out="tensor<8xf32>"), "a reduction loop that is not the innermost one"),
    (dict(body=["%r = arith.addf %a, %b : f32", "linalg.yield %r : f32"], args=", %s: f32",
          ins="%x, %s : tensor<4x8xf32>, f32", maps=(_ID2, "affine_map<(d0, d1) -> ()>", _ID2),
          bargs="%a: f32, %b: f32, %o: f32"), "dynamic or non-tensor shapes"),
    (dict(body=["%r = scf.execute_region -> f32 {", "scf.yield %a : f32", "}", "linalg.yield %r : f32"]),
     "a body op with regions"),
    (dict(body=["%r = arith.addf %s, %a : f32", "linalg.yield %r : f32"], args=", %s: f32"),
     f"its body uses a function argument {_OUTSIDE}"),
    (dict(body=["%r = arith.addf %a, %s : f32", "linalg.yield %r : f32"], args=", %s: f32"),  # after an inside one
     f"its body uses a function argument {_OUTSIDE}"),
    (dict(body=["%r = arith.addf %a, %o : f32", "linalg.yield %r : f32"], ins="%y : tensor<4x2x8xf32>",
          args=", %y: tensor<4x2x8xf32>", maps=("affine_map<(d0, d1, d2) -> (d0, d1, d2)>",
                                                "affine_map<(d0, d1, d2) -> (d0, d2)>"),
          iters=("parallel", "reduction", "parallel")), "a reduction loop that is not the innermost one"),
    (dict(body=["%q = arith.mulf %a, %c : f32", "%r = arith.addf %c, %t : f32", "linalg.yield %r : f32"],
          args=", %s: f32", pre="%c = arith.constant 2.0 : f32\n%t = arith.addf %s, %s : f32"),
     f"its body uses a arith.addf result {_OUTSIDE}"),
    (dict(body=["%i = linalg.index 1 : index", "%v = tensor.extract %t[%i] : tensor<?xf32>",
                "%r = arith.addf %a, %v : f32", "linalg.yield %r : f32"], args=", %t: tensor<?xf32>"),
     "its body gathers from a function argument of type tensor<?xf32>, not a static tensor"),
    (dict(body=["%v = tensor.extract %t[%i] : tensor<8xf32>", "%r = arith.addf %a, %v : f32",
                "linalg.yield %r : f32"], args=", %t: tensor<8xf32>, %i: index"),
     f"its body uses a function argument {_OUTSIDE}"),
    (dict(body=["linalg.yield %a : f32"], ins="%y : tensor<4x16xf32>", args=", %y: tensor<4x16xf32>",
          maps=("affine_map<(d0, d1) -> (d0, d1 * 2)>", _ID2)), "indexing map result d1 * 2 is not a dim or a constant"),
    (dict(body=["linalg.yield %a : f32"], maps=(_ID2, "affine_map<(d0, d1) -> (d0)>"), out="tensor<4xf32>"),
     "an output map that is not a permutation of the parallel loops"),
])
def test_op_space_says_why_a_generic_cannot_join_a_row_group(case, reason):
    from costfuse.rowspace import NotGroupable, op_space

    module, op = _op(**case)
    with module.context:
        assert op_space(op) == NotGroupable(reason)


def test_gathers_count_each_outside_tensor_read_by_extract():
    from costfuse.rowspace import OpSpace, gathers, op_space

    body = ["%i = linalg.index 1 : index", "%v = tensor.extract %t[%i] : tensor<8xf32>",
            "%w = tensor.extract %t[%i] : tensor<8xf32>", "%s = arith.addf %v, %w : f32",
            "%r = arith.addf %a, %s : f32", "linalg.yield %r : f32"]
    module, op = _op(body, args=", %t: tensor<8xf32>")
    with module.context:
        assert op_space(op) == OpSpace((4, 8), False)
        table = gathers(op)
        assert list(table.values()) == [2] and list(table) == [function_blocks(module)[0].arguments[1]]


def test_roles_in_a_row_group_at_their_boundaries():
    from costfuse.rowspace import OpSpace

    assert OpSpace((4, 1), False).role_in((4,), 1) == ROWWISE    # a one-element row is a per-row value
    assert OpSpace((4, 2), False).role_in((4,), 2) == FULL
    assert OpSpace((4, 2), True).role_in((4,), 2) == REDUCE
    assert OpSpace((4, 8), False).role_in((4,), 16) is None      # neither the row nor one value per row
    assert OpSpace((4,), True).role_in((4,), 8) is None


def test_reads_in_row_compares_loop_positions_of_the_read_result():
    from costfuse.rowspace import reads_in_row

    two = """func.func @f(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %p:2 = linalg.generic {indexing_maps = [#id, #id, #t], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x8xf32>) outs(%e, %e : tensor<8x8xf32>, tensor<8x8xf32>) {
  ^bb0(%a: f32, %o: f32, %o2: f32):
    %r = math.exp %a : f32
    linalg.yield %r, %r : f32, f32
  } -> (tensor<8x8xf32>, tensor<8x8xf32>)
  %c = linalg.generic {indexing_maps = [#id, #t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p#1, %p#0 : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c : tensor<8x8xf32>) outs(%x : tensor<8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  return %d : tensor<8x8xf32>
}"""
    text = "#id = affine_map<(d0, d1) -> (d0, d1)>\n#t = affine_map<(d0, d1) -> (d1, d0)>\n" + two
    module = parse_module(text)
    with module.context:
        p, c, d = generics_in(function_blocks(module)[0])
        assert not reads_in_row(p, 1, c, 0)  # result 1 is written transposed, read straight
        assert not reads_in_row(p, 0, c, 1)  # result 0 is written straight, read transposed
        assert reads_in_row(c, 0, d, 0)
    bad_module, bad = _op(["%r = arith.addf %s, %a : f32", "linalg.yield %r : f32"], args=", %s: f32")
    with bad_module.context:
        assert not reads_in_row(bad, 0, bad, 0)  # not groupable: never read in a row
    good_module, good = _op(["linalg.yield %a : f32"])
    with good_module.context:
        assert not reads_in_row(good, 0, bad, 0) and not reads_in_row(bad, 0, good, 0)


def test_flops_count_per_row_values_once_and_looped_recomputation():
    from costfuse.data.mlir_text import Program, amap, ident, tensor

    ty, rty = tensor((4, 8), "f32"), tensor((4,), "f32")
    row = amap(2, "d0")
    # rmsnorm-like: s = sum(x) (reduce, 1 flop), r = rsqrt(s) (one value per row, 2), y = x * r (full, 1)
    p = Program([("%x", ty)])
    s = p.generic([("%x", ty, ident(2))], rty, row, ["parallel", "reduction"], ["%r = arith.addf %a0, %o : f32", "yield %r"])
    r = p.generic([(s, rty, ident(1))], rty, ident(1), ["parallel"], ["%r = math.rsqrt %a0 : f32", "yield %r"])
    y = p.generic([("%x", ty, ident(2)), (r, rty, row)], ty, ident(2), ["parallel"] * 2,
                  ["%r = arith.mulf %a0, %a1 : f32", "yield %r"])
    module = parse_module(p.text(y, ty))
    k = analyze_kernel(generics_in(function_blocks(module)[0]))
    assert [m.role for m in k.members] == [REDUCE, ROWWISE, FULL]
    assert k.flops("persistent") == k.flops("looped") == (1 * 8 + 2 * 1 + 1 * 8) * 4
    # softmax-like: e = exp(x) (full, 4) is needed by the sum's pass and again by y = e / s (full, 2)
    p = Program([("%x", ty)])
    e = p.generic([("%x", ty, ident(2))], ty, ident(2), ["parallel"] * 2, ["%r = math.exp %a0 : f32", "yield %r"])
    s = p.generic([(e, ty, ident(2))], rty, row, ["parallel", "reduction"], ["%r = arith.addf %a0, %o : f32", "yield %r"])
    y = p.generic([(e, ty, ident(2)), (s, rty, row)], ty, ident(2), ["parallel"] * 2,
                  ["%r = arith.divf %a0, %a1 : f32", "yield %r"])
    module = parse_module(p.text(y, ty))
    k = analyze_kernel(generics_in(function_blocks(module)[0]))
    assert k.flops("persistent") == (4 * 8 + 1 * 8 + 2 * 8) * 4
    assert k.flops("looped") == (4 * 8 * 2 + 1 * 8 + 2 * 8) * 4  # exp computed in both passes


# --- unit-reshape folding in detail (the mutation check's survivors, experiments/results/mutation.md) ---
def _reshape_program(reshape: str, src_ty: str, mid_ty: str, read: str, init_use: bool = False) -> str:
    """``%m = reshape(%s)`` read by one generic over 4x8 through ``read`` (or used as its init)."""
    ins, tys, maps = ("%x", "tensor<4x8xf32>", "") if init_use else ("%x, %m", f"tensor<4x8xf32>, {mid_ty}", f"({read}), ")
    out, out_ty = ("%m", mid_ty) if init_use else ("%e", "tensor<4x8xf32>")
    bargs = "%a: f32, %o: f32" if init_use else "%a: f32, %b: f32, %o: f32"
    body = "%r = arith.addf %a, %o : f32" if init_use else "%r = arith.addf %a, %b : f32"
    return f"""func.func @f(%x: tensor<4x8xf32>, %s: {src_ty}) -> {out_ty} {{
  %m = {reshape}
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, {"" if init_use else f"affine_map<(d0, d1) -> {maps[:-2]}>, "}affine_map<(d0, d1) -> ({"d0, 0" if init_use else "d0, d1"})>],
      iterator_types = ["parallel", "parallel"]}} ins({ins} : {tys}) outs({out} : {out_ty}) {{
  ^bb0({bargs}):
    {body}
    linalg.yield %r : f32
  }} -> {out_ty}
  return %0 : {out_ty}
}}"""


@pytest.mark.parametrize("reshape, src, mid, read, moved, new_map", [
    ("tensor.expand_shape %s [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>",
     "tensor<4xf32>", "tensor<4x1xf32>", "d0, 0", 1, "(d0, d1) -> (d0)"),
    ("tensor.expand_shape %s [[0, 1]] output_shape [1, 8] : tensor<8xf32> into tensor<1x8xf32>",
     "tensor<8xf32>", "tensor<1x8xf32>", "0, d1", 1, "(d0, d1) -> (d1)"),
    ("tensor.expand_shape %s [[0, 1], [2]] output_shape [1, 1, 8] : tensor<1x8xf32> into tensor<1x1x8xf32>",
     "tensor<1x8xf32>", "tensor<1x1x8xf32>", "0, 0, d1", 1, "(d0, d1) -> (0, d1)"),
    ("tensor.collapse_shape %s [[0, 1]] : tensor<4x1xf32> into tensor<4xf32>",
     "tensor<4x1xf32>", "tensor<4xf32>", "d0", 1, "(d0, d1) -> (d0, 0)"),
    ("tensor.collapse_shape %s [[0, 1]] : tensor<1x8xf32> into tensor<8xf32>",
     "tensor<1x8xf32>", "tensor<8xf32>", "d1", 1, "(d0, d1) -> (0, d1)"),
    ("tensor.expand_shape %s [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>",   # not unit dims
     "tensor<8xf32>", "tensor<2x4xf32>", "d0 floordiv 2, d1 floordiv 2", 0, None),
    ("tensor.collapse_shape %s [[0, 1]] : tensor<2x4xf32> into tensor<8xf32>",
     "tensor<2x4xf32>", "tensor<8xf32>", "d1", 0, None),
])
def test_unit_reshapes_fold_into_the_reading_map(reshape, src, mid, read, moved, new_map):
    module = parse_module(_reshape_program(reshape, src, mid, read))
    with module.context:
        block = function_blocks(module)[0]
        assert fold_unit_reshapes(block) == moved
        (op,) = generics_in(block)
        names = [o.operation.name for o in block.operations]
        if moved:
            assert str(op.attributes["indexing_maps"]).split(", affine_map<")[1] == f"{new_map}>"
            assert op.operands[1] == block.arguments[1] and not any(n.startswith("tensor.") and "shape" in n
                                                                    for n in names)
        else:
            assert sum(n in ("tensor.expand_shape", "tensor.collapse_shape") for n in names) == 1
            assert op.operands[1] != block.arguments[1]


def test_unit_reshapes_used_as_an_init_or_outside_generics_stay():
    expand = "tensor.expand_shape %s [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>"
    module = parse_module(_reshape_program(expand, "tensor<4xf32>", "tensor<4x1xf32>", "", init_use=True))
    with module.context:
        assert fold_unit_reshapes(function_blocks(module)[0]) == 0
    module = parse_module("""func.func @f(%s: tensor<4xf32>) -> tensor<4x1xf32> {
  %m = tensor.expand_shape %s [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
  return %m : tensor<4x1xf32>
}""")
    with module.context:
        assert fold_unit_reshapes(function_blocks(module)[0]) == 0


# --- kernel shapes in detail (the mutation check's survivors, experiments/results/mutation.md) ---
def _shape(p, result, result_ty):
    """(module, the kernel of every generic of ``p``'s function)."""
    module = parse_module(p.text(result, result_ty))
    return module, analyze_kernel(generics_in(function_blocks(module)[0]))


def test_gathered_bytes_are_the_elements_read_times_the_passes_computing_them():
    from costfuse.data.mlir_text import Program, amap, ident, tensor

    ty, rty, tt = tensor((4, 8), "f32"), tensor((4,), "f32"), tensor((8,), "f32")
    gather = ["%i = linalg.index 1 : index", "%g = tensor.extract %t[%i] : tensor<8xf32>",
              "%h = tensor.extract %t[%i] : tensor<8xf32>"]
    # e = exp(x + t[j] + t[j]) is needed by the row sum (pass 0) and by y = e / sum (pass 1)
    p = Program([("%x", ty), ("%t", tt)])
    e = p.generic([("%x", ty, ident(2))], ty, ident(2), ["parallel"] * 2,
                  gather + ["%s = arith.addf %a0, %g : f32", "%u = arith.addf %s, %h : f32", "%r = math.exp %u : f32",
                            "yield %r"])
    s = p.generic([(e, ty, ident(2))], rty, amap(2, "d0"), ["parallel", "reduction"],
                  ["%r = arith.addf %a0, %o : f32", "yield %r"])
    y = p.generic([(e, ty, ident(2)), (s, rty, amap(2, "d0"))], ty, ident(2), ["parallel"] * 2,
                  ["%r = arith.divf %a0, %a1 : f32", "yield %r"])
    _m, k = _shape(p, y, ty)
    t, x = k.inputs
    assert (t.nbytes, t.readers, t.gathers) == (32, (), ((0, 2),))
    # 32 loop points x 2 extracts x 4 bytes, once persistent, in both passes looped
    assert (k.input_bytes(t, "persistent"), k.input_bytes(t, "looped")) == (256, 512)
    assert (k.input_bytes(x, "persistent"), k.input_bytes(x, "looped")) == (128, 256)
    # A tensor read through a map and gathered too counts the mapped read only.
    p = Program([("%x", ty)])
    v = p.generic([("%x", ty, ident(2))], ty, ident(2), ["parallel"] * 2,
                  ["%i = linalg.index 0 : index", "%j = linalg.index 1 : index",
                   "%g = tensor.extract %x[%i, %j] : tensor<4x8xf32>", "%h = tensor.extract %x[%i, %j] : tensor<4x8xf32>",
                   "%s = arith.addf %g, %h : f32", "%r = arith.addf %a0, %s : f32", "yield %r"])
    _m, both = _shape(p, v, ty)
    (only,) = both.inputs
    assert only.readers == (0,) and only.gathers == ((0, 2),) and both.input_bytes(only, "looped") == 128


def test_a_per_row_member_gathers_once_even_in_a_looped_kernel():
    from costfuse.data.mlir_text import Program, amap, ident, tensor

    ty, rty = tensor((4, 8), "f32"), tensor((4,), "f32")
    p = Program([("%x", ty), ("%t", rty)])
    s = p.generic([("%x", ty, ident(2))], rty, amap(2, "d0"), ["parallel", "reduction"],
                  ["%r = arith.addf %a0, %o : f32", "yield %r"])
    r = p.generic([(s, rty, ident(1))], rty, ident(1), ["parallel"],
                  ["%i = linalg.index 0 : index", "%g = tensor.extract %t[%i] : tensor<4xf32>",
                   "%r = arith.mulf %a0, %g : f32", "yield %r"])
    y = p.generic([("%x", ty, ident(2)), (r, rty, amap(2, "d0"))], ty, ident(2), ["parallel"] * 2,
                  ["%r = arith.mulf %a0, %a1 : f32", "yield %r"])
    _m, k = _shape(p, y, ty)
    t = next(i for i in k.inputs if i.gathers)
    assert k.members[1].role == ROWWISE and k.input_bytes(t, "looped") == k.input_bytes(t, "persistent") == 16


def test_inputs_read_in_some_passes_only_and_per_row_inputs():
    from costfuse.data.mlir_text import Program, amap, ident, tensor

    ty, rty = tensor((4, 8), "f32"), tensor((4,), "f32")
    row = amap(2, "d0")
    # s = sum(x) (pass 0); r = rsqrt(s) * g (per row, reads g); y = x * r * w (pass 1, reads w)
    p = Program([("%x", ty), ("%g", rty), ("%w", ty)])
    s = p.generic([("%x", ty, ident(2))], rty, row, ["parallel", "reduction"], ["%r = arith.addf %a0, %o : f32", "yield %r"])
    r = p.generic([(s, rty, ident(1)), ("%g", rty, ident(1))], rty, ident(1), ["parallel"],
                  ["%q = math.rsqrt %a0 : f32", "%r = arith.mulf %q, %a1 : f32", "yield %r"])
    y = p.generic([("%x", ty, ident(2)), (r, rty, row), ("%w", ty, ident(2))], ty, ident(2), ["parallel"] * 2,
                  ["%t = arith.mulf %a0, %a1 : f32", "%r = arith.mulf %t, %a2 : f32", "yield %r"])
    _m, k = _shape(p, y, ty)
    x, g, w = k.inputs
    assert [k.passes_reading(i, "looped") for i in (x, g, w)] == [2, 1, 1]
    assert [k.passes_reading(i, "persistent") for i in (x, g, w)] == [1, 1, 1]
    # live full-row values: x from s to y, then y's own result (w is loaded in y's step)
    assert k.live_full == 3


@pytest.mark.parametrize("members, live", [
    # a = exp(x) stored, unused later; b = -x; c = |b|; d = c + x + y + z: at d, x a c d y z are live
    ("stored_early", 6),
    # a = exp(x) stored; b..e a chain from x, e stored: a stays live to the end, each chain value one step
    ("stored_then_chain", 3),
    ("reduce_only", 1),
    ("per_row_chain", 1),
])
def test_live_full_row_values_at_the_worst_member(members, live):
    from costfuse.data.mlir_text import Program, amap, ident, tensor

    ty, rty = tensor((4, 8), "f32"), tensor((4,), "f32")
    m2, par = ident(2), ["parallel"] * 2
    if members == "stored_early":
        p = Program([("%x", ty), ("%y", ty), ("%z", ty)])
        a = p.generic([("%x", ty, m2)], ty, m2, par, ["%r = math.exp %a0 : f32", "yield %r"])
        b = p.generic([("%x", ty, m2)], ty, m2, par, ["%r = arith.negf %a0 : f32", "yield %r"])
        c = p.generic([(b, ty, m2)], ty, m2, par, ["%r = math.absf %a0 : f32", "yield %r"])
        d = p.generic([(c, ty, m2), ("%x", ty, m2), ("%y", ty, m2), ("%z", ty, m2)], ty, m2, par,
                      ["%s = arith.addf %a0, %a1 : f32", "%t = arith.addf %s, %a2 : f32", "%r = arith.addf %t, %a3 : f32",
                       "yield %r"])
        p.raw(f"%both = tensor.concat dim(0) {a}, {d} : ({ty}, {ty}) -> tensor<8x8xf32>")
        module = parse_module(p.text("%both", "tensor<8x8xf32>"))
    elif members == "stored_then_chain":
        p = Program([("%x", ty)])
        a = p.generic([("%x", ty, m2)], ty, m2, par, ["%r = math.exp %a0 : f32", "yield %r"])
        v = "%x"
        for op in ("arith.negf", "math.absf", "math.exp", "arith.negf"):
            v = p.generic([(v, ty, m2)], ty, m2, par, [f"%r = {op} %a0 : f32", "yield %r"])
        p.raw(f"%both = tensor.concat dim(0) {a}, {v} : ({ty}, {ty}) -> tensor<8x8xf32>")
        module = parse_module(p.text("%both", "tensor<8x8xf32>"))
    else:
        kd = tensor((4, 1), "f32")  # keepdim values: every member is one value per row, nothing full-row
        p = Program([("%x", ty if members == "reduce_only" else kd)])
        if members == "reduce_only":
            out = (p.generic([("%x", ty, m2)], rty, amap(2, "d0"), ["parallel", "reduction"],
                             ["%r = arith.addf %a0, %o : f32", "yield %r"]), rty)
        else:
            v = p.generic([("%x", kd, m2)], kd, m2, par, ["%r = math.exp %a0 : f32", "yield %r"])
            out = (p.generic([(v, kd, m2)], kd, m2, par, ["%r = arith.negf %a0 : f32", "yield %r"]), kd)
        module = parse_module(p.text(*out))
    k = analyze_kernel(generics_in(function_blocks(module)[0]))
    assert k.live_full == live


def test_an_init_the_body_reads_is_an_input_and_one_it_does_not_is_free():
    from costfuse.data.mlir_text import Program, ident, tensor

    ty = tensor((4, 8), "f32")
    for body, inputs in ((["%r = arith.addf %a0, %o : f32", "yield %r"], 2), (["%r = math.exp %a0 : f32", "yield %r"], 1)):
        p = Program([("%x", ty), ("%acc", ty)])
        v = p.generic([("%x", ty, ident(2))], ty, ident(2), ["parallel"] * 2, body, init="%acc")
        _m, k = _shape(p, v, ty)
        assert len(k.inputs) == inputs


def test_index_tensors_count_eight_bytes_and_two_words():
    module, op = _op(["%r = arith.addi %a, %a : index", "linalg.yield %r : index"], args=", %y: tensor<4x8xindex>",
                     ins="%y : tensor<4x8xindex>", out="tensor<4x8xindex>", bargs="%a: index, %o: index")
    with module.context:
        k = analyze_kernel([op])
    assert k.inputs[0].nbytes == 4 * 8 * 8 and k.words == 2  # index has no width: taken as 64 bits


def _kernel_of(text: str, members=None):
    """The kernel of the function's generics (``members``: their indices), or the NotAKernel raised."""
    module = parse_module(text)
    ops = generics_in(function_blocks(module)[0])
    try:
        return module, analyze_kernel([ops[i] for i in (members if members is not None else range(len(ops)))])
    except NotAKernel as err:
        return module, err


def _program(args, gens, result_ty, pre=()):
    """A function of ``args`` computing ``gens`` (Program.generic argument tuples, with an optional
    init last; results are named %v2, %v4, ... after each generic's tensor.empty) and returning the last."""
    from costfuse.data.mlir_text import Program

    p = Program(args)
    for line in pre:
        p.raw(line)
    for g in gens:
        result = p.generic(*g[:5], init=g[5] if len(g) > 5 else None)
    return p.text(result, result_ty)


def test_not_a_kernel_reasons_are_exact():
    from costfuse.data.mlir_text import amap, ident, tensor

    ty, tt, rty = tensor((4, 8), "f32"), tensor((8, 4), "f32"), tensor((4,), "f32")
    id2, par = ident(2), ["parallel"] * 2
    add = ["%r = arith.addf %a0, %a0 : f32", "yield %r"]
    # two unrelated generics over 4x8 and 8x4
    text = _program([("%x", ty), ("%y", tt)], [([("%x", ty, id2)], ty, id2, par, add)], ty)
    text = text.replace("  return", f"  %w = tensor.empty() : {tt}\n  %u = linalg.generic {{indexing_maps = [{id2}, {id2}], "
                        f'iterator_types = ["parallel", "parallel"]}} ins(%y : {tt}) outs(%w : {tt}) {{\n  ^bb0(%a: f32, %o: f32):\n'
                        "    linalg.yield %a : f32\n  } -> " + tt + "\n  return")
    _m, err = _kernel_of(text)
    assert str(err) == "members have different loop extents [(4, 8), (8, 4)]"
    # a reduction over rows of 4 and a full-row member over rows of 8
    _m, err = _kernel_of(_program([("%x", ty), ("%z", tensor((4, 8, 2), "f32"))], [
        ([("%x", ty, id2)], rty, amap(2, "d0"), ["parallel", "reduction"], add),
        ([("%z", tensor((4, 8, 2), "f32"), ident(3))], tensor((4, 8, 2), "f32"), ident(3), ["parallel"] * 3, add)],
        tensor((4, 8, 2), "f32")))
    assert str(err) == "a member over loops (4, 8) does not fit rows (4, 8) x 2"
    # one member that cannot be grouped alone, and the same one among others
    scalar = [("%x", ty, id2)], ty, id2, par, ["%r = arith.addf %a0, %s : f32", "yield %r"]
    text = _program([("%x", ty), ("%s", "f32")], [scalar, ([("%v2", ty, id2)], ty, id2, par, add)], ty)
    why = "its body uses a function argument from outside, neither a scalar constant nor a tensor it gathers from"
    assert str(_kernel_of(text, [0])[1]) == why
    assert str(_kernel_of(text)[1]) == f"a member is not groupable: {why}"
    # a member initialized from another member's result; a member read transposed
    text = _program([("%x", ty)], [([("%x", ty, id2)], ty, id2, par, add),
                                   ([("%x", ty, id2)], ty, id2, par, ["%r = arith.addf %a0, %o : f32", "yield %r"], "%v2")], ty)
    assert str(_kernel_of(text)[1]) == "a member is initialized from another member's result"
    sq = tensor((8, 8), "f32")
    text = _program([("%x", sq)], [([("%x", sq, id2)], sq, id2, par, add),
                                   ([("%v2", sq, amap(2, "d1, d0"))], sq, id2, par, add)], sq)
    assert str(_kernel_of(text)[1]) == "a member reads another member's result at a different row or column"
    # a member gathering from another member's result
    gather = ["%i = linalg.index 1 : index", "%g = tensor.extract %v2[%i, %i] : tensor<8x8xf32>",
              "%r = arith.addf %a0, %g : f32", "yield %r"]
    text = _program([("%x", sq)], [([("%x", sq, id2)], sq, id2, par, add), ([("%x", sq, id2)], sq, id2, par, gather)], sq)
    assert str(_kernel_of(text)[1]) == ("a member gathers (tensor.extract) from another member's result, "
                                        "which the kernel never holds in memory")


def test_inits_cost_nothing_when_empty_filled_with_a_constant_or_unread():
    from costfuse.data.mlir_text import amap, ident, tensor

    ty, rty, id2 = tensor((4, 8), "f32"), tensor((4,), "f32"), ident(2)
    acc = ["%r = arith.addf %a0, %o : f32", "yield %r"]
    red = ([("%x", ty, id2)], rty, amap(2, "d0"), ["parallel", "reduction"], acc)
    fill = ["%c = arith.constant 0.0 : f32", f"%e0 = tensor.empty() : {rty}",
            f"%zero = linalg.fill ins(%c : f32) outs(%e0 : {rty}) -> {rty}",
            f"%argfill = linalg.fill ins(%s : f32) outs(%e0 : {rty}) -> {rty}",
            f"%filledarg = linalg.fill ins(%c : f32) outs(%acc : {rty}) -> {rty}"]  # a constant into an argument
    args = [("%x", ty), ("%s", "f32"), ("%acc", rty)]
    for init, inputs in ((None, 1), ("%zero", 1), ("%argfill", 2), ("%acc", 2), ("%filledarg", 2)):
        _m, k = _kernel_of(_program(args, [red + (init,)], rty, pre=fill), [0])
        assert len(k.inputs) == inputs, init
    # the init of a reduction computed by a generic outside the kernel is read from HBM
    text = _program(args, [([("%x", ty, id2)], rty, amap(2, "d0"), ["parallel", "reduction"], acc),
                           ([("%x", ty, id2)], rty, amap(2, "d0"), ["parallel", "reduction"], acc, "%v2")], rty)
    _m, k = _kernel_of(text, [1])
    assert len(k.inputs) == 2
    # two results: the first init is free, the second is read by the body
    two = """func.func @f(%x: tensor<4x8xf32>, %acc: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %0:2 = linalg.generic {indexing_maps = [#m, #m, #m], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e, %acc : tensor<4x8xf32>, tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32, %p: f32):
    %r = arith.addf %p, %p : f32
    linalg.yield %r, %r : f32, f32
  } -> (tensor<4x8xf32>, tensor<4x8xf32>)
  return %0#1 : tensor<4x8xf32>
}"""
    _m, k = _kernel_of("#m = affine_map<(d0, d1) -> (d0, d1)>\n" + two)
    assert len(k.inputs) == 2


def test_constants_cost_no_flops_and_64_bit_members_take_two_words():
    from costfuse.data.mlir_text import ident, tensor

    for dtype, words in (("f32", 1), ("f64", 2)):
        ty = tensor((4, 8), dtype)
        text = _program([("%x", ty)], [([("%x", ty, ident(2))], ty, ident(2), ["parallel"] * 2,
                                         [f"%c = arith.constant 2.0 : {dtype}", f"%r = arith.mulf %a0, %c : {dtype}",
                                          "yield %r"])], ty)
        _m, k = _kernel_of(text)
        assert (k.members[0].flops, k.words) == (1, words)


def test_keepdim_only_members_make_a_pointwise_kernel_over_their_loops():
    from costfuse.data.mlir_text import ident, tensor

    kd, id2 = tensor((4, 1), "f32"), ident(2)
    text = _program([("%x", kd)], [([("%x", kd, id2)], kd, id2, ["parallel"] * 2, ["%r = math.exp %a0 : f32", "yield %r"]),
                                   ([("%v2", kd, id2)], kd, id2, ["parallel"] * 2,
                                    ["%r = arith.negf %a0 : f32", "yield %r"])], kd)
    _m, k = _kernel_of(text)
    assert (k.rows, k.n, k.pointwise) == ((4, 1), 1, True)


# --- group formation in detail (costfuse/groups.py; the mutation check's survivors) ----------
def _chain_block(length: int = 2):
    from costfuse.data.mlir_text import Program, ident, tensor

    ty = tensor((4, 8), "f32")
    p = Program([("%x", ty)])
    v = "%x"
    for op in ("math.exp", "arith.negf", "math.absf")[:length]:
        v = p.generic([(v, ty, ident(2))], ty, ident(2), ["parallel"] * 2, [f"%r = {op} %a0 : f32", "yield %r"])
    module = parse_module(p.text(v, ty))
    return module, function_blocks(module)[0]


def test_group_labels_and_decision_lines():
    from costfuse.groups import GroupDecision, label
    from costfuse.policy import GroupEstimate

    assert label([4, 0, 2], recomputed=[2]) == "g1+g3'+g5" and label([1]) == "g2"
    est = GroupEstimate(KernelLaunch("pointwise", 1024, 1, 4), 1e-6, 1000)
    assert GroupDecision("keep", "g1", "g2", "why").line() == "keep  g1 + g2: why"
    assert GroupDecision("merge", "g1", "g2", "why", est).line() == f"merge g1 + g2: why [{est.line()}]"


def test_always_merges_a_chain_into_one_kernel_with_every_decision():
    from costfuse.cost_models.always import Always
    from costfuse.groups import form_groups

    _m, block = _chain_block(3)
    kernels, decisions = form_groups(block, Always())
    (k,) = kernels
    assert (k.members, k.recomputed, k.unstored, k.label) == ((0, 1, 2), (), (), "g1+g2+g3")
    want = Always().best_config(k.shape)  # NaN times: compare the rest
    assert (k.estimate.launch, k.estimate.issued_bytes, k.estimate.reason) == (want.launch, want.issued_bytes, want.reason)
    assert [(d.a, d.b, d.reason) for d in decisions if d.verdict == "merge"] == [
        ("g1", "g2", "always: the largest legal group"), ("g1+g2", "g3", "always: the largest legal group")]


def test_a_model_that_accepts_no_config_keeps_every_kernel_at_the_heuristic():
    import math
    from dataclasses import dataclass

    from costfuse.groups import form_groups
    from costfuse.policy import GroupPolicy

    @dataclass
    class NoConfig(GroupPolicy):
        name = "noconfig"

        def best_config(self, shape):
            return None

    _m, block = _chain_block(2)
    kernels, decisions = form_groups(block, NoConfig())
    assert [(d.verdict, d.a, d.b, d.reason) for d in decisions] == [
        ("keep", "g1", "g2", "noconfig accepts no config for the merged kernel")]
    for k, member in zip(kernels, (0, 1)):
        launch = heuristic_launch(k.shape)
        assert k.members == (member,) and (k.estimate.launch, k.estimate.issued_bytes) == (launch, k.shape.issued_bytes(launch.mode))
        assert k.estimate.reason == "noconfig accepts no config: heuristic config" and math.isnan(k.estimate.time_s)


def test_a_generic_that_is_no_row_kernel_stays_alone_at_v1s_config():
    from costfuse.cost_models.always import Always
    from costfuse.groups import form_groups

    # an outer reduction (not groupable) feeding an elementwise op
    module, op = _op(["%r = arith.addf %a, %o : f32", "linalg.yield %r : f32"],
                     maps=(_ID2, "affine_map<(d0, d1) -> (d1)>"), iters=("reduction", "parallel"), out="tensor<8xf32>")
    with module.context:
        kernels, decisions = form_groups(function_blocks(module)[0], Always())
        (k,) = kernels
        assert (k.members, k.shape, decisions) == ((0,), None, [])
        est = k.estimate
        # the input, the result, and the result's initial value the reduction loads
        assert (est.launch.mode, est.issued_bytes, est.reason) == ("persistent", 4 * 8 * 4 + 2 * 8 * 4,
                                                                   "not a row kernel: v1 config")


def test_dynamic_reshapes_stay_and_a_skipped_reshape_does_not_stop_the_next():
    dynamic = """func.func @f(%s: tensor<?xf32>) -> tensor<?x1xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %s, %c0 : tensor<?xf32>
  %m = tensor.expand_shape %s [[0, 1]] output_shape [%n, 1] : tensor<?xf32> into tensor<?x1xf32>
  %e = tensor.empty(%n) : tensor<?x1xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<?x1xf32>) outs(%e : tensor<?x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<?x1xf32>
  return %0 : tensor<?x1xf32>
}"""
    module = parse_module("#id = affine_map<(d0, d1) -> (d0, d1)>\n" + dynamic)
    with module.context:
        assert fold_unit_reshapes(function_blocks(module)[0]) == 0
    # the first reshape is returned (not folded); the second is read by a generic (folded)
    expand = "tensor.expand_shape %s [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>"
    text = _reshape_program(expand, "tensor<4xf32>", "tensor<4x1xf32>", "d0, 0")
    text = text.replace("  %m = ", f"  %first = {expand}\n  %m = ").replace(
        ") -> tensor<4x8xf32> {", ") -> (tensor<4x8xf32>, tensor<4x1xf32>) {", 1).replace(
        "  return %0 : tensor<4x8xf32>", "  return %0, %first : tensor<4x8xf32>, tensor<4x1xf32>")
    module = parse_module(text)
    with module.context:
        assert fold_unit_reshapes(function_blocks(module)[0]) == 1


def test_kernels_analyzed_with_one_memo_share_each_ops_member_and_what_was_derived_from_it(softmax_gelu):
    """Formation prices many candidate kernels of the same ops: with one ``members`` memo they share the
    Member of an op at a role (so featurize's liveness walk of it is kept), and the shapes are the same as
    without it."""
    _, g = softmax_gelu
    memo = {}
    whole, head = analyze_kernel(g[:6], members=memo), analyze_kernel(g[:2], members=memo)
    assert whole == analyze_kernel(g[:6]) and head == analyze_kernel(g[:2])
    assert whole.members[0] is head.members[0] and whole.members[1] is head.members[1]
    assert len(memo) == 6
    whole.members[0].derived["x"] = 1
    assert head.members[0].derived == {"x": 1} and analyze_kernel(g[:2]).members[0].derived == {}


def test_an_input_any_reader_reads_per_row_is_per_row():
    """``w`` (a 4x8 tensor) read whole by ``a = x * w`` and, as its first row broadcast, by ``b = a + w[0]``:
    one per-row reader is enough (the L2 model re-reads it per row); a weight read only broadcast is not."""
    from costfuse.data.mlir_text import Program, amap, ident, tensor

    ty = tensor((4, 8), "f32")
    first_row = amap(2, "0, d1")
    for maps, per_row in (((ident(2), first_row), True), ((first_row, ident(2)), True),
                          ((first_row, first_row), False)):
        p = Program([("%x", ty), ("%w", ty)])
        a = p.generic([("%x", ty, ident(2)), ("%w", ty, maps[0])], ty, ident(2), ["parallel"] * 2,
                      ["%r = arith.mulf %a0, %a1 : f32", "yield %r"])
        b = p.generic([(a, ty, ident(2)), ("%w", ty, maps[1])], ty, ident(2), ["parallel"] * 2,
                      ["%r = arith.addf %a0, %a1 : f32", "yield %r"])
        _m, k = _shape(p, b, ty)
        assert [i.per_row for i in k.inputs] == [True, per_row], maps

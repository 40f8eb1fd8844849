"""Row spaces, kernel shapes and their HBM bytes, launch spaces, unit-reshape folding (docs/groups.md)."""

from pathlib import Path

import pytest

from costfuse.graph import function_blocks, generics_in
from costfuse.ir import load_module, parse_module
from costfuse.kernel import FULL, REDUCE, ROWWISE, NotAKernel, analyze_kernel
from costfuse.launch import KernelLaunch, config_space, heuristic_launch
from costfuse.unit_reshapes import fold_unit_reshapes

EXAMPLES = Path(__file__).parents[1] / "examples"
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
    assert k.pass_of == (0, 0, 1, 1, 1, 2) and k.n_passes == 3
    assert [len(i.readers) for i in k.inputs] == [1, 1]             # x and bias, read by the first member
    assert k.hbm_bytes("persistent") == X + BIAS + X                 # read once, store the probabilities
    assert k.hbm_bytes("looped") == 3 * (X + BIAS) + X              # one re-read per pass
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

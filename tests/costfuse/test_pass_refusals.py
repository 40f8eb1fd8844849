"""Edges the pass must refuse, and how ``--explain`` reports them (issue #11, items 9 and 10)."""

from pathlib import Path

import pytest
from costfuse.data.mlir_text import Program, ident, tensor

from costfuse.cli import opt_main
from costfuse.cost_models import NAMES
from costfuse.cost_models.always import Always
from costfuse.fusion_pass import FusionPass, run_pipeline
from costfuse.graph import edges_into, function_blocks, generics_in, legality
from costfuse.ir import load_module, parse_module, print_module, verify
from costfuse.rewrite import Unfusable, build_fused

ENCODER = Path(__file__).parents[2] / "examples" / "transformer_encoder_layer.mlir"

# Upstream MLIR, mlir/test/Dialect/Linalg/fusion-elementwise-ops.mlir: the producer
# only writes its init, and the consumer has a loop (d0) its output map lacks, so
# the fused op's only map, (d0, d1) -> (d1), is not invertible.
FUSION_DIFFERENT_AXES = """\
func.func @fusion_different_axes(%arg0 : tensor<5000xi64>, %arg1 : tensor<5000xi32>) -> tensor<5000xi32> {
  %c1_i32 = arith.constant 1 : i32
  %0 = linalg.generic {
        indexing_maps = [affine_map<(d0) -> (d0)>],
        iterator_types = ["parallel"]}
        outs(%arg0 : tensor<5000xi64>) {
        ^bb0(%arg3: i64):  // no predecessors
          %22 = linalg.index 0 : index
          %23 = arith.index_cast %22 : index to i64
          linalg.yield %23 : i64
        } -> tensor<5000xi64>
  %1 = tensor.empty() : tensor<5000xi32>
  %2 = linalg.generic {
        indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>],
        iterator_types = ["parallel", "parallel"]}
        ins(%0 : tensor<5000xi64>) outs(%1 : tensor<5000xi32>) {
        ^bb0(%arg3: i64, %arg5: i32):  // no predecessors
          %22 = arith.index_cast %arg3 : i64 to index
          %23 = tensor.extract %arg1[%22] : tensor<5000xi32>
          linalg.yield %23 : i32
        } -> tensor<5000xi32>
  return %2 : tensor<5000xi32>
}
"""


def test_build_fused_refuses_an_op_that_would_not_verify():
    module = parse_module(FUSION_DIFFERENT_AXES)
    with module.context:
        (edge,) = edges_into(generics_in(function_blocks(module)[0])[1])
        assert legality(edge)  # upstream's preconditions hold: only the verifier sees the problem
        with pytest.raises(Unfusable, match="would not verify: .*non-invertible"):
            build_fused(edge)
    verify(module)  # nothing was changed or leaked


@pytest.mark.parametrize("model", sorted(NAMES))
def test_upstream_fusion_different_axes_is_explained_not_crashed(model, tmp_path, capsys):
    src, out = tmp_path / "in.mlir", tmp_path / "out.mlir"
    src.write_text(FUSION_DIFFERENT_AXES)
    assert opt_main([str(src), "--fusion", "elementwise", "--cost-model", model, "--explain", "-o", str(out)]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == ("skip g1 -> g2: fused op would not verify: 'linalg.generic' op invalid indexing maps "
                        "are non-invertible: ((d0, d1) -> (d1))")
    assert lines[1] == f"# {model}: 0 fused, 1 not fused, 2 generics left"
    assert load_module(str(out)) and out.read_text().count("linalg.generic") == 2


def _read_twice() -> str:
    """exp(x) read through both operands of one add: one producer, one edge."""
    ty = tensor((4, 8), "f32")
    p = Program([("%x", ty)])
    e = p.generic([("%x", ty, ident(2))], ty, ident(2), ["parallel"] * 2, ["%r = math.exp %a0 : f32", "yield %r"])
    v = p.generic([(e, ty, ident(2)), (e, ty, ident(2))], ty, ident(2), ["parallel"] * 2,
                  ["%r = arith.addf %a0, %a1 : f32", "yield %r"])
    return p.text(v, ty)


def test_producer_read_through_two_operands_is_explained_once():
    decisions = run_pipeline(parse_module(_read_twice()), FusionPass(Always()))
    assert [d.line() for d in decisions] == ["skip g1 -> g2: producer result has 2 uses"]


def test_encoder_layer_explains_each_edge_once():
    module = load_module(str(ENCODER))
    lines = [d.line() for d in run_pipeline(module, FusionPass(Always()))]
    assert len(lines) == len(set(lines))
    assert print_module(module).count("linalg.generic") == 25  # docs/usage.md's parity table: unchanged

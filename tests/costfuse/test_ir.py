"""Loading IR: bad input becomes one IRError naming file:line:col, never a crash."""

import pytest

from costfuse.ir import IRError, load_module, parse_module, print_module


def test_round_trip(tmp_path):
    path = tmp_path / "ok.mlir"
    path.write_text("func.func @f(%a: f32) -> f32 {\n  return %a : f32\n}\n")
    assert "func.func @f" in print_module(load_module(path))


def test_parse_error_names_file_line_col():
    with pytest.raises(IRError) as err:
        parse_module("func.func @x() {\n  %0 = arith.addf %a, %b : f32\n}", "bad.mlir")
    assert err.value.diagnostics == [
        "bad.mlir:2:19: use of undeclared SSA value name",
        "bad.mlir:2:23: use of undeclared SSA value name",
    ]


def test_verifier_error_names_file_line_col():
    with pytest.raises(IRError, match=r"v.mlir:2:3: type of return operand 0"):
        parse_module("func.func @x(%a: f32) -> f64 {\n  return %a : f32\n}", "v.mlir")


def test_generic_verifier_error():
    text = """func.func @g(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}"""
    with pytest.raises(IRError, match=r"g.mlir:3:8: .linalg.generic. op expected the number of indexing_map"):
        parse_module(text, "g.mlir")


def test_missing_file(tmp_path):
    with pytest.raises(IRError, match="cannot read"):
        load_module(tmp_path / "nope.mlir")

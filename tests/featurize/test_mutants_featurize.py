"""Static features in the corners the featurize tests left open (issue #15).

Mutation testing (``experiments/mutation.py featurize``) showed that no selected test had a
generic with two outputs, a reduction whose body ignores its accumulator, or a body that
computes in bf16 only, and that the message for unparsable IR was checked only by its
prefix.  Each test here states what the module docstrings imply for one such generic.
"""

from __future__ import annotations

import pytest

from costfuse.featurize.features import FeatureError, analyze_generic, analyze_text, find_generic
from costfuse.ir import new_context, parse_module


def static(text: str) -> dict[str, float]:
    module = parse_module(text)
    with module.context:
        return analyze_generic(find_generic(module)).values


ID2 = "affine_map<(d0, d1) -> (d0, d1)>"


def test_an_init_the_body_does_not_read_is_not_read():
    # Two outputs of 4x8 f32 (128 bytes each); the body reads only its input, never an init.
    text = f"""func.func @f(%x: tensor<4x8xf32>, %e: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {{
  %0:2 = linalg.generic {{indexing_maps = [{ID2}, {ID2}, {ID2}], iterator_types = ["parallel", "parallel"]}}
      ins(%x : tensor<4x8xf32>) outs(%e, %e : tensor<4x8xf32>, tensor<4x8xf32>) {{
  ^bb0(%a: f32, %o1: f32, %o2: f32):
    %r = math.exp %a : f32
    linalg.yield %r, %a : f32, f32
  }} -> (tensor<4x8xf32>, tensor<4x8xf32>)
  return %0#0, %0#1 : tensor<4x8xf32>, tensor<4x8xf32>
}}"""
    s = static(text)
    assert (s["n_inputs"], s["n_outputs"]) == (1, 2)
    assert (s["bytes_read"], s["bytes_written"]) == (128, 256)


def test_the_second_init_is_read_when_the_body_reads_it():
    # The same generic, but the body adds into the second init: that one is read too, the first is not.
    text = f"""func.func @f(%x: tensor<4x8xf32>, %e: tensor<4x8xf32>, %w: tensor<4x8xf16>)
    -> (tensor<4x8xf16>, tensor<4x8xf32>) {{
  %0:2 = linalg.generic {{indexing_maps = [{ID2}, {ID2}, {ID2}], iterator_types = ["parallel", "parallel"]}}
      ins(%x : tensor<4x8xf32>) outs(%w, %e : tensor<4x8xf16>, tensor<4x8xf32>) {{
  ^bb0(%a: f32, %o1: f16, %o2: f32):
    %s = arith.addf %a, %o2 : f32
    %h = arith.truncf %a : f32 to f16
    linalg.yield %h, %s : f16, f32
  }} -> (tensor<4x8xf16>, tensor<4x8xf32>)
  return %0#0, %0#1 : tensor<4x8xf16>, tensor<4x8xf32>
}}"""
    s = static(text)
    assert (s["bytes_read"], s["bytes_written"]) == (128 + 128, 64 + 128)


def test_a_reduction_reads_its_init_even_when_the_body_does_not():
    # A "last value" reduction: the body yields the element and ignores the accumulator, but a
    # reduction still starts from its init, so the 16 x f32 init is read: 16*64*4 + 16*4 bytes.
    text = """func.func @f(%a: tensor<16x64xf32>, %init: tensor<16xf32>) -> tensor<16xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
      iterator_types = ["parallel", "reduction"]} ins(%a : tensor<16x64xf32>) outs(%init : tensor<16xf32>) {
  ^bb0(%x: f32, %acc: f32):
    linalg.yield %x : f32
  } -> tensor<16xf32>
  return %0 : tensor<16xf32>
}"""
    s = static(text)
    assert s["is_reduction"] == 1.0
    assert (s["bytes_read"], s["bytes_written"]) == (16 * 64 * 4 + 16 * 4, 16 * 4)


def test_a_bf16_result_is_a_float_result_for_the_compute_width():
    # The only float the body computes is bf16 (16 bits); the output is i32: the width is 16, not 32.
    text = f"""func.func @f(%x: tensor<4x8xf32>, %e: tensor<4x8xi32>) -> tensor<4x8xi32> {{
  %0 = linalg.generic {{indexing_maps = [{ID2}, {ID2}], iterator_types = ["parallel", "parallel"]}}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xi32>) {{
  ^bb0(%a: f32, %o: i32):
    %t = arith.truncf %a : f32 to bf16
    %r = arith.fptosi %t : bf16 to i32
    linalg.yield %r : i32
  }} -> tensor<4x8xi32>
  return %0 : tensor<4x8xi32>
}}"""
    assert static(text)["compute_dtype_bits"] == 16


BAD = "func.func @f( {"


def test_unparsable_ir_message_names_the_parse_error_and_where():
    """MLIR's first line is always 'Unable to parse module assembly:': the reason and place follow it."""
    with pytest.raises(FeatureError) as err:
        analyze_text(BAD, new_context())
    assert str(err.value) == "unparsable IR: <ir>:1:14: expected non-function type"



def test_every_parse_diagnostic_is_in_the_message():
    """Undeclared values are reported one per use, all at the end of the parse: each one is kept."""
    with pytest.raises(FeatureError) as err:
        analyze_text("func.func @f() { %0 = arith.addf %a, %b : f32\n return }", new_context())
    assert str(err.value) == ("unparsable IR: <ir>:1:34: use of undeclared SSA value name; "
                              "<ir>:1:38: use of undeclared SSA value name")

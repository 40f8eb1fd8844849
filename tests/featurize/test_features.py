"""Feature vectors of hand-written generics with known answers, and the
invariants every feature vector keeps (column order, finiteness, config input)."""

from __future__ import annotations

import math

import pytest

from costfuse.data.edge_groups import enumerate_groups, fuse_group
from costfuse.data.families import FAMILIES, generate
from costfuse.launch import LaunchConfig, heuristic_config
from costfuse.featurize.features import (FEATURE_COLUMNS, FEATURE_SCHEMA_VERSION, FeatureError, analyze_generic,
                                         analyze_text, bytes_saved_exact, features, find_generic, launch_params,
                                         op_class)
from costfuse.ir import new_context, parse_module
from helpers.errors import one_line

MIXED = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @f(%a: tensor<4x8xf32>, %w: tensor<8xf32>, %h: tensor<4x8xf16>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #row, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %w, %h : tensor<4x8xf32>, tensor<8xf32>, tensor<4x8xf16>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f16, %o: f32):
    %c = arith.constant 2.0 : f32
    %zz = arith.extf %z : f16 to f32
    %s = arith.addf %x, %y : f32
    %m = arith.mulf %s, %c : f32
    %d = arith.divf %m, %zz : f32
    %q = math.exp %d : f32
    %p = arith.cmpf ogt, %q, %x : f32
    %r = arith.select %p, %q, %x : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
"""

ROWSUM = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
func.func @f(%a: tensor<16x4096xf32>, %init: tensor<16xf32>) -> tensor<16xf32> {
  %0 = linalg.generic {indexing_maps = [#id, #out], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<16x4096xf32>) outs(%init : tensor<16xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %e = math.exp %x : f32
    %s = arith.addf %e, %acc : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %0 : tensor<16xf32>
}
"""


def feats(text: str, config) -> dict[str, float]:
    module = parse_module(text)
    with module.context:
        return features(find_generic(module), config)


def test_columns_are_stable_and_finite():
    f = feats(MIXED, LaunchConfig(XBLOCK=32, num_warps=1))
    assert tuple(f) == FEATURE_COLUMNS
    assert len(set(FEATURE_COLUMNS)) == len(FEATURE_COLUMNS)
    assert all(isinstance(v, float) and math.isfinite(v) for v in f.values())
    assert isinstance(FEATURE_SCHEMA_VERSION, int)


def test_op_counts_by_class():
    f = feats(MIXED, LaunchConfig(XBLOCK=32, num_warps=1))
    assert (f["n_add_mul"], f["n_div_sqrt"], f["n_transcendental"]) == (2, 1, 1)
    assert (f["n_compare_select"], f["n_cast"], f["n_constant"], f["n_other"]) == (2, 1, 1, 0)
    assert f["n_body_ops"] == 8
    assert f["chain_length"] == 1
    assert f["flops"] == 32 * 6  # add, mul, div, exp, cmp, select per element


def test_shapes_broadcasts_bytes_and_dtypes():
    f = feats(MIXED, LaunchConfig(XBLOCK=32, num_warps=1))
    assert (f["n_inputs"], f["n_outputs"], f["n_broadcast_inputs"]) == (3, 1, 1)
    assert (f["rank"], f["numel"], f["xnumel"], f["rnumel"], f["is_reduction"]) == (2, 32, 32, 1, 0)
    assert f["bytes_read"] == 32 * 4 + 8 * 4 + 32 * 2  # the init is never read
    assert f["bytes_written"] == 32 * 4
    assert (f["min_dtype_bits"], f["max_dtype_bits"], f["out_dtype_bits"], f["compute_dtype_bits"]) == (16, 32, 32, 32)
    assert f["arith_intensity"] == pytest.approx(f["flops"] / f["bytes_total"])


def test_reduction_persistent_vs_looped():
    persistent = feats(ROWSUM, LaunchConfig(XBLOCK=1, RBLOCK=4096, num_warps=8))
    looped = feats(ROWSUM, {"xblock": 1, "rblock": 1024, "num_warps": 4})
    for f in (persistent, looped):
        assert (f["numel"], f["xnumel"], f["rnumel"], f["is_reduction"]) == (16 * 4096, 16, 4096, 1)
        assert f["bytes_read"] == 16 * 4096 * 4 + 16 * 4  # a reduction reads its init
    kinds = ("persistent_reduction", "looped_reduction", "reduction_iters")
    assert tuple(persistent[k] for k in kinds) == (1, 0, 1)
    assert tuple(looped[k] for k in kinds) == (0, 1, 4)
    assert persistent["elems_per_thread"] == 4096 / 256
    assert persistent["live_regs_est"] == persistent["max_live_words"] * 16
    assert persistent["reg_cap"] == 255 and persistent["pressure_ratio"] == persistent["live_regs_est"] / 255


def test_register_cap_follows_warps():
    caps = [feats(MIXED, LaunchConfig(XBLOCK=1024, num_warps=w))["reg_cap"] for w in (4, 8, 16, 32)]
    assert caps == [255, 255, 128, 64]


def test_launch_config_spellings_agree():
    a = feats(MIXED, LaunchConfig(XBLOCK=16, RBLOCK=1, num_warps=2))
    b = feats(MIXED, {"XBLOCK": 16, "num_warps": 2})
    c = feats(MIXED, {"xblock": 16, "rblock": 1, "num_warps": 2})
    assert a == b == c
    assert a["elems_per_thread"] == 1.0  # a 16-wide tile on 64 threads still holds one element each
    assert a["grid_size"] == 2
    with pytest.raises(FeatureError, match="lacks XBLOCK"):
        launch_params({"num_warps": 4})


def test_not_a_generic_is_a_clear_error():
    module = parse_module(ROWSUM)
    with module.context:
        func = module.body.operations[0]
        with pytest.raises(FeatureError, match="linalg.generic"):
            analyze_generic(func)


def _chain(n: int) -> str:
    ops = []
    v = "%x"
    for i in range(n):
        ops.append(f"""  %e{i} = tensor.empty() : tensor<8x16xf32>
  %v{i} = linalg.generic {{indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}}
      ins({v} : tensor<8x16xf32>) outs(%e{i} : tensor<8x16xf32>) {{
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  }} -> tensor<8x16xf32>""")
        v = f"%v{i}"
    return ("#id = affine_map<(d0, d1) -> (d0, d1)>\n"
            "func.func @main(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {\n" + "\n".join(ops)
            + f"\n  return {v} : tensor<8x16xf32>\n}}\n")


def test_bytes_saved_estimate_is_exact_on_a_same_shape_chain():
    from costfuse.data.edge_groups import Group
    text = _chain(4)
    parts_module, fused_module = parse_module(text), parse_module(text)
    with parts_module.context:
        from costfuse.graph import function_blocks, generics_in
        parts = generics_in(function_blocks(parts_module)[0])
    fused = fuse_group(fused_module, Group((1, 2, 3, 4), 4))
    with fused_module.context:
        f = analyze_generic(fused).values
    with parts_module.context:
        exact = bytes_saved_exact(fused, parts)
    assert f["chain_length"] == 4
    assert f["bytes_saved_est"] == exact == 3 * 2 * 128 * 4


@pytest.mark.parametrize("family", FAMILIES)
def test_every_family_featurizes(family):
    """The largest group of each family's first program: sane, config-dependent features."""
    program = generate(family, 0)
    groups = enumerate_groups(parse_module(program.text))
    group = max(groups, key=lambda g: len(g.members))
    module = parse_module(program.text)
    op = fuse_group(module, group)
    with module.context:
        static = analyze_generic(op).values
        cfg = heuristic_config(int(static["xnumel"]), int(static["rnumel"]))
        f = features(op, cfg)
    assert f["chain_length"] == len(group.members)
    assert f["n_body_ops"] >= f["chain_length"] or family == "reduce"
    assert f["max_live_values"] >= 1 and f["sethi_ullman"] >= 1
    assert f["live_regs_est"] == f["max_live_words"] * f["elems_per_thread"]
    assert f["xblock"] == cfg.XBLOCK and f["rblock"] == cfg.RBLOCK


def test_op_class_of_unlisted_math_is_transcendental():
    assert op_class("math.atan2") == "transcendental"
    assert op_class("math.sqrt") == "div_sqrt"
    assert op_class("linalg.index") == "other"


def test_analyze_text_reads_the_first_generic_and_refuses_what_does_not_parse():
    from costfuse.featurize.features import analyze_text
    from costfuse.ir import new_context

    module = parse_module(MIXED)
    with module.context:
        want = analyze_generic(find_generic(module)).values
    assert analyze_text(MIXED, new_context()).values == want
    with pytest.raises(FeatureError, match="^unparsable IR: "):
        analyze_text("func.func @f( {", new_context())
    with pytest.raises(FeatureError, match="^module has no linalg.generic$"):
        analyze_text("func.func @f() { return }", new_context())


def test_launch_params_default_rblock_and_attribute_configs():
    from types import SimpleNamespace

    assert launch_params({"XBLOCK": 64, "num_warps": 2}) == (64, 1, 2)
    assert launch_params(SimpleNamespace(XBLOCK=64, num_warps=2)) == (64, 1, 2)
    assert launch_params({"xblock": 8, "rblock": None, "num_warps": 4}) == (8, 1, 4)


@pytest.mark.parametrize("ty, body, message", [
    ("tensor<?x8xf32>", "%r = math.exp %a : f32", "operand of type tensor<?x8xf32>: only statically shaped ranked "
                                                   "tensors are featurized"),
    ("tensor<4x8xf8E4M3FN>", "%r = arith.negf %a : f8E4M3FN", "unknown element type 'f8E4M3FN' (known: f64, f32, "
                                                              "f16, bf16, i64, i32, i16, i8, i1, index)"),
    ("tensor<4x8xf32>", "%t = arith.truncf %a : f32 to f8E4M3FN\n    %r = arith.extf %t : f8E4M3FN to f32",
     "unknown element type 'f8E4M3FN' (known: f64, f32, f16, bf16, i64, i32, i16, i8, i1, index)"),
])
def test_what_cannot_be_featurized_is_named(ty, body, message):
    et = ty[len("tensor<"):-1].split("x")[-1]
    dyn = "?" in ty
    text = f"""func.func @f(%x: {ty}) -> {ty} {{
  {"%c0 = arith.constant 0 : index" if dyn else ""}
  {"%n = tensor.dim %x, %c0 : " + ty if dyn else ""}
  %e = tensor.empty({"%n" if dyn else ""}) : {ty}
  %0 = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]}} ins(%x : {ty}) outs(%e : {ty}) {{
  ^bb0(%a: {et}, %o: {et}):
    {body}
    linalg.yield %r : {et}
  }} -> {ty}
  return %0 : {ty}
}}"""
    module = parse_module(text)
    with module.context, pytest.raises(FeatureError) as err:
        analyze_generic(find_generic(module))
    assert str(err.value) == message


def test_pointwise_config_features_and_an_init_the_body_reads():
    text = """func.func @f(%x: tensor<64x64xf32>, %acc: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]} ins(%x : tensor<64x64xf32>) outs(%acc : tensor<64x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}"""
    module = parse_module(text)
    with module.context:
        f = features(find_generic(module), LaunchConfig(XBLOCK=1024, RBLOCK=1, num_warps=1))  # 32 elements a thread
    assert (f["persistent_reduction"], f["looped_reduction"], f["reduction_iters"]) == (0.0, 0.0, 1.0)
    assert f["elems_per_thread"] == 32.0 and f["su_regs_est"] == f["sethi_ullman"] * 32.0
    assert f["bytes_read"] == 2 * 64 * 64 * 4  # x and the init the body accumulates into


def test_compute_width_is_the_widest_float_result_else_the_output_width():
    m3 = ", ".join(["affine_map<(d0, d1) -> (d0, d1)>"] * 3)
    ints = f"""func.func @f(%a: tensor<4x8xi8>, %b: tensor<4x8xi16>, %e: tensor<4x8xi32>) -> tensor<4x8xi32> {{
  %0 = linalg.generic {{indexing_maps = [{m3}], iterator_types = ["parallel", "parallel"]}}
      ins(%a, %b : tensor<4x8xi8>, tensor<4x8xi16>) outs(%e : tensor<4x8xi32>) {{
  ^bb0(%x: i8, %y: i16, %o: i32):
    %p = arith.extsi %x : i8 to i32
    %q = arith.extsi %y : i16 to i32
    %r = arith.addi %p, %q : i32
    linalg.yield %r : i32
  }} -> tensor<4x8xi32>
  return %0 : tensor<4x8xi32>
}}"""
    halves = """func.func @f(%a: tensor<4x8xf16>, %e: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x8xf16>) outs(%e : tensor<4x8xf16>) {
  ^bb0(%x: f16, %o: f16):
    %w = arith.extf %x : f16 to f32
    %s = math.exp %w : f32
    %r = arith.truncf %s : f32 to f16
    linalg.yield %r : f16
  } -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}"""
    for text, bits in ((ints, 32), (halves, 32)):
        module = parse_module(text)
        with module.context:
            assert analyze_generic(find_generic(module)).values["compute_dtype_bits"] == bits


# ---------------------------------------------------------------------------
# Corners the tests above left open: a generic with two outputs, a reduction whose body ignores its
# accumulator, a body that computes in bf16 only, and what the message for unparsable IR says.


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
    one_line(err, "unparsable IR: ", "<ir>:1:14", "expected non-function type")


def test_every_parse_diagnostic_is_in_the_message():
    """Undeclared values are reported one per use, all at the end of the parse: each one is kept."""
    with pytest.raises(FeatureError) as err:
        analyze_text("func.func @f() { %0 = arith.addf %a, %b : f32\n return }", new_context())
    message = one_line(err, "unparsable IR: ", "<ir>:1:34", "<ir>:1:38")
    assert message.count("use of undeclared SSA value name") == 2
    # one diagnostic per '; '-separated part, each with its own place
    parts = message.removeprefix("unparsable IR: ").split("; ")
    assert [p.split(": ")[0] for p in parts] == ["<ir>:1:34", "<ir>:1:38"], message

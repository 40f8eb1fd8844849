"""Edges and legality: what the pass may fuse, with the reason when it may not."""

import pytest
from corpus import CORPUS, Program, amap, ident, tensor

from costfuse.graph import edges_into, function_blocks, generics_in, legality
from costfuse.ir import parse_module


def edges(text):
    module = parse_module(text)
    with module.context:
        block = function_blocks(module)[0]
        out = []
        for c in generics_in(block):
            out += [(e, legality(e)) for e in edges_into(c)]
        return module, out


def reasons(text):
    module, es = edges(text)
    return [lg.reason for _, lg in es]


def test_chain_edges_are_legal_in_operand_order():
    assert reasons(CORPUS["chain_f32"]()) == ["legal"] * 4


def test_reduction_producer_and_multi_use_refused():
    assert reasons(CORPUS["reduction_sum"]()) == ["legal", "legal", "producer has reduction iterators"]
    assert reasons(CORPUS["multi_use"]()) == [
        "producer result has 2 uses", "producer result has 2 uses", "legal", "legal"]


def test_named_ops_are_never_edges():
    # tanh -> matmul and matmul -> exp are not generic->generic edges; exp -> neg is.
    assert reasons(CORPUS["named_matmul"]()) == ["legal"]


def test_permuted_result_map_and_index_are_legal():
    assert reasons(CORPUS["transpose_index"]()) == ["legal", "legal"]


def test_producer_reading_its_init_is_refused():
    ty = tensor((4, 8), "f32")
    p = Program([("%x", ty)])
    v = p.generic([("%x", ty, ident(2))], ty, ident(2), ["parallel"] * 2,
                  ["%r = arith.addf %a0, %o : f32", "yield %r"], init="%x")
    v = p.generic([(v, ty, ident(2))], ty, ident(2), ["parallel"] * 2, ["%r = math.exp %a0 : f32", "yield %r"])
    assert reasons(p.text(v, ty)) == ["producer reads its init"]


def test_producer_feeding_init_is_not_an_edge():
    ty = tensor((4, 8), "f32")
    p = Program([("%x", ty)])
    v = p.generic([("%x", ty, ident(2))], ty, ident(2), ["parallel"] * 2, ["%r = math.exp %a0 : f32", "yield %r"])
    v = p.generic([("%x", ty, ident(2))], ty, ident(2), ["parallel"] * 2,
                  ["%r = arith.addf %a0, %o : f32", "yield %r"], init=v)
    assert reasons(p.text(v, ty)) == []


def test_dynamic_shapes_are_refused():
    text = """func.func @d(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<?x8xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.tanh %a : f32
    linalg.yield %r : f32
  } -> tensor<?x8xf32>
  return %1 : tensor<?x8xf32>
}"""
    assert reasons(text) == ["dynamic or non-tensor shapes"]


def test_broadcast_result_map_is_refused():
    # The producer writes a 2-D result through a non-permutation map: not invertible.
    ty2, ty3 = tensor((4, 8), "f32"), tensor((4, 8), "f32")
    p = Program([("%x", ty2)])
    v = p.generic([("%x", ty2, amap(3, "d0, d1"))], ty3, amap(3, "d0, d1"), ["parallel"] * 3,
                  ["%r = math.exp %a0 : f32", "yield %r"])
    v = p.generic([(v, ty3, ident(2))], ty3, ident(2), ["parallel"] * 2, ["%r = math.tanh %a0 : f32", "yield %r"])
    with pytest.raises(Exception):
        # A 3-loop producer with a 2-D result is rejected by the verifier itself.
        edges(p.text(v, ty3))

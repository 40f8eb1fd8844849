"""Edges and legality: what the pass may fuse, with the reason when it may not."""

import pytest
from helpers.corpus import CORPUS, Program, amap, ident, tensor

from costfuse.graph import edges_into, function_blocks, generics_in, is_generic, legality
from costfuse.ir import parse_module

EXP = ["%r = math.exp %a0 : f32", "yield %r"]
TANH = ["%r = math.tanh %a0 : f32", "yield %r"]


def edges(text):
    module = parse_module(text)
    with module.context:
        block = function_blocks(module)[0]
        out = []
        for c in generics_in(block):
            out += [(e, legality(e)) for e in edges_into(c)]
        return module, out


def reasons(text):
    """Each edge's reason; every verdict's truth must agree with it (``bool`` of a refusal is False)."""
    module, es = edges(text)
    for _, lg in es:
        assert lg.ok is (lg.reason == "legal") and bool(lg) is lg.ok, lg
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


def _generic(v, ty, out, body):
    """``v`` (identity map) -> a new generic of the same shape: a one-input elementwise consumer."""
    return (f"%{out} = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
            f"affine_map<(d0, d1) -> (d0, d1)>], iterator_types = [\"parallel\", \"parallel\"]}} "
            f"ins({v} : {ty}) outs(%e : {ty}) {{\n^bb0(%a: f32, %o: f32):\n  %r = {body} %a : f32\n"
            f"  linalg.yield %r : f32\n}} -> {ty}")


def test_producer_in_another_block_of_the_same_function_is_refused():
    # Same parent op (the func), different blocks: refused although the parents match.
    ty = "tensor<4x8xf32>"
    text = (f"func.func @main(%x: {ty}) -> {ty} {{\n%e = tensor.empty() : {ty}\n{_generic('%x', ty, 0, 'math.exp')}\n"
            f"cf.br ^bb1\n^bb1:\n{_generic('%0', ty, 1, 'math.tanh')}\nreturn %1 : {ty}\n}}")
    module = parse_module(text)
    with module.context:
        consumer = generics_in(function_blocks(module)[0].owner.regions[0].blocks[1])[0]
        (edge,) = edges_into(consumer)
        assert edge.producer.parent == consumer.parent
        lg = legality(edge)
    assert (lg.ok, lg.reason) == (False, "producer and consumer are in different blocks") and not lg


def test_producer_with_two_results_is_refused():
    ty = "tensor<4x8xf32>"
    m = "affine_map<(d0, d1) -> (d0, d1)>"
    two = (f"%p:2 = linalg.generic {{indexing_maps = [{m}, {m}, {m}], iterator_types = [\"parallel\", \"parallel\"]}} "
           f"ins(%x : {ty}) outs(%e, %e : {ty}, {ty}) {{\n^bb0(%a: f32, %o: f32, %o2: f32):\n"
           f"  %r = math.exp %a : f32\n  linalg.yield %r, %a : f32, f32\n}} -> ({ty}, {ty})")
    text = (f"func.func @main(%x: {ty}) -> {ty} {{\n%e = tensor.empty() : {ty}\n{two}\n"
            f"{_generic('%p#0', ty, 1, 'math.tanh')}\nreturn %1 : {ty}\n}}")
    assert reasons(text) == ["producer has 2 results"]


def test_projected_result_map_is_refused():
    # Parallel loops d0, d1 but the result is indexed by d0 only: not a permutation.
    ty, row = tensor((4, 8), "f32"), tensor((4,), "f32")
    p = Program([("%x", ty)])
    v = p.generic([("%x", ty, ident(2))], row, amap(2, "d0"), ["parallel"] * 2, EXP)
    v = p.generic([(v, row, ident(1))], row, ident(1), ["parallel"], TANH)
    assert reasons(p.text(v, row)) == ["producer result map is not a permutation"]


def test_producer_body_op_with_one_region_is_refused():
    ty = tensor((4, 8), "f32")
    p = Program([("%x", ty)])
    v = p.generic([("%x", ty, ident(2))], ty, ident(2), ["parallel"] * 2,
                  ["%r = scf.execute_region -> f32 {", "  scf.yield %a0 : f32", "}", "yield %r"])
    v = p.generic([(v, ty, ident(2))], ty, ident(2), ["parallel"] * 2, TANH)
    assert reasons(p.text(v, ty)) == ["producer body op scf.execute_region has regions"]


def test_index_of_a_producer_dim_read_at_a_strided_position_is_refused():
    # The consumer reads the producer at 2*d0: the producer's linalg.index 0 has no consumer loop.
    t16, t8 = tensor((16,), "f32"), tensor((8,), "f32")
    p = Program([("%x", t16)])
    v = p.generic([("%x", t16, ident(1))], t16, ident(1), ["parallel"],
                  ["%i = linalg.index 0 : index", "%c = arith.index_cast %i : index to i32",
                   "%f = arith.sitofp %c : i32 to f32", "%r = arith.addf %a0, %f : f32", "yield %r"])
    v = p.generic([(v, t16, amap(1, "d0 * 2"))], t8, ident(1), ["parallel"], TANH)
    assert reasons(p.text(v, t8)) == ["linalg.index of a producer dim that is not a consumer loop"]


def _reduce(ins, loops, iters):
    """A sum over the last loops of ``ins`` (value, type, map) into a tensor<4xf32> indexed by d0."""
    row = tensor((4,), "f32")
    mul = ["%s = arith.mulf %a0, %a1 : f32", "%r = arith.addf %s, %o : f32"] if len(ins) == 2 else \
        ["%r = arith.addf %a0, %o : f32"]
    return ins, row, amap(loops, "d0"), iters, mul + ["yield %r"]


def test_reduction_loop_covered_only_by_the_fused_operand_is_refused():
    # The producer broadcasts x[d0] over d1; the consumer sums over d1: fused, nothing would give d1 its size.
    ty, row = tensor((4, 8), "f32"), tensor((4,), "f32")
    p = Program([("%x", row)])
    v = p.generic([("%x", row, amap(2, "d0"))], ty, ident(2), ["parallel"] * 2, EXP)
    v = p.generic(*_reduce([(v, ty, ident(2))], 2, ["parallel", "reduction"]))
    assert reasons(p.text(v, row)) == ["fusion would drop the size of a reduction loop"]


def test_reduction_loop_covered_by_another_input_before_the_output_is_legal():
    ty, row = tensor((4, 8), "f32"), tensor((4,), "f32")
    p = Program([("%x", row), ("%y", ty)])
    v = p.generic([("%x", row, amap(2, "d0"))], ty, ident(2), ["parallel"] * 2, EXP)
    v = p.generic(*_reduce([(v, ty, ident(2)), ("%y", ty, ident(2))], 2, ["parallel", "reduction"]))
    assert reasons(p.text(v, row)) == ["legal"]


def test_reduction_loops_covered_through_the_producers_inputs_are_legal():
    # Only the producer's input x gives d1 and d2 their sizes, once composed into the consumer's loops.
    t3, row = tensor((4, 8, 2), "f32"), tensor((4,), "f32")
    p = Program([("%x", t3)])
    v = p.generic([("%x", t3, ident(3))], t3, ident(3), ["parallel"] * 3, EXP)
    v = p.generic(*_reduce([(v, t3, ident(3))], 3, ["parallel", "reduction", "reduction"]))
    assert reasons(p.text(v, row)) == ["legal"]


def test_function_declarations_have_no_block_and_only_generics_are_generic():
    text = CORPUS["chain_f32"]() + "func.func private @ext(tensor<4xf32>) -> tensor<4xf32>\n"
    module = parse_module(text)
    with module.context:
        (block,) = function_blocks(module)
        ops = list(block.operations)
        assert [is_generic(op) for op in ops] == [op.operation.name == "linalg.generic" for op in ops]
        assert any(is_generic(op) for op in ops) and not all(is_generic(op) for op in ops)



DOUBLE_READ = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = math.exp %i : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  %b = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %a : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %r = arith.mulf %i, %j : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  return %b : tensor<8x16xf32>
}
"""


def test_a_consumer_reading_a_producer_twice_is_fused_only_when_recomputing_is_allowed():
    """Upstream refuses it; with recomputation each read is fused in turn (the kernel-group pass relies on
    it to inline index-built masks that a consumer reads twice)."""
    from costfuse.cost_models.always import Always
    from costfuse.fusion_pass import FusionPass
    from costfuse.reference import assert_same_semantics

    module = parse_module(DOUBLE_READ)
    with module.context:
        (block,) = function_blocks(module)
        (edge, _) = edges_into(generics_in(block)[1])
        assert not legality(edge)   # two uses of the result: upstream refuses
        assert legality(edge, allow_multi_use=True)
    FusionPass(Always(), allow_multi_use=True).run(module)
    after = str(module)
    assert after.count("linalg.generic") == 1
    assert_same_semantics(DOUBLE_READ, after, "main", seed=0)

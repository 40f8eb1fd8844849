"""Live values and Sethi-Ullman numbers: hand-built bodies with known answers,
then the same on real MLIR bodies."""

from __future__ import annotations

from costfuse.featurize.features import find_generic
from costfuse.featurize.liveness import Body, Node, body_of, live_intervals, max_live, pressure, sethi_ullman

from costfuse.ir import parse_module


def make_body(n_args: int, ops: list[tuple[str, tuple[int, ...]]], yields: tuple[int, ...],
              types: dict[int, str] | None = None) -> Body:
    """Ops define one value each (ids after the args, in order); ``types`` overrides f32."""
    nodes, next_id = [], n_args
    for name, operands in ops:
        nodes.append(Node(name, operands, (next_id,)))
        next_id += 1
    nodes.append(Node("linalg.yield", yields, ()))
    tys = tuple((types or {}).get(v, "f32") for v in range(next_id))
    return Body(n_args, tuple(nodes), tys, tuple(64 if t == "f64" else 32 for t in tys))


def test_unary_chain_keeps_one_value_live():
    body = make_body(1, [("math.exp", (0,)), ("math.tanh", (1,)), ("arith.negf", (2,))], (3,))
    assert max_live(body) == (1, 1)
    assert sethi_ullman(body) == 1


def test_binary_op_needs_both_operands():
    body = make_body(2, [("arith.addf", (0, 1))], (2,))
    assert max_live(body) == (2, 2)
    assert sethi_ullman(body) == 2


def test_balanced_tree_sethi_ullman_is_three():
    # t4 = a+b; t5 = c+d; t6 = t4+t5: in program order t4 is held while c, d load.
    body = make_body(4, [("arith.addf", (0, 1)), ("arith.addf", (2, 3)), ("arith.addf", (4, 5))], (6,))
    assert sethi_ullman(body) == 3
    assert max_live(body) == (3, 3)


def test_left_deep_tree_sethi_ullman_is_two():
    body = make_body(4, [("arith.addf", (0, 1)), ("arith.addf", (4, 2)), ("arith.addf", (5, 3))], (6,))
    assert sethi_ullman(body) == 2
    assert max_live(body)[0] == 2


def test_value_reused_far_away_stays_live():
    # x is loaded first and read again at the end, across a chain on y.
    ops = [("math.exp", (0,)), ("math.exp", (1,)), ("math.tanh", (3,)), ("math.sin", (4,)), ("arith.mulf", (5, 2))]
    body = make_body(2, ops, (6,))
    assert live_intervals(body)[2] == (1, 4)  # exp(x) lives from op 1 to its use in op 4
    assert max_live(body)[0] == 2


def test_constants_and_unused_args_are_not_registers():
    ops = [("arith.constant", ()), ("arith.mulf", (0, 2))]
    body = make_body(2, ops, (3,))  # arg 1 (the init) is never read
    assert max_live(body) == (1, 1)
    assert sethi_ullman(body) == 1


def test_f64_values_count_two_words():
    body = make_body(2, [("arith.addf", (0, 1))], (2,), types={0: "f64", 1: "f64", 2: "f64"})
    assert max_live(body) == (2, 4)


def test_multiple_yields_are_all_live_at_the_end():
    body = make_body(1, [("math.exp", (0,)), ("math.sin", (0,)), ("math.cos", (0,))], (1, 2, 3))
    assert max_live(body)[0] == 3
    assert sethi_ullman(body) == 3


BALANCED = """
#map = affine_map<(d0) -> (d0)>
func.func @f(%a: tensor<64xf32>, %b: tensor<64xf32>, %c: tensor<64xf32>, %d: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %0 = linalg.generic {indexing_maps = [#map, #map, #map, #map, #map], iterator_types = ["parallel"]}
      ins(%a, %b, %c, %d : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %w: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %s = arith.addf %x, %y : f32
    %t = arith.addf %z, %w : f32
    %u = arith.mulf %s, %t : f32
    %v = arith.addf %u, %one : f32
    linalg.yield %v : f32
  } -> tensor<64xf32>
  return %0 : tensor<64xf32>
}
"""


def test_body_of_reads_mlir_in_program_order():
    module = parse_module(BALANCED)
    with module.context:
        body = body_of(find_generic(module))
    assert body.n_args == 5
    assert [n.name for n in body.nodes] == ["arith.constant", "arith.addf", "arith.addf", "arith.mulf",
                                           "arith.addf", "linalg.yield"]
    assert body.nodes[1].operands == (0, 1)
    p = pressure(body)
    assert (p.max_live_values, p.max_live_words, p.sethi_ullman) == (3, 3, 3)


def test_sethi_ullman_of_constants_and_of_a_dead_subtree():
    const = [("arith.constant", ())]
    assert sethi_ullman(make_body(1, const, (1,))) == 0  # yields a constant: no register
    assert sethi_ullman(make_body(1, const + [("arith.addf", (1, 1))], (2,))) == 1  # from constants only: 1
    # a dead a+b needs 2, but the label is the terminator's: yielding a needs 1
    assert sethi_ullman(make_body(2, [("arith.addf", (0, 1))], (0,))) == 1


def test_a_result_less_op_before_the_terminator_counts_toward_the_label():
    # cmp(a, b) needs 2; cf.assert on it defines nothing; the yield of a needs 1: the body needs 2
    nodes = (Node("arith.cmpf", (0, 1), (2,)), Node("cf.assert", (2,), ()), Node("linalg.yield", (0,), ()))
    assert sethi_ullman(Body(2, nodes, ("f32", "f32", "i1"), (32, 32, 1))) == 2


def test_a_members_liveness_is_its_bodys_and_is_walked_once(monkeypatch):
    """``bodies_with_pressure`` gives each member's body and pressure, kept in the member: a formation that prices
    many candidate kernels of one op (sharing its Member) walks that op's body once."""
    import costfuse.featurize.liveness as liveness
    from costfuse.kernel import Member

    module = parse_module(BALANCED)
    with module.context:
        op = find_generic(module)
        walks = []
        real = liveness.body_of
        monkeypatch.setattr(liveness, "body_of", lambda g: walks.append(g) or real(g))
        member = Member(op, "full", 4, ())
        [(body, p)] = liveness.bodies_with_pressure([member])
        assert body == real(op) and p == pressure(real(op))
        assert liveness.bodies_with_pressure([member, member]) == [(body, p)] * 2 and len(walks) == 1
        other = Member(op, "full", 4, ())            # another Member of the same op: its own walk
        assert other == member and liveness.bodies_with_pressure([other]) == [(body, p)] and len(walks) == 2

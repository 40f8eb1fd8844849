"""``costfuse/rewrite.py`` on the cases the pass-level tests do not reach: a producer body that yields a value
captured from the function, ``linalg.index`` of a dim the consumer reads at a constant, the fused block's
argument locations.  Written against the survivors of the mutation check (experiments/results/mutation.md)."""

from contextlib import contextmanager

from helpers.corpus import Program, amap, ident, tensor

from costfuse.graph import body, edges_into, function_blocks, generics_in
from costfuse.ir import parse_module
from costfuse.rewrite import build_fused, commit, discard

T43, T4 = tensor((4, 3), "f32"), tensor((4,), "f32")


@contextmanager
def fused_edge(text: str):
    """(the only edge into the second generic, its detached fused op), freed on exit."""
    module = parse_module(text)
    with module.context:
        (edge,) = edges_into(generics_in(function_blocks(module)[0])[1])
        fused = build_fused(edge)
        try:
            yield edge, fused
        finally:
            discard(fused)


def test_producer_yielding_a_captured_constant_feeds_the_consumer():
    p = Program([("%x", T43)])
    p.raw("%cst = arith.constant 2.5 : f32")
    v = p.generic([("%x", T43, ident(2))], T43, ident(2), ["parallel"] * 2, ["yield %cst"])
    v = p.generic([(v, T43, ident(2))], T43, ident(2), ["parallel"] * 2, ["%r = math.tanh %a0 : f32", "yield %r"])
    module = parse_module(p.text(v, T43))
    with module.context:
        (edge,) = edges_into(generics_in(function_blocks(module)[0])[1])
        commit(edge, build_fused(edge))
        module.operation.verify()
        (fused,) = generics_in(function_blocks(module)[0])
        ops = [op for op in body(fused).operations]
        assert [op.name for op in ops] == ["math.tanh", "linalg.yield"]
        assert ops[0].operands[0].owner.name == "arith.constant"


def test_index_of_a_dim_read_at_a_constant_becomes_that_constant():
    # The consumer reads column 2 of the producer: its linalg.index 1 is 2, its linalg.index 0 the consumer's d0.
    p = Program([("%x", T43)])
    v = p.generic([("%x", T43, ident(2))], T43, ident(2), ["parallel"] * 2,
                  ["%i = linalg.index 1 : index", "%j = linalg.index 0 : index", "%s = arith.addi %i, %j : index",
                   "%c = arith.index_cast %s : index to i32", "%f = arith.sitofp %c : i32 to f32",
                   "%r = arith.addf %a0, %f : f32", "yield %r"])
    v = p.generic([(v, T43, amap(1, "d0, 2"))], T4, ident(1), ["parallel"], ["%r = math.tanh %a0 : f32", "yield %r"])
    with fused_edge(p.text(v, T4)) as (_, fused):
        ops = list(body(fused).operations)
        assert [op.name for op in ops[:3]] == ["arith.constant", "linalg.index", "arith.addi"]
        assert str(ops[0].attributes["value"]) == "2 : index"
        assert str(ops[1].attributes["dim"]) == "0 : i64"


def test_fused_block_arguments_keep_their_source_locations():
    p = Program([("%x", T43)])
    v = p.generic([("%x", T43, ident(2))], T43, ident(2), ["parallel"] * 2, ["%r = math.exp %a0 : f32", "yield %r"])
    v = p.generic([(v, T43, ident(2))], T43, ident(2), ["parallel"] * 2, ["%r = math.tanh %a0 : f32", "yield %r"])
    with fused_edge(p.text(v, T43)) as (edge, fused):
        want = [body(edge.producer).arguments[0], body(edge.consumer).arguments[1]]  # x's, then the init's
        got = [str(a.location) for a in body(fused).arguments]
        assert got == [str(a.location) for a in want] and "unknown" not in " ".join(got)

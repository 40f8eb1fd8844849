"""The pass's walk (``costfuse/fusion_pass.py``) under a scripted cost model: which edges it asks about, in
which order, how often, with which candidate, and what it records.  Written against the survivors of the
mutation check (experiments/results/mutation.md)."""

from dataclasses import dataclass, field

from helpers.corpus import CORPUS, Program, ident, tensor
from iree.compiler import ir
from iree.compiler.passmanager import PassManager

from costfuse.cost_models.always import Always
from costfuse.fusion_pass import DecisionRecord, FusionPass
from costfuse.graph import function_blocks, generics_in
from costfuse.ir import parse_module
from costfuse.policy import Decision, EdgePolicy

TY = tensor((4, 8), "f32")


def _label(op) -> str:
    return ir.StringAttr(op.attributes["costfuse.label"]).value


@dataclass
class Scripted(EdgePolicy):
    """Refuses the producers labelled in ``refuse``; logs each question and each (memoized) consumer analysis."""

    name = "scripted"
    refuse: frozenset = frozenset()
    asked: list = field(default_factory=list)
    analysed: list = field(default_factory=list)

    def decide(self, candidate):
        self.asked.append((_label(candidate.producer), _label(candidate.consumer), candidate.keys))
        candidate.per_op("consumer", self._analyse)
        return Decision(candidate.keys[0] not in self.refuse, "scripted")

    def _analyse(self, op):
        self.analysed.append(_label(op))


def _fan_in() -> str:
    """g1 = exp(x), g2 = tanh(x), g3 = g1 + g2."""
    p = Program([("%x", TY)])
    a = p.generic([("%x", TY, ident(2))], TY, ident(2), ["parallel"] * 2, ["%r = math.exp %a0 : f32", "yield %r"])
    b = p.generic([("%x", TY, ident(2))], TY, ident(2), ["parallel"] * 2, ["%r = math.tanh %a0 : f32", "yield %r"])
    c = p.generic([(a, TY, ident(2)), (b, TY, ident(2))], TY, ident(2), ["parallel"] * 2,
                  ["%r = arith.addf %a0, %a1 : f32", "yield %r"])
    return p.text(c, TY)


def _verdicts(records):
    return [(r.producer, r.consumer, r.legal, r.fuse) for r in records]


def test_a_refused_producer_is_asked_once_and_the_next_edge_still_fuses():
    model = Scripted(refuse=frozenset({"g1"}))
    records = FusionPass(model).run(parse_module(_fan_in()))
    assert model.asked == [("g1", "g3", ("g1", "g3", "g1+g3")), ("g2", "g3", ("g2", "g3", "g2+g3"))]
    assert model.analysed == ["g3"]  # the consumer's analysis is memoized across its two candidates
    assert _verdicts(records) == [("g1", "g3", True, False), ("g2", "g3", True, True)]


def test_a_producer_read_twice_is_skipped_once_and_later_operands_are_still_visited():
    # g3 reads g1 through operands 0 and 1 (two uses: illegal), then g2 through operand 2.
    p = Program([("%x", TY)])
    a = p.generic([("%x", TY, ident(2))], TY, ident(2), ["parallel"] * 2, ["%r = math.exp %a0 : f32", "yield %r"])
    b = p.generic([("%x", TY, ident(2))], TY, ident(2), ["parallel"] * 2, ["%r = math.tanh %a0 : f32", "yield %r"])
    c = p.generic([(a, TY, ident(2)), (a, TY, ident(2)), (b, TY, ident(2))], TY, ident(2), ["parallel"] * 2,
                  ["%s = arith.addf %a0, %a1 : f32", "%r = arith.mulf %s, %a2 : f32", "yield %r"])
    records = FusionPass(Always()).run(parse_module(p.text(c, TY)))
    # Once g2 is fused, the fused op reads g1 once (duplicate operands are merged): now legal.
    assert _verdicts(records) == [("g1", "g3", False, False), ("g2", "g3", True, True),
                                  ("g1", "g2+g3", True, True)]
    assert records[0].reason == "producer result has 2 uses"


def test_an_unverifiable_fusion_is_skipped_and_the_next_edge_still_fuses():
    # g1 only writes its init: fusing it would leave non-invertible maps.  g2 is an ordinary producer.
    text = """func.func @f(%a0 : tensor<50xi64>, %a1 : tensor<50xi32>) -> tensor<50xi32> {
  %c1 = arith.constant 1 : i32
  %e = tensor.empty() : tensor<50xi32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%a0 : tensor<50xi64>) {
      ^bb0(%o: i64):
        %i = linalg.index 0 : index
        %c = arith.index_cast %i : index to i64
        linalg.yield %c : i64
      } -> tensor<50xi64>
  %p = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a1 : tensor<50xi32>) outs(%e : tensor<50xi32>) {
      ^bb0(%v: i32, %o: i32):
        %s = arith.addi %v, %c1 : i32
        linalg.yield %s : i32
      } -> tensor<50xi32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>],
      iterator_types = ["parallel", "parallel"]} ins(%0, %p : tensor<50xi64>, tensor<50xi32>) outs(%e : tensor<50xi32>) {
      ^bb0(%k: i64, %q: i32, %o: i32):
        %j = arith.index_cast %k : i64 to index
        %x = tensor.extract %a1[%j] : tensor<50xi32>
        %r = arith.addi %x, %q : i32
        linalg.yield %r : i32
      } -> tensor<50xi32>
  return %2 : tensor<50xi32>
}"""
    records = FusionPass(Always()).run(parse_module(text))
    assert _verdicts(records)[:2] == [("g1", "g3", False, False), ("g2", "g3", True, True)]
    assert records[0].reason.startswith("fused op would not verify")


def test_multi_use_producer_is_recomputed_only_when_allowed():
    # The diamond g1 -> {g2, g3} -> g4: with recomputation g1 is fused into g2, kept alive for g3, fused again.
    module = parse_module(CORPUS["multi_use"]())
    records = FusionPass(Always(), allow_multi_use=True).run(module)
    assert _verdicts(records) == [("g1", "g2", True, True), ("g1", "g3", True, True),
                                  ("g1+g2", "g4", True, True), ("g1+g3", "g1+g2+g4", True, True)]
    module.operation.verify()
    with module.context:
        (fused,) = generics_in(function_blocks(module)[0])
        assert str(fused.attributes["costfuse.chain_length"]) == "5 : i64"  # exp counted twice
    records = FusionPass(Always()).run(parse_module(CORPUS["multi_use"]()))
    assert _verdicts(records)[:2] == [("g1", "g2", False, False), ("g1", "g3", False, False)]


def test_each_run_returns_only_its_own_decisions():
    fusion = FusionPass(Always())
    first = fusion.run(parse_module(_fan_in()))
    second = fusion.run(parse_module(CORPUS["chain_f32"]()))
    assert len(first) == 2 and len(second) == 4 and fusion.decisions == first + second


def test_pass_registers_under_its_argument():
    with ir.Context():
        assert str(FusionPass().add_to(PassManager("builtin.module"))) == "builtin.module(costfuse-fuse)"


def test_decision_line_rounds_floats_only():
    record = DecisionRecord("g1", "g2", True, False, "why", {"t": 1 / 3, "n": 123456})
    assert record.line() == "keep g1 -> g2: why [t=0.3333 n=123456]"
    assert DecisionRecord("g1", "g2", False, False, "no").line() == "skip g1 -> g2: no"


def test_producer_read_twice_is_fused_through_both_reads_when_recomputation_is_allowed():
    # After the first read is fused the fused op still reads g1: the same producer is asked again.
    p = Program([("%x", TY)])
    a = p.generic([("%x", TY, ident(2))], TY, ident(2), ["parallel"] * 2, ["%r = math.exp %a0 : f32", "yield %r"])
    c = p.generic([(a, TY, ident(2)), (a, TY, ident(2))], TY, ident(2), ["parallel"] * 2,
                  ["%r = arith.addf %a0, %a1 : f32", "yield %r"])
    module = parse_module(p.text(c, TY))
    records = FusionPass(Always(), allow_multi_use=True).run(module)
    assert _verdicts(records) == [("g1", "g2", True, True), ("g1", "g1+g2", True, True)]
    module.operation.verify()
    with module.context:
        assert len(generics_in(function_blocks(module)[0])) == 1


def test_pipeline_cleans_up_by_default_and_returns_each_runs_own_records():
    from costfuse.fusion_pass import run_pipeline, run_with_cleanup

    fusion = FusionPass(Always())
    module = parse_module(CORPUS["chain_f32"]())
    first = run_with_cleanup(module, fusion, fusion.decisions)  # cleanup by default: cse merges the empties
    assert len(first) == 4 and str(module).count("tensor.empty") == 1
    second = run_pipeline(parse_module(_fan_in()), fusion)
    assert len(second) == 2 and fusion.decisions == first + second
    kept = parse_module(CORPUS["chain_f32"]())
    run_with_cleanup(kept, FusionPass(Always()), [], cleanup=False)
    assert str(kept).count("tensor.empty") > 1

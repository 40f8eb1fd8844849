"""The threshold model's boundaries, and its decisions inside the pass."""

import math
from dataclasses import dataclass

import pytest
from helpers.corpus import CORPUS

from costfuse.cost_models.always import Always
from costfuse.cost_models.threshold import Threshold
from costfuse.fusion_pass import FusionPass
from costfuse.graph import function_blocks, generics_in
from costfuse.ir import parse_module
from costfuse.kernel import analyze_kernel
from costfuse.launch import KernelLaunch, heuristic_launch
from costfuse.policy import Decision, EdgePolicy, FusionCandidate, GroupEstimate, GroupPolicy, MergeVerdict
from costfuse.upstream import count_generics


def fuse(text, model):
    module = parse_module(text)
    decisions = FusionPass(model).run(module)
    return module, decisions


@pytest.mark.parametrize("max_chain, expected", [(1, 5), (2, 3), (3, 2), (5, 1), (8, 1)])
def test_chain_length_limit(max_chain, expected):
    module, _ = fuse(CORPUS["chain_f32"](), Threshold(max_chain_length=max_chain, max_body_ops=100))
    assert count_generics(module) == expected


@pytest.mark.parametrize("max_ops, expected", [(1, 5), (2, 3), (3, 2), (4, 2), (5, 1)])
def test_body_op_limit(max_ops, expected):
    module, _ = fuse(CORPUS["chain_f32"](), Threshold(max_chain_length=100, max_body_ops=max_ops))
    assert count_generics(module) == expected


def test_decisions_explain_themselves():
    _, decisions = fuse(CORPUS["chain_f32"](), Threshold(max_chain_length=2, max_body_ops=100))
    lines = [d.line() for d in decisions]
    assert lines[0] == "fuse g1 -> g2: chain length 2 <= 2, body ops 2 <= 100 [chain_length=2 body_ops=2]"
    assert lines[1] == "keep g1+g2 -> g3: chain length 3 > 2 [chain_length=3 body_ops=3]"
    assert all(d.legal for d in decisions)


def test_always_fuses_every_legal_edge():
    module, decisions = fuse(CORPUS["chain_f32"](), Always())
    assert [d.fuse for d in decisions] == [True] * 4
    assert count_generics(module) == 1


def test_threshold_rejects_nonsense():
    with pytest.raises(ValueError):
        Threshold(max_chain_length=0)


# --- the edge-level answers in detail -----------------------------------------------------------
def test_always_explains_itself():
    _, decisions = fuse(CORPUS["chain_f32"](), Always())
    assert decisions[0].line() == "fuse g1 -> g2: always fuse a legal edge [chain_length=2]"


def test_threshold_refusals_are_false_with_reason_and_numbers():
    _, by_chain = fuse(CORPUS["chain_f32"](), Threshold(max_chain_length=2, max_body_ops=100))
    _, by_ops = fuse(CORPUS["chain_f32"](), Threshold(max_chain_length=100, max_body_ops=2))
    for decisions, reason in ((by_chain, "chain length 3 > 2"), (by_ops, "body ops 3 > 2")):
        keep = decisions[1]
        assert (keep.fuse, keep.reason, keep.estimates) == (False, reason, {"chain_length": 3, "body_ops": 3})
        assert keep.fuse is False


@pytest.mark.parametrize("kwargs", [{"max_chain_length": 0}, {"max_body_ops": 0}])
def test_threshold_names_both_options_when_one_is_below_one(kwargs):
    with pytest.raises(ValueError, match="^threshold: --max-chain-length and --max-body-ops must be >= 1$"):
        Threshold(**kwargs)


def test_per_op_memoizes_per_name_and_role_and_only_with_names():
    module = parse_module(CORPUS["chain_f32"]())
    with module.context:
        a, b = generics_in(function_blocks(module)[0])[:2]
        calls = []

        def same(op):
            calls.append(op)
            return op

        c = FusionCandidate(a, b, b, ("g1", "g2", "g1+g2"), memo={})
        assert c.per_op("producer", same) is a and c.per_op("consumer", same) is b
        assert c.per_op("producer", same) is a and len(calls) == 2  # the second producer analysis is memoized
        for unnamed in (FusionCandidate(a, b, b), FusionCandidate(a, b, b, None, memo={})):
            assert unnamed.per_op("producer", same) is a and unnamed.per_op("producer", same) is a
        assert len(calls) == 6 and FusionCandidate(a, b, b, None, memo={}).memo == {}


# --- the group-level answers (--fusion groups) --------------------------------------------------
def _chain_kernel(*members):
    """The kernel of ``members`` of corpus ``chain_f32`` (5 generics, one body op each); keeps the module alive."""
    module = parse_module(CORPUS["chain_f32"]())
    ops = generics_in(function_blocks(module)[0])
    return module, analyze_kernel([ops[i] for i in members])


def _two_pass_kernel():
    """x - rowmax(x) over 4 rows of 8192: the heuristic loops, re-reading x in the second pass."""
    from costfuse.data.mlir_text import Program, amap, ident, tensor

    ty, rty = tensor((4, 8192), "f32"), tensor((4,), "f32")
    p = Program([("%x", ty)])
    m = p.generic([("%x", ty, ident(2))], rty, amap(2, "d0"), ["parallel", "reduction"],
                  ["%r = arith.maximumf %a0, %o : f32", "yield %r"])
    d = p.generic([("%x", ty, ident(2)), (m, rty, amap(2, "d0"))], ty, ident(2), ["parallel"] * 2,
                  ["%r = arith.subf %a0, %a1 : f32", "yield %r"])
    module = parse_module(p.text(d, ty))
    return module, analyze_kernel(generics_in(function_blocks(module)[0]))


@pytest.mark.parametrize("model", [Always(), Threshold()])
@pytest.mark.parametrize("kernel", [lambda: _chain_kernel(0, 1), _two_pass_kernel])
def test_always_and_threshold_take_the_heuristic_config(model, kernel):
    _module, shape = kernel()
    est = model.best_config(shape)
    launch = heuristic_launch(shape)
    assert (est.launch, est.issued_bytes, est.reason) == (launch, shape.issued_bytes(launch.mode), "heuristic config")
    assert math.isnan(est.time_s) and math.isnan(est.regs) and est.spill_bytes == 0.0
    if launch.mode == "looped":  # the bytes are the looped kernel's, which re-reads x
        assert est.issued_bytes > shape.issued_bytes("persistent")


def test_always_merges_every_legal_group():
    _module, shape = _chain_kernel(0, 1, 2)
    assert Always().merge_verdict(None, None, None, shape) == MergeVerdict(True, 0.0, "always: the largest legal group")


@pytest.mark.parametrize("limits, verdict", [
    ((2, 100), MergeVerdict(False, 0.0, "group size 3 > 2")),
    ((100, 2), MergeVerdict(False, 0.0, "body ops 3 > 2")),
    ((3, 3), MergeVerdict(True, 0.0, "group size 3 <= 3, body ops 3 <= 3")),
])
def test_threshold_limits_the_merged_group(limits, verdict):
    _module, shape = _chain_kernel(0, 1, 2)
    assert Threshold(*limits).merge_verdict(None, None, None, shape) == verdict


@dataclass
class Timed(EdgePolicy, GroupPolicy):
    """The base class's group rules only: no ``margin`` field, and ``decide`` echoes its candidate."""

    def best_config(self, shape):
        return None

    name = "timed"

    def decide(self, candidate):
        return Decision(True, str(candidate))


@dataclass
class TimedWithMargin(Timed):
    margin: float = 0.5


def _est(t: float) -> GroupEstimate:
    return GroupEstimate(KernelLaunch("pointwise", 1024, 1, 4), t, 0)


def test_default_merge_rule_reports_microseconds():
    a, b = _est(1.0), _est(2.0)  # seconds: large enough that a wrong unit shows in two decimals
    assert Timed().merge_verdict(a, b, _est(2.5), None) == MergeVerdict(
        True, 0.5, "saves 500000.00 us (2500000.00 vs 3000000.00)")
    assert Timed().merge_verdict(a, b, _est(4.0), None) == MergeVerdict(
        False, -1.0, "slower merged: 4000000.00 us vs 3000000.00 apart")


def test_default_merge_rule_merges_when_no_slower_and_honours_a_margin():
    a, b = _est(0.25e-6), _est(0.5e-6)
    assert Timed().merge_verdict(a, b, _est(0.75e-6), None) == MergeVerdict(True, 0.0, "saves 0.00 us (0.75 vs 0.75)")
    slower = Timed().merge_verdict(a, b, _est(1e-6), None)
    assert (slower.merge, slower.reason) == (False, "slower merged: 1.00 us vs 0.75 apart")
    assert slower.priority == pytest.approx(-0.25e-6)
    # A margin of 0.5 asks for half the time back: 0.375 us merged passes, 0.5 us does not.
    assert TimedWithMargin().merge_verdict(a, b, _est(0.375e-6), None).merge
    verdict = TimedWithMargin().merge_verdict(a, b, _est(0.5e-6), None)
    assert not verdict.merge and verdict.priority == pytest.approx(0.25e-6)


def test_group_estimate_line_and_the_base_defaults():
    est = GroupEstimate(KernelLaunch("pointwise", 1024, 1, 4), 12.5e-6, 3_000_000, regs=40.0, spill_bytes=16.0)
    assert est.line() == "pointwise x1024 r1 w4, regs 40, spill 16 B, issued 3.000 MB, dram not estimated, 12.50 us"
    big = GroupEstimate(KernelLaunch("pointwise", 1024, 1, 4), 10.0, 10**10)
    assert big.line() == "pointwise x1024 r1 w4, regs not estimated, spill 0 B, issued 10000.000 MB, dram not estimated, 10000000.00 us"
    assert _est(1e-6).line() == "pointwise x1024 r1 w4, regs not estimated, spill 0 B, issued 0.000 MB, dram not estimated, 1.00 us"
    with pytest.raises(TypeError, match="best_config"):   # a group policy must say how it picks a config
        type("NoConfig", (GroupPolicy,), {"name": "noconfig"})()
    assert Timed().decide_batch(["a", "b"]) == [Decision(True, "a"), Decision(True, "b")]



def test_default_recompute_rule_compares_both_kernels_before_and_after():
    a, b = _est(1.0), _est(2.0)  # seconds
    assert Timed().recompute_verdict(a, b, _est(0.5), _est(2.5), None) == MergeVerdict(
        True, 0.0, "recompute saves 0.00 us")
    assert Timed().recompute_verdict(a, b, None, _est(2.5), None) == MergeVerdict(
        True, 0.5, "recompute saves 500000.00 us; the producer's kernel goes")
    assert Timed().recompute_verdict(a, b, _est(1.0), _est(2.5), None) == MergeVerdict(
        False, -0.5, "recompute is slower: 3500000.00 us vs 3000000.00")
    assert Timed().recompute_verdict(a, b, None, _est(4.0), None) == MergeVerdict(
        False, -1.0, "recompute is slower: 4000000.00 us vs 3000000.00; the producer's kernel goes")
    # a margin of 0.5: 2.5 s after against 3 s before is not enough
    assert not TimedWithMargin().recompute_verdict(a, b, None, _est(2.5), None).merge
    assert TimedWithMargin().recompute_verdict(a, b, None, _est(1.5), None).merge


def test_always_and_threshold_store_rather_than_recompute():
    a = _est(1.0)
    assert Always().recompute_verdict(a, a, a, a, None) == MergeVerdict(
        False, 0.0, "always stores a value another kernel reads (upstream recomputes none)")
    assert Threshold().recompute_verdict(a, a, a, a, None) == MergeVerdict(
        False, 0.0, "threshold stores a value another kernel reads")

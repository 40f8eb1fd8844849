"""The policy seam's defaults (``costfuse/policy.py``): the verdicts every group policy inherits, the lines
``--explain`` prints, and the estimates of kernels no policy prices.

Written for the mutation check's survivors (``experiments/results/mutation.md``)."""

import math
from types import SimpleNamespace

import pytest

from costfuse.launch import KernelLaunch, heuristic_launch
from costfuse.policy import GroupEstimate, GroupPolicy, MergeVerdict, WeighedConfig, microseconds

LAUNCH = KernelLaunch("persistent", 1, 1024, 4)


class Fixed(GroupPolicy):
    """A policy whose only own decision is that it has none: what it inherits is under test."""

    name = "fixed"

    def __init__(self, margin: float = 0.0):
        self.margin = margin

    def best_config(self, shape):
        return None


def _est(us: float) -> GroupEstimate:
    return GroupEstimate(LAUNCH, us * 1e-6, 0)


def test_a_weighed_config_line_says_what_was_not_estimated():
    known = WeighedConfig(LAUNCH, 12.5e-6, 3_000_000, 1_500_000, 40.0, 8.0, 0.25, "picked: fastest")
    assert known.line() == ("  * persistent x1 r1024 w4      P(spill) 0.25  regs  40  spill 8 B  issued 3.000 MB  "
                            "dram 1.500 MB  12.50 us  picked: fastest")
    unknown = WeighedConfig(LAUNCH, float("nan"), 2_000_000, None, float("nan"), float("nan"), None, "slower")
    assert unknown.line() == ("    persistent x1 r1024 w4      P(spill)  -    regs  ?  spill ? B  issued 2.000 MB  "
                              "dram ?  time ?  slower")


def test_a_group_estimate_line_gives_dram_in_megabytes():
    est = GroupEstimate(LAUNCH, 1e-6, 4_000_000, dram_bytes=2_500_000)
    assert est.line().endswith("issued 4.000 MB, dram 2.500 MB, 1.00 us")
    assert GroupEstimate(LAUNCH, 1e-6, 0, dram_bytes=10**9).line().endswith("dram 1000.000 MB, 1.00 us")


def test_a_weighed_config_line_keeps_its_units_at_scale():
    big = WeighedConfig(LAUNCH, 1.0, 10**9, 10**9, 40.0, 0.0, 0.0, "slower")
    assert "issued 1000.000 MB  dram 1000.000 MB  1000000.00 us  slower" in big.line()


@pytest.mark.parametrize("merged_us, verdict", [
    (9.0, (True, 1e-6, "saves 1.00 us (9.00 vs 10.00)")),
    (9.95, (False, 0.05e-6, "saves less than the margin 0.01: 9.95 us vs 10.00 apart")),
    (10.0, (False, 0.0, "saves less than the margin 0.01: 10.00 us vs 10.00 apart")),
    (10.5, (False, -0.5e-6, "slower merged: 10.50 us vs 10.00 apart")),
])
def test_merging_must_save_the_margin_and_says_by_how_much(merged_us, verdict):
    v = Fixed(margin=0.01).merge_verdict(_est(4.0), _est(6.0), _est(merged_us), None)
    assert (v.merge, v.reason) == (verdict[0], verdict[2]) and v.priority == pytest.approx(verdict[1], abs=1e-15)


@pytest.mark.parametrize("after_us, a_after, verdict", [
    (9.0, True, (True, 1e-6, "recompute saves 1.00 us")),
    (9.0, False, (True, 1e-6, "recompute saves 1.00 us; the producer's kernel goes")),
    (10.0, True, (False, 0.0, "recompute saves nothing: 10.00 us either way")),
    (9.95, True, (False, 0.05e-6, "recompute saves less than the margin 0.01: 9.95 us vs 10.00")),
    (10.5, False, (False, -0.5e-6, "recompute is slower: 10.50 us vs 10.00; the producer's kernel goes")),
])
def test_recomputing_must_save_the_margin_and_says_whether_the_producer_goes(after_us, a_after, verdict):
    """Before: ``a`` 4 us + ``b`` 6 us.  After: ``b`` takes the rest, ``a`` 2 us or gone."""
    a_then = _est(2.0) if a_after else None
    b_then = _est(after_us - 2.0 if a_after else after_us)
    v = Fixed(margin=0.01).recompute_verdict(_est(4.0), _est(6.0), a_then, b_then, None)
    assert (v.merge, v.reason) == (verdict[0], verdict[2]) and v.priority == pytest.approx(verdict[1], abs=1e-15)


def test_a_policy_merges_nothing_after_forming_unless_it_says_so():
    assert not Fixed.multi_output_fusion
    v = Fixed().multi_output_verdict("siblings", _est(1.0), _est(1.0), _est(1.0), None, ())
    assert v == MergeVerdict(False, 0.0, "fixed merges no kernels after forming")


def test_a_refused_kernel_runs_at_the_heuristic_config_with_its_bytes_there():
    shape = SimpleNamespace(pointwise=False, n_rows=64, n=1024, issued_bytes=lambda mode: {"persistent": 500}[mode],
                            dram_bytes_at=lambda launch, target: 300 if launch.mode == "persistent" else None)
    est = Fixed().refused_estimate(shape)
    assert est.launch == heuristic_launch(shape) and est.launch.mode == "persistent"
    assert (est.issued_bytes, est.dram_bytes, est.reason) == (500, 300, "fixed accepts no config: heuristic config")
    assert math.isnan(est.time_s)


@pytest.mark.parametrize("a, b, want", [
    (1.234e-6, 5.678e-6, ("1.23", "5.68")),
    (1.2341e-6, 1.2349e-6, ("1.234", "1.235")),
    (1.23451e-6, 1.23459e-6, ("1.2345", "1.2346")),
    (1.234561e-6, 1.234564e-6, ("1.23", "1.23")),
    (1.0, 1.0, ("1000000.00", "1000000.00")),
])
def test_times_print_with_as_few_decimals_as_tell_them_apart(a, b, want):
    assert microseconds(a, b) == want

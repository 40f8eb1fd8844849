"""The per-arch target table and the ``analytical`` cost model (roofline + launch + liveness spills)."""

from __future__ import annotations


from dataclasses import replace

import pytest
from costfuse.launch import heuristic_config
from costfuse.data.lowering.generic import lower_generic
from costfuse.data.mlir_text import Program, ident, tensor

from costfuse.cli import opt_main
from costfuse.cost_models import policy_class
from costfuse.cost_models.analytical import (
    WIDE_ELEMS_PER_THREAD, Analytical, _us, estimate_spill_bytes, kernel_features, kernel_time, launch_config_for,
    time_rule,
)
from costfuse.fusion_pass import FusionPass
from costfuse.graph import function_blocks, generics_in
from costfuse.ir import parse_module
from costfuse.policy import Decision, GroupEstimate
from costfuse.targets import HBM_LATENCY_S, TARGETS, get_target
from helpers.analytical_modules import _f, candidate, chain_module, pressure_into_reduction_module, row_reduce_module


def wide_fan_in_module(n: int = 24, shape=(1024, 1024)) -> str:
    """An exp producer feeding a consumer that holds ``n`` exp'd inputs live before summing them."""
    ty, m = tensor(shape, "f32"), ident(2)
    p = Program([(f"%x{i}", ty) for i in range(n)])
    first = p.generic([("%x0", ty, m)], ty, m, ["parallel"] * 2, ["%r = math.exp %a0 : f32", "yield %r"])
    body = [f"%e{i} = math.exp %a{i} : f32" for i in range(n)]
    acc = "%e0"
    for i in range(1, n):
        body.append(f"%s{i} = arith.addf {acc}, %e{i} : f32")
        acc = f"%s{i}"
    body.append(f"yield {acc}")
    ins = [(first, ty, m)] + [(f"%x{i}", ty, m) for i in range(1, n)]
    return p.text(p.generic(ins, ty, m, ["parallel"] * 2, body), ty)


# --- targets ----------------------------------------------------------------------
def test_target_table_has_the_documented_h200_row():
    t = get_target("sm_90")
    assert (t.hbm_bytes_per_s, t.l2_bytes, t.sms, t.regs_per_sm, t.max_regs_per_thread) == (
        4.8e12, 60 * 2**20, 132, 65536, 255)
    assert set(TARGETS) == {"sm_80", "sm_90", "sm_100"}
    assert get_target("90") is t and get_target("sm_90a") is t and get_target("SM_100").sms == 148
    assert [t.reg_cap(w) for w in (4, 8, 16, 32)] == [255, 255, 128, 64]  # docs/design.md §5's .reqntid caps
    with pytest.raises(ValueError, match="unknown arch"):
        get_target("sm_75")


def test_each_arch_names_its_hbm_latency_and_the_bytes_in_flight_that_saturate_hbm():
    """Little's law (issue #29): HBM reaches its bandwidth with bandwidth x loaded latency bytes in flight;
    one named latency per arch (targets.HBM_LATENCY_S), 600 ns estimates on every row."""
    assert set(HBM_LATENCY_S) == set(TARGETS)
    for arch, t in TARGETS.items():
        assert t.hbm_latency_s == HBM_LATENCY_S[arch] == 600e-9
    assert get_target("sm_90").bytes_to_saturate == pytest.approx(2.88e6, rel=1e-12)       # 4.8 TB/s x 600 ns
    assert get_target("sm_80").bytes_to_saturate == pytest.approx(1.2234e6, rel=1e-12)     # 2.039 TB/s
    assert get_target("sm_100").bytes_to_saturate == pytest.approx(4.8e6, rel=1e-12)       # 8.0 TB/s
    slow = replace(get_target("sm_90"), hbm_latency_s=1.2e-6)
    assert slow.bytes_to_saturate == pytest.approx(5.76e6, rel=1e-12)


# --- launch configs ---------------------------------------------------------------
@pytest.mark.parametrize("text", [chain_module(3), row_reduce_module(), row_reduce_module(8, 16384)])
def test_heuristic_policy_is_the_lowerings_config(text):
    module = parse_module(text)
    with module.context:
        for op in generics_in(function_blocks(module)[0]):
            f = kernel_features(op)
            assert lower_generic(op).config.XBLOCK == f["xblock"]
            low = lower_generic(op).config
            assert (low.XBLOCK, low.RBLOCK, low.num_warps) == (f["xblock"], f["rblock"], f["num_warps"])


def test_wide_policy_widens_xblock_to_32_elements_per_thread():
    h = heuristic_config(1 << 20)
    w = launch_config_for(1 << 20, 1, "wide")
    assert (w.XBLOCK, w.RBLOCK, w.num_warps) == (h.XBLOCK * 4, 1, h.num_warps)
    assert w.XBLOCK / (32 * w.num_warps) == WIDE_ELEMS_PER_THREAD
    r = launch_config_for(1024, 768, "wide")  # persistent reduction: 16 elements per thread -> 32
    hr = heuristic_config(1024, 768)
    assert (r.RBLOCK, r.num_warps, r.XBLOCK) == (hr.RBLOCK, hr.num_warps, hr.XBLOCK * 2)
    small = launch_config_for(100, 1, "wide")  # 4 elements per thread -> at most 4x wider
    assert small.XBLOCK == heuristic_config(100).XBLOCK * 4
    with pytest.raises(ValueError, match="tile policy"):
        launch_config_for(1024, 1, "huge")


def test_memory_bound_kernel_costs_bytes_over_bandwidth_plus_launch():
    t = get_target("sm_90")
    k = kernel_time(_f(), t)
    assert k.memory_s == pytest.approx((8 << 20) / 4.8e12)
    assert k.compute_s < k.memory_s and k.spill_s == 0
    assert k.total_s == pytest.approx(k.memory_s + 1e-6)


def test_transcendentals_and_f64_raise_the_compute_term():
    t = get_target("sm_90")
    f32 = kernel_time(_f(n_transcendental=100), t)
    f64 = kernel_time(_f(n_transcendental=100, compute_dtype_bits=64), t)
    assert f32.compute_s == pytest.approx((1 << 20) * 801 / 67e12)
    assert f64.compute_s == pytest.approx(2 * f32.compute_s)
    assert f32.compute_s > f32.memory_s  # compute-bound now


def test_spill_penalty_starts_past_the_register_cap():
    t = get_target("sm_90")
    assert estimate_spill_bytes(_f(live_regs_est=255), t) == 0
    assert estimate_spill_bytes(_f(live_regs_est=300), t) == 8 * 45
    assert estimate_spill_bytes(_f(live_regs_est=200, num_warps=16), t) == 8 * 72  # cap 128 at 16 warps
    k = kernel_time(_f(live_regs_est=300), t)
    assert k.spill_s == pytest.approx(8 * 45 * 1024 * 128 / 4.8e12)


def test_time_rule_counts_a_surviving_producer_and_the_margin():
    assert time_rule(1.0, 1.0, 1.0, survives=False, margin=0.0) == (True, 1.0, 2.0)
    assert time_rule(1.9, 1.0, 1.0, survives=False, margin=0.1)[0] is False
    ok, after, before = time_rule(1.5, 1.0, 1.0, survives=True, margin=0.0)
    assert (ok, after) == (False, 2.5)


# --- decisions on IR --------------------------------------------------------------
def test_analytical_fuses_a_same_shape_chain():
    module = parse_module(chain_module(4))
    decisions = FusionPass(Analytical()).run(module)
    assert [d.fuse for d in decisions] == [True] * 3
    assert all("roofline" in d.reason and d.estimates["t_fused_us"] < d.estimates["t_parts_us"] for d in decisions)


def test_analytical_refuses_a_fusion_that_creates_spills():
    with candidate(pressure_into_reduction_module()) as cand:
        d = Analytical().decide(cand)
        assert not d.fuse and d.estimates["spill_est_bytes"] > 0 and "est. spill" in d.reason
        assert kernel_features(cand.producer)["live_regs_est"] <= 255 < kernel_features(cand.fused)["live_regs_est"]


def test_analytical_fuses_into_a_kernel_that_already_spills_as_much():
    """The consumer alone holds 24 values live; at the wide tile it spills fused or not, so fusing costs nothing."""
    with candidate(wide_fan_in_module()) as cand:
        d = Analytical(tile_policy="wide").decide(cand)
        assert d.fuse and d.estimates["spill_est_bytes"] > 0


def test_analytical_decides_from_features():
    m = Analytical()
    parts = _f(live_regs_est=100)
    assert m.decide_features(_f(), parts, parts).fuse
    d = m.decide_features(_f(live_regs_est=600), parts, parts)
    assert not d.fuse and d.estimates["spill_est_bytes"] == 8 * (600 - 255)


def test_analytical_reduction_candidate():
    with candidate(row_reduce_module()) as cand:
        d = Analytical().decide(cand)
        assert d.fuse and d.estimates["bytes_saved"] == 2 * 512 * 768 * 4


def test_registered_and_cli_options(capsys, tmp_path):
    assert policy_class("analytical", "edges") is policy_class("analytical", "groups") is Analytical
    src = tmp_path / "chain.mlir"
    src.write_text(chain_module(3))
    assert opt_main([str(src), "--fusion", "elementwise", "--cost-model", "analytical", "--arch", "sm_80",
                     "--explain", "-o", "/dev/null"]) == 0
    err = capsys.readouterr().err
    assert err.count("fuse ") == 2 and "# analytical: 2 fused" in err
    assert opt_main([str(src), "--cost-model", "analytical", "--tile-policy", "huge"]) == 1
    assert opt_main([str(src), "--cost-model", "analytical", "--margin", "1.5"]) == 1
    assert opt_main([str(src), "--cost-model", "analytical", "--max-body-ops", "3"]) == 1  # threshold's option
    assert "does not apply" in capsys.readouterr().err


# --- details the mutation check asked for (experiments/results/mutation.md) ------------------
def test_launch_config_defaults_to_the_pointwise_heuristic_and_names_the_policies():
    assert launch_config_for(1 << 20) == heuristic_config(1 << 20)
    with pytest.raises(ValueError, match="^unknown tile policy 'huge'; choose from heuristic, wide$"):
        launch_config_for(1024, 1, "huge")


def test_spill_traffic_repeats_per_reduction_loop_iteration_and_takes_a_given_spill():
    t = get_target("sm_90")
    k = kernel_time(_f(live_regs_est=300, reduction_iters=4), t)
    assert k.spill_s == pytest.approx(8 * 45 * 1024 * 128 * 4 / 4.8e12)
    given = kernel_time(_f(live_regs_est=300), t, spill_bytes=100)
    assert given.spill_bytes == 100.0 and given.spill_s == pytest.approx(100 * 1024 * 128 / 4.8e12)


def test_time_rule_fuses_at_equality():
    assert time_rule(2.0, 1.0, 1.0, survives=False, margin=0.0) == (True, 2.0, 2.0)


def test_microseconds_are_rounded_to_four_decimals():
    assert (_us(1.23456789e-6), _us(1.0)) == (1.2346, 1e6)


def test_analytical_options_are_checked_with_one_line_errors():
    with pytest.raises(ValueError, match=r"^--tile-policy must be one of heuristic, wide, got 'huge'$"):
        Analytical(tile_policy="huge")
    with pytest.raises(ValueError, match=r"^--margin must be in \[0, 1\), got 1.0$"):
        Analytical(margin=1.0)


def test_decision_reasons_and_estimates_spell_out_the_rule():
    d = Analytical().decide_features(_f(), _f(), _f())  # survives defaults to False
    assert d == Decision(True, "t 2.75 us <= 1 x 5.5 us (roofline + launch, no spill est.)",
                         {"t_fused_us": 2.7476, "t_parts_us": 5.4953, "spill_est_bytes": 0.0, "bytes_saved": 8 << 20})
    d = Analytical(margin=0.25).decide_features(_f(live_regs_est=600), _f(), _f(), True)
    assert d == Decision(False, "t 80.9 us > 0.75 x 5.5 us (roofline + launch + est. spill 2760 B/thread)",
                         {"t_fused_us": 80.8617, "t_parts_us": 5.4953, "spill_est_bytes": 2760.0, "bytes_saved": 0})


def test_a_surviving_producer_is_charged_and_not_saved():
    # g1 = exp(x) is read by g2 and by g3 (the consumer of the candidate): it survives the fusion.
    ty = tensor((256, 1024), "f32")
    p = Program([("%x", ty)])
    e = p.generic([("%x", ty, ident(2))], ty, ident(2), ["parallel"] * 2, ["%r = math.exp %a0 : f32", "yield %r"])
    n = p.generic([(e, ty, ident(2))], ty, ident(2), ["parallel"] * 2, ["%r = arith.negf %a0 : f32", "yield %r"])
    s = p.generic([(e, ty, ident(2)), (n, ty, ident(2))], ty, ident(2), ["parallel"] * 2,
                  ["%r = arith.addf %a0, %a1 : f32", "yield %r"])
    with candidate(p.text(s, ty)) as cand:
        feats = [kernel_features(op) for op in (cand.fused, cand.producer, cand.consumer)]
        d = Analytical().decide(cand)
        assert d == Analytical().decide_features(*feats, True) != Analytical().decide_features(*feats, False)


def test_an_op_featurize_cannot_describe_is_left_unfused():
    ty = tensor((4, 8), "f8E4M3FN")
    p = Program([("%x", ty)])
    v = p.generic([("%x", ty, ident(2))], ty, ident(2), ["parallel"] * 2, ["%r = arith.negf %a0 : f8E4M3FN", "yield %r"])
    v = p.generic([(v, ty, ident(2))], ty, ident(2), ["parallel"] * 2, ["%r = arith.negf %a0 : f8E4M3FN", "yield %r"])
    with candidate(p.text(v, ty)) as cand:
        d = Analytical().decide(cand)
    assert d.fuse is False and d.estimates == {}
    assert d.reason == ("cannot estimate (unknown element type 'f8E4M3FN' (known: f64, f32, f16, bf16, i64, i32, "
                        "i16, i8, i1, index)); left unfused")


def test_best_config_is_the_fastest_by_the_analytical_time():
    from costfuse.cost_models.group_time import score_configs
    from costfuse.kernel import analyze_kernel
    from costfuse.launch import config_space

    module = parse_module(chain_module(2, (64, 256)))
    shape = analyze_kernel(generics_in(function_blocks(module)[0]))
    scores = score_configs(shape, config_space(shape), get_target("sm_90"))
    i = int(scores.time_s.argmin())
    assert Analytical().best_config(shape) == GroupEstimate(
        scores.configs[i], float(scores.time_s[i]), int(scores.issued_bytes[i]), float(scores.regs[i]),
        float(scores.spill_bytes[i]), f"fastest of {len(scores.configs)} configs by the analytical time",
        int(scores.dram_bytes[i]))


def test_reason_prints_microseconds_at_three_digits():
    # Times just under a rounding boundary (1.235 us, 2.345 us): any other unit would round up.
    d = Analytical().decide_features(_f(bytes_total=1127997.6), _f(bytes_total=827998.8), _f(bytes_total=827998.8))
    assert d.reason == "t 1.23 us <= 1 x 2.34 us (roofline + launch, no spill est.)"


def test_explain_configs_weighs_the_whole_space_and_picks_the_fastest():
    from costfuse.cost_models.analytical import Analytical
    from costfuse.launch import config_space
    from helpers.peer_kernels import softmax, whole

    _, shape = whole(softmax(4096, 8192))
    model = Analytical(arch="sm_90")
    weighed = model.weigh_configs(shape)
    assert sorted(w.launch.short() for w in weighed) == sorted(c.short() for c in config_space(shape))
    (picked,) = [w for w in weighed if w.picked]
    assert picked.launch == model.best_config(shape).launch == weighed[0].launch
    assert picked.verdict == "picked: the fastest by the analytical time (estimated registers and spills)"


def test_the_pick_says_why_a_persistent_config_of_fewer_bytes_lost():
    """A 32k row of softmax loops (a persistent tile spills): best_config's reason ends with the passed-over
    config and why; a persistent pick names none."""
    from costfuse.cost_models.analytical import Analytical
    from helpers.peer_kernels import softmax, whole

    _, looped = whole(softmax(64, 32768))
    assert Analytical(arch="sm_90").best_config(looped).reason == (
        "fastest of 235 configs by the analytical time; persistent x1 r32768 w8 moves 16.8 MB, not 25.2 MB, but is "
        "estimated slower (5.28 us vs 4.60 us, with 200 B/thread of spills estimated)")
    _, short = whole(softmax(64, 1024))
    est = Analytical(arch="sm_90").best_config(short)
    assert est.launch.mode == "persistent" and ";" not in est.reason

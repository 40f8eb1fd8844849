"""The ``inductor`` and ``xla`` cost models: each rule of docs/peers.md on kernel groups built from MLIR text."""

from pathlib import Path

import pytest
from costfuse.data.mlir_text import Program, amap, ident, tensor

from costfuse.cli import opt_main
from costfuse.cost_models import policy_class
from costfuse.cost_models.inductor import MAX_FUSION_SIZE, Inductor, realize_on_reuse
from costfuse.cost_models.xla import Xla, XlaEstimate, num_warps, shared_results
from costfuse.fusion_pass import FusionPass, run_pipeline
from costfuse.graph import function_blocks
from costfuse.groups import form_groups
from costfuse.ir import load_module, parse_module
from costfuse.launch import KernelLaunch
from helpers.peer_kernels import Kernels, ROW, _fill, chain, many_reductions, multi_use, softmax, whole, wide

EXAMPLE = Path(__file__).parents[3] / "examples" / "softmax_gelu.mlir"

def rmsnorm(rows: int, n: int) -> str:
    """x^2, row mean, rstd = rsqrt(mean + eps) per row, y = x * rstd * w."""
    ty, rty, wty = tensor((rows, n), "f32"), tensor((rows,), "f32"), tensor((n,), "f32")
    p = Program([("%x", ty), ("%w", wty)])
    sq = p.generic([("%x", ty, ident(2))], ty, ident(2), ["parallel"] * 2,
                   ["%r = arith.mulf %a0, %a0 : f32", "yield %r"])
    ss = p.generic([(sq, ty, ident(2))], rty, ROW, ["parallel", "reduction"],
                   ["%r = arith.addf %a0, %o : f32", "yield %r"], init=_fill(p, rty, "0.0"))
    rstd = p.generic([(ss, rty, ident(1))], rty, ident(1), ["parallel"],
                     [f"%k = arith.constant {1.0 / n} : f32", "%m = arith.mulf %a0, %k : f32",
                      "%r = math.rsqrt %m : f32", "yield %r"])
    y = p.generic([("%x", ty, ident(2)), (rstd, rty, ROW), ("%w", wty, amap(2, "d1"))], ty, ident(2),
                  ["parallel"] * 2, ["%t = arith.mulf %a0, %a1 : f32", "%r = arith.mulf %t, %a2 : f32", "yield %r"])
    return p.text(y, ty)


# --- inductor: configs (I1-I5) --------------------------------------------------------------
@pytest.mark.parametrize("rows,n,expected", [  # docs/peers.md, Inductor worked examples (torch 2.13)
    (64, 768, [("persistent", 1, 1024, 8)]),
    (4096, 256, [("persistent", 4, 256, 1)]),
    (4096, 512, [("persistent", 2, 512, 1)]),
    (4096, 1024, [("persistent", 1, 1024, 1)]),
    (1024, 128, [("persistent", 1, 128, 2), ("persistent", 8, 128, 2), ("persistent", 32, 128, 2)]),
    (4096, 2048, [("looped", 2, 2048, 16)]),
    (4096, 8192, [("looped", 1, 8192, 16), ("looped", 1, 2048, 16)]),
    (4096, 32768, [("looped", 1, 32768, 32), ("looped", 1, 2048, 16)]),
])
def test_inductor_softmax_candidates_match_the_worked_examples(rows, n, expected):
    _, shape = whole(softmax(rows, n))
    configs, rule = Inductor().candidates(shape)
    assert configs == [KernelLaunch(*c) for c in expected]
    assert rule.startswith("persistent" if n <= 1024 else "looped")


def test_inductor_persistent_softmax_512_takes_its_one_config_unbenchmarked():
    _, shape = whole(softmax(4096, 512))
    est = Inductor().best_config(shape)
    assert est.launch == KernelLaunch("persistent", 2, 512, 1)
    assert "its one config" in est.reason and "benchmark" not in est.reason
    assert est.time_s > 0 and est.regs == est.regs  # analytical estimates at that config


def test_inductor_looped_softmax_2048_halves_rblock_when_registers_limit_occupancy():
    _, shape = whole(softmax(4096, 2048))
    est = Inductor().best_config(shape)
    assert est.launch in (KernelLaunch("looped", 2, 2048, 16), KernelLaunch("looped", 2, 1024, 16))
    assert "RBLOCK halved" in est.reason and "benchmark emulated over 2 configs" in est.reason


def test_inductor_looped_softmax_32768_drops_spilling_configs_before_the_benchmark():
    _, shape = whole(softmax(4096, 32768))
    est = Inductor().best_config(shape)
    assert est.launch.mode == "looped" and est.launch.rblock < 32768
    assert est.spill_bytes / 4 <= 16
    assert "benchmark emulated" in est.reason and "dropped for > 16 spills" in est.reason


def test_inductor_many_loads_use_the_register_intensive_looped_config():
    # 9 loads + 1 reduction >= 10 with P(M) >= 1024: MAX_R0_BLOCK 1024, register-intensive (I4)
    ty, rty = "tensor<4096x2048xf32>", "tensor<4096xf32>"
    p = Program([(f"%x{i}", ty) for i in range(9)])
    body, acc = [], "%a0"
    for i in range(1, 9):
        body.append(f"%s{i} = arith.addf {acc}, %a{i} : f32")
        acc = f"%s{i}"
    s = p.generic([(f"%x{i}", ty, ident(2)) for i in range(9)], rty, ROW, ["parallel", "reduction"],
                  body + [f"%r = arith.addf {acc}, %o : f32", "yield %r"], init=_fill(p, rty, "0.0"))
    k = Kernels(p.text(s, rty))
    assert Inductor().candidates(k.shape())[0] == [KernelLaunch("looped", 2, 1024, 8)]


def test_inductor_sm100_caps_the_looped_rblock_at_1024():
    _, shape = whole(softmax(4096, 8192))
    configs, _ = Inductor(arch="sm_100").candidates(shape)
    assert configs == [KernelLaunch("looped", 1, 8192, 16), KernelLaunch("looped", 1, 1024, 8)]


def test_inductor_pointwise_chain_benchmarks_its_two_configs():
    _, shape = whole(chain(3, (4096, 8192)))
    configs, rule = Inductor().candidates(shape)
    assert configs == [KernelLaunch("pointwise", 1024, 1, 4), KernelLaunch("pointwise", 512, 1, 8)]
    est = Inductor().best_config(shape)
    assert est.launch in configs and "benchmark emulated over 2 configs" in est.reason


def test_inductor_rmsnorm_4096_is_looped_with_the_whole_row_candidate():
    _, shape = whole(rmsnorm(4096, 4096))
    configs, _ = Inductor().candidates(shape)
    assert configs[0] == KernelLaunch("looped", 1, 4096, 16) and configs[-1] == KernelLaunch("looped", 1, 2048, 16)


# --- inductor: formation (I6, I7) -------------------------------------------------------------
def test_inductor_refuses_a_group_of_more_than_64_members():
    k = Kernels(chain(MAX_FUSION_SIZE + 1))
    m = Inductor()
    for size, ok in ((MAX_FUSION_SIZE, True), (MAX_FUSION_SIZE + 1, False)):
        a, b = m.best_config(k.shape(*range(size - 1))), m.best_config(k.shape(size - 1))
        merged = k.shape(*range(size))
        v = m.merge_verdict(a, b, m.best_config(merged), merged)
        assert v.merge is ok, v.reason
        assert v.priority == a.issued_bytes + b.issued_bytes - m.best_config(merged).issued_bytes > 0
    assert "max_fusion_size 64" in v.reason


@pytest.mark.parametrize("n_inputs,extra_ops,store,why", [
    (2, 3, False, "recomputed"),      # 2 reads, 1 + 3 body ops + 2 loads = 6 ops
    (5, 0, True, "5 reads > 4"),
    (3, 26, True, "31 ops > 30"),     # 2 adds + 26 muls + 3 loads
    (3, 25, False, "30 ops <= 30"),
])
def test_realize_on_reuse_stores_a_multi_use_producer_past_4_reads_or_30_ops(n_inputs, extra_ops, store, why):
    k = Kernels(multi_use(n_inputs, extra_ops))
    got, reason = realize_on_reuse(k.ops[0])
    assert got is store and why in reason
    assert realize_on_reuse(k.ops[1]) == (False, "1 user: inlined")


def test_inductor_v1_keeps_a_multi_use_producer_it_would_store():
    decisions = run_pipeline(parse_module(multi_use(5, 0)), FusionPass(Inductor(), allow_multi_use=True))
    first = [d for d in decisions if d.line().split()[1] == "g1"]
    assert first and not first[0].fuse and "5 reads > 4" in first[0].line()


# --- xla: tiles (X-b, X-c) -----------------------------------------------------------------------
@pytest.mark.parametrize("tile,warps", [(1, 1), (256, 1), (257, 2), (1024, 2), (1025, 4), (4096, 4),
                                        (4097, 8), (16384, 8)])
def test_xla_warps_follow_the_largest_tile(tile, warps):
    assert num_warps(tile) == warps


def test_xla_tiles_at_n256_stop_at_xblock_64_with_warps_by_tile():
    _, shape = whole(softmax(4096, 256))
    tiles = Xla().tiles(shape)
    assert [(t.xblock, t.num_warps) for t in tiles] == [(1, 1), (2, 2), (4, 2), (8, 4), (16, 4), (32, 8), (64, 8)]


@pytest.mark.parametrize("n,fits", [(16384, True), (32768, False)])
def test_xla_register_rule_at_one_row_per_block(n, fits):
    _, shape = whole(softmax(2, n))
    est = Xla().best_config(shape)
    if fits:  # 16384 <= 0.4 * 65536 = 26214.4; two rows (32768) do not fit
        assert Xla().tiles(shape) == [KernelLaunch("persistent", 1, 16384, 8)]
        assert est.launch == KernelLaunch("persistent", 1, 16384, 8)
    else:
        assert est is None


@pytest.mark.parametrize("n,max_xblock", [(512, 32), (2048, 8)])
def test_xla_softmax_is_one_persistent_tile(n, max_xblock):
    _, shape = whole(softmax(4096, n))
    est = Xla().best_config(shape)
    assert isinstance(est, XlaEstimate) and est.launch.mode == "persistent"
    assert est.launch.rblock == n and est.launch.xblock <= max_xblock
    assert est.launch.num_warps == num_warps(est.launch.xblock * n)
    assert est.xla_time_s > 0 and est.time_s > 0


def test_xla_rmsnorm_and_pointwise_chain():
    _, norm = whole(rmsnorm(4096, 4096))
    est = Xla().best_config(norm)
    assert est.launch.mode == "persistent" and est.launch.xblock <= 4 and est.launch.rblock == 4096
    _, pw = whole(chain(3, (4096, 8192)))
    est = Xla().best_config(pw)
    assert est.launch.mode == "pointwise" and est.launch.xblock <= 16384
    assert est.launch.num_warps == num_warps(est.launch.xblock)


# --- xla: formation (X-a, X-d) ---------------------------------------------------------------
def _xla_verdict(k: Kernels, left, right):
    m = Xla()
    merged = k.shape(*left, *right)
    return m.merge_verdict(m.best_config(k.shape(*left)), m.best_config(k.shape(*right)), m.best_config(merged),
                           merged)


@pytest.mark.parametrize("second,ok", [(35, True), (36, False)])
def test_xla_refuses_more_than_96_operands_and_outputs(second, ok):
    k = Kernels(wide(60, second))   # merged: 60 + second inputs, 1 output
    v = _xla_verdict(k, [0], [1])
    assert v.merge is ok, v.reason
    if not ok:
        assert v.reason == "xla: 97 operands + outputs > 96"


@pytest.mark.parametrize("k_red,ok", [(8, True), (9, False)])
def test_xla_refuses_more_than_8_reductions(k_red, ok):
    k = Kernels(many_reductions(k_red))
    v = _xla_verdict(k, range(k_red), [k_red])
    assert v.merge is ok, v.reason
    if not ok:
        assert v.reason == "xla: 9 reduction outputs > 8"


def test_xla_fuses_a_producer_into_all_its_users_or_none():
    k = Kernels(softmax(64, 512))   # g2 = exp(x - max) is read by g3 (sum) and g4 (divide)
    assert shared_results(k.shape(1, 2)) == ["member 1"]
    refused = _xla_verdict(k, [1], [2])
    assert not refused.merge and "all its users or none" in refused.reason
    assert _xla_verdict(k, [2], [3]).merge
    assert _xla_verdict(k, [1], [2, 3]).merge


def test_xla_never_fuses_at_negative_priority():
    k = Kernels(chain(2))
    merged = k.shape(0, 1)
    a, b, ab = (Xla().best_config(s) for s in (k.shape(0), k.shape(1), merged))
    slow = XlaEstimate(**{**vars(ab), "xla_time_s": a.xla_time_s + b.xla_time_s + 2e-6})
    v = Xla().merge_verdict(a, b, slow, merged)
    assert not v.merge and v.priority < 0 and "never fused" in v.reason
    assert Xla().merge_verdict(a, b, ab, merged).priority == pytest.approx(
        1e-6 + a.xla_time_s + b.xla_time_s - ab.xla_time_s)


# --- end to end --------------------------------------------------------------------------------
@pytest.mark.parametrize("model", ["inductor", "xla"])
def test_form_groups_on_softmax_gelu_is_deterministic(model):
    runs = []
    for _ in range(2):
        module = load_module(EXAMPLE)
        kernels, decisions = form_groups(function_blocks(module)[0], policy_class(model, "groups")())
        runs.append(([(k.label, k.estimate.launch) for k in kernels], [d.line() for d in decisions]))
    assert runs[0] == runs[1]
    (label, launch), = runs[0][0]
    assert label == "+".join(f"g{i}" for i in range(1, 11))
    assert launch == (KernelLaunch("persistent", 1, 1024, 8) if model == "inductor" else
                      KernelLaunch("persistent", launch.xblock, 1024, num_warps(launch.xblock * 1024)))
    if model == "xla":
        assert any(line.startswith("keep") and "all its users or none" in line for line in runs[0][1])


@pytest.mark.parametrize("model", ["inductor", "xla"])
def test_peer_models_run_from_the_cli_with_arch(model, tmp_path):
    out = tmp_path / "out.mlir"
    assert opt_main([str(EXAMPLE), "--fusion", "elementwise", "--cost-model", model, "--arch", "sm_80",
                     "-o", str(out)]) == 0
    assert out.read_text().count("linalg.generic") == 5
    assert opt_main([str(EXAMPLE), "--cost-model", model, "--arch", "sm_80", "-o", str(out)]) == 0   # groups
    assert out.read_text().count("costfuse.kernel") == 1

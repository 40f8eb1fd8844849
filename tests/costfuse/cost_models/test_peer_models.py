"""The ``inductor`` and ``xla`` cost models: each rule of docs/peers.md on kernel groups built from MLIR text."""

import signal
from contextlib import contextmanager
from dataclasses import replace

import numpy as np
import pytest
from costfuse.data.mlir_text import Program, ident, tensor
from helpers.analytical_modules import candidate, row_reduce_module
from helpers.counted_kernels import BW, PEAK, SM90, SOFTMAX_1024_FLOPS, SOFTMAX_1024_HBM, _kernel
from helpers.peer_kernels import (EXAMPLE, ROW, Kernels, _fill, chain, many_reductions, multi_use, rmsnorm, softmax, whole,
                                  wide)
from iree.compiler import ir

from costfuse.cli import opt_main
from costfuse.cost_models import group_time, policy_class
from costfuse.cost_models.group_time import ConfigScores
from costfuse.cost_models.inductor import (
    MAX_FUSION_SIZE,
    Inductor,
    _num_warps,
    pointwise_config,
    realize_on_reuse,
    reduction_config,
)
from costfuse.cost_models.xla_triton import (
    MAX_TILE_ELEMS,
    XlaEstimate,
    XlaTriton,
    num_warps,
    shared_results,
    tile_limit,
    xla_time,
)
from costfuse.estimates import ConfigLabels
from costfuse.fusion_pass import FusionPass, run_pipeline
from costfuse.graph import CHAIN_ATTR, function_blocks
from costfuse.groups import form_groups
from costfuse.ir import load_module, parse_module
from costfuse.launch import KernelLaunch
from costfuse.policy import Decision, FusionCandidate, GroupEstimate, MergeVerdict
from costfuse.targets import TARGETS

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
    tiles = XlaTriton().tiles(shape)
    assert [(t.xblock, t.num_warps) for t in tiles] == [(1, 1), (2, 2), (4, 2), (8, 4), (16, 4), (32, 8), (64, 8)]


@pytest.mark.parametrize("n,fits", [(16384, True), (32768, False)])
def test_xla_register_rule_at_one_row_per_block(n, fits):
    _, shape = whole(softmax(2, n))
    est = XlaTriton().best_config(shape)
    if fits:  # 16384 <= 0.4 * 65536 = 26214.4; two rows (32768) do not fit
        assert XlaTriton().tiles(shape) == [KernelLaunch("persistent", 1, 16384, 8)]
        assert est.launch == KernelLaunch("persistent", 1, 16384, 8)
    else:
        assert est is None


@pytest.mark.parametrize("n,max_xblock", [(512, 32), (2048, 8)])
def test_xla_softmax_is_one_persistent_tile(n, max_xblock):
    _, shape = whole(softmax(4096, n))
    est = XlaTriton().best_config(shape)
    assert isinstance(est, XlaEstimate) and est.launch.mode == "persistent"
    assert est.launch.rblock == n and est.launch.xblock <= max_xblock
    assert est.launch.num_warps == num_warps(est.launch.xblock * n)
    assert est.xla_time_s > 0 and est.time_s > 0


def test_xla_rmsnorm_and_pointwise_chain():
    _, norm = whole(rmsnorm(4096, 4096))
    est = XlaTriton().best_config(norm)
    assert est.launch.mode == "persistent" and est.launch.xblock <= 4 and est.launch.rblock == 4096
    _, pw = whole(chain(3, (4096, 8192)))
    est = XlaTriton().best_config(pw)
    assert est.launch.mode == "pointwise" and est.launch.xblock <= 16384
    assert est.launch.num_warps == num_warps(est.launch.xblock)


# --- xla: formation (X-a, X-d) ---------------------------------------------------------------
def _xla_verdict(k: Kernels, left, right):
    m = XlaTriton()
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
    a, b, ab = (XlaTriton().best_config(s) for s in (k.shape(0), k.shape(1), merged))
    slow = XlaEstimate(**{**vars(ab), "xla_time_s": a.xla_time_s + b.xla_time_s + 2e-6})
    v = XlaTriton().merge_verdict(a, b, slow, merged)
    assert not v.merge and v.priority < 0 and "never fused" in v.reason
    assert XlaTriton().merge_verdict(a, b, ab, merged).priority == pytest.approx(
        1e-6 + a.xla_time_s + b.xla_time_s - ab.xla_time_s)


# --- end to end --------------------------------------------------------------------------------
@pytest.mark.parametrize("model", ["inductor", "xla-triton"])
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
    if model == "xla-triton":
        assert any(line.startswith("keep") and "all its users or none" in line for line in runs[0][1])


@pytest.mark.parametrize("model", ["inductor", "xla-triton"])
def test_peer_models_run_from_the_cli_with_arch(model, tmp_path):
    out = tmp_path / "out.mlir"
    assert opt_main([str(EXAMPLE), "--fusion", "elementwise", "--cost-model", model, "--arch", "sm_80",
                     "-o", str(out)]) == 0
    assert out.read_text().count("linalg.generic") == 5
    assert opt_main([str(EXAMPLE), "--cost-model", model, "--arch", "sm_80", "-o", str(out)]) == 0   # groups
    assert out.read_text().count("costfuse.kernel") == 1


# ---------------------------------------------------------------------------
# xla: exact values derived by hand from docs/peers.md X-a to X-d and the X5 time (the kernels'
# counts and sm_90's figures are tests/helpers/counted_kernels.py's), so a wrong constant or a swapped
# branch fails here, not only signs and orderings.


# --- xla: X5 time, X2 tiles ----------------------------------------------------------------
@pytest.mark.parametrize("kernel,mode,compute,memory", [
    # 9 flops per element on f32 / 67e12; x read once and y stored / 4.8e12
    ("softmax 4096x1024", "persistent", SOFTMAX_1024_FLOPS / PEAK, SOFTMAX_1024_HBM / BW),
    # looped: e computed in both passes plus the online rescale (20 flops), x read in 2 passes
    ("softmax 4096x1024", "looped", 20 * 4096 * 1024 / PEAK, 3 * 4096 * 1024 * 4 / BW),
    # 64-bit values: half the f32 peak; here compute > memory
    ("tanh16 f64", "pointwise", 128 * 256 * 1024 / (PEAK / 2), 2 * 256 * 1024 * 8 / BW),
], ids=["softmax persistent", "softmax looped", "tanh16 f64"])
def test_xla_time_is_compute_plus_memory_minus_095_of_the_smaller(kernel, mode, compute, memory):
    _k, shape = _kernel(kernel)
    expected = compute + memory - 0.95 * min(compute, memory)
    assert xla_time(shape, mode, SM90) == pytest.approx(expected, rel=1e-12)


@pytest.fixture
def sm_4x(monkeypatch):
    """A hypothetical part with 40,960 registers per SM: X2's bound is 0.4 x 40960 = 16384 elements exactly."""
    part = replace(SM90, arch="sm_4x", part="hypothetical, 40960 registers per SM", regs_per_sm=40960)
    monkeypatch.setitem(TARGETS, "sm_4x", part)
    assert tile_limit(part) == 16384 < MAX_TILE_ELEMS
    return XlaTriton(arch="sm_4x")


def test_xla_tile_of_exactly_the_register_bound_fits(sm_4x):
    """X2 refuses a tile *above* 0.4 x the registers; one of exactly that many elements fits."""
    _k, pointwise = _kernel("exp 4608x256")
    assert sm_4x.tiles(pointwise)[-1] == KernelLaunch("pointwise", 16384, 1, 8)
    _k, row = _kernel("softmax 4096x1024")
    assert [t.xblock for t in sm_4x.tiles(row)] == [1, 2, 4, 8, 16]        # 16 x 1024 = 16384
    assert sm_4x.tiles(row)[-1] == KernelLaunch("persistent", 16, 1024, 8)


def test_xla_best_config_says_how_many_tiles_it_compared():
    _k, shape = _kernel("softmax 4096x1024")
    est = XlaTriton().best_config(shape)          # tiles of 1..16 rows of 1024 fit 26214.4 (32 x 1024 do not)
    assert "fastest of 5 tiles <= 26214 elements" in est.reason, est.reason
    assert est.xla_time_s == pytest.approx(xla_time(shape, "persistent", SM90), rel=1e-12)


# --- xla: merge verdicts (X-a, X-d) -----------------------------------------------------------
def _est(xla_us: float) -> XlaEstimate:
    """An estimate whose X5 time is ``xla_us`` microseconds (the verdict reads nothing else)."""
    return XlaEstimate(KernelLaunch("pointwise", 1024, 1, 4), 0.0, 0, xla_time_s=xla_us * 1e-6)


X5 = "(X5: compute + memory - 0.95 min, 1 us launch)"


@pytest.mark.parametrize("a_us,b_us,ab_us,merge,reason", [
    # priority = 1 us launch + t(a) + t(b) - t(ab)
    (1000, 1000, 1, True, f"xla priority 2000.000 us {X5} >= 0"),
    (0, 0, 1, True, f"xla priority 0.000 us {X5} >= 0"),          # saves exactly nothing: still fused
    (0, 0, 3, False, f"xla priority -2.000 us {X5} < 0: never fused"),
])
def test_xla_merge_priority_and_its_reason(a_us, b_us, ab_us, merge, reason):
    k = Kernels(chain(2))
    v = XlaTriton().merge_verdict(_est(a_us), _est(b_us), _est(ab_us), k.shape(0, 1))
    assert v.merge is merge
    assert v.priority == pytest.approx((1 + a_us + b_us - ab_us) * 1e-6, abs=1e-15)
    assert v.reason == reason


@pytest.mark.parametrize("program,left,right,reason", [
    (lambda: wide(60, 36), [0], [1], "xla: 97 operands + outputs > 96"),                # X4
    (lambda: many_reductions(9), range(9), [9], "xla: 9 reduction outputs > 8"),        # X3
])
def test_xla_budget_refusals_keep_the_priority(program, left, right, reason):
    k = Kernels(program())
    v = XlaTriton().merge_verdict(_est(3), _est(2), _est(4), k.shape(*left, *right))
    assert v == MergeVerdict(False, pytest.approx(2e-6, abs=1e-15), reason)


def shared_pair() -> str:
    """a = exp(x), b = -x, c = a + b, d = a * b, y = c + d: a and b are read by c and by d."""
    ty = tensor((8, 32), "f32")
    p = Program([("%x", ty)])

    def g(ins, op):
        args = [(v, ty, ident(2)) for v in ins]
        rhs = f"{op} %a0, %a1 : f32" if len(ins) == 2 else f"{op} %a0 : f32"
        return p.generic(args, ty, ident(2), ["parallel"] * 2, [f"%r = {rhs}", "yield %r"])

    a, b = g(["%x"], "math.exp"), g(["%x"], "arith.negf")
    c, d = g([a, b], "arith.addf"), g([a, b], "arith.mulf")
    return p.text(g([c, d], "arith.addf"), ty)


def test_xla_names_every_member_still_read_outside_the_merged_kernel():
    k = Kernels(shared_pair())
    merged = k.shape(0, 1, 2)               # d reads a and b from outside {a, b, c}
    assert shared_results(merged) == ["member 1", "member 2"]
    v = XlaTriton().merge_verdict(_est(3), _est(2), _est(4), merged)
    assert v == MergeVerdict(False, pytest.approx(2e-6, abs=1e-15),
                             "xla: a producer fuses into all its users or none; "
                             "member 1, member 2 of the merged kernel is still read outside it")


def test_xla_never_recomputes_a_producer():
    k = Kernels(chain(2))
    a, b = (XlaTriton().best_config(k.shape(i)) for i in (0, 1))
    assert XlaTriton().recompute_verdict(a, b, None, b, k.shape(0, 1), k.ops[0]) == MergeVerdict(
        False, 0.0, "xla: a producer fuses into all of its users at once or is stored")


# --- xla: v1 edges ---------------------------------------------------------------------------
def col_sum(rows: int = 64, n: int = 32) -> str:
    """exp(x), then a sum over the rows (the reduction is not the last loop: no row kernel)."""
    ty, cty = tensor((rows, n), "f32"), tensor((n,), "f32")
    p = Program([("%x", ty)])
    e = p.generic([("%x", ty, ident(2))], ty, ident(2), ["parallel"] * 2, ["%r = math.exp %a0 : f32", "yield %r"])
    s = p.generic([(e, ty, ident(2))], cty, "affine_map<(d0, d1) -> (d1)>", ["reduction", "parallel"],
                  ["%r = arith.addf %a0, %o : f32", "yield %r"], init=_fill(p, cty, "0.0"))
    return p.text(s, cty)


@pytest.mark.parametrize("program,io,fuse,reason", [
    # the producer of the last generic is also read by another generic (X1: all users or none)
    (lambda: multi_use(2, 0), 4, False,
     "xla: a producer fuses into all its users or none; v1 fuses one edge at a time"),
    (lambda: wide(60, 35), 96, True, "xla: 96 operands + outputs <= 96, a tile fits"),     # 95 inputs + 1
    (lambda: wide(60, 36), 97, False, "xla: 97 operands + outputs > 96"),
    (col_sum, 2, True, "xla: not a row kernel (native loop emitter, no tile rule)"),
    # one row of 32768 elements is a tile above 26214.4, with no smaller persistent tile
    (lambda: row_reduce_module(4, 32768), 2, False, "xla: no tile of the fused op fits 26214 elements"),
])
def test_xla_decides_v1_edges(program, io, fuse, reason):
    with candidate(program()) as cand:
        d = XlaTriton().decide(cand)
    assert d == Decision(fuse, reason, {"operands_and_outputs": io, "chain_length": 2})


# ---------------------------------------------------------------------------
# inductor: each rule where it turns (one row either side of a threshold, a requested block larger than
# its hint, the --explain text), worked out by hand from docs/peers.md (I1-I7) and the module docstring;
# the comment beside each value shows the arithmetic.  Beside docs/peers.md's worked examples above.


def looped(x, r, w):
    return KernelLaunch("looped", x, r, w)


def persistent(x, r, w):
    return KernelLaunch("persistent", x, r, w)


@contextmanager
def finishes_within(seconds: float):
    """Fail instead of hanging: a mutated loop step (``x = 2``) can spin forever.
    SIGALRM works here because pytest runs each test in the main thread."""
    def expire(signum, frame):
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# --- programs ---------------------------------------------------------------------------------
def _add_all(k: int) -> list[str]:
    """A body summing ``%a0 .. %a{k-1}``."""
    body, acc = [], "%a0"
    for i in range(1, k):
        body.append(f"%s{i} = arith.addf {acc}, %a{i} : f32")
        acc = f"%s{i}"
    return body + [f"yield {acc}"]


def softmax_group(rows: int, n: int, n_inputs: int = 1, weight: bool = False, row_outputs: int = 0):
    """``(kernels, shape)``: softmax of ``t`` = the sum of ``n_inputs`` inputs (``t = x0`` for one),
    times a weight ``w[N]`` if asked, plus ``row_outputs`` per-row values ``s * c`` that a later
    generic (outside the kernel) reads with ``y``, so each is an output of the kernel.

    A looped kernel makes two passes (max and, online, the sum of exp; the stored ``y``), each
    recomputing ``t``: every ``x_i`` is loaded twice, ``w`` once (only the last pass reads it)."""
    ty, rty, wty = tensor((rows, n), "f32"), tensor((rows,), "f32"), tensor((n,), "f32")
    p = Program([(f"%x{i}", ty) for i in range(n_inputs)] + ([("%w", wty)] if weight else []))
    full = ["parallel", "parallel"]
    t = "%x0"
    if n_inputs > 1:
        t = p.generic([(f"%x{i}", ty, ident(2)) for i in range(n_inputs)], ty, ident(2), full, _add_all(n_inputs))
    m = p.generic([(t, ty, ident(2))], rty, ROW, ["parallel", "reduction"],
                  ["%r = arith.maximumf %a0, %o : f32", "yield %r"], init=_fill(p, rty, "0xFF800000"))
    e = p.generic([(t, ty, ident(2)), (m, rty, ROW)], ty, ident(2), full,
                  ["%d = arith.subf %a0, %a1 : f32", "%r = math.exp %d : f32", "yield %r"])
    s = p.generic([(e, ty, ident(2))], rty, ROW, ["parallel", "reduction"],
                  ["%r = arith.addf %a0, %o : f32", "yield %r"], init=_fill(p, rty, "0.0"))
    y_ins = [(e, ty, ident(2)), (s, rty, ROW)] + ([("%w", wty, "affine_map<(d0, d1) -> (d1)>")] if weight else [])
    y = p.generic(y_ins, ty, ident(2), full,
                  ["%q = arith.divf %a0, %a1 : f32"] + (["%r = arith.mulf %q, %a2 : f32", "yield %r"] if weight
                                                        else ["yield %q"]))
    outs = [p.generic([(s, rty, ident(1))], rty, ident(1), ["parallel"],
                      [f"%c = arith.constant {i + 1}.0 : f32", "%r = arith.mulf %a0, %c : f32", "yield %r"])
            for i in range(row_outputs)]
    if outs:
        y = p.generic([(y, ty, ident(2))] + [(o, rty, ROW) for o in outs], ty, ident(2), full,
                      _add_all(1 + len(outs)))
    k = Kernels(p.text(y, ty))
    return k, k.shape(*range(len(k.ops) - (1 if outs else 0)))


def two_pass_outputs(rows: int, n: int, n_outputs: int):
    """``(kernels, shape)``: ``t = x0 + x1 + x2``, ``s = sum(t)`` per row, and ``n_outputs`` full
    outputs ``t * s + c`` (a later generic reads them all).  Looped: two passes, each loading the
    three inputs; all tensors are f32 ``[rows, n]``, so looped bytes = (6 + n_outputs) tensors and
    persistent bytes = (3 + n_outputs)."""
    ty, rty = tensor((rows, n), "f32"), tensor((rows,), "f32")
    p = Program([(f"%x{i}", ty) for i in range(3)])
    full = ["parallel", "parallel"]
    t = p.generic([(f"%x{i}", ty, ident(2)) for i in range(3)], ty, ident(2), full, _add_all(3))
    s = p.generic([(t, ty, ident(2))], rty, ROW, ["parallel", "reduction"],
                  ["%r = arith.addf %a0, %o : f32", "yield %r"], init=_fill(p, rty, "0.0"))
    ys = [p.generic([(t, ty, ident(2)), (s, rty, ROW)], ty, ident(2), full,
                    ["%m = arith.mulf %a0, %a1 : f32", f"%c = arith.constant {j + 1}.0 : f32",
                     "%r = arith.addf %m, %c : f32", "yield %r"]) for j in range(n_outputs)]
    sink = p.generic([(y, ty, ident(2)) for y in ys], ty, ident(2), full, _add_all(n_outputs))
    k = Kernels(p.text(sink, ty))
    return k, k.shape(*range(len(k.ops) - 1))


# --- I2 formulas, called directly ---------------------------------------------------------------
@pytest.mark.parametrize("args,kwargs,warps", [
    ((16,), {}, 8),                             # P(clamp(16, 2, 8))
    ((1,), {}, 2),                              # min 2 by default
    ((1,), {"min_w": 1}, 1),
    ((8,), {"register_intensive": True}, 4),    # max 8 halved to 4
    ((64,), {"max_w": 16, "register_intensive": True}, 8),
])
def test_num_warps_clamps_to_min_and_max_then_rounds_to_a_power_of_two(args, kwargs, warps):
    assert _num_warps(*args, **kwargs) == warps


def test_pointwise_config_grows_xblock_for_the_grid_limit_only_up_to_4096():
    # P(numel) = 2^44 elements: 1024 * (2^31 - 1) < 2^44 and 2048 * (2^31 - 1) < 2^44, so x doubles
    # to 4096 = TRITON_MAX_BLOCK["X"] and stops there; 4096 // 256 = 16 warps, clamped to 8.
    with finishes_within(10):
        assert pointwise_config(2**44, 1024, 256) == (4096, 8)


@pytest.mark.parametrize("args,kwargs,expected", [
    # target = 2 * 2048 = P(M) * P(N) is not below it: no // 8; 2048 // 128 = 16 warps, max 16
    ((4096, 2048, 2, 2048), {}, (2, 2048, 16)),
    # register-intensive: max 16 // 2 = 8 warps
    ((4096, 2048, 2, 2048), {"register_intensive": True}, (2, 2048, 8)),
    # 256 // 128 = 2 warps: a lower minimum does not lower them
    ((4096, 256, 1, 256), {"min_warps": 1}, (1, 256, 2)),
    # r = 1024 above its hint 256 is shrunk to 256 first (_get_nd_reduction_numels): x = min(8, 4) = 4,
    # target = 4 * 256 = P(M) * P(N), so no // 8 and RBLOCK stays 256; warps still come from r: P(1024 // 128) = 8
    ((4, 256, 8, 1024), {}, (4, 256, 8)),
    # target = 4 * 4 // 8 = 2 < x: RBLOCK halves to 1 and no further; 4 // 128 = 0 warps -> min 2
    ((4, 1, 4, 4), {}, (4, 1, 2)),
])
def test_reduction_config_follows_triton_config_reduction(args, kwargs, expected):
    with finishes_within(10):
        got = reduction_config(*args, **kwargs)
    assert got == expected
    assert all(type(v) is int for v in got)     # block sizes and warps are Triton ints (i64 attributes)


# --- I1-I4: the config lists of real groups -----------------------------------------------------
def test_inductor_pointwise_tiny_kernel_keeps_one_warp():
    # 8 x 8 = 64 elements: bs = max(256, min(64 // 128, 1024)) = 256; A: x = min(256, 64) = 64,
    # 64 // 256 = 0 -> min 1 warp; B: x = 64, 64 // 64 = 1 warp; x < 128, so no bump to 4.
    _, shape = whole(chain(1, (8, 8)))
    assert Inductor().candidates(shape) == ([KernelLaunch("pointwise", 64, 1, 1)], "pointwise (autotune_pointwise)")


def test_inductor_pointwise_xblock_128_gets_at_least_4_warps():
    # 64 x 64 = 4096 elements: bs = 256; A = (256, P(256 // 256) = 1 -> 4 since x >= 128);
    # B = (128, 128 // 64 = 2 -> 4 since x >= 128).
    _, shape = whole(chain(1, (64, 64)))
    configs, _ = Inductor().candidates(shape)
    assert configs == [KernelLaunch("pointwise", 256, 1, 4), KernelLaunch("pointwise", 128, 1, 4)]


@pytest.mark.parametrize("rows,n,expected", [
    # P(N) < 256: every x in {1, 8, 32, 128} with x * P(N) <= 4096 and x <= P(M) = 8 (x = 8 included)
    (8, 128, [persistent(1, 128, 2), persistent(8, 128, 2)]),
    # P(N) >= 256 and P(M) // 8 = 64 < 128: the first only (x = 8 was a candidate too)
    (64, 512, [persistent(1, 512, 4)]),
    (512, 256, [persistent(1, 256, 2)]),
    # P(M) // 8 = 128: rebuilt with xblock min(1024 // 256, 8) = 4 and 1 warp
    (1024, 256, [persistent(4, 256, 1)]),
    # P(M) * P(N) = 2 * 2048 equals the target 2 * 2048: not divided, RBLOCK stays 2048
    (2, 2048, [looped(2, 2048, 16)]),
    # N = 65536 > 32768: no whole-row candidate, though loads (5) and bytes (3 reads of x) qualify
    (64, 65536, [looped(1, 2048, 16)]),
])
def test_inductor_softmax_configs_at_the_rule_boundaries(rows, n, expected):
    _, shape = whole(softmax(rows, n))
    assert Inductor().candidates(shape)[0] == expected


def test_inductor_persistent_configs_above_1024_keep_the_first_register_intensive():
    # I3 table, P(N) > 1024: x = 1 is always a candidate (8192 * 1 > 4096 notwithstanding);
    # 8192 // 128 = 64 warps, max 16 halved (register-intensive) to 8.
    assert Inductor._persistent(64, 8192) == [(1, 8192, 8)]


def test_inductor_sm100_n2048_has_no_whole_row_candidate():
    # N = 2048 is not > 2048, so only the contiguous config, at MAX_R0_BLOCK 1024 on sm_100: 8 warps
    _, shape = whole(softmax(4096, 2048))
    assert Inductor(arch="sm_100").candidates(shape)[0] == [looped(2, 1024, 8)]


def test_inductor_counts_loads_per_looped_pass_for_the_register_intensive_rule():
    # 4 inputs x 2 passes + 2 reductions = 10 >= 10 at P(M) = 1024: MAX_R0_BLOCK 1024,
    # register-intensive (8 warps), and 10 > 8 rules out the whole-row candidate.
    _, shape = softmax_group(1024, 4096, n_inputs=4)
    assert Inductor().candidates(shape) == ([looped(1, 1024, 8)], "looped (N=4096 > 1024)")


@pytest.mark.parametrize("weight,expected", [
    (False, [looped(1, 4096, 16), looped(1, 2048, 16)]),    # 3 x 2 + 2 reductions = 8 loads <= 8
    (True, [looped(1, 2048, 16)]),                          # + w in the last pass: 9 > 8
])
def test_inductor_whole_row_candidate_needs_at_most_8_loads_and_reductions(weight, expected):
    _, shape = softmax_group(64, 4096, n_inputs=3, weight=weight)
    assert Inductor().candidates(shape)[0] == expected


@pytest.mark.parametrize("row_outputs,expected", [
    (8, [looped(1, 4096, 16), looped(1, 2048, 16)]),   # x + y + 8 row values = 10 memory ops
    (9, [looped(1, 2048, 16)]),                         # 11 > 10
])
def test_inductor_whole_row_candidate_needs_at_most_10_memory_ops(row_outputs, expected):
    _, shape = softmax_group(64, 4096, row_outputs=row_outputs)
    assert len(shape.inputs) + len(shape.outputs) == 1 + 1 + row_outputs
    assert Inductor().candidates(shape)[0] == expected


def test_inductor_whole_row_candidate_at_exactly_1_3_times_the_persistent_bytes():
    # 3 inputs read twice + 7 outputs = 13 tensors looped, 3 + 7 = 10 persistent: ratio 1.3 exactly,
    # which qualifies (>=); and 3 + 7 = 10 memory ops, 3 x 2 + 1 = 7 loads, both within bounds.
    _, shape = two_pass_outputs(64, 4096, 7)
    tensor_bytes = 64 * 4096 * 4
    assert (shape.issued_bytes("looped"), shape.issued_bytes("persistent")) == (13 * tensor_bytes, 10 * tensor_bytes)
    assert Inductor().candidates(shape)[0] == [looped(1, 4096, 16), looped(1, 2048, 16)]


def test_inductor_no_whole_row_candidate_when_looping_reads_no_more_bytes():
    # a lone row max reads x once in either mode: ratio 1 < 1.3
    k, _ = whole(softmax(64, 4096))
    assert Inductor().candidates(k.shape(0))[0] == [looped(1, 2048, 16)]


# --- I5: RBLOCK halving and the emulated benchmark ------------------------------------------------
@pytest.mark.parametrize("rows,configs,regs,added", [
    # 4096 / 2 = 2048 blocks > max(65536 // (64 * 32 * 16), 1) * 132 = 264: a halved copy
    (4096, [looped(2, 2048, 16)], [64], [looped(2, 1024, 16)]),
    (4096, [looped(2, 64, 16)], [64], []),              # RBLOCK 64 is not > 64
    (4096, [persistent(1, 2048, 16)], [64], []),        # looped configs only
    (4096, [looped(2, 2048, 16)], [32], []),            # 32 regs is not > 65536 / 2048
    (256, [looped(2, 2048, 16)], [64], []),             # 128 blocks <= 264
    (1024, [looped(2, 2048, 8)], [64], []),             # 512 blocks <= (65536 // 16384 = 4) * 132 = 528
    (512, [looped(2, 2048, 16)], [128], [looped(2, 1024, 16)]),   # 256 > max(65536 // 65536, 1) * 132
    # a config that does not qualify does not stop the scan
    (4096, [looped(2, 64, 16), looped(2, 2048, 16)], [64, 64], [looped(2, 1024, 16)]),
])
def test_inductor_scale_rblock_adds_a_halved_copy_only_when_registers_limit_the_grid(rows, configs, regs, added):
    _, shape = whole(softmax(rows, 2048))
    assert Inductor()._scale_rblock(shape, configs, regs) == configs + added


def _scored(table: dict):
    """A stand-in for ``group_time.score_configs``: (regs, spill bytes, time) per config from ``table``,
    so the test fixes what Inductor's benchmark would see."""
    def score(shape, configs, target, predicted_spill=None, labels=None):
        regs, spill, time = (np.array(col, dtype=float) for col in zip(*(table[c] for c in configs)))
        zeros = np.zeros(len(configs), dtype=np.int64)
        return ConfigScores(list(configs), regs, spill, zeros, zeros, time)
    return score


def _labelled(table: dict):
    """A labeller answering ``table``'s (regs, spill bytes) as a compile would: spilled registers
    (spill bytes / 8) each take a 4-byte local slot, which is what Inductor's n_spills counts."""
    def label(shape, configs):
        regs, spill, _ = (np.array(col, dtype=float) for col in zip(*(table[c] for c in configs)))
        return ConfigLabels(regs, spill, spill / 2, np.ones(len(configs), dtype=bool), "table")
    return label


PW_A, PW_B = KernelLaunch("pointwise", 1024, 1, 4), KernelLaunch("pointwise", 512, 1, 8)
BENCH = "inductor pointwise (autotune_pointwise): benchmark emulated over 2 configs, "
FASTEST = "dropped for > 16 spills (stack/4), fastest by our analytical time"


@pytest.mark.parametrize("table,launch,tail", [
    # B spills 136 B (stored + loaded) = 17 registers > 16: dropped, so the slower A wins
    ({PW_A: (0, 0, 2e-6), PW_B: (0, 136, 1e-6)}, PW_A, "1 " + FASTEST),
    # 128 B = 16 spilled registers is not > 16: kept, and A is the faster
    ({PW_A: (0, 128, 1e-6), PW_B: (0, 0, 2e-6)}, PW_A, "0 " + FASTEST),
    # every config spills: the first in list order, although B is faster
    ({PW_A: (0, 136, 2e-6), PW_B: (0, 200, 1e-6)}, PW_A, "2 dropped for > 16 spills (stack/4), all spill: the first"),
])
def test_inductor_benchmark_drops_configs_over_16_spills(monkeypatch, table, launch, tail):
    monkeypatch.setattr(group_time, "score_configs", _scored(table))
    _, shape = whole(chain(3, (4096, 8192)))
    est = Inductor(labeller=_labelled(table)).autotune(shape)
    assert (est.launch, est.reason.split(";")[0]) == (launch, BENCH + tail)
    assert est.spill_bytes == table[launch][1]


def test_inductor_benchmark_includes_the_halved_copy(monkeypatch):
    # 64 regs at 16 warps: 2048 blocks > 264 (as above), so (2, 1024, 16) joins the benchmark and wins
    monkeypatch.setattr(group_time, "score_configs", _scored({looped(2, 2048, 16): (64, 0, 2e-6),
                                                              looped(2, 1024, 16): (64, 0, 1e-6)}))
    _, shape = whole(softmax(4096, 2048))
    est = Inductor(labeller=_labelled({looped(2, 2048, 16): (64, 0, 2e-6),
                                       looped(2, 1024, 16): (64, 0, 1e-6)})).autotune(shape)
    assert est.launch == looped(2, 1024, 16)
    assert all(p in est.reason for p in ("looped (N=2048 > 1024)", "RBLOCK halved", "over 2 configs", "0 dropped")), \
        est.reason


def test_inductor_persistent_reason_names_its_rule_and_its_one_config():
    _, shape = whole(softmax(4096, 512))
    reason = Inductor().best_config(shape).reason
    assert all(p in reason for p in ("persistent", "N=512 <= 1024", "one config")), reason


# --- I6, I7: merges, recomputation and v1 edges --------------------------------------------------
def test_inductor_merge_reason_reports_the_megabytes_saved():
    # two exps over 16384 x 16384 f32: merging drops the intermediate's write and read, 2 * 2^30 bytes
    k = Kernels(chain(2, (16384, 16384)))
    m = Inductor()
    a, b, merged = m.best_config(k.shape(0)), m.best_config(k.shape(1)), k.shape(0, 1)
    assert m.merge_verdict(a, b, m.best_config(merged), merged) == MergeVerdict(
        True, 2.0 * 2**30, "inductor fuses every legal pair: 2 members <= 64, score = 2147.484 MB saved")


def test_realize_on_reuse_recomputes_at_exactly_4_reads():
    k = Kernels(multi_use(4, 0))    # 3 adds + 4 loads = 7 ops
    assert realize_on_reuse(k.ops[0]) == (False, "2 users, 4 reads <= 4 and 7 ops <= 30: recomputed in each user")


def _hbm_est(hbm: int) -> GroupEstimate:
    return GroupEstimate(KernelLaunch("pointwise", 256, 1, 4), 1e-6, hbm)


@pytest.mark.parametrize("n_inputs,extra_ops,after,expected", [
    # stored: priority = 100 + 50 - 80 - 90 = -20, not clamped
    (5, 0, (80, 90), MergeVerdict(False, -20.0, "inductor realizes the producer: 2 users and 5 reads > 4: stored")),
    # recomputed, A gone (a_after None): 100 + 50 - 0 - 120 = 30
    (2, 3, (None, 120), MergeVerdict(True, 30.0, "inductor inlines the producer: "
                                                 "2 users, 2 reads <= 4 and 6 ops <= 30: recomputed in each user")),
    # recomputed at a loss: priority clamped to 0
    (2, 3, (80, 90), MergeVerdict(True, 0.0, "inductor inlines the producer: "
                                             "2 users, 2 reads <= 4 and 6 ops <= 30: recomputed in each user")),
])
def test_inductor_recomputes_a_producer_within_realize_on_reuse_limits(n_inputs, extra_ops, after, expected):
    k = Kernels(multi_use(n_inputs, extra_ops))
    a_after, b_after = after
    v = Inductor().recompute_verdict(_hbm_est(100), _hbm_est(50), None if a_after is None else _hbm_est(a_after), _hbm_est(b_after),
                                     k.shape(0, 2), producer_op=k.ops[0])
    assert v == expected


def _candidate(k: Kernels, producer: int, fused: int, length: int) -> FusionCandidate:
    """A v1 edge whose fused op merges ``length`` original generics (the pass's chain attribute)."""
    op = k.ops[fused]
    with k.module.context:
        op.attributes[CHAIN_ATTR] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), length)
    return FusionCandidate(k.ops[producer], op, op)


def test_inductor_v1_edges_fuse_up_to_64_and_store_a_producer_read_more_than_4_times():
    k = Kernels(chain(2))
    assert Inductor().decide(_candidate(k, 0, 1, 64)) == Decision(
        True, "chain length 64 <= 64; producer 1 user: inlined", {"chain_length": 64})
    assert Inductor().decide(_candidate(k, 0, 1, 65)) == Decision(
        False, "chain length 65 > max_fusion_size 64", {"chain_length": 65})
    k = Kernels(multi_use(5, 0))
    assert Inductor().decide(_candidate(k, 0, 1, 2)) == Decision(
        False, "producer 2 users and 5 reads > 4: stored (Inductor realizes it)", {"chain_length": 2})

"""The ``inductor`` cost model at the edges of its rules (issue #15: mutation testing of cost_models/inductor.py).

test_peer_models.py checks docs/peers.md's worked examples; this file pins
each rule where it turns (one row either side of a threshold, a requested
block larger than its hint, the exact ``--explain`` text), so that a changed
constant, comparison or message fails a test.  Every expected value is worked
out by hand from docs/peers.md (I1-I7) and the module docstring; the comment
beside it shows the arithmetic.  Mutants no test can tell apart are listed,
each with its reason, in experiments/mutation_equivalent.toml.
"""

import signal
from contextlib import contextmanager

import numpy as np
import pytest
from costfuse.data.mlir_text import Program, ident, tensor
from iree.compiler import ir

from costfuse.cost_models import group_time
from costfuse.cost_models.group_time import ConfigScores
from costfuse.cost_models.inductor import Inductor, _num_warps, pointwise_config, realize_on_reuse, reduction_config
from costfuse.graph import CHAIN_ATTR
from costfuse.launch import KernelLaunch
from costfuse.policy import Decision, FusionCandidate, GroupEstimate, MergeVerdict
from tests.test_peer_models import ROW, Kernels, _fill, chain, multi_use, softmax, whole


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
    # r = 1024 above its hint 256: x = min(8, 4) = 4, target = 4 * 1024 = 4096 > 4 * 256, so
    # target = 512; RBLOCK halves while 4 * r > 512: 1024 -> 128; warps = P(1024 // 128) = 8
    ((4, 256, 8, 1024), {}, (4, 128, 8)),
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
    def score(shape, configs, target, predicted_spill=None):
        regs, spill, time = (np.array(col, dtype=float) for col in zip(*(table[c] for c in configs)))
        zeros = np.zeros(len(configs), dtype=np.int64)
        return ConfigScores(list(configs), regs, spill, zeros, zeros, time)
    return score


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
    est = Inductor().best_config(shape)
    assert (est.launch, est.reason) == (launch, BENCH + tail)
    assert est.spill_bytes == table[launch][1]


def test_inductor_benchmark_includes_the_halved_copy(monkeypatch):
    # 64 regs at 16 warps: 2048 blocks > 264 (as above), so (2, 1024, 16) joins the benchmark and wins
    monkeypatch.setattr(group_time, "score_configs", _scored({looped(2, 2048, 16): (64, 0, 2e-6),
                                                              looped(2, 1024, 16): (64, 0, 1e-6)}))
    _, shape = whole(softmax(4096, 2048))
    est = Inductor().best_config(shape)
    assert est.launch == looped(2, 1024, 16)
    assert est.reason == ("inductor looped (N=2048 > 1024) + RBLOCK halved for occupancy: benchmark emulated over "
                          "2 configs, 0 dropped for > 16 spills (stack/4), fastest by our analytical time")


def test_inductor_one_config_reason_is_exact():
    _, shape = whole(softmax(4096, 512))
    assert Inductor().best_config(shape).reason == "inductor persistent (N=512 <= 1024, INNER hint): its one config"


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


def _est(hbm: int) -> GroupEstimate:
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
def test_inductor_recompute_verdict(n_inputs, extra_ops, after, expected):
    k = Kernels(multi_use(n_inputs, extra_ops))
    a_after, b_after = after
    v = Inductor().recompute_verdict(_est(100), _est(50), None if a_after is None else _est(a_after), _est(b_after),
                                     k.shape(0, 2), producer_op=k.ops[0])
    assert v == expected


def _candidate(k: Kernels, producer: int, fused: int, length: int) -> FusionCandidate:
    """A v1 edge whose fused op merges ``length`` original generics (the pass's chain attribute)."""
    op = k.ops[fused]
    with k.module.context:
        op.attributes[CHAIN_ATTR] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), length)
    return FusionCandidate(k.ops[producer], op, op)


def test_inductor_decide_on_v1_edges():
    k = Kernels(chain(2))
    assert Inductor().decide(_candidate(k, 0, 1, 64)) == Decision(
        True, "chain length 64 <= 64; producer 1 user: inlined", {"chain_length": 64})
    assert Inductor().decide(_candidate(k, 0, 1, 65)) == Decision(
        False, "chain length 65 > max_fusion_size 64", {"chain_length": 65})
    k = Kernels(multi_use(5, 0))
    assert Inductor().decide(_candidate(k, 0, 1, 2)) == Decision(
        False, "producer 2 users and 5 reads > 4: stored (Inductor realizes it)", {"chain_length": 2})

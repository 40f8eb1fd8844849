"""The analytical config time (``cost_models/group_time.py``): exact values, derived by hand.

Every figure is worked out from the documented rules (the module's docstrings,
docs/groups.md) on small kernels whose bytes, flops and live values are easy
to count (``tests/helpers/counted_kernels.py``), with the sm_90 row of
``costfuse/targets.py``: 4.8e12 B/s, 67e12 FLOP/s (f32; half for 64-bit
values), 132 SMs, 65,536 registers per SM, 255 per thread, 1 us launch.  Each
table row spells out the intermediate terms (registers, blocks per SM, waves,
achieved parallelism) so that a failing row says which term moved; checking
only signs and orderings let a wrong constant or a swapped branch through
(issue #15).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pytest

from costfuse.cost_models.group_time import ConfigScores, score_configs
from costfuse.launch import KernelLaunch
from costfuse.data.mlir_text import Program, ident, tensor
from helpers.peer_kernels import ROW, Kernels, _fill
from helpers.counted_kernels import BW, LAUNCH, PEAK, SM90, SOFTMAX_1024_FLOPS, SOFTMAX_1024_HBM, WAVE, _kernel

L2_BW = 2.5 * BW                                          # targets.L2_OVER_HBM_BANDWIDTH
SAT = BW * 600e-9                                         # Little's law: 4.8 TB/s x targets.HBM_LATENCY_S = 2.88 MB


@dataclass(frozen=True)
class Row:
    """One config of one kernel and its terms, worked out by hand (the comment above each row shows the work).

    Blocks per SM = min(floor(65536 / (min(regs, cap) x 32 x warps)), 64 / warps, 32);
    ``waves`` = ceil(programs / (blocks x 132)); ``util`` = min(1, bytes in flight / SAT)
    x min(1, row run bytes / 128), bytes in flight = min(programs, blocks x 132) x tile elements
    (xblock x rblock; xblock pointwise) x issued bytes per element and pass (Little's law, issue #29);
    ``spill_traffic`` = spill bytes (stored + reloaded, 8 per register past the cap) x threads x row chunks.
    ``hbm`` is the issued bytes (through L2); ``dram`` the DRAM bytes (default: the same, one pass).
    """

    kernel: str
    launch: KernelLaunch
    regs: float
    spill: float
    hbm: int
    flops: float
    waves: int
    util: float
    spill_traffic: float = 0.0
    words: int = 1
    dram: int | None = None

    def time(self) -> float:
        """group_time's documented total: roofline at the achieved parallelism (DRAM bytes at HBM bandwidth,
        issued bytes at L2's), launch, waves, spills."""
        peak = PEAK / self.words
        memory = max((self.hbm if self.dram is None else self.dram) / BW, self.hbm / L2_BW)
        return (max(memory / self.util, self.flops / (peak * self.util))
                + LAUNCH + self.waves * WAVE + self.spill_traffic / BW)

ROWS = [
    # ept = 1*1024/(32*4) = 8 elements per thread, 2 live values: 24 + 16 = 40 regs; 65536/(40*128) = 12.8
    # -> 12 blocks (< 16 by warps); 4096 programs / (12*132 = 1584) -> 3 waves;
    # 8 bytes per element (x read, y stored): 1584 x 1024 x 8 = 13.0 MB in flight >= 2.88 MB
    Row("softmax 4096x1024", KernelLaunch("persistent", 1, 1024, 4), 40, 0, SOFTMAX_1024_HBM, SOFTMAX_1024_FLOPS,
        waves=3, util=1.0),
    # ept = 8*1024/32 = 256: 24 + 512 = 536 regs, cap 255: (536 - 255) * 8 = 2248 spill bytes per thread;
    # 65536/(255*32) -> 8 blocks; 512 programs, 1 wave; 512 x 8192 x 8 = 33.5 MB in flight: saturated;
    # spills: 2248 * (512 programs * 32 threads) * 1 chunk
    Row("softmax 4096x1024", KernelLaunch("persistent", 8, 1024, 1), 536, 2248, SOFTMAX_1024_HBM, SOFTMAX_1024_FLOPS,
        waves=1, util=1.0, spill_traffic=2248 * 512 * 32 * 1),
    # the same 256 elements per thread with 2 warps of 16 rows: 536 regs, 2248 spill bytes;
    # 65536/(255*64) -> 4 blocks; 256 programs, 1 wave, 256 x 16384 x 8 = 33.5 MB in flight; 256 * 64 threads
    Row("softmax 4096x1024", KernelLaunch("persistent", 16, 1024, 2), 536, 2248, SOFTMAX_1024_HBM,
        SOFTMAX_1024_FLOPS, waves=1, util=1.0, spill_traffic=2248 * 256 * 32 * 2),
    # looped: 2 passes (the sum runs online in the max's): x read in 2 passes + y = 3 x 16 MiB; e computed in
    # both (5 + 5) plus the online rescale (sub, exp, mul: 6): 1 + 10 + 1 + 6 + 2 = 20 flops per element;
    # live 2 + 2 accumulators = 4; ept = 4*512/32 = 64: 24 + 256 = 280 regs, (280 - 255) * 8 = 200 spill
    # bytes; 1024 programs, 8 blocks, 1 wave; 48 MiB issued over 2 passes of 4 Mi elements = 6 bytes per
    # element and pass: 1024 x 2048 x 6 = 12.6 MB in flight, saturated; ceil(1024/512) = 2 chunks per pass
    # x 2 passes = 4 chunks; DRAM: each program re-reads 4 rows of 4 KiB, 1024 programs resident (32 blocks
    # x 132 SMs by threads): 16 MiB <= half the 60 MiB L2, so the re-reads hit L2: x once + y = 2 x 16 MiB
    Row("softmax 4096x1024", KernelLaunch("looped", 4, 512, 1), 280, 200, 3 * 4096 * 1024 * 4, 20 * 4096 * 1024,
        waves=1, util=1.0, spill_traffic=200 * 1024 * 32 * 4, dram=SOFTMAX_1024_HBM),
    # ept = 16*1024/512 = 32: 24 + 64 = 88 regs (cap 128 at 16 warps); 65536/(88*512) = 1.45 -> 1 block;
    # 256 programs over 132 SMs -> 2 waves; 132 x 16384 x 8 = 17.3 MB in flight
    Row("softmax 4096x1024", KernelLaunch("persistent", 16, 1024, 16), 88, 0, SOFTMAX_1024_HBM, SOFTMAX_1024_FLOPS,
        waves=2, util=1.0),
    # ept = 512/128 = 4: 24 + 8 = 32 regs; 65536/(32*128) = 16 blocks exactly; 4096 / 2112 -> 2 waves;
    # 2112 x 512 x 8 = 8.65 MB in flight
    Row("softmax 4096x512", KernelLaunch("persistent", 1, 512, 4), 32, 0, 2 * 4096 * 512 * 4, 9 * 4096 * 512,
        waves=2, util=1.0),
    # ept = 4*1024/256 = 16: 24 + 32 = 56 regs; 65536/(56*256) = 4.57 -> 4 blocks; 4 programs:
    # 4 x 4096 x 8 = 131072 bytes in flight of 2.88 MB (the whole kernel: latency-bound)
    Row("softmax 16x1024", KernelLaunch("persistent", 4, 1024, 8), 56, 0, 2 * 16 * 1024 * 4, 9 * 16 * 1024,
        waves=1, util=131072 / SAT),
    # pointwise: 4608*256 elements / 256 = 4608 programs; ept = 256/256 = 1, max(2, 2) live: 26 regs;
    # 65536/(26*256) = 9.8 -> 9, but 64/8 = 8 by warps; 4608 / (8*132 = 1056) = 4.36 -> 5 waves;
    # 1056 x 256 x 8 = 2,162,688 bytes in flight of 2.88 MB
    Row("exp 4608x256", KernelLaunch("pointwise", 256, 1, 8), 26, 0, 2 * 4608 * 256 * 4, 4 * 4608 * 256,
        waves=5, util=2162688 / SAT),
    # 16-element programs: 73728 of them; ept 0.5: 25 regs; 81 by regs, 64 by warps, 32 blocks at most;
    # 73728 / 4224 = 17.5 -> 18 waves; 4224 x 16 x 8 = 540,672 bytes in flight;
    # runs of 16 * 4 = 64 bytes use half of a 128-byte line
    Row("exp 4608x256", KernelLaunch("pointwise", 16, 1, 1), 25, 0, 2 * 4608 * 256 * 4, 4 * 4608 * 256,
        waves=18, util=540672 / SAT * 64 / 128),
    # keepdim: 64 elements, one program; live values max(2, 1) = 2 (a pointwise block holds its
    # input and result): ept = 64/64 = 1, 26 regs; 65536/(26*64) = 39 -> 32 blocks; 64 x 8 = 512 bytes in flight
    Row("exp 64x1", KernelLaunch("pointwise", 64, 1, 2), 26, 0, 2 * 64 * 4, 4 * 64,
        waves=1, util=512 / SAT),
    # f32, compute-bound: 128 flops / 67e12 > 8 bytes / 4.8e12 per element; ept = 1024/256 = 4,
    # 24 + 4*2 = 32 regs; 65536/(32*256) = 8 blocks; 256 programs in flight: 256 x 1024 x 8 = 2,097,152 bytes
    Row("tanh16 f32", KernelLaunch("pointwise", 1024, 1, 8), 32, 0, 2 * 256 * 1024 * 4, 128 * 256 * 1024,
        waves=1, util=2097152 / SAT),
    # f64: 2 registers per value: 24 + 4*2*2 = 40 regs, 6 blocks; peak 33.5e12, still compute-bound;
    # 16 bytes per element: 256 x 1024 x 16 = 4.19 MB in flight, saturated
    Row("tanh16 f64", KernelLaunch("pointwise", 1024, 1, 8), 40, 0, 2 * 256 * 1024 * 8, 128 * 256 * 1024,
        waves=1, util=1.0, words=2),
    # persistent: x read once (131 flops); ept 8, live 2: 40 regs, 12 blocks; 256 programs: 256 x 1024 x 8
    Row("tanh16 normalized", KernelLaunch("persistent", 1, 1024, 4), 40, 0, 2 * 256 * 1024 * 4, 131 * 256 * 1024,
        waves=1, util=2097152 / SAT),
    # looped: x read twice (3 x 1 MiB), e computed twice (259 flops, compute-bound); live 2 + 1
    # accumulator: ept 4, 24 + 12 = 36 regs, 65536/(36*128) = 14.2 -> 14 blocks; 3 MiB over 2 passes of
    # 256 Ki elements = 6 bytes per element and pass: 256 x 512 x 6 = 786,432 bytes in flight
    Row("tanh16 normalized", KernelLaunch("looped", 1, 512, 4), 36, 0, 3 * 256 * 1024 * 4, 259 * 256 * 1024,
        waves=1, util=786432 / SAT),
    # no input: the output only; runs of 16 default 4-byte elements = 64 bytes (x 1/2); live max(2, 1);
    # 2048 / 16 = 128 programs: 128 x 16 x 4 = 8192 bytes in flight, x 1/2
    Row("iota", KernelLaunch("pointwise", 16, 1, 1), 25, 0, 64 * 32 * 4, 3 * 64 * 32,
        waves=1, util=8192 / SAT * 64 / 128),
    # x (2 KiB), i (8-byte index: 4 KiB), y (2 KiB); words 2 (index is 64-bit); live 3 (x, i, y):
    # ept 8/32 = 0.25: 24 + 0.25*3*2 = 25.5 regs; 64 programs: 64 x 8 x 16 = 8192 bytes in flight;
    # runs of 8 x 8 bytes = 64 (x 1/2)
    Row("index input", KernelLaunch("pointwise", 8, 1, 1), 25.5, 0, 64 * 8 * (4 + 8 + 4), 3 * 64 * 8,
        waves=1, util=8192 / SAT * 64 / 128, words=2),
]


def _row_id(row: Row) -> str:
    return f"{row.kernel} {row.launch.short()}"


# --- group_time: every term of the analytical time ---------------------------------------
@pytest.mark.parametrize("row", ROWS, ids=_row_id)
def test_config_time_matches_the_documented_terms(row):
    _k, shape = _kernel(row.kernel)
    s = score_configs(shape, [row.launch], SM90)
    assert s.configs == [row.launch]
    assert s.regs.tolist() == [row.regs]
    assert s.spill_bytes.tolist() == [row.spill]
    assert s.issued_bytes.tolist() == [row.hbm]
    assert s.time_s[0] == pytest.approx(row.time(), rel=1e-9)


def test_one_pass_scores_every_config_as_it_would_alone():
    """Scoring configs of different modes together gives each its own bytes, flops, registers and time."""
    rows = [r for r in ROWS if r.kernel == "softmax 4096x1024"]
    _k, shape = _kernel("softmax 4096x1024")
    s = score_configs(shape, [r.launch for r in rows], SM90)
    assert s.issued_bytes.tolist() == [r.hbm for r in rows]
    assert s.issued_bytes.dtype == s.dram_bytes.dtype == np.int64        # byte counts, whole
    assert s.regs.tolist() == [r.regs for r in rows]
    assert s.time_s == pytest.approx([r.time() for r in rows], rel=1e-9)


def test_predicted_spills_replace_the_register_estimate():
    """A model that predicts spills passes them in (per thread); the registers stay the estimate's."""
    spilling = ROWS[1]                      # softmax persistent (8, 1024, 1): 2248 bytes estimated
    _k, shape = _kernel(spilling.kernel)
    s = score_configs(shape, [spilling.launch, ROWS[0].launch], SM90, predicted_spill=[8, 0])
    assert s.spill_bytes.tolist() == [8.0, 0.0] and s.spill_bytes.dtype == np.float64   # bytes per thread
    assert s.issued_bytes.dtype == np.int64                                                  # whole bytes
    assert s.regs.tolist() == [536, 40]
    predicted = replace(spilling, spill=8, spill_traffic=8 * 512 * 32)
    assert s.time_s == pytest.approx([predicted.time(), ROWS[0].time()], rel=1e-9)
    est = s.estimate(0, "why")
    assert (est.launch, est.issued_bytes, est.regs, est.spill_bytes, est.reason) == (
        spilling.launch, SOFTMAX_1024_HBM, 536.0, 8.0, "why")


def test_best_is_the_fastest_allowed_config_or_none():
    launches = [KernelLaunch("pointwise", x, 1, 1) for x in (1, 2, 4, 8)]
    s = ConfigScores(launches, np.zeros(4), np.zeros(4), np.zeros(4, np.int64), np.zeros(4, np.int64),
                     np.array([3.0, 1.0, 2.0, 1.0]))
    assert s.best() == 1                                    # ties go to the earliest
    assert s.best(np.array([True, False, True, False])) == 2
    assert s.best(np.array([False, False, False, True])) == 3
    assert s.best(np.zeros(4, bool)) is None


# --- Little's law: bytes in flight, not warps (issue #29) -----------------------------------------
def entropy_bf16(rows: int = 4096, n: int = 32768) -> str:
    """A row's entropy over bf16 logits (issue #29's new user's kernel): m = max(x), d = x - m,
    e = exp(d), s = sum(e), t = sum(e * d), H = log(s) - t / s.  Looped, m takes pass 0 and s, t pass 1:
    x is read twice; persistent, once."""
    ty, fty, rty = tensor((rows, n), "bf16"), tensor((rows, n), "f32"), tensor((rows,), "f32")
    p = Program([("%x", ty)])
    m = p.generic([("%x", ty, ident(2))], rty, ROW, ["parallel", "reduction"],
                  ["%f = arith.extf %a0 : bf16 to f32", "%r = arith.maximumf %f, %o : f32", "yield %r"],
                  init=_fill(p, rty, "0xFF800000"))
    d = p.generic([("%x", ty, ident(2)), (m, rty, ROW)], fty, ident(2), ["parallel"] * 2,
                  ["%f = arith.extf %a0 : bf16 to f32", "%r = arith.subf %f, %a1 : f32", "yield %r"])
    e = p.generic([(d, fty, ident(2))], fty, ident(2), ["parallel"] * 2, ["%r = math.exp %a0 : f32", "yield %r"])
    s = p.generic([(e, fty, ident(2))], rty, ROW, ["parallel", "reduction"],
                  ["%r = arith.addf %a0, %o : f32", "yield %r"], init=_fill(p, rty, "0.0"))
    t = p.generic([(e, fty, ident(2)), (d, fty, ident(2))], rty, ROW, ["parallel", "reduction"],
                  ["%m = arith.mulf %a0, %a1 : f32", "%r = arith.addf %m, %o : f32", "yield %r"],
                  init=_fill(p, rty, "0.0"))
    h = p.generic([(s, rty, ident(1)), (t, rty, ident(1))], rty, ident(1), ["parallel"],
                  ["%l = math.log %a0 : f32", "%q = arith.divf %a1, %a0 : f32", "%r = arith.subf %l, %q : f32",
                   "yield %r"])
    return p.text(h, rty)


LOOPED_1W = KernelLaunch("looped", 1, 64, 1)              # what the warp-count rule picked (issue #29)
PERSISTENT_32W = KernelLaunch("persistent", 1, 32768, 32)  # what ptxas keeps in registers without a spill


def test_a_one_warp_looped_kernel_of_small_chunks_is_not_as_fast_as_a_persistent_tile():
    """The 32k-row bf16 entropy of issue #29, both configs taken spill-free (as ptxas compiles the
    persistent one, and as the learned policy prices the configs it predicts spill-free).

    Looped at 1 warp and 64-element chunks, the 4,096 programs all fit at once (32 one-warp blocks x 132
    SMs = 4,224) and each has one chunk in flight: 4096 x 64 elements x 2 bytes (bf16 x, the only full
    tensor; issued bytes 536.9 MB over 2 passes of 128 Mi elements) = 0.52 MB, a fifth of the 2.88 MB the
    H200 needs.  By Little's law each program then waits one HBM latency per chunk: 2 passes x 512 chunks
    x 600 ns = 614.4 us, plus launch and one wave.  The warp-count rule saturated HBM with 31 warps per SM
    and charged it 113 us (the re-read at DRAM bandwidth), within 2x of the persistent tile."""
    k = Kernels(entropy_bf16())
    shape = k.shape()
    s = score_configs(shape, [LOOPED_1W, PERSISTENT_32W], SM90, predicted_spill=np.zeros(2))
    looped, persistent = s.time_s
    assert s.issued_bytes.tolist() == [2 * 4096 * 32768 * 2 + 4096 * 4, 4096 * 32768 * 2 + 4096 * 4]
    assert looped == pytest.approx(2 * 512 * 600e-9 + LAUNCH + WAVE, rel=1e-9)
    # persistent: 1 block of 32 warps per SM, 132 programs x 65,536 bytes in flight, saturated: one DRAM pass
    assert persistent == pytest.approx(s.issued_bytes[1] / BW + LAUNCH + 32 * WAVE, rel=1e-9)
    assert looped > 10 * persistent


def test_a_spill_free_persistent_config_is_never_passed_over_for_a_looped_one_silently():
    """Issue #29's goal for --explain: the entropy, where every config is taken spill-free, picks a
    persistent config; where the picked config is looped and a persistent one moves fewer bytes, the
    estimate's reason (what ``--explain`` prints) names that config and why it lost."""
    from costfuse.cost_models.analytical import Analytical
    from costfuse.launch import config_space

    k = Kernels(entropy_bf16())
    shape = k.shape()
    configs = config_space(shape)
    free = score_configs(shape, configs, SM90, predicted_spill=np.zeros(len(configs)))
    best = free.best()
    assert configs[best].mode == "persistent" and free.passed_over(best) == ""
    assert free.time_s[configs.index(PERSISTENT_32W)] < free.time_s[configs.index(LOOPED_1W)]
    # a looped pick with a persistent config of fewer bytes always says why
    assert free.passed_over(configs.index(LOOPED_1W)).startswith(f"{configs[best].short()} moves 268.5 MB, not ")
    rejected = ["is predicted to spill" if c.mode == "persistent" else "" for c in configs]
    assert free.passed_over(configs.index(LOOPED_1W), rejected).endswith("but is predicted to spill")
    # the analytical policy's own register estimate (200 B/thread of spills at the fastest persistent
    # config) makes it loop here, and its reason, which --explain prints, says so
    est = Analytical(arch="sm_90").best_config(shape)
    assert est.launch.mode == "looped"
    assert est.reason.endswith("; persistent x1 r32768 w8 moves 268.5 MB, not 536.9 MB, but is estimated slower "
                               "(103.82 us vs 78.67 us, with 200 B/thread of spills estimated)")


def test_the_passed_over_reason_names_the_fastest_persistent_config_of_fewer_bytes_exactly():
    """``ConfigScores.passed_over`` on hand-made scores: the looped pick (1 GB issued) against two persistent
    configs, one of fewer bytes (the one named, with its spills) and one of as many (never named)."""
    from costfuse.cost_models.group_time import ConfigScores

    configs = [KernelLaunch("looped", 1, 1024, 4), KernelLaunch("persistent", 1, 8192, 8),
               KernelLaunch("persistent", 1, 8192, 16)]
    scores = ConfigScores(configs, np.array([40.0, 255.0, 200.0]), np.array([0.0, 64.0, 0.0]),
                          np.array([1e9, 5e8, 1e9]), np.array([5e8, 5e8, 5e8]), np.array([1.0, 2.0, 0.5]))
    assert scores.passed_over(0) == ("persistent x1 r8192 w8 moves 500.0 MB, not 1000.0 MB, but is estimated slower "
                                     "(2000000.00 us vs 1000000.00 us, with 64 B/thread of spills estimated)")
    assert scores.passed_over(0, ["", "is predicted to spill", ""]) == \
        "persistent x1 r8192 w8 moves 500.0 MB, not 1000.0 MB, but is predicted to spill"
    assert scores.passed_over(1) == ""                       # not looped
    # a persistent config the policy did not turn down is named before a faster one it did: the time's reason
    four = ConfigScores(configs + [KernelLaunch("persistent", 2, 8192, 8)], np.array([40.0, 255.0, 200.0, 90.0]),
                        np.zeros(4), np.array([1e9, 5e8, 1e9, 5e8]), np.full(4, 5e8), np.array([1.0, 2.0, 0.5, 3.0]))
    assert four.passed_over(0, ["", "is predicted to spill", "", ""]) == \
        "persistent x2 r8192 w8 moves 500.0 MB, not 1000.0 MB, but is estimated slower (3000000.00 us vs 1000000.00 us)"
    assert four.passed_over(0, ["", "is predicted to spill", "", "is outside the training range"]) == \
        "persistent x1 r8192 w8 moves 500.0 MB, not 1000.0 MB, but is predicted to spill"   # all turned down
    scores.spill_bytes[1] = 0.0
    assert scores.passed_over(0).endswith("(2000000.00 us vs 1000000.00 us)")   # no spills: not said


def _two_modes(times=(1.0, 2.0, 0.5)):
    """A looped config (1 GB issued) and two persistent ones, of fewer and of as many bytes (hand-made)."""
    configs = [KernelLaunch("looped", 1, 1024, 4), KernelLaunch("persistent", 1, 8192, 8),
               KernelLaunch("persistent", 1, 8192, 16)]
    return ConfigScores(configs, np.array([40.0, 90.0, 200.0]), np.array([0.0, 0.0, 16.0]),
                        np.array([10**9, 5 * 10**8, 10**9], np.int64), np.array([7, 8, 9], np.int64),
                        np.array(times))


def test_an_estimate_adds_the_passed_over_reason_only_for_a_policy_that_says_what_it_turned_down():
    scores = _two_modes()
    est = scores.estimate(0, "fastest")
    assert est.reason == "fastest"                        # no rejections given: the reason stands as it is
    assert (est.launch, est.time_s, est.issued_bytes, est.regs, est.spill_bytes, est.dram_bytes) == \
        (scores.configs[0], 1.0, 10**9, 40.0, 0.0, 7)
    assert type(est.dram_bytes) is int and type(est.issued_bytes) is int
    est = scores.estimate(0, "fastest", ["", "", ""])
    assert est.reason == ("fastest; persistent x1 r8192 w8 moves 500.0 MB, not 1000.0 MB, but is estimated slower "
                          "(2000000.00 us vs 1000000.00 us)")
    assert scores.estimate(1, "fastest", ["", "", ""]).reason == "fastest"   # a persistent pick passes none over
    turned_down = scores.estimate(0, "fastest", ["", "is predicted to spill", ""])   # the policy's own reason
    assert turned_down.reason == "fastest; persistent x1 r8192 w8 moves 500.0 MB, not 1000.0 MB, but is predicted to spill"


def test_no_persistent_config_of_fewer_bytes_means_nothing_was_passed_over():
    configs = [KernelLaunch("looped", 1, 1024, 4), KernelLaunch("persistent", 1, 8192, 8)]
    scores = ConfigScores(configs, np.zeros(2), np.zeros(2), np.array([10**9, 10**9]), np.zeros(2, np.int64),
                          np.array([1.0, 2.0]))
    assert scores.passed_over(0) == "" and scores.passed_over(0, ["", ""]) == ""


def test_the_passed_over_bytes_are_megabytes_of_a_million_bytes():
    configs = [KernelLaunch("looped", 1, 1024, 4), KernelLaunch("persistent", 1, 8192, 8)]
    scores = ConfigScores(configs, np.zeros(2), np.zeros(2), np.array([450_000, 50_000]), np.zeros(2, np.int64),
                          np.array([1.0, 2.0]))
    assert scores.passed_over(0).startswith("persistent x1 r8192 w8 moves 0.1 MB, not 0.5 MB, but")   # 0.05, 0.45


def test_weighed_lists_every_config_fastest_first_with_its_verdict():
    scores = _two_modes(times=(1.0, 2.0, 1.0))          # the third is as fast as the pick, the second slower
    out = scores.weighed(0, "why", {})
    assert [w.launch for w in out] == [scores.configs[0], scores.configs[2], scores.configs[1]]   # stable order
    assert [w.verdict for w in out] == ["picked: why", "as fast as the pick, which comes first",
                                        "slower than the pick (2000000.00 vs 1000000.00 us)"]
    assert [(w.regs, w.spill_bytes, w.p_spill, w.dram_bytes) for w in out] == \
        [(40.0, 0.0, None, 7), (200.0, 16.0, None, 9), (90.0, 0.0, None, 8)]
    rejected = scores.weighed(0, "why", {1: "is predicted to spill"}, p_spill=np.array([0.1, 0.9, 0.2]),
                              regs=np.array([41.0, 255.0, 99.0]), spill=np.array([0.0, 64.0, 0.0]))
    assert [(w.verdict, w.regs, w.spill_bytes, w.p_spill) for w in rejected] == [
        ("picked: why", 41.0, 0.0, 0.1), ("as fast as the pick, which comes first", 99.0, 0.0, 0.2),
        ("is predicted to spill", 255.0, 64.0, 0.9)]    # the policy's predictions, not the estimates


def test_weighed_without_a_pick_says_each_config_was_not_picked():
    scores = _two_modes()
    out = scores.weighed(None, "", {2: "is outside the training range"})
    assert [w.verdict for w in out] == ["is outside the training range", "not picked", "not picked"]

"""Exact values of the ``xla`` model and the analytical config time, derived by hand (issue #15).

Mutation testing (``experiments/mutation.py``) showed that the peer-model tests
only check signs, orderings and substrings of these two modules, so a wrong
constant or a swapped branch went unnoticed.  Here every figure is worked out
from the documented rules (the docstrings of ``cost_models/group_time.py`` and
``cost_models/xla.py``, docs/peers.md X-a to X-d, docs/groups.md) on small
kernels whose bytes, flops and live values are easy to count, with the
sm_90 row of ``costfuse/targets.py``: 4.8e12 B/s, 67e12 FLOP/s (f32; half
for 64-bit values), 132 SMs, 65,536 registers per SM, 255 per thread, 1 us
launch, 600 ns loaded HBM latency (2.88 MB in flight saturate HBM).  Each
table row spells out the intermediate terms (registers, blocks per SM,
waves, achieved parallelism) so that a failing row says which term moved.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pytest
from costfuse.data.mlir_text import Program, ident, tensor
from test_analytical import candidate, row_reduce_module
from test_peer_models import Kernels, _fill, chain, many_reductions, multi_use, softmax, wide

from costfuse.cost_models.group_time import ConfigScores, score_configs
from costfuse.cost_models.xla import MAX_TILE_ELEMS, Xla, XlaEstimate, shared_results, tile_limit, xla_time
from costfuse.launch import KernelLaunch
from costfuse.policy import Decision, MergeVerdict
from costfuse.targets import TARGETS, get_target

SM90 = get_target("sm_90")
BW, PEAK, LAUNCH, WAVE = 4.8e12, 67e12, 1e-6, 0.1e-6     # targets.py's sm_90 row; group_time.WAVE_S
L2_BW = 2.5 * BW                                          # targets.L2_OVER_HBM_BANDWIDTH
SAT = BW * 600e-9                                         # Little's law: 4.8 TB/s x targets.HBM_LATENCY_S = 2.88 MB
ROW = "affine_map<(d0, d1) -> (d0)>"


# --- kernels with easy counts ------------------------------------------------------------
def tanh16(dtype: str, shape=(256, 1024)) -> str:
    """One elementwise generic applying tanh 16 times: 16 x 8 = 128 flops per element, so compute-bound."""
    ty = tensor(shape, dtype)
    p = Program([("%x", ty)])
    body = [f"%t1 = math.tanh %a0 : {dtype}"] + [f"%t{i} = math.tanh %t{i - 1} : {dtype}" for i in range(2, 17)]
    return p.text(p.generic([("%x", ty, ident(2))], ty, ident(2), ["parallel"] * 2, body + ["yield %t16"]), ty)


def tanh16_normalized(rows: int = 256, n: int = 1024) -> str:
    """e = tanh^16(x) (128 flops), s = row sum of e (1), y = e / s (divf: 2).

    Looped, s takes pass 0 and y pass 1, and both need e: e is computed twice
    and x read twice, so the looped kernel does 128 more flops per element.
    """
    ty, rty = tensor((rows, n), "f32"), tensor((rows,), "f32")
    p = Program([("%x", ty)])
    body = ["%t1 = math.tanh %a0 : f32"] + [f"%t{i} = math.tanh %t{i - 1} : f32" for i in range(2, 17)]
    e = p.generic([("%x", ty, ident(2))], ty, ident(2), ["parallel"] * 2, body + ["yield %t16"])
    s = p.generic([(e, ty, ident(2))], rty, ROW, ["parallel", "reduction"],
                  ["%r = arith.addf %a0, %o : f32", "yield %r"], init=_fill(p, rty, "0.0"))
    y = p.generic([(e, ty, ident(2)), (s, rty, ROW)], ty, ident(2), ["parallel"] * 2,
                  ["%r = arith.divf %a0, %a1 : f32", "yield %r"])
    return p.text(y, ty)


# A position generator (an iota): it reads no tensor at all, so its row runs
# are made of the default 32-bit elements.  3 flops per element.
IOTA = """func.func @main() -> tensor<64x32xf32> {
  %e = tensor.empty() : tensor<64x32xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<64x32xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 1 : index
    %c = arith.index_cast %i : index to i32
    %r = arith.sitofp %c : i32 to f32
    linalg.yield %r : f32
  } -> tensor<64x32xf32>
  return %y : tensor<64x32xf32>
}
"""

# x + float(i) with i an index tensor: index has no bit width in MLIR's type
# API and counts as 64 bits (8-byte elements, 2 registers per value).  3 flops per element.
INDEX_INPUT = """func.func @main(%x: tensor<64x8xf32>, %i: tensor<64x8xindex>) -> tensor<64x8xf32> {
  %e = tensor.empty() : tensor<64x8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %i : tensor<64x8xf32>, tensor<64x8xindex>) outs(%e : tensor<64x8xf32>) {
  ^bb0(%a: f32, %b: index, %o: f32):
    %c = arith.index_cast %b : index to i32
    %f = arith.sitofp %c : i32 to f32
    %r = arith.addf %a, %f : f32
    linalg.yield %r : f32
  } -> tensor<64x8xf32>
  return %y : tensor<64x8xf32>
}
"""

KERNELS = {
    # softmax: max (1 flop), exp(x - max) (5), sum (1), divide (2) = 9 flops per element; x and e
    # live at once (live_full 2); 2 reductions; looped: 3 passes, x read in each, e computed twice (14 flops)
    "softmax 4096x1024": lambda: softmax(4096, 1024),
    "softmax 4096x512": lambda: softmax(4096, 512),
    "softmax 16x1024": lambda: softmax(16, 1024),
    "exp 4608x256": lambda: chain(1, (4608, 256)),        # pointwise, 4 flops per element, live_full 2
    "exp 64x1": lambda: chain(1, (64, 1)),                # keepdim: one rowwise member, live_full 1
    "tanh16 f32": lambda: tanh16("f32"),
    "tanh16 f64": lambda: tanh16("f64"),                  # 64-bit: 2 registers per value, half the peak
    "tanh16 normalized": tanh16_normalized,
    "iota": lambda: IOTA,
    "index input": lambda: INDEX_INPUT,
}


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


SOFTMAX_1024_HBM = 2 * 4096 * 1024 * 4                   # x read once, y stored: 33554432
SOFTMAX_1024_FLOPS = 9 * 4096 * 1024                     # 37748736

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
    # looped: x read in 3 passes + y = 4 x 16 MiB; 14 flops per element; live 2 + 2 accumulators = 4;
    # ept = 4*512/32 = 64: 24 + 256 = 280 regs, (280 - 255) * 8 = 200 spill bytes; 1024 programs,
    # 8 blocks, 1 wave; 64 MiB issued over 3 passes of 4 Mi elements = 16/3 bytes per element and pass:
    # 1024 x 2048 x 16/3 = 11.2 MB in flight, saturated; ceil(1024/512) = 2 chunks per pass x 3 passes = 6 chunks;
    # DRAM: each program re-reads 4 rows of 4 KiB, 1024 programs resident (32 blocks x 132 SMs by threads):
    # 16 MiB <= half the 60 MiB L2, so the re-reads hit L2: x once + y = 2 x 16 MiB
    Row("softmax 4096x1024", KernelLaunch("looped", 4, 512, 1), 280, 200, 4 * 4096 * 1024 * 4, 14 * 4096 * 1024,
        waves=1, util=1.0, spill_traffic=200 * 1024 * 32 * 6, dram=SOFTMAX_1024_HBM),
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


def _kernel(name: str):
    k = Kernels(KERNELS[name]())
    return k, k.shape()


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


# --- xla: X5 time, X2 tiles ----------------------------------------------------------------
@pytest.mark.parametrize("kernel,mode,compute,memory", [
    # 9 flops per element on f32 / 67e12; x read once and y stored / 4.8e12
    ("softmax 4096x1024", "persistent", SOFTMAX_1024_FLOPS / PEAK, SOFTMAX_1024_HBM / BW),
    # looped: e computed twice (14 flops), x read in 3 passes
    ("softmax 4096x1024", "looped", 14 * 4096 * 1024 / PEAK, 4 * 4096 * 1024 * 4 / BW),
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
    return Xla(arch="sm_4x")


def test_xla_tile_of_exactly_the_register_bound_fits(sm_4x):
    """X2 refuses a tile *above* 0.4 x the registers; one of exactly that many elements fits."""
    _k, pointwise = _kernel("exp 4608x256")
    assert sm_4x.tiles(pointwise)[-1] == KernelLaunch("pointwise", 16384, 1, 8)
    _k, row = _kernel("softmax 4096x1024")
    assert [t.xblock for t in sm_4x.tiles(row)] == [1, 2, 4, 8, 16]        # 16 x 1024 = 16384
    assert sm_4x.tiles(row)[-1] == KernelLaunch("persistent", 16, 1024, 8)


def test_xla_best_config_says_how_many_tiles_it_compared():
    _k, shape = _kernel("softmax 4096x1024")
    est = Xla().best_config(shape)          # tiles of 1..16 rows of 1024 fit 26214.4 (32 x 1024 do not)
    assert est.reason == ("xla: fastest of 5 tiles <= 26214 elements by our analytical time, "
                          "warps by tile size")
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
    v = Xla().merge_verdict(_est(a_us), _est(b_us), _est(ab_us), k.shape(0, 1))
    assert v.merge is merge
    assert v.priority == pytest.approx((1 + a_us + b_us - ab_us) * 1e-6, abs=1e-15)
    assert v.reason == reason


@pytest.mark.parametrize("program,left,right,reason", [
    (lambda: wide(60, 36), [0], [1], "xla: 97 operands + outputs > 96"),                # X4
    (lambda: many_reductions(9), range(9), [9], "xla: 9 reduction outputs > 8"),        # X3
])
def test_xla_budget_refusals_keep_the_priority(program, left, right, reason):
    k = Kernels(program())
    v = Xla().merge_verdict(_est(3), _est(2), _est(4), k.shape(*left, *right))
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
    v = Xla().merge_verdict(_est(3), _est(2), _est(4), merged)
    assert v == MergeVerdict(False, pytest.approx(2e-6, abs=1e-15),
                             "xla: a producer fuses into all its users or none; "
                             "member 1, member 2 of the merged kernel is still read outside it")


def test_xla_never_recomputes_a_producer():
    k = Kernels(chain(2))
    a, b = (Xla().best_config(k.shape(i)) for i in (0, 1))
    assert Xla().recompute_verdict(a, b, None, b, k.shape(0, 1), k.ops[0]) == MergeVerdict(
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
        d = Xla().decide(cand)
    assert d == Decision(fuse, reason, {"operands_and_outputs": io, "chain_length": 2})


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

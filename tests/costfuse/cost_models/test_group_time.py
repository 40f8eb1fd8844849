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
from helpers.counted_kernels import BW, LAUNCH, PEAK, SM90, SOFTMAX_1024_FLOPS, SOFTMAX_1024_HBM, WAVE, _kernel

L2_BW = 2.5 * BW                                          # targets.L2_OVER_HBM_BANDWIDTH


@dataclass(frozen=True)
class Row:
    """One config of one kernel and its terms, worked out by hand (the comment above each row shows the work).

    Blocks per SM = min(floor(65536 / (min(regs, cap) x 32 x warps)), 64 / warps, 32);
    ``waves`` = ceil(programs / (blocks x 132)); ``util`` = min(1, warps in flight per SM / 16)
    x min(1, row run bytes / 128), warps in flight per SM = min(programs, blocks x 132) x warps / 132;
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
    # -> 12 blocks (< 16 by warps); 4096 programs / (12*132 = 1584) -> 3 waves; 1584*4/132 = 48 warps >= 16
    Row("softmax 4096x1024", KernelLaunch("persistent", 1, 1024, 4), 40, 0, SOFTMAX_1024_HBM, SOFTMAX_1024_FLOPS,
        waves=3, util=1.0),
    # ept = 8*1024/32 = 256: 24 + 512 = 536 regs, cap 255: (536 - 255) * 8 = 2248 spill bytes per thread;
    # 65536/(255*32) -> 8 blocks; 512 programs, 1 wave; 512 warps over 132 SMs: 512/132/16 = 512/2112;
    # spills: 2248 * (512 programs * 32 threads) * 1 chunk
    Row("softmax 4096x1024", KernelLaunch("persistent", 8, 1024, 1), 536, 2248, SOFTMAX_1024_HBM, SOFTMAX_1024_FLOPS,
        waves=1, util=512 / 2112, spill_traffic=2248 * 512 * 32 * 1),
    # the same 256 elements per thread with 2 warps of 16 rows: 536 regs, 2248 spill bytes;
    # 65536/(255*64) -> 4 blocks; 256 programs, 1 wave, 256*2/132/16 = 512/2112; 256 * 64 threads
    Row("softmax 4096x1024", KernelLaunch("persistent", 16, 1024, 2), 536, 2248, SOFTMAX_1024_HBM,
        SOFTMAX_1024_FLOPS, waves=1, util=512 / 2112, spill_traffic=2248 * 256 * 32 * 2),
    # looped: x read in 2 passes + y = 3 x 16 MiB; 20 flops per element; live 2 + 2 accumulators = 4;
    # ept = 4*512/32 = 64: 24 + 256 = 280 regs, (280 - 255) * 8 = 200 spill bytes; 1024 programs,
    # 8 blocks, 1 wave, 1024/2112; ceil(1024/512) = 2 chunks per pass x 2 passes = 4 chunks;
    # DRAM: each program re-reads 4 rows of 4 KiB, 1024 programs resident (32 blocks x 132 SMs by threads):
    # 16 MiB <= half the 60 MiB L2, so the re-reads hit L2: x once + y = 2 x 16 MiB
    Row("softmax 4096x1024", KernelLaunch("looped", 4, 512, 1), 280, 200, 3 * 4096 * 1024 * 4, 20 * 4096 * 1024,
        waves=1, util=1024 / 2112, spill_traffic=200 * 1024 * 32 * 4, dram=SOFTMAX_1024_HBM),
    # ept = 16*1024/512 = 32: 24 + 64 = 88 regs (cap 128 at 16 warps); 65536/(88*512) = 1.45 -> 1 block;
    # 256 programs over 132 SMs -> 2 waves; 132*16/132 = 16 warps in flight
    Row("softmax 4096x1024", KernelLaunch("persistent", 16, 1024, 16), 88, 0, SOFTMAX_1024_HBM, SOFTMAX_1024_FLOPS,
        waves=2, util=1.0),
    # ept = 512/128 = 4: 24 + 8 = 32 regs; 65536/(32*128) = 16 blocks exactly; 4096 / 2112 -> 2 waves
    Row("softmax 4096x512", KernelLaunch("persistent", 1, 512, 4), 32, 0, 2 * 4096 * 512 * 4, 9 * 4096 * 512,
        waves=2, util=1.0),
    # ept = 4*1024/256 = 16: 24 + 32 = 56 regs; 65536/(56*256) = 4.57 -> 4 blocks; 4 programs:
    # 4*8/132 warps per SM, / 16 = 32/2112
    Row("softmax 16x1024", KernelLaunch("persistent", 4, 1024, 8), 56, 0, 2 * 16 * 1024 * 4, 9 * 16 * 1024,
        waves=1, util=32 / 2112),
    # pointwise: 4608*256 elements / 256 = 4608 programs; ept = 256/256 = 1, max(2, 2) live: 26 regs;
    # 65536/(26*256) = 9.8 -> 9, but 64/8 = 8 by warps; 4608 / (8*132 = 1056) = 4.36 -> 5 waves
    Row("exp 4608x256", KernelLaunch("pointwise", 256, 1, 8), 26, 0, 2 * 4608 * 256 * 4, 4 * 4608 * 256,
        waves=5, util=1.0),
    # 16-element programs: 73728 of them; ept 0.5: 25 regs; 81 by regs, 64 by warps, 32 blocks at most;
    # 73728 / 4224 = 17.5 -> 18 waves; runs of 16 * 4 = 64 bytes use half of a 128-byte line
    Row("exp 4608x256", KernelLaunch("pointwise", 16, 1, 1), 25, 0, 2 * 4608 * 256 * 4, 4 * 4608 * 256,
        waves=18, util=64 / 128),
    # keepdim: 64 elements, one program; live values max(2, 1) = 2 (a pointwise block holds its
    # input and result): ept = 64/64 = 1, 26 regs; 65536/(26*64) = 39 -> 32 blocks; 2/132 warps per SM
    Row("exp 64x1", KernelLaunch("pointwise", 64, 1, 2), 26, 0, 2 * 64 * 4, 4 * 64,
        waves=1, util=2 / 2112),
    # f32, compute-bound: 128 flops / 67e12 > 8 bytes / 4.8e12 per element; ept = 1024/256 = 4,
    # 24 + 4*2 = 32 regs; 65536/(32*256) = 8 blocks; 256 programs in flight: 256*8/132/16 = 2048/2112
    Row("tanh16 f32", KernelLaunch("pointwise", 1024, 1, 8), 32, 0, 2 * 256 * 1024 * 4, 128 * 256 * 1024,
        waves=1, util=2048 / 2112),
    # f64: 2 registers per value: 24 + 4*2*2 = 40 regs, 6 blocks; peak 33.5e12, still compute-bound
    Row("tanh16 f64", KernelLaunch("pointwise", 1024, 1, 8), 40, 0, 2 * 256 * 1024 * 8, 128 * 256 * 1024,
        waves=1, util=2048 / 2112, words=2),
    # persistent: x read once (131 flops); ept 8, live 2: 40 regs, 12 blocks; 256 programs: 1024/2112
    Row("tanh16 normalized", KernelLaunch("persistent", 1, 1024, 4), 40, 0, 2 * 256 * 1024 * 4, 131 * 256 * 1024,
        waves=1, util=1024 / 2112),
    # looped: x read twice (3 x 1 MiB), e computed twice (259 flops, compute-bound); live 2 + 1
    # accumulator: ept 4, 24 + 12 = 36 regs, 65536/(36*128) = 14.2 -> 14 blocks
    Row("tanh16 normalized", KernelLaunch("looped", 1, 512, 4), 36, 0, 3 * 256 * 1024 * 4, 259 * 256 * 1024,
        waves=1, util=1024 / 2112),
    # no input: the output only; runs of 16 default 4-byte elements = 64 bytes (x 1/2); live max(2, 1);
    # 2048 / 16 = 128 programs: 128/2112, x 1/2
    Row("iota", KernelLaunch("pointwise", 16, 1, 1), 25, 0, 64 * 32 * 4, 3 * 64 * 32,
        waves=1, util=128 / 2112 * 64 / 128),
    # x (2 KiB), i (8-byte index: 4 KiB), y (2 KiB); words 2 (index is 64-bit); live 3 (x, i, y):
    # ept 8/32 = 0.25: 24 + 0.25*3*2 = 25.5 regs; 64 programs: 64/2112; runs of 8 x 8 bytes = 64 (x 1/2)
    Row("index input", KernelLaunch("pointwise", 8, 1, 1), 25.5, 0, 64 * 8 * (4 + 8 + 4), 3 * 64 * 8,
        waves=1, util=64 / 2112 * 64 / 128, words=2),
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

"""Per-architecture GPU constants for the analytical cost model (docs/design.md §4, §7).

One row per compile target (``sm_80``, ``sm_90``, ``sm_100``), each the
flagship data-centre part of that generation.  Numbers are public
specification figures (SXM boards, boost clocks), not measurements; the
analytical model uses them as a roofline and nothing is tuned to them.

=========  ==========  =========  =======  ====  ==========  ==========  =============  ==========  ===========
arch       part        HBM        L2       SMs   regs / SM   regs / thr  FP32 (no TC)   launch      HBM latency
=========  ==========  =========  =======  ====  ==========  ==========  =============  ==========  ===========
``sm_80``  A100 80GB   2.039 TB/s 40 MB    108   65,536      255         19.5 TFLOP/s   1 µs        600 ns*
``sm_90``  H200        4.8 TB/s   60 MB    132   65,536      255         67 TFLOP/s     1 µs        600 ns*
``sm_100`` B200        8.0 TB/s   126 MB*  148   65,536      255         75 TFLOP/s*    1 µs        600 ns*
=========  ==========  =========  =======  ====  ==========  ==========  =============  ==========  ===========

* ``sm_90`` is H100 and H200 alike for compile labels (same ISA, same
  register file); the row carries the H200's memory (4.8 TB/s HBM3e), the GPU
  of our profiling machine.  An H100 SXM has 3.35 TB/s and 50 MB of L2:
  pass ``Target.replace(...)`` (``dataclasses.replace``) to model one.
* ``sm_100`` figures marked * vary between public sources (L2 65-126 MB,
  FP32 75-90 TFLOP/s); they are not measured here and only the B200's HBM
  bandwidth and SM count are NVIDIA datasheet figures.
* ``launch``: the fixed cost charged per kernel, as in XLA's GPU
  performance model (``kKernelLaunchOverhead``, 1 µs).
* L2 bandwidth: no datasheet gives it; the analytical time takes it as
  :data:`L2_OVER_HBM_BANDWIDTH` times the HBM bandwidth (third-party
  microbenchmarks put an H100 SXM's L2 near 12 TB/s against 3.35 TB/s of
  HBM3, about 3.6x; 2.5x is the conservative round figure).  An estimate,
  until the GPU measures it.
* Bytes in flight (Little's law): HBM delivers its bandwidth only when
  bandwidth x latency bytes are outstanding across the GPU.  ``hbm_latency_s``
  is the loaded DRAM latency of a global load, one named constant per arch
  (:data:`HBM_LATENCY_S`); all three are the same 600 ns estimate (published
  microbenchmarks of A100 and H100 put it near 500-700 ns under load; none
  is measured here, and no source gives B200's, so it keeps the same figure
  until the GPU measures it): at 4.8 TB/s that is 2.88 MB in flight, 22 KB
  per SM of the H200 (1.2 MB on the A100, 4.8 MB on the B200).  ``Target.bytes_to_saturate`` is the
  product; the analytical time (:mod:`costfuse.cost_models.group_time`)
  derates bandwidth by the bytes a config's resident programs have in flight
  against it.
* Residency: at most 2,048 threads and 32 blocks per SM on sm_80, sm_90 and
  sm_100 (CUDA's compute-capability tables); the L2 model
  (:func:`costfuse.estimates.l2_holds`) counts the programs resident at once
  with them.
* The register file is 64K 32-bit registers per SM since Volta; ptxas caps
  a thread at 255 and ``.reqntid`` caps it at ``65536 / threads per CTA``
  (docs/design.md §5: 128 at 16 warps, 64 at 32).  It is allocated 256
  registers per warp at a time (8 per thread, :data:`REG_ALLOC_UNIT`; CUDA's
  occupancy calculator), so the blocks an SM holds step down at fixed
  register counts (``Target.resident_blocks_at``): at 4 warps, 4 blocks up
  to 128 registers, 3 up to 168, 2 up to 255.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

L2_OVER_HBM_BANDWIDTH = 2.5
REG_ALLOC_UNIT = 8          # registers a thread is allocated at a time (256 per warp), sm_80 to sm_100
HBM_LATENCY_S = {           # loaded DRAM latency of a global load, per arch (see the module docstring): estimates
    "sm_80": 600e-9,
    "sm_90": 600e-9,
    "sm_100": 600e-9,
}


@dataclass(frozen=True)
class Target:
    """Constants of one GPU generation.  Units are in the field names (bytes, seconds, FLOP/s)."""

    arch: str                   # compile target, "sm_90"
    part: str                   # the part the numbers describe
    hbm_bytes_per_s: float      # peak DRAM bandwidth
    l2_bytes: int               # L2 capacity
    sms: int                    # streaming multiprocessors
    regs_per_sm: int            # 32-bit registers per SM
    max_regs_per_thread: int    # ptxas's per-thread ceiling
    fp32_flops_per_s: float     # peak non-tensor-core FP32 (an FMA counts as 2)
    launch_overhead_s: float    # fixed cost per kernel launch
    max_threads_per_sm: int = 2048
    max_blocks_per_sm: int = 32
    hbm_latency_s: float = 600e-9   # loaded DRAM latency (Little's law): each row passes HBM_LATENCY_S[arch]

    @property
    def bytes_to_saturate(self) -> float:
        """Bytes that must be in flight across the GPU for HBM to reach its bandwidth (Little's law:
        bandwidth x latency; 2.88 MB on the H200)."""
        return self.hbm_bytes_per_s * self.hbm_latency_s

    @property
    def l2_bytes_per_s(self) -> float:
        """L2 bandwidth: an estimate, :data:`L2_OVER_HBM_BANDWIDTH` x HBM (see the module docstring)."""
        return L2_OVER_HBM_BANDWIDTH * self.hbm_bytes_per_s

    def resident_blocks(self, num_warps):
        """Blocks of ``num_warps`` warps one SM holds at once by threads and blocks alone (registers may
        hold fewer: an upper bound on residency); an int or an array, as ``num_warps``."""
        per_sm = self.max_threads_per_sm // (32 * np.maximum(1, num_warps))
        return np.minimum(per_sm, self.max_blocks_per_sm)

    def resident_blocks_at(self, num_warps, regs):
        """Blocks of ``num_warps`` warps one SM holds at once when each thread takes ``regs`` registers:
        :meth:`resident_blocks`, and the register file, allocated :data:`REG_ALLOC_UNIT` registers per
        thread at a time (CUDA's occupancy calculator: 256 per warp on sm_80 to sm_100); arrays or ints."""
        warps = np.maximum(1, num_warps)
        alloc = np.ceil(np.maximum(1, regs) / REG_ALLOC_UNIT) * REG_ALLOC_UNIT
        return np.minimum(self.resident_blocks(num_warps), self.regs_per_sm // (alloc * 32 * warps)).astype(int)

    def reg_cap(self, num_warps):
        """Registers one thread may use in a CTA of ``num_warps`` warps (the ``.reqntid`` cap); an int for
        an int, an array for an array of warp counts."""
        if np.ndim(num_warps):
            return np.minimum(self.max_regs_per_thread, self.regs_per_sm // (32 * np.maximum(1, num_warps)))
        return min(self.max_regs_per_thread, self.regs_per_sm // (32 * max(1, int(num_warps))))


TARGETS: dict[str, Target] = {t.arch: t for t in (
    Target("sm_80", "A100 SXM4 80GB", 2.039e12, 40 * 2**20, 108, 65536, 255, 19.5e12, 1e-6,
           hbm_latency_s=HBM_LATENCY_S["sm_80"]),
    Target("sm_90", "H200 SXM (H100: 3.35 TB/s, 50 MB L2)", 4.8e12, 60 * 2**20, 132, 65536, 255, 67e12, 1e-6,
           hbm_latency_s=HBM_LATENCY_S["sm_90"]),
    Target("sm_100", "B200 (approximate, see notes)", 8.0e12, 126 * 2**20, 148, 65536, 255, 75e12, 1e-6,
           hbm_latency_s=HBM_LATENCY_S["sm_100"]),
)}


def arch_name(arch) -> str:
    """The canonical spelling of a compile target: ``sm_90`` for ``sm_90``, ``90``, ``SM_90`` or
    ``sm_90a`` (the ``a`` features change no register file).  The one parser of arch names: the
    pass, the models' arch check and the compile jobs all go through it."""
    return f"sm_{str(arch).strip().lower().removeprefix('sm_').rstrip('a')}"


def get_target(arch: str) -> Target:
    """The row for ``arch`` (any spelling :func:`arch_name` reads)."""
    t = TARGETS.get(arch_name(arch))
    if t is None:
        raise ValueError(f"unknown arch {arch!r}; known: {', '.join(TARGETS)}")
    return t


DEFAULT_TARGET = TARGETS["sm_90"]
"""The target of the shipped labels; the register file (65,536) and ptxas's per-thread cap (255)
are the same on every row, so v1's features, which predate per-arch models, read their caps here."""

"""The analytical time of a row kernel at every config of its space, in one vectorized pass.

For a :class:`costfuse.kernel.KernelShape` and its configs
(:func:`costfuse.launch.config_space`), each config costs::

    t = max(HBM bytes / (bandwidth x parallelism), flops / (peak x parallelism))
        + launch overhead + spill traffic / bandwidth

* HBM bytes: :meth:`KernelShape.hbm_bytes` of the config's mode (a looped
  kernel re-reads its inputs once per pass).
* registers per thread: ``BASE_REGS`` plus, for every value a thread holds
  at the worst point, one register per element it owns
  (``xblock * rblock / (32 * num_warps)``), two for 64-bit values.  A
  persistent tile holds ``live_full`` full-row values (docs/groups.md); a
  looped chunk holds the values of one pass plus one accumulator per
  reduction; a pointwise block holds its live values.
* spills: registers past the ``.reqntid`` cap (``Target.reg_cap``) are
  spilled, 4 bytes each, stored and reloaded once per row chunk by every
  thread (local memory is DRAM-backed: an upper bound).
* coalescing: a program reads runs of ``rblock`` (``xblock`` when pointwise)
  contiguous elements; runs shorter than a 128-byte line use the bandwidth
  in proportion.
* parallelism: HBM saturates only with enough warps in flight; resident
  warps per SM are limited by the grid and by registers, and the achieved
  fraction is ``min(1, warps in flight / WARPS_TO_SATURATE)``.  Each wave of
  programs over the SMs costs ``WAVE_S`` more (tiny programs are not free).

Every term is an estimate with a named constant; what ptxas really does at a
config is what the learned model is trained on (issue #13).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from costfuse.kernel import KernelShape
from costfuse.launch import KernelLaunch, numel
from costfuse.targets import Target

BASE_REGS = 24            # indices, masks, pointers, loop state
MAX_WARPS_PER_SM = 64
MAX_BLOCKS_PER_SM = 32
WAVE_S = 0.1e-6           # scheduling one wave of programs across the GPU (a guess until GPU labels exist:
                          # enough to keep programs of a few elements from looking free, far below an HBM pass)
COALESCED_BYTES = 128     # a row run shorter than one 128-byte line wastes the rest of the transaction
WARPS_TO_SATURATE = 16    # warps per SM in flight that keep HBM busy on H100/H200-class parts


@dataclass(frozen=True)
class ConfigScores:
    """Per-config estimates, aligned with ``configs``."""

    configs: list[KernelLaunch]
    regs: np.ndarray
    spill_bytes: np.ndarray       # per thread
    hbm_bytes: np.ndarray
    time_s: np.ndarray

    def best(self, allowed: np.ndarray | None = None) -> int | None:
        """Index of the fastest config (among ``allowed``), ties to the earliest; ``None`` if none."""
        t = self.time_s if allowed is None else np.where(allowed, self.time_s, np.inf)
        i = int(np.argmin(t))
        return None if not np.isfinite(t[i]) else i

    def estimate(self, i: int, reason: str):
        """Config ``i`` and its estimates as a ``GroupEstimate`` (what a model's ``best_config`` returns)."""
        from costfuse.cost_models.base import GroupEstimate

        return GroupEstimate(self.configs[i], float(self.time_s[i]), int(self.hbm_bytes[i]),
                             float(self.regs[i]), float(self.spill_bytes[i]), reason)


def score_configs(shape: KernelShape, configs: list[KernelLaunch], target: Target,
                  spill_bytes: np.ndarray | None = None) -> ConfigScores:
    """Estimates for ``shape`` at each of ``configs``.  ``spill_bytes`` (per
    thread) replaces the register estimate's spills, for a model that predicts them."""
    mode = np.array([c.mode for c in configs])
    x = np.array([c.xblock for c in configs], dtype=float)
    r = np.array([c.rblock for c in configs], dtype=float)
    w = np.array([c.num_warps for c in configs], dtype=float)
    ept = x * r / (32.0 * w)
    words = float(shape.words)
    regs, _ = register_estimate(shape, mode, ept)
    cap = np.array([target.reg_cap(int(c.num_warps)) for c in configs], dtype=float)
    est_spill = 4.0 * np.maximum(0.0, regs - cap)
    spill = est_spill if spill_bytes is None else np.asarray(spill_bytes, dtype=float)
    used = np.minimum(regs, cap)

    hbm = np.array([shape.hbm_bytes(m) for m in ("pointwise", "persistent", "looped")], dtype=float)
    hbm_c = np.where(mode == "looped", hbm[2], np.where(mode == "pointwise", hbm[0], hbm[1]))
    flops = {m: shape.flops(m) for m in ("persistent", "looped")}
    flops_c = np.where(mode == "looped", flops["looped"], flops["persistent"])

    programs = np.where(mode == "pointwise", np.ceil(numel(shape) / x), np.ceil(shape.n_rows / x))
    blocks_by_regs = np.floor(target.regs_per_sm / np.maximum(1.0, used * 32.0 * w))
    blocks_per_sm = np.maximum(1.0, np.minimum(np.minimum(blocks_by_regs, MAX_WARPS_PER_SM / w), MAX_BLOCKS_PER_SM))
    waves = np.ceil(programs / (blocks_per_sm * target.sms))
    in_flight = np.minimum(programs, blocks_per_sm * target.sms) * w / target.sms
    util = np.minimum(1.0, in_flight / WARPS_TO_SATURATE)
    run = np.where(mode == "pointwise", x, r) * _elem_bytes(shape)
    util = util * np.minimum(1.0, run / COALESCED_BYTES)

    chunks = np.where(mode == "looped", np.ceil(shape.n / r) * shape.n_passes, 1.0)
    threads = programs * 32.0 * w
    spill_traffic = spill * 2.0 * threads * chunks
    peak = target.fp32_flops_per_s / (2.0 if words == 2 else 1.0)
    time = (np.maximum(hbm_c / (target.hbm_bytes_per_s * util), flops_c / (peak * util))
            + target.launch_overhead_s + waves * WAVE_S + spill_traffic / target.hbm_bytes_per_s)
    return ConfigScores(list(configs), regs, spill, hbm_c.astype(np.int64), time)


def register_estimate(shape: KernelShape, mode: np.ndarray, ept: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(registers per thread, row values live per element) at each config, as the module docstring says:
    ``BASE_REGS`` + elements per thread x live values x words (the learned features use it too)."""
    live = np.where(mode == "looped", shape.live_full + shape.reductions, shape.live_full)
    live = np.where(mode == "pointwise", max(2, shape.live_full), live).astype(float)
    return BASE_REGS + ept * live * float(shape.words), live


def _elem_bytes(shape: KernelShape) -> float:
    """Bytes per element of the widest tensor the kernel reads (what its row runs are made of)."""
    from iree.compiler import ir

    widths = [ir.RankedTensorType(i.value.type).element_type for i in shape.inputs]
    bits = [t.width if hasattr(t, "width") else 64 for t in widths]
    return max(bits, default=32) / 8.0

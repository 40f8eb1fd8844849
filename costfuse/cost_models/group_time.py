"""The analytical time of a row kernel at every config of its space, in one vectorized pass.

For a row kernel (:class:`costfuse.row_kernel.RowKernel`: a Linalg group's
:class:`costfuse.kernel.KernelShape`, or an Inductor kernel's description) and its configs
(:func:`costfuse.launch.config_space`), each config costs::

    t = max(DRAM bytes / (HBM bandwidth x parallelism), issued bytes / (L2 bandwidth x parallelism),
            flops / (peak x parallelism))
        + launch overhead + spill traffic / HBM bandwidth

* issued bytes: :meth:`RowKernel.issued_bytes` of the config's mode (a
  looped kernel re-reads its inputs once per pass); every byte passes L2.
  These and the flops are read from the kernel's ``costs``
  (:class:`costfuse.row_kernel.ModeCosts`), computed once per kernel, and
  the configs as arrays (:func:`costfuse.launch.launch_arrays`), built once
  per scoring.
* DRAM bytes: :meth:`RowKernel.dram_bytes`, the L2 model of
  :mod:`costfuse.estimates` at the config (a looped kernel's re-reads hit L2
  when the rows its resident programs hold fit; broadcast weights are read
  once).  Both are estimates until a GPU's counters check them.
* registers per thread (:func:`costfuse.estimates.row_registers`):
  ``BASE_REGS`` plus, for every value a thread holds at the worst point, one
  register per element it owns (``xblock * rblock / (32 * num_warps)``), two
  for 64-bit values.  A
  persistent tile holds ``live_full`` full-row values (docs/groups.md); a
  looped chunk holds the values of one pass plus one accumulator per
  reduction; a pointwise block holds its live values.
* spills: registers past the ``.reqntid`` cap (``Target.reg_cap``) are
  spilled, each stored and reloaded once per row chunk by every thread
  (8 bytes, the spill unit of :mod:`costfuse.estimates`; local memory is
  DRAM-backed: an upper bound).
* coalescing: a program reads runs of ``rblock`` (``xblock`` when pointwise)
  contiguous elements; runs shorter than a 128-byte line use the bandwidth
  in proportion.
* parallelism (Little's law, issue #29): HBM delivers its bandwidth only
  with ``Target.bytes_to_saturate`` (bandwidth x loaded latency) bytes in
  flight.  A resident program has one tile in flight: ``xblock * rblock``
  elements (``xblock`` pointwise) times the bytes the kernel moves per
  element and pass (its issued bytes over passes and elements); resident
  programs are limited by the grid, by threads and by registers
  (occupancy).  The achieved fraction is ``min(1, bytes in flight /
  bytes_to_saturate)``, so a looped kernel with small chunks, or a grid
  too small to fill the GPU, cannot reach peak bandwidth however many warps
  it has, while a persistent tile of a long row can.  Each wave of programs
  over the SMs costs ``WAVE_S`` more (tiny programs are not free).  This
  replaced a count of warps in flight, which saturated a 1-warp looped
  kernel of 64-element chunks as easily as a persistent one (issue #29).

Every term is an estimate with a named constant; what ptxas really does at a
config is what the learned model is trained on (issue #13).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from costfuse.estimates import ConfigLabels, estimated_labels, l2_holds, spill_traffic
from costfuse.launch import KernelLaunch, LaunchArrays, launch_arrays
from costfuse.policy import GroupEstimate, WeighedConfig, microseconds
from costfuse.row_kernel import RowKernel
from costfuse.targets import Target

MAX_WARPS_PER_SM = 64
MAX_BLOCKS_PER_SM = 32
WAVE_S = 0.1e-6           # scheduling one wave of programs across the GPU (a guess until GPU labels exist:
                          # enough to keep programs of a few elements from looking free, far below an HBM pass)
COALESCED_BYTES = 128     # a row run shorter than one 128-byte line wastes the rest of the transaction


@dataclass(frozen=True)
class ConfigScores:
    """Per-config estimates, aligned with ``configs``."""

    configs: list[KernelLaunch]
    regs: np.ndarray
    spill_bytes: np.ndarray       # per thread, stored + loaded
    issued_bytes: np.ndarray
    dram_bytes: np.ndarray
    time_s: np.ndarray

    def best(self, allowed: np.ndarray | None = None) -> int | None:
        """Index of the fastest config (among ``allowed``), ties to the earliest; ``None`` if none."""
        t = self.time_s if allowed is None else np.where(allowed, self.time_s, np.inf)
        i = int(np.argmin(t))
        return None if not np.isfinite(t[i]) else i

    def passed_over(self, i: int, rejected=None) -> str:
        """Why config ``i``, if looped, was taken over the persistent configs that move fewer issued bytes
        (issue #29: a persistent config is never passed over without a reason in ``--explain``); ``""`` if
        ``i`` is not looped or no persistent config moves fewer bytes.  ``rejected``: why a policy turned
        config ``j`` down for another reason (a text per config, ``""`` for none: e.g. a predicted spill).
        It names the fastest such config the policy did not turn down and says it is estimated slower: the
        reason the pick is looped is then the time model's, however many faster persistent configs were
        turned down (add_layernorm_bf16: x1 r4096 w2 is predicted spill-free and 0.1 us slower, where x4
        r4096 w1, faster, is predicted to spill).  Only where every such config was turned down does it
        name the fastest and why."""
        if self.configs[i].mode != "looped":
            return ""
        fewer = [j for j, c in enumerate(self.configs)
                 if c.mode == "persistent" and self.issued_bytes[j] < self.issued_bytes[i]]
        if not fewer:
            return ""
        open_ = [j for j in fewer if rejected is None or not rejected[j]]
        j = min(open_ or fewer, key=lambda k: (self.time_s[k], k))
        alt = (f"{self.configs[j].short()} moves {self.issued_bytes[j] / 1e6:.1f} MB, "
               f"not {self.issued_bytes[i] / 1e6:.1f} MB, but")
        if rejected is not None and rejected[j]:
            return f"{alt} {rejected[j]}"
        spill = f", with {self.spill_bytes[j]:.0f} B/thread of spills estimated" if self.spill_bytes[j] else ""
        return f"{alt} is estimated slower ({self.time_s[j] * 1e6:.2f} us vs {self.time_s[i] * 1e6:.2f} us{spill})"

    def estimate(self, i: int, reason: str, rejected=None):
        """Config ``i`` and its estimates as a ``GroupEstimate`` (what a model's ``best_config`` returns).
        ``rejected`` (per config, why a policy turned it down; see :meth:`passed_over`): the reason then
        ends with why a looped ``i`` was taken over the persistent config of fewer bytes."""
        if rejected is not None:
            why = self.passed_over(i, rejected)
            reason = f"{reason}; {why}" if why else reason
        return GroupEstimate(self.configs[i], float(self.time_s[i]), int(self.issued_bytes[i]),
                             float(self.regs[i]), float(self.spill_bytes[i]), reason, int(self.dram_bytes[i]))


    def weighed(self, pick: int | None, why: str, rejected: dict[int, str] | None = None,
                p_spill: np.ndarray | None = None, regs: np.ndarray | None = None,
                spill: np.ndarray | None = None) -> list[WeighedConfig]:
        """Every config as a :class:`WeighedConfig`, fastest first: ``pick`` (chosen because ``why``), those
        in ``rejected`` with their reason, the rest slower than the pick.  ``p_spill``, ``regs``, ``spill``:
        a learned policy's predictions per config (NaN where it made none), instead of the estimates."""
        rejected = rejected or {}
        regs = self.regs if regs is None else regs
        spill = self.spill_bytes if spill is None else spill
        out = []
        for i in np.argsort(self.time_s, kind="stable"):
            i = int(i)
            if i == pick:
                verdict = f"picked: {why}"
            elif i in rejected:
                verdict = rejected[i]
            elif pick is None:
                verdict = "not picked"
            else:
                slower, best = microseconds(float(self.time_s[i]), float(self.time_s[pick]))
                verdict = f"slower than the pick ({slower} vs {best} us)" if slower != best else \
                    "as fast as the pick, which comes first"
            out.append(WeighedConfig(self.configs[i], float(self.time_s[i]), int(self.issued_bytes[i]),
                                     int(self.dram_bytes[i]), float(regs[i]), float(spill[i]),
                                     None if p_spill is None else float(p_spill[i]), verdict))
        return out


def score_configs(shape: RowKernel, configs: list[KernelLaunch], target: Target,
                  predicted_spill: np.ndarray | None = None, labels: ConfigLabels | None = None,
                  arrays: LaunchArrays | None = None) -> ConfigScores:
    """Estimates for ``shape`` at each of ``configs``.  ``predicted_spill`` (bytes per thread, stored +
    loaded) replaces the register estimate's spills, for a model that predicts them; ``labels``
    (a compile's registers and spills at these configs, as Inductor reads them) replace the register
    estimate altogether; ``arrays``: ``configs`` as :class:`costfuse.launch.LaunchArrays`, when the caller
    has them (:func:`costfuse.launch.space_arrays` keeps a whole space's)."""
    launches = launch_arrays(configs) if arrays is None else arrays
    mode, x, r, w = launches.mode, launches.xblock, launches.rblock, launches.num_warps
    costs = shape.costs      # the kernel's bytes, flops and size, asked once
    words = float(shape.words)
    estimate = estimated_labels(shape, launches, target) if labels is None else labels
    regs = estimate.regs
    cap = target.reg_cap(w).astype(float)
    spill = estimate.spill_bytes if predicted_spill is None else np.asarray(predicted_spill, dtype=float)
    used = np.minimum(regs, cap)

    issued_c = np.array(costs.issued, dtype=float)[launches.mode_index]
    flops_c = np.array(costs.flops, dtype=float)[launches.mode_index]

    programs = np.where(mode == "pointwise", np.ceil(costs.numel / x), np.ceil(costs.n_rows / x))
    blocks_by_regs = np.floor(target.regs_per_sm / np.maximum(1.0, used * 32.0 * w))
    blocks_per_sm = np.maximum(1.0, np.minimum(np.minimum(blocks_by_regs, MAX_WARPS_PER_SM / w), MAX_BLOCKS_PER_SM))
    waves = np.ceil(programs / (blocks_per_sm * target.sms))
    passes = np.where(mode == "looped", float(shape.n_passes), 1.0)
    bytes_per_elem = issued_c / (passes * float(costs.numel))        # moved per element and pass
    tile = np.where(mode == "pointwise", x, x * r)
    in_flight = np.minimum(programs, blocks_per_sm * target.sms) * tile * bytes_per_elem
    util = np.minimum(1.0, in_flight / target.bytes_to_saturate)
    run = np.where(mode == "pointwise", x, r) * shape.read_elem_bytes
    util = util * np.minimum(1.0, run / COALESCED_BYTES)

    looped = mode == "looped"
    holds = l2_holds(shape.reread_row_bytes, x, programs, w, target) if looped.any() else np.ones(len(x), bool)
    dram_c = np.where(looped & ~holds, float(costs.dram_missed), float(costs.dram_held))

    chunks = np.where(mode == "looped", np.ceil(shape.n / r) * shape.n_passes, 1.0)
    threads = programs * 32.0 * w
    traffic = spill_traffic(spill, threads, chunks)
    peak = target.fp32_flops_per_s / (2.0 if words == 2 else 1.0)
    memory = np.maximum(dram_c / target.hbm_bytes_per_s, issued_c / target.l2_bytes_per_s)
    time = (np.maximum(memory / util, flops_c / (peak * util))
            + target.launch_overhead_s + waves * WAVE_S + traffic / target.hbm_bytes_per_s)
    return ConfigScores(list(configs), regs, spill, issued_c.astype(np.int64), dram_c.astype(np.int64), time)


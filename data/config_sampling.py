"""Launch configs sampled around the heuristic, for the dataset.

The heuristic (``data.launch_config.heuristic_config``) keeps 8 elements per
thread for pointwise kernels, where almost no fused body spills.  Autotuners
(Inductor's included) also try wider tiles and fewer warps, and those are
where fused bodies start to spill; the cost model must see both.  So each
group is labelled at the heuristic config plus configs drawn from a wider
space:

* pointwise: ``XBLOCK`` in 256..8192 (at most ``next_pow2(xnumel)``),
  ``num_warps`` in 1..8;
* reductions: persistent ``RBLOCK = next_pow2(rnumel)`` up to 16384 or a
  looped ``RBLOCK`` in 512..4096, ``XBLOCK`` in 1..64, ``num_warps`` in 2..16;

keeping only configs with ``live_words * elems_per_thread <= bound``, and
stratifying the draws by that pressure (see :func:`sample_configs`).  A
pilot of 18 programs (1,209 kernels, sm_90) measured the spill rate by
pressure: 0.3% at <= 32 words per thread, 0% at 32-64, 8% at 64-128, 32% at
128-256, 86% at 256-512; so the draws target 128..1024 (``low``..``bound``),
where the answer turns from "no" to "yes", and the heuristic config (8
elements per thread) supplies the easy negatives.  (A first full run with
64..512 gave only 4% spilling kernels overall: small tensors cap the tile,
so many draws land below their target.)  The
bound (default 1024 words per thread, 4x the 255-register file) keeps
nearly every compile under the per-kernel timeout: docs/design.md §5 measured
minutes and gigabytes for ptxas once a kernel spills kilobytes, and the
pilot's slowest compile at up to 1,024 words took 56 s.
"""

from __future__ import annotations

import math
import random

from costfuse.data.launch_config import MAX_TILE_ELEMS, LaunchConfig, next_pow2

DEFAULT_BOUND_WORDS = 1024
DEFAULT_LOW_WORDS = 128


def elems_per_thread(c: LaunchConfig) -> float:
    """Tile elements each thread holds: ``XBLOCK * RBLOCK / (32 * num_warps)``."""
    return c.XBLOCK * c.RBLOCK / (32 * c.num_warps)


def candidate_configs(xnumel: int, rnumel: int = 1) -> list[LaunchConfig]:
    """The wide config space of this module's docstring, in a fixed order."""
    out = []
    if rnumel <= 1:
        for xb in (256, 512, 1024, 2048, 4096, 8192):
            if xb <= max(256, next_pow2(xnumel)):
                out += [LaunchConfig(xb, 1, w) for w in (1, 2, 4, 8) if xb >= 32 * w]
        return out
    rblocks = [next_pow2(rnumel)] if next_pow2(rnumel) <= 16384 else []
    rblocks += [r for r in (512, 1024, 2048, 4096) if r < rnumel]
    for rb in rblocks:
        for xb in (1, 2, 4, 8, 16, 32, 64):
            if xb <= next_pow2(xnumel) and xb * rb <= MAX_TILE_ELEMS:
                out += [LaunchConfig(xb, rb, w) for w in (2, 4, 8, 16) if xb * rb >= 32 * w]
    return out


def sample_configs(xnumel: int, rnumel: int, live_words: int, k: int, rng: random.Random,
                   exclude: LaunchConfig | None = None, bound: int = DEFAULT_BOUND_WORDS,
                   low: int = DEFAULT_LOW_WORDS) -> list[LaunchConfig]:
    """Up to ``k`` distinct configs within the bound (never ``exclude``), stratified by pressure.

    Each draw picks a target pressure ``live_words * elems_per_thread``
    log-uniformly in [low, bound] and takes the unused config closest to it, so
    the dataset covers the whole range from clearly safe to clearly
    spilling instead of piling up where the config space is dense.
    """
    live = max(live_words, 1)
    pool = [c for c in candidate_configs(xnumel, rnumel)
            if c != exclude and live * elems_per_thread(c) <= bound]
    rng.shuffle(pool)  # random tie-breaks
    chosen: list[LaunchConfig] = []
    for _ in range(min(k, len(pool))):
        target = rng.uniform(math.log2(low), math.log2(bound))
        best = min((c for c in pool if c not in chosen),
                   key=lambda c: abs(math.log2(live * elems_per_thread(c)) - target))
        chosen.append(best)
    return chosen


def sample_launches(shape, space: list, taken, k: int, low_regs: float, bound_regs: float, arch: str,
                    rng: random.Random) -> list:
    """Up to ``k`` launches of ``space`` (``costfuse.launch.KernelLaunch``) for the row kernel ``shape``, none
    in ``taken``, stratified by the analytical register estimate (``cost_models/group_time.py``): each
    draw targets a pressure log-uniform in [``low_regs``, ``bound_regs``] and takes the unused launch
    nearest to it; launches estimated above ``bound_regs`` are never drawn.  Dataset v2's sampler
    (``data/group_job.py``), shared with the Inductor job (``data/inductor_job.py``)."""
    from costfuse.cost_models.group_time import score_configs
    from costfuse.data.compile import arch_name
    from costfuse.targets import get_target

    if not space:
        return []
    regs = score_configs(shape, space, get_target(arch_name(arch))).regs
    pool = [(c, r) for c, r in zip(space, regs) if c not in taken and r <= bound_regs]
    rng.shuffle(pool)
    lo, hi = math.log2(low_regs), math.log2(bound_regs)
    out = []
    for _ in range(min(k, len(pool))):
        target = rng.uniform(lo, hi)
        i = min(range(len(pool)), key=lambda j: abs(math.log2(max(pool[j][1], 1.0)) - target))
        out.append(pool.pop(i)[0])
    return out

"""Launch configs sampled around the heuristic, for the dataset.

The heuristic (``costfuse.launch.heuristic_config``) keeps 8 elements per
thread for pointwise kernels, where almost no fused body spills.  Autotuners
(Inductor's included) also try wider tiles and fewer warps, and those are
where fused bodies start to spill; the cost model must see both.  So each
group is labelled at the heuristic config plus configs drawn from a wider
space (:func:`costfuse.launch.wide_configs`):

* pointwise: ``XBLOCK`` in 256..8192 (at most ``next_pow2(xnumel)``),
  ``num_warps`` in 1..8;
* reductions: persistent ``RBLOCK = next_pow2(rnumel)`` up to 16384 or a
  looped ``RBLOCK`` in 512..4096, ``XBLOCK`` in 1..64, ``num_warps`` in 2..16;

keeping only configs with ``live_words * elems_per_thread <= bound``, and
stratifying the draws by that pressure (see :func:`stratified_draws`).  A
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

from costfuse.launch import LaunchConfig, wide_configs

DEFAULT_BOUND_WORDS = 1024
DEFAULT_LOW_WORDS = 128


def stratified_draws(pool: list[tuple[object, float]], k: int, rng: random.Random, low: float,
                     bound: float) -> list[object]:
    """Up to ``k`` distinct items of ``pool`` (``(item, pressure)`` pairs), stratified by pressure.

    Each draw picks a target pressure log-uniformly in [``low``, ``bound``] and
    takes the unused item whose pressure is closest to it (pressures below 1
    count as 1; ties go to a random one), so the labels cover the whole range
    from clearly safe to clearly spilling instead of piling up where the
    config space is dense.  The v1 job (words per thread) and the group job
    (estimated registers, ``data/group_job.py``) both draw this way.
    """
    pool = list(pool)
    rng.shuffle(pool)  # random tie-breaks
    lo, hi = math.log2(low), math.log2(bound)
    chosen = []
    for _ in range(min(k, len(pool))):
        target = rng.uniform(lo, hi)
        i = min(range(len(pool)), key=lambda i: abs(math.log2(max(pool[i][1], 1.0)) - target))
        chosen.append(pool.pop(i)[0])
    return chosen


def sample_configs(xnumel: int, rnumel: int, live_words: int, k: int, rng: random.Random,
                   exclude: LaunchConfig | None = None, bound: int = DEFAULT_BOUND_WORDS,
                   low: int = DEFAULT_LOW_WORDS) -> list[LaunchConfig]:
    """Up to ``k`` distinct configs of :func:`costfuse.launch.wide_configs` within the bound (never
    ``exclude``), drawn by :func:`stratified_draws` on ``live_words * elems_per_thread``."""
    live = max(live_words, 1)
    pool = [(c, live * c.elems_per_thread()) for c in wide_configs(xnumel, rnumel) if c != exclude]
    return stratified_draws([(c, p) for c, p in pool if p <= bound], k, rng, low, bound)


def sample_launches(shape, space: list, taken, k: int, low_regs: float, bound_regs: float, arch: str,
                    rng: random.Random) -> list:
    """Up to ``k`` launches of ``space`` (``costfuse.launch.KernelLaunch``) for the row kernel ``shape``, none
    in ``taken``, drawn by :func:`stratified_draws` on the analytical register estimate
    (``cost_models/group_time.py``) in [``low_regs``, ``bound_regs``]; launches estimated above
    ``bound_regs`` are never drawn.  Dataset v2's sampler (``data/group_job.py``), shared with the
    Inductor job (``data/inductor_job.py``)."""
    from costfuse.cost_models.group_time import score_configs
    from costfuse.data.compile import arch_name
    from costfuse.targets import get_target

    if not space:
        return []
    regs = score_configs(shape, space, get_target(arch_name(arch))).regs
    pool = [(c, r) for c, r in zip(space, regs) if c not in taken and r <= bound_regs]
    return stratified_draws(pool, k, rng, low_regs, bound_regs)

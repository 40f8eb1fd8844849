"""data/config_sampling.py: the one stratified sampler both dataset jobs draw their configs with."""

import random

from costfuse.data.config_sampling import sample_configs, stratified_draws
from costfuse.launch import heuristic_config, wide_configs


def test_draws_are_distinct_repeatable_and_at_most_k():
    pool = [(f"c{i}", float(2 ** (i % 12))) for i in range(60)]
    a = stratified_draws(pool, 10, random.Random(3), 16, 1024)
    assert a == stratified_draws(pool, 10, random.Random(3), 16, 1024)
    assert len(a) == len(set(a)) == 10
    assert len(stratified_draws(pool[:4], 10, random.Random(3), 16, 1024)) == 4


def test_draws_land_near_log_uniform_targets_in_the_range():
    """Every pressure octave is in the pool, so each draw is within half an octave of a target in [low, bound]."""
    pool = [((i, j), float(2 ** i)) for i in range(14) for j in range(6)]
    pressures = dict(pool)
    drawn = stratified_draws(pool, 30, random.Random(0), 16, 1024)
    assert all(16 / 2 ** 0.5 <= pressures[c] <= 1024 * 2 ** 0.5 for c in drawn)
    assert len({pressures[c] for c in drawn}) >= 5      # spread over the range, not piled up at one end


def test_v1_samples_are_wide_configs_within_the_bound_never_the_heuristic():
    x, r, live = 4096, 3000, 6
    base = heuristic_config(x, r)
    got = sample_configs(x, r, live, 8, random.Random(1), exclude=base, bound=512)
    assert got and base not in got and set(got) <= set(wide_configs(x, r))
    assert all(live * c.elems_per_thread() <= 512 for c in got)

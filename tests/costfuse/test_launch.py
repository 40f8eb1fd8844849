"""Launch configs (``costfuse/launch.py``): what a config accepts, how it reads, and the heuristic's defaults.

Written for the mutation check's survivors (``experiments/results/mutation.md``): each test states a
contract the rest of the code relies on, not how the module computes it."""

from types import SimpleNamespace

import numpy as np
import pytest

from costfuse.launch import (LOOPED_RBLOCK, MAX_TILE_ELEMS, PERSISTENT_RBLOCK_CAP, KernelLaunch, LaunchConfig,
                             check_tile, config_space, heuristic_config, heuristic_launch_for, launch_arrays,
                             neighbour_configs, next_pow2, space_arrays, space_of, wide_configs)


@pytest.mark.parametrize("n, want", [(-3, 1), (0, 1), (1, 1), (2, 2), (3, 4), (1024, 1024), (1025, 2048)])
def test_next_pow2_is_the_smallest_power_of_two_not_below_n(n, want):
    assert next_pow2(n) == want


@pytest.mark.parametrize("bad", [0, -4, 3, 2.0, None])
def test_a_block_that_is_not_a_positive_power_of_two_is_refused_by_name(bad):
    with pytest.raises(ValueError, match=rf"^K\.XBLOCK must be a positive power of two, got {bad!r}$"):
        check_tile("K.", bad, 1, 4)
    with pytest.raises(ValueError, match=rf"^K\.RBLOCK must be a positive power of two, got {bad!r}$"):
        check_tile("K.", 1, bad, 4)


def test_warps_outside_the_allowed_counts_are_refused_by_name():
    with pytest.raises(ValueError, match=r"^K\.num_warps must be one of \(1, 2, 4, 8, 16, 32\), got 3$"):
        check_tile("K.", 1, 1, 3)


def test_a_tile_past_the_element_limit_is_refused_and_one_at_it_is_not():
    check_tile("K.", 2, MAX_TILE_ELEMS // 2, 4)
    with pytest.raises(ValueError, match=rf"^K\.tile XBLOCK\*RBLOCK={2 * MAX_TILE_ELEMS} exceeds {MAX_TILE_ELEMS}$"):
        check_tile("K.", 1, 2 * MAX_TILE_ELEMS, 4)


def test_each_config_class_names_itself_in_its_errors():
    with pytest.raises(ValueError, match=r"^LaunchConfig\.XBLOCK must be"):
        LaunchConfig(XBLOCK=3)
    with pytest.raises(ValueError, match=r"^LaunchConfig\.num_stages must be >= 1, got 0$"):
        LaunchConfig(XBLOCK=1, num_stages=0)
    with pytest.raises(ValueError, match=r"^KernelLaunch\.RBLOCK must be"):
        KernelLaunch("looped", 1, 48, 4)


def test_a_config_survives_its_dict_and_a_partial_dict_takes_the_defaults():
    c = LaunchConfig(XBLOCK=2, RBLOCK=512, num_warps=8, num_stages=2)
    assert LaunchConfig.from_dict(c.to_dict()) == c
    assert LaunchConfig.from_dict({"XBLOCK": "4", "extra": 1}) == LaunchConfig(XBLOCK=4, RBLOCK=1, num_warps=4,
                                                                                num_stages=1)


def test_a_config_is_persistent_when_its_block_holds_the_whole_row():
    c = LaunchConfig(XBLOCK=1, RBLOCK=1024)
    assert c.is_persistent(1024) and c.is_persistent(1000) and not c.is_persistent(1025)


def test_elements_per_thread_spread_the_tile_over_every_thread():
    assert LaunchConfig(XBLOCK=2, RBLOCK=1024, num_warps=4).elems_per_thread() == 16.0
    assert KernelLaunch("persistent", 2, 1024, 4).elems_per_thread() == 16.0


def test_launch_arrays_are_floats_for_the_formulas_and_mode_indices_for_lookups():
    a = launch_arrays([KernelLaunch("looped", 1, 64, 2), KernelLaunch("pointwise", 256, 1, 4)])
    assert a.xblock.dtype == a.rblock.dtype == a.num_warps.dtype == np.float64
    assert a.mode_index.dtype.kind == "i" and list(a.mode_index) == [2, 0]
    assert list(a.elems_per_thread) == [1.0, 2.0]


@pytest.mark.parametrize("pointwise", [True, False])
def test_space_arrays_describe_the_space_of_the_shape_kind(pointwise):
    shape = SimpleNamespace(pointwise=pointwise, n=512, n_rows=8)
    space = config_space(shape)
    assert all((c.mode == "pointwise") == pointwise for c in space)
    assert list(space_arrays(shape).mode) == [c.mode for c in space]
    assert list(space_of(pointwise, 512, 8)) == space   # the same space without a shape


def test_the_heuristic_with_nothing_reduced_is_pointwise_with_a_warp_per_256_elements():
    assert heuristic_config(512) == LaunchConfig(XBLOCK=512, RBLOCK=1, num_warps=2)
    assert heuristic_config(512).short() == "X512 R1 w2"
    assert heuristic_config(1 << 20).short() == "X1024 R1 w4"
    assert heuristic_launch_for(512) == KernelLaunch("pointwise", 512, 1, 2)


@pytest.mark.parametrize("xnumel, rnumel, expected", [
    (100_000, 1, LaunchConfig(1024, 1, 4)),      # Inductor's 1-D pointwise: XBLOCK 1024, 4 warps
    (100, 1, LaunchConfig(128, 1, 1)),
    (4096, 768, LaunchConfig(4, 1024, 8)),       # persistent: RBLOCK = next_pow2(768)
    (4, 8, LaunchConfig(4, 8, 2)),
    (1, 4096, LaunchConfig(1, 4096, 8)),         # at the cap: still persistent
    (64, 100_000, LaunchConfig(1, LOOPED_RBLOCK, 8)),  # above the cap: looped
])
def test_heuristic_config(xnumel, rnumel, expected):
    assert heuristic_config(xnumel, rnumel) == expected


def test_heuristic_is_persistent_up_to_cap():
    assert heuristic_config(8, PERSISTENT_RBLOCK_CAP).is_persistent(PERSISTENT_RBLOCK_CAP)
    assert not heuristic_config(8, PERSISTENT_RBLOCK_CAP + 1).is_persistent(PERSISTENT_RBLOCK_CAP + 1)


def _short(configs) -> list[str]:
    return [c.short() for c in configs]


def test_neighbours_halve_or_double_one_field_of_the_heuristic_at_a_time():
    assert _short(neighbour_configs(4096, 768)) == [   # RBLOCK 2048 would pass the padded row: dropped
        "X4 R1024 w8", "X2 R1024 w8", "X8 R1024 w8", "X4 R512 w8", "X4 R1024 w4", "X4 R1024 w16"]
    assert _short(neighbour_configs(100)) == ["X128 R1 w1", "X64 R1 w1", "X128 R1 w2"]   # no XBLOCK past the data
    assert _short(neighbour_configs(4, 2)) == ["X4 R2 w2", "X2 R2 w2", "X4 R1 w2", "X4 R2 w1", "X4 R2 w4"]
    # nothing reduced: no RBLOCK neighbour, whatever the base holds
    assert _short(neighbour_configs(4, 1, LaunchConfig(4, 2, 2))) == ["X4 R2 w2", "X2 R2 w2", "X4 R2 w1", "X4 R2 w4"]


def test_neighbours_go_down_to_one_and_up_to_the_padded_sizes_inclusive():
    assert _short(neighbour_configs(2, 2, LaunchConfig(2, 2, 2))) == [
        "X2 R2 w2", "X1 R2 w2", "X2 R1 w2", "X2 R2 w1", "X2 R2 w4"]    # 1 is a block; 4 passes both sizes
    assert _short(neighbour_configs(4, 4, LaunchConfig(2, 2, 2))) == [
        "X2 R2 w2", "X1 R2 w2", "X4 R2 w2", "X2 R1 w2", "X2 R4 w2", "X2 R2 w1", "X2 R2 w4"]   # 4 reaches both


def test_neighbours_reach_the_padded_row_and_the_padded_rows():
    assert "X1 R4096 w8" in _short(neighbour_configs(1, 4096, LaunchConfig(1, 2048, 8)))
    assert "X8 R8 w2" in _short(neighbour_configs(8, 8, LaunchConfig(4, 8, 2)))


def test_neighbours_that_are_no_valid_config_are_dropped():
    """From a given base: XBLOCK 0 and 2 (past one row), RBLOCK 8192 (past the row), 64 warps: all dropped."""
    base = LaunchConfig(1, 4096, 32)
    assert _short(neighbour_configs(1, 4096, base)) == ["X1 R4096 w32", "X1 R2048 w32", "X1 R4096 w16"]
    widest = LaunchConfig(1, MAX_TILE_ELEMS, 32)   # XBLOCK 2 would pass the tile limit: the others still follow
    assert _short(neighbour_configs(2, MAX_TILE_ELEMS, widest)) == [
        f"X1 R{MAX_TILE_ELEMS} w32", f"X1 R{MAX_TILE_ELEMS // 2} w32", f"X1 R{MAX_TILE_ELEMS} w16"]


def test_the_wide_pointwise_space_runs_from_256_elements_to_the_data_at_1_to_8_warps():
    assert _short(wide_configs(300)) == [f"X{x} R1 w{w}" for x in (256, 512) for w in (1, 2, 4, 8)]
    assert _short(wide_configs(10**6)) == [f"X{x} R1 w{w}" for x in (256, 512, 1024, 2048, 4096, 8192)
                                           for w in (1, 2, 4, 8)]
    assert _short(wide_configs(100)) == [f"X256 R1 w{w}" for w in (1, 2, 4, 8)]


def test_the_wide_reduction_space_holds_the_padded_row_and_looped_chunks_below_it():
    assert _short(wide_configs(4, 768)) == [f"X{x} R{r} w{w}" for r in (1024, 512) for x in (1, 2, 4)
                                            for w in (2, 4, 8, 16)]
    assert _short(wide_configs(1, 1024)) == [f"X1 R{r} w{w}" for r in (1024, 512) for w in (2, 4, 8, 16)]
    assert _short(wide_configs(1, 2)) == []                        # a tile of 2 gives a warp nothing to do
    assert _short(wide_configs(1, 8)) == []


def test_the_wide_reduction_space_keeps_rows_up_to_16384_and_tiles_up_to_the_limit():
    whole = wide_configs(8, 16384)
    assert _short(whole[:4]) == [f"X1 R16384 w{w}" for w in (2, 4, 8, 16)]
    assert "X8 R16384 w16" in _short(whole) and 8 * 16384 == MAX_TILE_ELEMS
    assert {c.RBLOCK for c in wide_configs(2, 32768)} == {512, 1024, 2048, 4096}   # past 16384: looped only


def test_frozen_arrays_are_the_launch_arrays_read_only():
    """A cache hands the same arrays to every caller (the whole space's, the Inductor handler's two spaces):
    none may write into them."""
    from costfuse.launch import frozen_launch_arrays

    space = space_of(False, 512, 8)
    frozen, fresh = frozen_launch_arrays(space), launch_arrays(list(space))
    for name, a in vars(frozen).items():
        assert not a.flags.writeable and list(a) == list(getattr(fresh, name)), name


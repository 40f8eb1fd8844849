"""Group-at-launch features (group feature schema v5, ``featurize/group_features.py``) on hand-made kernels."""

from __future__ import annotations

import math

import numpy as np
import pytest
from costfuse.launch import LaunchConfig
from costfuse.featurize.group_features import (
    ALIGN_COLUMNS, GROUP_COLUMNS, GROUP_FEATURE_COLUMNS, GROUP_FEATURE_SCHEMA_VERSION, GROUP_SCHEMAS, JOINT_COLUMNS,
    LAUNCH_COLUMNS, LOAD_COLUMNS, LOCAL_COLUMNS, group_features, group_static, launch_for_v1_config, size_align,
)

from costfuse.graph import function_blocks, generics_in
from costfuse.ir import parse_module
from costfuse.kernel import analyze_kernel
from costfuse.launch import KernelLaunch, config_space
from helpers.group_modules import softmax

COL = {c: i for i, c in enumerate(GROUP_FEATURE_COLUMNS)}

@pytest.fixture(scope="module")
def generics():
    """``generics(rows, n, t)``: the 4 generics of :func:`softmax`, their module kept alive for the module."""
    kept = {}

    def get(rows: int = 8, n: int = 100, t: str = "f32"):
        if (rows, n, t) not in kept:
            m = parse_module(softmax(rows, n, t))
            with m.context:
                kept[rows, n, t] = (m, generics_in(function_blocks(m)[0]))
        return kept[rows, n, t][1]

    return get


def test_columns_are_group_then_launch_then_joint_then_local_then_loads_then_alignment(generics):
    assert GROUP_FEATURE_COLUMNS == (GROUP_COLUMNS + LAUNCH_COLUMNS + JOINT_COLUMNS + LOCAL_COLUMNS + LOAD_COLUMNS
                                     + ALIGN_COLUMNS)
    assert GROUP_FEATURE_SCHEMA_VERSION == 5 and GROUP_SCHEMAS[5] == GROUP_FEATURE_COLUMNS
    # each schema appends to the one before: an older bundle's columns are a prefix of this code's rows
    for version in (2, 3, 4):
        assert GROUP_FEATURE_COLUMNS[:len(GROUP_SCHEMAS[version])] == GROUP_SCHEMAS[version]
    assert len(set(GROUP_FEATURE_COLUMNS)) == len(GROUP_FEATURE_COLUMNS)
    shape = analyze_kernel(generics())
    assert list(group_static(shape)) == list(GROUP_COLUMNS)
    assert group_features(shape, config_space(shape)).shape == (len(config_space(shape)), len(GROUP_FEATURE_COLUMNS))


def test_the_softmax_group_columns(generics):
    s = group_static(analyze_kernel(generics(8, 100, "f32")))
    assert {k: s[k] for k in ("n_members", "n_full", "n_reduce", "n_rowwise", "n_inputs", "n_outputs", "live_full",
                              "words", "n_passes", "pointwise")} == dict(
        n_members=4, n_full=2, n_reduce=2, n_rowwise=0, n_inputs=1, n_outputs=1, live_full=2, words=1, n_passes=2,
        pointwise=0.0)
    assert (s["log2_n"], s["log2_rows"], s["n_pad_ratio"]) == (math.log2(100), 3.0, 1.28)
    assert (s["in_bytes_per_elem"], s["out_bytes_per_elem"]) == (4.0, 4.0)
    assert s["g_transcendental"] == 1 and s["g_div_sqrt"] == 1


def test_vectorized_rows_equal_one_launch_at_a_time(generics):
    shape = analyze_kernel(generics(8, 100, "f64"))
    launches = config_space(shape)
    assert {c.mode for c in launches} == {"persistent", "looped"}
    X = group_features(shape, launches)
    one_by_one = np.vstack([group_features(shape, [c]) for c in launches])
    np.testing.assert_array_equal(X, one_by_one)
    np.testing.assert_array_equal(X, group_features(shape, launches, static=group_static(shape)))
    assert np.isfinite(X).all()


def test_live_values_per_thread_is_elements_per_thread_x_live_values_x_words(generics):
    """f64 softmax: 2 full-row values live at once (persistent), plus 2 per-row reductions while
    looping, 2 registers a value.  At 4 elements a thread: 4 x 2 x 2 = 16 persistent; at 2: 2 x 4 x 2 looped."""
    shape = analyze_kernel(generics(8, 100, "f64"))
    assert (shape.live_full, shape.reductions, shape.words) == (2, 2, 2)
    launches = [KernelLaunch("persistent", 1, 128, 1), KernelLaunch("looped", 2, 32, 1),
                KernelLaunch("persistent", 8, 128, 8)]
    X = group_features(shape, launches)
    ept = X[:, COL["elems_per_thread"]]
    assert ept.tolist() == [4.0, 2.0, 4.0]
    assert X[:, COL["live_values_per_thread"]].tolist() == [16.0, 16.0, 16.0]
    live = np.array([2, 2 + 2, 2])
    np.testing.assert_array_equal(X[:, COL["live_values_per_thread"]], ept * live * shape.words)
    f32 = group_features(analyze_kernel(generics(8, 100, "f32")), launches)
    np.testing.assert_array_equal(f32[:, COL["live_values_per_thread"]], X[:, COL["live_values_per_thread"]] / 2)


def test_a_pointwise_kernel_counts_its_live_values_at_its_elements_per_thread(generics):
    shape = analyze_kernel(generics()[1:2])      # exp(x - m): one all-parallel member, m read from outside
    assert shape.pointwise and shape.live_full == 3     # x, m and the result
    (row,) = group_features(shape, [KernelLaunch("pointwise", 256, 1, 2)])
    assert row[COL["elems_per_thread"]] == 4 and row[COL["live_values_per_thread"]] == 4 * 3 * 1


def test_registers_available_follow_the_warps(generics):
    """sm_90: 65,536 registers an SM, at most 255 a thread: 255 up to 8 warps, then 128, 64."""
    shape = analyze_kernel(generics())
    launches = [KernelLaunch("persistent", 8, 128, w) for w in (1, 4, 8, 16, 32)]
    X = group_features(shape, launches)
    assert X[:, COL["regs_available"]].tolist() == [255, 255, 255, 128, 64]
    np.testing.assert_allclose(X[:, COL["pressure_ratio"]],
                               X[:, COL["live_values_per_thread"]] / X[:, COL["regs_available"]])


def test_register_estimate_is_the_analytical_one(generics):
    """est_regs / est_spill_bytes are the group time's figures (one ``row_registers``, costfuse/estimates.py)."""
    from costfuse.cost_models.group_time import score_configs
    from costfuse.targets import get_target

    shape = analyze_kernel(generics(4, 4096, "f64"))
    launches = config_space(shape)
    X = group_features(shape, launches)
    scores = score_configs(shape, launches, get_target("sm_90"))
    np.testing.assert_allclose(X[:, COL["est_regs"]], scores.regs)
    np.testing.assert_allclose(X[:, COL["est_spill_bytes"]],
                               4 * np.maximum(0, X[:, COL["est_regs"]] - X[:, COL["regs_available"]]))
    assert (X[:, COL["est_spill_bytes"]] > 0).any() and (X[:, COL["est_spill_bytes"]] == 0).any()


def test_persistent_and_looped_launch_columns(generics):
    shape = analyze_kernel(generics(8, 100, "f32"))
    per, loop = group_features(shape, [KernelLaunch("persistent", 2, 128, 2), KernelLaunch("looped", 4, 32, 1)])
    cols = ("mode_pointwise", "mode_persistent", "mode_looped", "log2_xblock", "log2_rblock", "num_warps",
            "elems_per_thread", "log2_tile", "chunks", "log2_programs")
    assert dict(zip(cols, per[[COL[c] for c in cols]])) == dict(zip(cols, (0, 1, 0, 1, 7, 2, 4, 8, 1, 2)))
    assert dict(zip(cols, loop[[COL[c] for c in cols]])) == dict(zip(cols, (0, 0, 1, 2, 5, 1, 4, 7, 4, 1)))
    pw_shape = analyze_kernel(generics(8, 100, "f32")[1:2])
    (pw,) = group_features(pw_shape, [KernelLaunch("pointwise", 128, 1, 4)])
    assert (pw[COL["mode_pointwise"]], pw[COL["chunks"]], pw[COL["log2_rblock"]]) == (1, 1, 0)
    assert pw[COL["log2_programs"]] == math.log2(math.ceil(800 / 128))   # programs tile the 8 x 100 elements


def test_launch_for_v1_config_maps_pointwise_persistent_and_looped(generics):
    g = generics(8, 128, "f32")
    reduce_shape, pointwise_shape = analyze_kernel(g[:1]), analyze_kernel(g[1:2])
    assert launch_for_v1_config(pointwise_shape, LaunchConfig(XBLOCK=1024, RBLOCK=1, num_warps=4)) == \
        KernelLaunch("pointwise", 1024, 1, 4)
    assert launch_for_v1_config(reduce_shape, LaunchConfig(XBLOCK=8, RBLOCK=128, num_warps=4)) == \
        KernelLaunch("persistent", 8, 128, 4)       # RBLOCK holds the whole row
    assert launch_for_v1_config(reduce_shape, LaunchConfig(XBLOCK=2, RBLOCK=64, num_warps=2)) == \
        KernelLaunch("looped", 2, 64, 2)
    odd = analyze_kernel(generics(8, 100, "f32")[:1])
    assert launch_for_v1_config(odd, LaunchConfig(XBLOCK=1, RBLOCK=128, num_warps=1)).mode == "persistent"
    assert launch_for_v1_config(odd, LaunchConfig(XBLOCK=1, RBLOCK=64, num_warps=1)).mode == "looped"


def test_local_placement_columns_hold_the_tile_against_the_register_file(generics):
    """Persistent softmax over 8192 f32 values, 2 live row values: at 1 warp a thread holds 256 elements
    per value (one value alone is over the 255-register file: none fits), at 16 warps 16 (128 registers
    of cap: 8 values fit, the 32-word tile fits too)."""
    shape = analyze_kernel(generics(8, 8192, "f32"))
    X = group_features(shape, [KernelLaunch("persistent", 1, 8192, 1), KernelLaunch("persistent", 1, 8192, 16)])
    col = {c: X[:, COL[c]] for c in LOCAL_COLUMNS + ("live_values_per_thread", "regs_available")}
    np.testing.assert_array_equal(col["tile_bytes_per_thread"], 4 * col["live_values_per_thread"])
    np.testing.assert_array_equal(col["tile_bytes_per_thread"], [4 * 256 * 2, 4 * 16 * 2])
    np.testing.assert_allclose(col["value_over_regfile"], [256 / 255, 16 / 128])
    np.testing.assert_array_equal(col["values_fit_regfile"], [0, 8])
    np.testing.assert_array_equal(col["local_bytes_est"], [4 * (512 - 255), 0])


def test_the_load_column_reads_the_inputs_at_their_own_width(generics):
    """The same softmax tile in f32 and in bf16: every pressure column is equal (values are computed in f32),
    but a bf16 tile loads half the words, over the same register cap."""
    launches = [KernelLaunch("persistent", 1, 8192, 1), KernelLaunch("persistent", 1, 8192, 16)]
    f32, bf16 = (group_features(analyze_kernel(generics(8, 8192, t)), launches) for t in ("f32", "bf16"))
    for c in ("live_values_per_thread", "tile_bytes_per_thread", "est_regs", "regs_available"):
        np.testing.assert_array_equal(f32[:, COL[c]], bf16[:, COL[c]])
    # one input of 4 (f32) or 2 (bf16) bytes per element; 256 and 16 elements per thread; caps 255 and 128
    np.testing.assert_allclose(f32[:, COL["load_words_over_cap"]], [256 / 255, 16 / 128])
    np.testing.assert_allclose(bf16[:, COL["load_words_over_cap"]], [128 / 255, 8 / 128])


def test_the_alignment_column_is_the_row_lengths_power_of_two_up_to_16(generics):
    """Rows of 100 start 4-aligned (log2 2), of 8,192 16-aligned at most (4), of 20,619 (odd) unaligned (0): the
    same at every launch, since it is the row length's, not the tile's."""
    for n, want in ((100, 2.0), (8192, 4.0), (20619, 0.0), (24, 3.0)):
        shape = analyze_kernel(generics(8, n, "f32"))
        X = group_features(shape, config_space(shape))
        assert size_align(shape) == want and (X[:, COL["log2_size_align"]] == want).all()


def test_a_pointwise_kernels_alignment_is_its_element_counts():
    """A pointwise kernel is one flat loop over every element: 3 rows of 6 hold 18 elements (log2 1)."""
    from types import SimpleNamespace

    assert size_align(SimpleNamespace(pointwise=True, n_rows=3, n=6)) == 1.0
    assert size_align(SimpleNamespace(pointwise=False, n_rows=3, n=6)) == 1.0
    assert size_align(SimpleNamespace(pointwise=True, n_rows=4, n=6)) == 3.0
    assert size_align(SimpleNamespace(pointwise=False, n_rows=4, n=6)) == 1.0
    assert size_align(SimpleNamespace(pointwise=True, n_rows=0, n=6)) == 0.0   # no element: taken as one


def test_the_local_placement_columns_by_hand():
    """8 elements per thread of 3 live 64-bit values (2 words) under a cap of 64: a tile of 48 words (192 B),
    a value of 16 registers (a quarter of the cap, 4 fit), nothing past the register file; 64 elements of the
    same under 128: one value is the whole cap and the tile is 256 words past it; a quarter element per
    thread still takes a register per value."""
    from costfuse.featurize.group_features import local_placement

    ept, live, words, cap = (np.array(v, float) for v in ([8, 64, 0.25], [3, 3, 1], [2, 2, 2], [64, 128, 64]))
    tile, over, fit, local = local_placement(ept, live, words, cap)
    assert tile.tolist() == [192.0, 1536.0, 2.0]
    assert over.tolist() == [0.25, 1.0, 1 / 64]
    assert fit.tolist() == [4.0, 1.0, 64.0]
    assert local.tolist() == [0.0, 1024.0, 0.0]


def test_the_rmsnorm_group_columns_of_one_row():
    """RMSNorm over one row of 64: its per-row member (the rsqrt of the mean) counts as a member of its own
    but not in the flops per element, which the full and reduce members do for every element."""
    from helpers.peer_kernels import Kernels, rmsnorm

    k = Kernels(rmsnorm(1, 64))   # held: the shape reads its module's ops
    shape = k.shape()
    s = group_static(shape)
    assert [m.role for m in shape.members] == ["full", "reduce", "rowwise", "full"]
    assert (s["log2_rows"], s["n_rowwise"], s["n_gathers"]) == (0.0, 1, 0)
    assert s["flops_per_elem"] == sum(m.flops for m in shape.members if m.role != "rowwise") == 4.0


def test_a_one_element_pointwise_group_has_no_padding_and_all_its_bytes_per_element():
    from helpers.peer_kernels import Kernels, chain

    k = Kernels(chain(3, (1, 1)))
    shape = k.shape()
    assert (shape.pointwise, shape.n, shape.n_rows) == (True, 1, 1)
    s = group_static(shape)
    assert (s["log2_n"], s["log2_rows"], s["n_pad_ratio"]) == (0.0, 0.0, 1.0)
    assert s["in_bytes_per_elem"] == sum(i.nbytes for i in shape.inputs) == 4.0



def test_n_gathers_counts_each_input_read_by_a_gather_once():
    """An input with gathers counts once however many extracts read it; the others not at all."""
    import dataclasses

    from helpers.peer_kernels import Kernels, rmsnorm

    k = Kernels(rmsnorm(1, 64))   # held: the shape reads its module's ops
    shape = k.shape()
    first, *rest = shape.inputs
    gathered = dataclasses.replace(shape, inputs=(dataclasses.replace(first, gathers=((0, 1), (1, 2))), *rest))
    assert group_static(shape)["n_gathers"] == 0
    assert group_static(gathered)["n_gathers"] == 1

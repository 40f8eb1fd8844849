"""An Inductor kernel as a row kernel (featurize/inductor_kernel.py): plain numbers, no torch, no MLIR."""

from __future__ import annotations

import time

import numpy as np
import pytest

from costfuse.cost_models.group_time import score_configs
from costfuse.featurize.group_features import GROUP_COLUMNS, GROUP_FEATURE_COLUMNS, LOCAL_COLUMNS, group_features
from costfuse.featurize.inductor_kernel import FULL, REDUCE, ROWWISE, InductorKernel, KernelBuffer, KernelNode
from costfuse.launch import KernelLaunch, config_space
from costfuse.targets import get_target
from helpers.inductor_kernels import N, ROWS, softmax_kernel

def test_passes_follow_the_reductions_a_node_reads():
    k = softmax_kernel()
    assert k.pass_of == (0, 1, 2)       # the sum reads the max, the store reads both
    assert k.n_passes == 3 and k.reductions == 2 and not k.pointwise


def test_a_looped_kernel_reads_its_input_once_per_pass_a_persistent_one_once():
    k = softmax_kernel()
    assert k.inputs == ("x",)
    assert k.issued_bytes("persistent") == ROWS * N * 2 + ROWS * N * 2
    assert k.issued_bytes("looped") == 3 * ROWS * N * 2 + ROWS * N * 2


def test_live_full_counts_row_tiles_not_per_row_statistics():
    k = softmax_kernel()
    assert k.live_full == 1             # x is the only row tile; buf0 and buf1 are one value per row
    wide = InductorKernel(ROWS, N, (
        KernelNode("a", REDUCE, (), ("x", "y"), ("s",), "sum"),
        KernelNode("b", FULL, (), ("x", "y", "s", "w"), ("o",)),
    ), (KernelBuffer("x", ROWS * N, 16), KernelBuffer("y", ROWS * N, 16), KernelBuffer("w", N, 16),
        KernelBuffer("s", ROWS, 32), KernelBuffer("o", ROWS * N, 16)), ("o",))
    assert wide.live_full == 3          # x, y from the reduction on, and the row-broadcast weight w


def test_op_classes_flops_and_reduction_combines():
    cols = softmax_kernel().group_columns
    assert set(cols) == set(GROUP_COLUMNS)
    assert cols["g_transcendental"] == 2      # exp in op1 and op2
    assert cols["g_div_sqrt"] == 1            # truediv
    assert cols["g_compare_select"] == 1      # the max reduction's combine
    assert cols["g_cast"] == 4                # to_dtype
    assert cols["n_reduce"] == 2 and cols["n_full"] == 1 and cols["n_rowwise"] == 0
    assert cols["max_body_live_words"] == 4 and cols["sum_body_live_words"] == 9
    assert cols["in_bytes_per_elem"] == pytest.approx(2.0) and cols["out_bytes_per_elem"] == pytest.approx(2.0)


def test_an_int64_buffer_takes_two_words_per_value():
    k = softmax_kernel()
    labels = InductorKernel(ROWS, N, k.nodes[:1] + (KernelNode("l", ROWWISE, (), ("lab",), ("o2",)),),
                            k.buffers + (KernelBuffer("lab", ROWS, 64), KernelBuffer("o2", ROWS, 32)), ("o2",))
    assert softmax_kernel().words == 1 and labels.words == 2


def test_the_group_features_and_the_analytical_time_take_an_inductor_kernel():
    k = softmax_kernel()
    configs = config_space(k)
    t0 = time.perf_counter()
    X = group_features(k, configs, "sm_90", k.group_columns)
    elapsed = time.perf_counter() - t0
    assert X.shape == (len(configs), len(GROUP_FEATURE_COLUMNS)) and np.isfinite(X).all()
    assert elapsed < 0.5   # vectorized over the configs (the goal, <= 1 ms a kernel, is measured by the report)
    scores = score_configs(k, configs, get_target("sm_90"))
    i_p = configs.index(KernelLaunch("persistent", 1, N, 8))
    assert scores.issued_bytes[i_p] == k.issued_bytes("persistent")
    # the local-memory columns (schema v3) come from the kernel's live row values too: 8192 / 256 threads
    # = 32 elements of each of its live_full row values per thread, against the 255-register cap at 8 warps
    local = dict(zip(LOCAL_COLUMNS, X[i_p, [GROUP_FEATURE_COLUMNS.index(c) for c in LOCAL_COLUMNS]]))
    tile_words = 32 * k.live_full * k.words
    assert local == {"tile_bytes_per_thread": 4 * tile_words, "value_over_regfile": 32 / 255,
                     "values_fit_regfile": 7, "local_bytes_est": 4 * max(0, tile_words - 255)}


def test_dram_bytes_leave_out_the_rereads_l2_holds():
    """A looped softmax issues its row three times; by the L2 model (costfuse.estimates) a few resident
    rows fit L2, so DRAM sees it once, as a persistent kernel's."""
    k = softmax_kernel()
    target = get_target("sm_90")
    looped = KernelLaunch("looped", 1, 1024, 8)
    assert k.issued_bytes("looped") > k.dram_bytes_at(looped, target) == k.issued_bytes("persistent")
    assert k.dram_bytes("looped", False) == k.issued_bytes("looped")
    assert k.reread_row_bytes == N * 2


def test_the_decider_goes_persistent_when_a_persistent_config_is_predicted_spill_free():
    """Decider.persistent_first: persistent whenever the heads allow it; without it, the fastest config of
    every mode by the expected time (what learned_pick alone answers)."""
    from costfuse.cost_models.learned_groups import learned_pick
    from costfuse.inductor.configs import inductor_can_launch
    from costfuse.inductor.decide import Decider

    d = Decider(spill_cut="recall")
    k = softmax_kernel()
    pick, why = d.pick(k)
    assert pick is not None and pick.launch.mode == "persistent", why
    d.persistent_first = False
    fastest, _ = d.pick(k)
    space = [c for c in config_space(k) if inductor_can_launch(c)]
    est, _ = learned_pick(d.heads, k, d.target, static=k.group_columns, configs=space,
                          spill_slowdown=d.spill_slowdown)
    assert fastest.launch == est.launch


def test_a_pick_carries_its_p_spill_as_the_heads_predict_it_at_the_launch():
    """Decider.pick takes P(spill) from learned_pick's walk instead of featurizing the pick again."""
    from costfuse.inductor.decide import Decider

    d = Decider()
    for k in (softmax_kernel(), softmax_kernel(32)):
        pick, why = d.pick(k)
        assert pick is not None, why
        direct = d.predict(k, [pick.launch])["p_spill"][0]
        assert pick.p_spill == pytest.approx(direct, abs=1e-9)


def test_always_spills_featurizes_the_least_register_hungry_batch_and_answers_as_the_whole_space(monkeypatch):
    """The fusion verdict's walk: spill-free configs exist, so the first batch (the configs of fewest
    estimated registers) holds one and nothing more is featurized; its answer is the whole space's."""
    from costfuse.cost_models.learned_groups import BATCH
    from costfuse.inductor.decide import Decider

    d = Decider()
    k = softmax_kernel()
    space = config_space(k)
    whole = d.heads.predict(d.features(k, space), spill_bytes=False)["spills"]
    batches = []
    features = d.features
    monkeypatch.setattr(d, "features", lambda kernel, launches: batches.append(launches) or features(kernel, launches))
    assert d.always_spills(k) is bool(whole.all()) is False
    (batch,) = batches
    assert len(batch) == BATCH
    est = dict(zip(space, group_features(k, space, "sm_90", k.group_columns)[:, GROUP_FEATURE_COLUMNS.index("est_regs")]))
    assert max(est[c] for c in batch) <= min(est[c] for c in space if c not in batch)


def test_a_group_outside_the_training_range_is_refused_before_any_config_is_featurized(monkeypatch):
    """GroupHeads.group_outside reads the group's own columns: the same reason outside() gives of every
    row, and learned_pick leaves such a group to the fallback without featurizing its space."""
    from costfuse.cost_models import learned_groups as lg
    from costfuse.inductor.decide import Decider

    d = Decider()
    k = softmax_kernel()
    static = dict(k.group_columns, n_reduce=99.0)
    why = d.heads.group_outside(static)
    assert why.startswith("n_reduce=99 not in")
    X = group_features(k, config_space(k), "sm_90", static)
    assert d.heads.outside(X)[1] == why
    assert d.heads.group_outside(k.group_columns) == ""
    assert d.heads.group_outside({"n_reduce": 99.0}) == why and d.heads.group_outside({}) == ""   # some columns
    monkeypatch.setattr(lg, "group_features", lambda *a, **kw: pytest.fail("featurized a group out of range"))
    est, reason = lg.learned_pick(d.heads, k, d.target, static=static)
    assert est is None and reason == f"group outside the training range ({why})"


def test_a_kernel_read_back_from_the_datasets_json_is_the_same_kernel():
    """Dataset sm90_inductor_v1 stores ``dataclasses.asdict(kernel)`` as JSON (tuples become lists, ints may
    come back as floats from a parquet column): ``kernel_from_dict`` gives back an equal kernel, field by field."""
    import dataclasses
    import json

    from costfuse.featurize.inductor_kernel import kernel_from_dict

    k = softmax_kernel()
    k = dataclasses.replace(k, nodes=(*k.nodes[:2], dataclasses.replace(k.nodes[2], indirect_loads=2)))
    d = json.loads(json.dumps(dataclasses.asdict(k)))
    d["rows"], d["nodes"][0]["live_words"], d["buffers"][0]["bits"] = float(d["rows"]), 2.0, 16.0
    d["nodes"][1]["ops"][0][1] = 1.0
    back = kernel_from_dict(d)
    assert back == k and hash(back) == hash(k)
    for got, want in zip(back.nodes, k.nodes):
        assert dataclasses.astuple(got) == dataclasses.astuple(want)
        assert all(type(v) is int for _, v in got.ops) and type(got.live_words) is int
    assert type(back.rows) is int and type(back.buffers[0].bits) is int and back.outputs == ("out",)


def _scaled_kernel() -> InductorKernel:
    """64 rows of 256: op0 reduces x times a per-row scale s; op1 (per row) turns the sum and a per-row bias b
    into r; op2 writes x * r * s + y, in the second pass.  y is read by op2 alone, b by the per-row op1 alone;
    s is one value per row, read in both passes."""
    rows, n = 64, 256
    return InductorKernel(rows, n, (
        KernelNode("op0", REDUCE, (("load", 2), ("mul", 1)), ("x", "s"), ("m",), "sum"),
        KernelNode("op1", ROWWISE, (("load", 2), ("rsqrt", 1)), ("m", "b"), ("r",)),
        KernelNode("op2", FULL, (("load", 4), ("mul", 2), ("add", 1)), ("x", "r", "y", "s"), ("out",)),
    ), (KernelBuffer("x", rows * n, 16), KernelBuffer("s", rows, 32), KernelBuffer("m", rows, 32),
        KernelBuffer("r", rows, 32), KernelBuffer("b", rows, 32), KernelBuffer("y", rows * n, 16),
        KernelBuffer("out", rows * n, 16)), ("out",))


def test_looped_bytes_count_each_inputs_passes_and_l2_misses_reread_only_full_rows():
    k = _scaled_kernel()
    x = y = out = 64 * 256 * 2
    s = b = 64 * 4
    assert k.pass_of == (0, 1, 1)
    assert k.issued_bytes("persistent") == x + s + b + y + out
    assert k.issued_bytes("looped") == 2 * x + 2 * s + b + y + out   # y: in op2's pass only; b: per row, once
    assert k.dram_bytes("looped") == k.dram_bytes("persistent", False) == k.issued_bytes("persistent")
    assert k.dram_bytes("looped", False) == 2 * x + s + b + y + out   # a per-row value is not a row to re-read


def test_a_kernels_flops_weigh_each_node_by_the_points_it_runs_over():
    k = _scaled_kernel()
    op0, op1, op2 = k.nodes
    assert op0.mlir_ops() == [("arith.mulf", 1), ("arith.addf", 1)]
    assert k.flops("looped") == k.flops("persistent") == float(
        (op0.flops + op2.flops) * 64 * 256 + op1.flops * 64)
    assert op1.flops > 0


def test_an_op_or_a_reduction_inductor_names_that_mlir_has_not_keeps_a_name_of_its_own():
    from costfuse.featurize.inductor_kernel import mlir_name

    assert mlir_name("frobnicate") == "inductor.frobnicate" and mlir_name("add") == "arith.addf"
    node = KernelNode("op0", REDUCE, (("load", 1),), ("x",), ("m",), "argfrob")
    assert node.mlir_ops() == [("arith.addf", 1)]


@pytest.mark.parametrize("n, live", [(1, 1), (2, 3)])
def test_only_a_row_of_more_than_one_element_is_a_tile_that_stays_live(n, live):
    """a, b and op0's t are all live into op1: three tiles at n = 2; at n = 1 (pointwise) no row is a tile."""
    k = InductorKernel(8, n, (
        KernelNode("op0", FULL, (("load", 1),), ("a",), ("t",)),
        KernelNode("op1", FULL, (("load", 2), ("add", 1)), ("a", "b", "t"), ("out",)),
    ), tuple(KernelBuffer(b, 8 * n, 32) for b in ("a", "b", "t", "out")), ("out",))
    assert k.live_full == live

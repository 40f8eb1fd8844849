"""experiments/source_features.py: the counts it reads from an Inductor kernel's source, and its cut sweep."""

from __future__ import annotations

import numpy as np

from experiments.source_features import CUTS, source_counts, sweep

SOURCE = '''
@triton_heuristics.reduction(size_hints={'x': 512, 'r0_': 8192})
@triton.jit
def triton_red_fused_0(in_ptr0, in_ptr1, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
    xnumel = 406
    r0_numel = 8117
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    x0 = (xindex % 29)
    x1 = xindex // 29
    x3 = xindex
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_mask = r0_index < r0_numel
        r0_2 = r0_index
        tmp0 = (r0_2 + 8117*x0).to(tl.int32)
        tmp3 = tl.load(in_ptr0 + (r0_2 + 8117*x0 + 235376*x1), r0_mask & tmp2 & xmask, other=0.0)
        tmp12 = tl.load(in_ptr1 + (r0_2 % 7), r0_mask & xmask, other=0.0)
        tmp6 = tl.full([1, 1], -100, tl.int64)
        tmp7 = tl.where(tmp2, tmp3, tmp12)
        tmp8 = tl.broadcast_to(tmp7, [XBLOCK, R0_BLOCK])
    tl.store(out_ptr0 + (x3), tmp9, xmask)
'''


def test_source_counts_read_index_loads_and_masks():
    c = source_counts(SOURCE)
    assert (c["src_x_index"], c["src_x_divmod"]) == (3, 2)   # x0, x1, x3; x0 and x1 divide
    assert (c["src_r_index"], c["src_r_divmod"]) == (1, 0)
    assert c["src_loads"] == 2
    assert c["src_address_terms"] == 4 + 2   # the pointer and each added term: in_ptr0 + three, in_ptr1 + one
    assert c["src_address_divmod"] == 1
    assert c["src_mask_ands"] == 2 + 1
    assert (c["src_where"], c["src_broadcast"], c["src_int32"], c["src_int64"]) == (1, 1, 1, 1)
    assert (c["src_const_rmask"], c["src_const_xmask"]) == (0.0, 0.0)
    # the decorator above @triton.jit is not the kernel's: its lines are not counted
    assert c["src_lines"] == len(SOURCE.split("@triton.jit", 1)[1].splitlines())


def test_constant_masks_are_read_as_such():
    elided = SOURCE.replace("xmask = xindex < xnumel", "xmask = tl.full([XBLOCK, 1], True, tl.int1)")
    elided = elided.replace("r0_mask = r0_index < r0_numel\n", "").replace("r0_mask & ", "")
    c = source_counts(elided)
    assert (c["src_const_rmask"], c["src_const_xmask"]) == (1.0, 1.0)


def test_sweep_states_both_goals_on_both_sets():
    y = np.array([True] * 20 + [False] * 80)
    p = np.where(y, 0.9, 0.01)
    p_noisy = p.copy()
    p_noisy[20:30] = 0.5   # 10 of 80 spill-free (12.5%) above every cut up to 0.5
    rows = sweep(p, y, p, y)
    assert [r[0] for r in rows] == list(CUTS)
    assert all(r[5] and r[1] == 1.0 and r[2] == 0.0 for r in rows)
    noisy = {r[0]: r for r in sweep(p, y, p_noisy, y)}
    assert not noisy[0.5][5] and noisy[0.5][4] == 10 / 80
    assert noisy[0.55][5] and noisy[0.55][4] == 0.0


def test_report_names_every_refit_and_the_weighted_rows():
    from experiments.source_features import markdown

    y = np.array([True] * 20 + [False] * 80)
    run = {"auc_v3": 0.98, "auc_v1v2": 0.97, "auc_held": 0.99, "auc_blocks": 0.96, "sweep": sweep(y * 0.9, y, y * 0.9, y)}
    out = {"held": (20, 80), "blocks": (20, 80), "test_v3": (100, 20), "train_candidates": (4118, 176, 28231),
           "runs": {"group features": run, "group features, Inductor's candidates weighted x5": run}}
    text = markdown(out, "python experiments/source_features.py")
    assert "4,118 (176 spilling) of 28,231" in text
    assert "| group features, Inductor's candidates weighted x5 | 0.9800 | 0.9700 | 0.9900 | 0.9600 | 0.05, " in text
    assert text.count("share dropped at each cut") == 2


def test_shares_by_candidate_list_count_each_list_on_its_own():
    from experiments.source_features import LISTS, by_list

    y = np.array([True, True, False, False])
    p = np.array([0.9, 0.2, 0.5, 0.0])
    held = {LISTS[0]: np.array([True, False, True, True]), LISTS[1]: np.ones(4, bool)}
    blocks = np.array([LISTS[1]] * 4)
    rows = {(r[0], r[1], r[2]): r[3:] for r in by_list(p, y, held, p, y, blocks, {"f1": 0.4, "recall": 0.1})}
    assert rows[LISTS[0], "held-out", "f1"] == (1, 1.0, 2, 0.5)
    assert rows[LISTS[1], "held-out", "recall"] == (2, 1.0, 2, 0.5)
    assert rows[LISTS[1], "blocks", "f1"] == (2, 0.5, 2, 0.5)
    spill, dropped, free, _ = rows[LISTS[0], "blocks", "f1"]   # no block candidate on the default list here
    assert (spill, free) == (0, 0) and dropped != dropped

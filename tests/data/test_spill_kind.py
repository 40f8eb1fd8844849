"""The spill-kind label (``data/spill_kind.py``): pressure, local-memory collapse, tiny, from ptxas's figures."""

from __future__ import annotations

import numpy as np
import pandas as pd

from costfuse.data.spill_kind import COLLAPSE, NONE, PRESSURE, SPILL_KINDS, TINY, kind_counts, spill_kind, spill_kinds_of


def test_the_issue_examples_get_their_kinds():
    # log_softmax 256 x 128 at 32 warps (cap 64): 1,960 B at 32 registers, a large stack frame -> collapse;
    # an 8-byte spill at 80 of 255 registers -> tiny; a kernel at its cap -> pressure; no spill -> none.
    kinds = spill_kind(regs=[32, 80, 255, 128, 64], spill_store_bytes=[980, 4, 300, 0, 8],
                       spill_load_bytes=[980, 4, 280, 0, 8], stack_bytes=[1024, 8, 300, 0, 8],
                       reg_cap=[64, 255, 255, 128, 64])
    assert list(kinds) == [COLLAPSE, TINY, PRESSURE, NONE, PRESSURE]


def test_the_cap_takes_a_register_of_slack_and_the_stack_is_held_to_the_register_file():
    assert spill_kind(254, 8, 8, 16, 255)[0] == PRESSURE      # ptxas reports 254 of 255 for some
    assert spill_kind(253, 8, 8, 16, 255)[0] == TINY
    assert spill_kind(168, 2000, 2000, 4 * 255, 255)[0] == COLLAPSE   # the whole register file on the stack
    assert spill_kind(168, 2000, 2000, 4 * 255 - 4, 255)[0] == TINY


def test_loads_alone_count_as_a_spill_and_missing_figures_have_no_kind():
    assert spill_kind(255, 0, 4, 8, 255)[0] == PRESSURE
    assert list(spill_kind([np.nan, 64], [4, np.nan], [4, np.nan], [8, 0], [255, 255])) == ["", ""]
    assert spill_kind(64, 0, 0, np.nan, 255)[0] == NONE     # no stack figure: a row that does not spill is none


def test_kinds_of_dataset_rows_use_the_cap_of_their_warps_and_counts_list_every_kind():
    df = pd.DataFrame({"regs": [64, 64, 255], "spill_store_bytes": [500, 500, 4], "spill_load_bytes": [500, 500, 4],
                       "stack_bytes": [512, 512, 8], "num_warps": [32, 4, 1]})
    kinds = spill_kinds_of(df)       # caps 64 (32 warps), 255, 255
    assert list(kinds) == [PRESSURE, TINY, PRESSURE]
    assert kind_counts(kinds) == {NONE: 0, PRESSURE: 2, COLLAPSE: 0, TINY: 1}
    assert tuple(kind_counts([])) == SPILL_KINDS


def test_an_occupancy_step_is_the_most_registers_that_keep_the_blocks_resident():
    from costfuse.data.spill_kind import at_occupancy_step

    # 4 warps: 4 blocks up to 128 registers, 3 up to 168 (allocated 8 per thread at a time), 2 up to 255
    steps = at_occupancy_step([128, 129, 136, 160, 168, 255], [4] * 6)
    assert list(steps) == [True, False, False, False, True, True]
    # 1 warp: 80 registers keep 25 blocks and 88 keep 23, so 80 is a step, 81 (allocated as 88) is one too;
    # 32 blocks is the most an SM holds, so below 64 registers one more unit costs nothing
    assert list(at_occupancy_step([80, 81, 48, 64], [1] * 4)) == [True, True, False, True]
    from costfuse.targets import get_target

    sm90 = get_target("sm_90")
    assert [int(sm90.resident_blocks_at(1, r)) for r in (48, 64, 80, 88)] == [32, 32, 25, 23]
    assert [int(sm90.resident_blocks_at(4, r)) for r in (128, 168, 255)] == [4, 3, 2]
    # 32 warps: the cap of 64 registers holds one block; 32 registers hold two
    assert list(at_occupancy_step([64, 32, 31, 33], [32] * 4)) == [True, True, True, False]


def test_the_card_counts_each_kind_and_its_share_at_an_occupancy_step():
    from costfuse.data.card import spill_kind_table

    df = pd.DataFrame({"status": ["ok"] * 4 + ["timeout"], "regs": [80, 76, 90, 255, np.nan],
                       "spill_store_bytes": [4, 0, 0, 300, np.nan], "spill_load_bytes": [4, 0, 0, 280, np.nan],
                       "stack_bytes": [8, 0, 0, 300, np.nan], "num_warps": [1, 1, 1, 1, 1]})
    table = spill_kind_table(df)
    assert list(table.index) == [NONE, PRESSURE, TINY]      # the timeout has no kind; no collapse here
    assert list(table["configs"]) == [2, 1, 1]
    # 76 registers allocate as 80, a step at 1 warp (25 blocks, 23 at 88); 90 allocates as 96 (21 blocks, 19 at 104)
    assert list(table["at_occupancy_step"]) == [1.0, 1.0, 1.0]
    table = spill_kind_table(df.assign(regs=[80, 57, 90, 255, np.nan]))   # 57 allocate as 64: 32 blocks, 28 at 72
    assert table.loc[NONE, "at_occupancy_step"] == 1.0
    table = spill_kind_table(df.assign(regs=[80, 40, 90, 255, np.nan]))   # 40: 32 blocks either way
    assert table.loc[NONE, "at_occupancy_step"] == 0.5

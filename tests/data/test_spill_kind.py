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

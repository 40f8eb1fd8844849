"""The latency oracle (docs/design.md §2): the fastest partition of a v1 program into labelled groups.

Rows and latencies are hand-made: the numbers are synthetic and exist only
in these tests (no GPU figure is simulated anywhere else).
"""

from __future__ import annotations

import math
import random

import pytest

from costfuse.data.latency_oracle import LatencyTable, Oracle, best_partition, label_of, members_of


def lat(**groups: float) -> dict[frozenset[int], float]:
    """``lat(g1=5, g1_g2=7)``: group latencies by label, ``_`` for ``+``."""
    return {members_of(k.replace("_", "+")): v for k, v in groups.items()}


def drow(group, latency_us, program_id="chain-0", status="ok", xblock=1024, rblock=1, num_warps=4):
    return {"program_id": program_id, "group": group, "status": status, "latency_us": latency_us,
            "xblock": xblock, "rblock": rblock, "num_warps": num_warps}


def test_a_chain_where_fusing_everything_wins():
    o = best_partition([1, 2, 3], lat(g1=5, g2=5, g3=5, g1_g2=7, g2_g3=7, g1_g2_g3=8))
    assert o.labels == ("g1+g2+g3",) and o.total_us == 8 and o.kernels == 1


def test_a_chain_where_a_spilling_group_makes_the_split_win():
    o = best_partition([1, 2, 3], lat(g1=5, g2=5, g3=5, g1_g2=7, g2_g3=6, g1_g2_g3=40))
    assert o.labels == ("g1", "g2+g3") and o.total_us == 11


def test_a_tree_takes_the_best_connected_subtree():
    # g1, g2, g3 feed g4, which feeds g5; the whole subtree under g4 spills.
    groups = lat(g1=10, g2=10, g3=10, g4=10, g5=10, g1_g4=14, g1_g2_g4=15, g1_g2_g3_g4=30, g4_g5=12,
                 g1_g2_g3_g4_g5=50)
    o = best_partition([1, 2, 3, 4, 5], groups)
    assert o.labels == ("g1+g2+g4", "g3", "g5") and o.total_us == 35


def test_ties_go_to_fewer_kernels():
    assert best_partition([1, 2], lat(g1=2, g2=3, g1_g2=5)).labels == ("g1+g2",)
    # three covers of 3 µs; two of 2 kernels: the first found (groups in ascending member order) is kept
    assert best_partition([1, 2, 3], lat(g1=1, g2=1, g3=1, g1_g2=2, g2_g3=2)).labels == ("g1", "g2+g3")


def test_totals_that_differ_only_by_rounding_are_a_tie():
    split = 0.1 + 0.2
    o = best_partition([1, 2], {frozenset([1]): 0.1, frozenset([2]): 0.2,
                                frozenset([1, 2]): math.nextafter(split, 1.0)})
    assert o.labels == ("g1+g2",)


def test_a_generic_no_labelled_group_covers_has_no_oracle():
    o = best_partition([1, 2, 3], lat(g1=1, g3=1, g1_g3=1))
    assert o == Oracle(None, None, "g2 is in no group with a latency") and o.labels == () and o.kernels is None


def test_groups_that_cover_everything_but_partition_nothing_have_no_oracle():
    o = best_partition([1, 2, 3], lat(g1_g2=1, g2_g3=1))
    assert o.partition is None
    assert o.reason == "the labelled groups do not partition g1..g3 (no latency for singleton g1)"


def test_groups_outside_the_program_are_ignored():
    assert best_partition([1, 2], lat(g1=1, g2=1, g1_g2_g3=0.5, g3=0.1)).total_us == 2


def test_the_search_agrees_with_the_chain_recursion_of_the_design():
    """docs/design.md §2: best[i] = min_j best[j] + lat(j+1..i), on a 20-op chain with every segment labelled."""
    rng = random.Random(3)
    n = 20
    seg = {frozenset(range(i, j + 1)): rng.uniform(1, 10) * (j - i + 1) ** rng.uniform(0.2, 1.3)
           for i in range(1, n + 1) for j in range(i, n + 1)}
    best = [0.0] + [math.inf] * n
    for i in range(1, n + 1):
        best[i] = min(best[j] + seg[frozenset(range(j + 1, i + 1))] for j in range(i))
    assert best_partition(range(1, n + 1), seg).total_us == pytest.approx(best[n], rel=1e-12)


def test_a_group_takes_its_fastest_labelled_config_and_unlabelled_rows_count_as_generics():
    table = LatencyTable([drow("g1", 4.0), drow("g2", 4.0), drow("g1+g2", 6.0, xblock=2048), drow("g1+g2", 9.0),
                          drow("g1+g2", 1.0, status="timeout"), drow("g3", None, status="timeout")])
    assert table.groups["chain-0"][frozenset([1, 2])] == 6.0
    assert table.oracle("chain-0").reason == "g3 is in no group with a latency"
    table = LatencyTable([drow("g1", 4.0), drow("g2", 4.0), drow("g1+g2", 9.0), drow("g1+g2", 6.0, xblock=2048)])
    assert table.oracle("chain-0") == Oracle((frozenset([1, 2]),), 6.0)


def test_a_kernel_is_looked_up_by_program_members_and_config():
    table = LatencyTable.from_frame(__import__("pandas").DataFrame(
        [drow("g1+g2", 9.0, rblock=None), drow("g1+g2", 6.0, xblock=2048), drow("g1", 3.0, program_id="chain-1")]))
    assert table.kernel("chain-0", {2, 1}, 1024, 1, 4) == 9.0
    assert table.kernel("chain-0", [1, 2], 1024, float("nan"), 4) == 9.0
    assert table.kernel("chain-0", [1, 2], 2048, 1, 4) == 6.0
    assert table.kernel("chain-0", [1, 2], 2048, 1, 8) is None
    assert table.kernel("chain-0", [1], 1024, 1, 4) is None
    assert table.kernel("chain-1", [1], 1024, 1, 4) == 3.0


def test_a_table_without_latency_is_empty_and_an_unknown_program_has_no_oracle():
    table = LatencyTable([drow("g1", None)])
    assert not table and LatencyTable([drow("g1", 2.0)])
    assert table.oracle("chain-9").reason == "no rows for program chain-9"
    assert best_partition([], {}).reason == "the program has no generics"


def test_group_labels_round_trip_and_bad_ones_are_refused():
    assert members_of("g3+g4+g10") == {3, 4, 10} and label_of({10, 3, 4}) == "g3+g4+g10"
    with pytest.raises(ValueError, match="'x3' is not g<ordinal>"):
        members_of("g1+x3")

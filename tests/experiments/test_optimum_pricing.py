"""Pricing candidates for the exact optimum (experiments/optimum_pricing.py, issue #26), with a fake compile pool.

The pool answers from the kernel's embedded ``costfuse.launch`` (its mode), so the tests say which
configs spill and check what the price becomes: the spill-free config with the fewest DRAM bytes, then the
fewest issued bytes; a byte level given up only when every config of it spills; a singleton whose every
config spills keeps the heuristic config, a group is refused.  No ptxas runs.
"""

from pathlib import Path

import pytest

from helpers.mode_pools import ModePool
from costfuse.group_pass import prepare_for_forming
from costfuse.ir import load_module
from costfuse.launch import heuristic_launch
from costfuse.targets import get_target
from experiments.candidate_groups import FunctionGraph, enumerate_candidates
from experiments.optimum_pricing import Price, byte_levels, price_round
from experiments.spill_free import CompileCounts, by_register_estimate

EXAMPLES = Path(__file__).parents[2] / "examples"
TARGET = get_target("sm_90")


@pytest.fixture(scope="module")
def softmax_gelu():
    """(graph, candidates) of examples/softmax_gelu.mlir."""
    m = load_module(EXAMPLES / "softmax_gelu.mlir")
    with m.context:
        funcs, _ = prepare_for_forming(m.operation)
        g = FunctionGraph.of(funcs[0].regions[0].blocks[0])
        yield g, enumerate_candidates(g).priced


def _one(cands, owns, stores=None, copies=frozenset()):
    return next(p for p in cands if p.candidate.owns == frozenset(owns) and p.candidate.copies == frozenset(copies)
                and (stores is None or p.candidate.stores == frozenset(stores)))


WHOLE = {4, 6, 7, 8, 10, 11, 12, 13, 14, 15}


def test_levels_are_fewest_dram_bytes_then_fewest_issued(softmax_gelu):
    g, cands = softmax_gelu
    with g.ops[0].context:
        levels = byte_levels(_one(cands, WHOLE).shape, TARGET)
    keys = [lv.bytes.key for lv in levels]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    # the whole softmax+GELU: persistent and looped move the same DRAM bytes (L2 holds the row between
    # passes), looped issues more: persistent is priced first
    assert len(levels) == 2 and levels[0].bytes.dram == levels[1].bytes.dram
    assert levels[0].bytes.issued < levels[1].bytes.issued
    assert {c.mode for c in levels[0].configs} == {"persistent"} and {c.mode for c in levels[1].configs} == {"looped"}


def test_first_spill_free_config_of_the_cheapest_level_in_register_order(softmax_gelu):
    g, cands = softmax_gelu
    with g.ops[0].context:
        p = Price.of(_one(cands, WHOLE), TARGET)
        assert not p.settled and p.cost() == p.levels[0].bytes.dram       # a lower bound until compiled
        counts, pool = CompileCounts(), ModePool()
        assert price_round([p], pool, 90, TARGET, counts) == ""
        first = by_register_estimate(p.candidate.shape, p.levels[0].configs, TARGET)[0]
    assert p.settled and p.launch == first and p.bytes == p.levels[0].bytes
    assert counts.compiles == 2 and counts.decisions == 1     # two workers, one batch; the first one holds
    assert "spill-free under ptxas" in p.note


def test_a_level_is_given_up_only_when_every_config_spills(softmax_gelu):
    g, cands = softmax_gelu
    with g.ops[0].context:
        p = Price.of(_one(cands, WHOLE), TARGET)
        counts, pool = CompileCounts(), ModePool(spilling={"persistent"})
        assert price_round([p], pool, 90, TARGET, counts) == ""     # one round settles the current level
        assert not p.settled and p.level == 1                      # every persistent config spilled
        assert pool.modes.count("persistent") == len(p.levels[0].configs)
        assert price_round([p], pool, 90, TARGET, counts) == ""
    assert p.settled and p.launch.mode == "looped" and p.bytes == p.levels[1].bytes
    assert "1 cheaper byte level(s) spill at every config" in p.note


def test_every_config_spilling_refuses_a_group_and_keeps_a_singleton_at_the_heuristic(softmax_gelu):
    g, cands = softmax_gelu
    with g.ops[0].context:
        group = Price.of(_one(cands, WHOLE), TARGET)
        single = Price.of(_one(cands, {6}), TARGET)       # g2, the max reduction, alone
        counts, pool = CompileCounts(), ModePool(spilling={"persistent", "looped"})
        for _ in range(3):
            price_round([group, single], pool, 90, TARGET, counts)
        assert group.refused and group.cost() is None and "refused" in group.note
        assert single.settled and not single.refused and single.launch == heuristic_launch(single.candidate.shape)
        assert counts.refused == 2


def test_no_kernel_candidates_cost_nothing_and_budgets_stop_pricing(softmax_gelu):
    g, cands = softmax_gelu
    with g.ops[0].context:
        none = Price.of(_one(cands, {4}, stores=()), TARGET)
        assert none.settled and none.cost() == 0
        p = Price.of(_one(cands, WHOLE), TARGET)
        counts = CompileCounts()
        assert price_round([p], ModePool(), 90, TARGET, counts, max_compiles=1) == "compile budget (1)"
        assert price_round([p], ModePool(), 90, TARGET, counts, deadline=0.0) == "time budget"
        assert counts.compiles == 0 and not p.settled


def test_byte_levels_are_kernel_bytes_per_config():
    """byte_levels computes bytes once per mode and L2 residency for all looped configs at once, and sorts
    configs into levels by index arrays shared per config space: the same
    bytes as kernel_bytes (KernelShape.issued_bytes, dram_bytes_at) config by config, on a graph whose long
    rows (32k bf16) L2 holds between passes at some looped configs and not at others."""
    from costfuse.launch import config_space
    from experiments.optimum_pricing import kernel_bytes

    m = load_module(Path(__file__).parents[2] / "experiments" / "workloads" / "softmax_32k_bf16.mlir")
    seen = set()
    with m.context:
        funcs, _ = prepare_for_forming(m.operation)
        g = FunctionGraph.of(funcs[0].regions[0].blocks[0])
        for p in enumerate_candidates(g).priced:
            if p.shape is None:
                continue
            levels = byte_levels(p.shape, TARGET)
            got = {c: lv.bytes for lv in levels for c in lv.configs}
            want = {c: kernel_bytes(p.shape, c, TARGET) for c in config_space(p.shape)}
            assert got == want
            order = {c: i for i, c in enumerate(config_space(p.shape))}    # each level in config-space order
            assert all([order[c] for c in lv.configs] == sorted(order[c] for c in lv.configs) for lv in levels)
            keys = [lv.bytes.key for lv in levels]
            assert keys == sorted(set(keys))                                # one level per bytes, cheapest first
            seen |= {(c.mode, b.dram == p.shape.dram_bytes("persistent")) for c, b in want.items()}
    assert ("looped", True) in seen and ("looped", False) in seen

"""Greedy, compile-checked kernel groups (experiments/oracle_groups.py) and compare_groups' goal verdicts
(issue #13).

One test compiles for real (a 64x1024 softmax, a few configs: seconds on the CPU); the others feed the
policy a fake compile pool, or the goal check hand-made totals.
"""

from pathlib import Path

import pytest

import experiments.compare_groups as cg
from helpers.mode_pools import ModePool
from costfuse.cost_models.group_time import score_configs
from costfuse.data.compile import CompilePool, ResultCache
from costfuse.graph import function_blocks, generics_in
from costfuse.ir import load_module
from costfuse.kernel import analyze_kernel
from costfuse.launch import config_space
from costfuse.targets import get_target
from experiments.oracle_groups import GreedyCompileChecked
from costfuse.outline import scratch_kernel_function

EXAMPLES = Path(__file__).parents[2] / "examples"


@pytest.fixture
def softmax():
    """The softmax of examples/softmax_gelu.mlir (x + bias, max, sub, exp, sum, div) as one kernel shape."""
    m = load_module(EXAMPLES / "softmax_gelu.mlir")
    with m.context:
        yield analyze_kernel(generics_in(function_blocks(m)[0])[:6])


def _by_regs(shape, mode):
    configs = config_space(shape)
    regs = score_configs(shape, configs, get_target("sm_90")).regs
    return [c for r, c in sorted(((r, c) for r, c in zip(regs, configs) if c.mode == mode), key=lambda rc: rc[0])]


def test_greedy_takes_the_least_hbm_mode_and_its_first_spill_free_config_by_ptxas(softmax, tmp_path, monkeypatch):
    monkeypatch.setenv("COSTFUSE_CACHE_DIR", str(tmp_path))
    target = get_target("sm_90")
    with CompilePool(jobs=2, timeout_s=120, cache=ResultCache(tmp_path / "compile")) as pool:
        greedy = GreedyCompileChecked(pool=pool)
        est = greedy.best_config(softmax)
        again = GreedyCompileChecked(pool=pool)
        assert again.best_config(softmax) == est
    assert est.launch == _by_regs(softmax, "persistent")[0]    # a 1024-wide f32 row spills at no config
    assert est.issued_bytes == softmax.issued_bytes("persistent") < softmax.issued_bytes("looped")
    assert est.time_s == pytest.approx(est.issued_bytes / target.hbm_bytes_per_s + target.launch_overhead_s)
    assert est.spill_bytes == 0 and est.regs > 0
    c = greedy.counts
    assert (c.decisions, c.compiles, c.cached, c.refused, c.unlowered) == (1, 2, 0, 0, 0)   # one per worker
    assert c.compile_s > 0
    assert (again.counts.compiles, again.counts.cached) == (2, 2)
    assert again.counts.compile_s == pytest.approx(c.compile_s)   # a cached compile counts its recorded time


def test_greedy_moves_on_only_once_every_config_of_a_mode_spills(softmax):
    pool = ModePool(spilling={"persistent"}, compile_s=0.5)
    est = GreedyCompileChecked(pool=pool).best_config(softmax)
    persistent = _by_regs(softmax, "persistent")
    assert est.launch == _by_regs(softmax, "looped")[0]
    assert est.issued_bytes == softmax.issued_bytes("looped")
    assert pool.modes[:len(persistent)] == ["persistent"] * len(persistent)
    assert set(pool.modes[len(persistent):]) == {"looped"}


def test_a_bounded_greedy_search_gives_a_mode_up_after_k_spilling_configs_and_counts_it(softmax):
    pool = ModePool(spilling={"persistent"}, compile_s=0.5)
    greedy = GreedyCompileChecked(pool=pool, max_per_mode=3)
    est = greedy.best_config(softmax)
    assert est.launch == _by_regs(softmax, "looped")[0]
    assert pool.modes[:3] == ["persistent"] * 3 and pool.modes[3] == "looped"
    assert greedy.counts.truncated == 1


def test_greedy_refuses_a_kernel_that_spills_at_every_config(softmax):
    greedy = GreedyCompileChecked(pool=ModePool(spilling={"persistent", "looped"}, compile_s=0.5))
    assert greedy.best_config(softmax) is None
    assert greedy.counts.refused == 1 and greedy.counts.compiles == len(config_space(softmax))
    assert greedy.counts.mean_compile_s == pytest.approx(0.5)


def test_the_scratch_kernel_function_returns_what_the_shape_stores(softmax):
    _module, fn = scratch_kernel_function(softmax, config_space(softmax)[0])
    text = str(fn)
    assert "func.func private @scratch_kernel" in text and "costfuse.kernel" in text
    assert text.count("linalg.generic") == 6 and "-> tensor<64x1024xf32>" in text.splitlines()[0]


def _bytes(dram: int) -> dict:
    """An Outcome's two byte counts: ``dram`` DRAM bytes, 10% more issued (the goals read DRAM)."""
    return {"dram_bytes": dram, "issued_bytes": dram * 11 // 10}


def _totals(learned_spill=0, learned_dram=80, ms=1.0, configs=100, greedy_dram=79, always_spill=1000):
    o = cg.Outcome
    return {
        cg.LEARNED: o(**_bytes(learned_dram), spill_bytes=learned_spill, decisions=10, decide_s=10 * ms / 1e3,
                      pass_s=30 * ms / 1e3, configs_scored=10 * configs),
        "groups inductor": o(**_bytes(100), spill_bytes=5),
        "groups xla": o(**_bytes(120), spill_bytes=20),
        "groups always": o(**_bytes(90), spill_bytes=always_spill),
        cg.GREEDY: o(**_bytes(greedy_dram), compiles=4, compile_s=2.0),
    }


def _verdicts(tot, per_config_s=0.5):
    return [g.met for g in cg.goals(tot, per_config_s)]


def test_goals_met():
    assert _verdicts(_totals()) == [True] * 6   # 1 ms vs 100 configs x 0.5 s = 50 s per decision: 50,000x


@pytest.mark.parametrize("kw, broken", [
    ({"learned_spill": 6}, {0}),                        # more than inductor's 5 B, within 1% of always' 1000 B
    ({"learned_spill": 11}, {0, 1}),                    # and more than 1% of always'
    ({"learned_dram": 86, "greedy_dram": 86}, {2}),     # only 14% fewer DRAM bytes than inductor
    ({"greedy_dram": 77}, {3}),                         # 3.9% above greedy, compile-checked
    ({"ms": 2.5}, {4}),                                 # over 2 ms per decision (still 20,000x)
    ({"configs": 1}, {5}),                              # 1 config x 0.5 s vs 1 ms: 500x
])
def test_goals_not_met(kw, broken):
    goals = cg.goals(_totals(**kw), 0.5)
    assert [g.met for g in goals] == [i not in broken for i in range(6)]
    assert all(g.row().endswith("| NOT met |") for i, g in enumerate(goals) if i in broken)


def test_goals_that_always_meets_too_are_not_shown():
    """Nothing spills under `groups always` either: the spill goals then say nothing about learned."""
    goals = cg.goals(_totals(always_spill=0), 0.5)
    assert [g.met for g in goals] == [True] * 6
    assert [g.trivial for g in goals] == [True, True, False, False, False, False]
    assert goals[0].row().endswith("| not shown (`groups always` meets it too) |")
    tot = _totals()
    tot["groups always"] = cg.Outcome(**_bytes(85), spill_bytes=1000)   # 15% under inductor's 100: as learned
    assert [g.trivial for g in cg.goals(tot, 0.5)] == [False, False, True, False, False, False]


def test_goals_without_greedy_compile_checked_are_not_applicable():
    tot = _totals()
    del tot[cg.GREEDY]
    goals = cg.goals(tot, float("nan"))
    assert [g.met for g in goals] == [True, True, True, None, True, None]
    assert goals[3].row().endswith("| not run | n/a |")


def test_policies_and_workload_globs(tmp_path):
    assert cg.parse_policies("") == list(cg.POLICIES)
    assert cg.parse_policies("greedy,v1,groups learned") == ["v1 always", cg.LEARNED, cg.GREEDY]
    with pytest.raises(ValueError, match="unknown policy 'bogus'"):
        cg.parse_policies("bogus")
    for name in ("softmax_f32", "softmax_bf16", "gelu_erf_f32"):
        (tmp_path / f"{name}.mlir").write_text("")
    assert [p.stem for p in cg.select_workloads(tmp_path, "softmax_*")] == ["softmax_bf16", "softmax_f32"]
    assert [p.stem for p in cg.select_workloads(tmp_path, "gelu_erf_f32,softmax_bf16")] == ["gelu_erf_f32",
                                                                                             "softmax_bf16"]
    assert len(cg.select_workloads(tmp_path, "")) == 3

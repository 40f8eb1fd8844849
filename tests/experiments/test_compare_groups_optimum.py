"""compare_groups.py beside the exact optimum (issue #26 part 5): the optimum's column from
optimum_workloads.py's records, totals over the workloads it solved only, the gap goals, and the run's
outcomes saved so the report can be written again (--render).

The figures below are test data, not measurements; they only exercise the tables and verdicts.
"""

from __future__ import annotations

import json

import experiments.compare_groups as cg

O = cg.Outcome


def _records(tmp_path):
    """Records as experiments/optimum_workloads.py writes them: w1 solved, w2 stopped by the budget."""
    opt = {"experiments/workloads/w1.mlir": {"optimum": {"complete": True, "kernels": 1, "dram_bytes": 100,
                                                         "issued_bytes": 150}},
           "experiments/workloads/w2.mlir": {"optimum": {"complete": False, "kernels": 3, "dram_bytes": 1,
                                                         "issued_bytes": 1}},
           "examples/w1.mlir": {"optimum": {"complete": True, "kernels": 9, "dram_bytes": 9, "issued_bytes": 9}}}
    path = tmp_path / "optimum_groups.json"
    path.write_text(json.dumps({"header": "", "results": opt}))
    return path


def _results(learned_w1=105, always_w1=120):
    return {"w1": {cg.LEARNED: O(kernels=1, dram_bytes=learned_w1, issued_bytes=150),
                   "groups always": O(kernels=1, dram_bytes=always_w1, issued_bytes=always_w1)},
            "w2": {cg.LEARNED: O(kernels=2, dram_bytes=500, issued_bytes=500),
                   "groups always": O(kernels=1, dram_bytes=400, issued_bytes=400)}}


def test_the_optimum_is_read_where_solved_only(tmp_path):
    opt = cg.optimum_records(_records(tmp_path), ["w1", "w2", "w3"])
    assert opt["w1"] == O(kernels=1, dram_bytes=100, issued_bytes=150)   # the workload's, not examples/w1's
    assert opt["w2"] is None and "w3" not in opt and cg.solved(opt) == ["w1"]   # w3: no record
    assert cg.optimum_records(tmp_path / "absent.json", ["w1"]) == {}


def test_the_per_workload_table_shows_the_optimum_or_a_dash(tmp_path):
    lines = cg.table(_results(), cg.optimum_records(_records(tmp_path), ["w1", "w2"])).splitlines()
    assert f"| w1 | {cg.OPTIMUM} | 1 | 0.0 | 0.0 | - | - | - | - |" in lines
    assert f"| w2 | {cg.OPTIMUM} | - | - | - | - | - | - | - |" in lines


def test_totals_against_the_optimum_are_over_the_solved_workloads(tmp_path):
    text = cg.versus_optimum(_results(), cg.optimum_records(_records(tmp_path), ["w1", "w2"]))
    assert f"| {cg.LEARNED} | 1 | 0.0 | 0.0 | +5.0% | 0 | 0 |" in text    # w2's 500 B left out
    assert "| groups always | 1 | 0.0 | 0.0 | +20.0% | 1 | 0 |" in text
    assert cg.versus_optimum(_results(), {"w1": None}).startswith("No workload")


def test_gap_goals_met_not_met_and_not_shown(tmp_path):
    opt = cg.optimum_records(_records(tmp_path), ["w1", "w2"])
    total, each = cg.optimum_goals(_results(learned_w1=101), opt)
    assert (total.met, total.trivial, each.met, each.trivial) == (True, False, True, False)
    assert "on the 1 of 2 workloads the optimum solved" in total.measured
    total, each = cg.optimum_goals(_results(learned_w1=90), opt)
    assert each.met and "below the optimum on w1 (-10.0%)" in each.measured
    total, each = cg.optimum_goals(_results(learned_w1=111), opt)
    assert (total.met, each.met) == (False, False) and "over on w1" in each.measured
    total, each = cg.optimum_goals(_results(learned_w1=101, always_w1=101), opt)
    assert total.trivial and each.trivial and total.row().endswith("| not shown (`groups always` meets it too) |")
    assert [g.met for g in cg.optimum_goals(_results(), {"w1": None})] == [None, None]


def test_a_run_saved_renders_the_same_outcomes(tmp_path):
    run = {"command": "python experiments/compare_groups.py", "seconds": 3, "conditions": "c", "notes": ["n"],
           "results": {"w1": {cg.LEARNED: O(kernels=2, dram_bytes=5, issued_bytes=7, failed=["k: timeout"],
                                            configs=["looped x1 r64 w4"], pass_s=float("nan"))}}}
    cg.save_run(run, tmp_path / "groups.json")
    back = cg.load_run(tmp_path / "groups.json")
    assert back["results"]["w1"][cg.LEARNED].row() == run["results"]["w1"][cg.LEARNED].row()
    assert {k: v for k, v in back.items() if k != "results"} == {k: v for k, v in run.items() if k != "results"}

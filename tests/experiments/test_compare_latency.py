"""``experiments/compare_cost_models.py``'s latency columns: which dataset row each model's kernel is, the
summed latency per model, its gaps to the oracle DP and to the best threshold, and the report unchanged
(``not measured``) while the dataset has no latency.

The dataset rows are the shipped ``data/sm90_v1`` rows of one program
(``chain-0``, 10 generics), so the matching is checked against the real
dataset; their ``latency_us`` is overwritten in memory with synthetic numbers
that exist in this test only.  Compile labels are faked too (nothing is
compiled): the report's latency parts are what is checked.
"""

from __future__ import annotations

import types
from pathlib import Path

import pytest
from costfuse.data.compile import CompileResult
from costfuse.data.families import generate
from costfuse.data.latency_oracle import LatencyTable

import experiments.compare_cost_models as ccm
from costfuse.cost_models.always import Always
from costfuse.cost_models.threshold import Threshold
from costfuse.ir import new_context

REPO = Path(__file__).parents[2]
ALL = frozenset(range(1, 11))


def synthetic_latency(row) -> float:
    """A made-up latency: a singleton 10 µs, a fused group 5 + its size, a sampled config 1 µs slower."""
    us = 10.0 if row["group_size"] == 1 else 5.0 + row["group_size"]
    return us + (row["config_source"] == "sampled")


@pytest.fixture(scope="module")
def chain0():
    from costfuse.data.store import read_dataset

    df = read_dataset(REPO / "data" / "sm90_v1")
    rows = df[df.program_id == "chain-0"].copy()
    rows["latency_us"] = [synthetic_latency(r) for r in rows.to_dict("records")]
    return rows


@pytest.fixture(scope="module")
def kernels():
    return ccm.Kernels(["heuristic", "wide"], new_context())


def test_kernel_members_follow_the_pass_decisions_in_kernel_order(kernels):
    text = generate("chain", 0).text
    texts, _, members = ccm.run_pass(Threshold(1, 1), text, kernels)
    assert members == [frozenset([i]) for i in range(1, 11)]
    texts, _, members = ccm.run_pass(Always(), text, kernels)
    assert members == [ALL]
    texts, _, members = ccm.run_pass(Threshold(3, 128), text, kernels)
    assert sorted(i for g in members for i in g) == list(range(1, 11)) and len(set(map(len, members))) > 1
    assert [kernels.by_text[t].chain for t in texts] == [len(g) for g in members]  # aligned with the texts


def test_in_a_tree_kernels_come_in_the_order_of_their_last_member(kernels):
    texts, _, members = ccm.run_pass(Threshold(3, 128), generate("tree", 10).text, kernels)
    assert [kernels.by_text[t].chain for t in texts] == [len(g) for g in members] == [1, 1, 3, 2]
    assert [len(g) for g in sorted(members, key=min)] == [3, 1, 1, 2]   # the order of first members differs


def test_a_module_of_several_functions_has_no_members(kernels):
    text = generate("chain", 0).text
    two = text + "\n" + text.replace("@main", "@second", 1)
    assert ccm.run_pass(Always(), two, kernels)[2] is None


def test_each_kernel_is_its_groups_row_at_the_policys_config(chain0, kernels):
    table = LatencyTable.from_frame(chain0)
    text = generate("chain", 0).text
    unfused, _, singletons = ccm.run_pass(Threshold(1, 1), text, kernels)
    always, _, whole = ccm.run_pass(Always(), text, kernels)
    assert ccm.run_latency(table, "chain-0", unfused, singletons, "heuristic", kernels) == 100.0
    assert ccm.run_latency(table, "chain-0", always, whole, "heuristic", kernels) == 15.0
    # the wide tile is no config the dataset has: not measured, never guessed
    assert ccm.run_latency(table, "chain-0", always, whole, "wide", kernels) is None
    assert ccm.run_latency(table, "chain-0", always, None, "heuristic", kernels) is None
    assert ccm.run_latency(table, "chain-1", always, whole, "heuristic", kernels) is None
    assert table.oracle("chain-0").labels == ("+".join(f"g{i}" for i in range(1, 11)),)


def test_gaps_are_taken_over_the_programs_both_sides_measure():
    assert ccm.latency_gap({"a": 12.0, "b": 30.0}, {"a": 10.0, "c": 1.0}) == (pytest.approx(0.2), 1)
    assert ccm.latency_gap({"a": 1.0}, {"b": 1.0}) == (None, 0)
    oracle = {"a": 10.0, "b": 10.0}
    grid = {"threshold(1,4)": {"a": 11.0}, "threshold(2,4)": {"a": 12.0, "b": 12.0},
            "threshold(3,4)": {"a": 11.0, "b": 11.0}, "threshold(4,4)": {}}
    assert ccm.best_threshold_by_latency(grid, oracle) == "threshold(3,4)"   # same gap, more programs
    assert ccm.best_threshold_by_latency({"threshold(1,4)": {}}, oracle) is None
    assert ccm.latency_cell({"a": 11.0, "b": 13.0}, oracle) == "24.0 µs, +20.0% (2 programs)"
    assert ccm.latency_cell({}, oracle) == "no program with every kernel labelled"


# --- the report --------------------------------------------------------------------------------
def report(chain0, kernels, tmp_path, with_latency: bool) -> str:
    """build_report on one held-out program (chain-0), fake compile labels, ``learned`` played by Always."""
    specs = ccm.model_specs("")
    specs[-1] = ccm.ModelSpec("learned", lambda p: Always(), True)
    held = [ccm.Workload("chain-0", "chain", "held-out", generate("chain", 0).text)]
    policies = ["heuristic"]
    runs, members = {}, {}
    for spec in specs:
        key = (spec.label, "chain-0", "heuristic")
        runs[key], _, members[key] = ccm.run_pass(spec.make("heuristic"), held[0].text, kernels)
    for k in kernels.by_text.values():
        k.result["heuristic"] = CompileResult("fake", "sm_90", "ok", regs=32, spill_store_bytes=0, spill_load_bytes=0)
    args = types.SimpleNamespace(jobs=1, timeout=60.0, arch="sm_90", test_size=0.25, data="data/sm90_v1",
                                 max_programs=24, out=str(tmp_path))
    (tmp_path / "results").mkdir(exist_ok=True)
    learned = types.SimpleNamespace(source="fake", metadata={"dataset": None, "heads": ["spills"]}, has_latency=False)
    latency = None
    if with_latency:
        latency = ccm.measure_latency(LatencyTable.from_frame(chain0), specs, held, policies, runs, members, kernels)
        latency.provenance = Path("data/sm90_v1/_latency_provenance.json")
    return ccm.build_report(args, "cmd", specs, held, held, policies, runs, kernels,
                            {"programs": 1, "test_programs": 1, "test_rows": 22}, 0, learned, with_latency,
                            {"always": [0.01]}, [], 1.0, latency)


def test_without_latency_every_latency_cell_says_not_measured(chain0, kernels, tmp_path):
    text = report(chain0, kernels, tmp_path, with_latency=False)
    table = [line for line in text.splitlines() if line.startswith("| ") and line.count("|") == 10][1:]
    assert len(table) == 5 and all(line.endswith(f"| {ccm.NOT_MEASURED} |") for line in table)
    assert "| any | GPU latency goals (vs the oracle DP) | not measured (no GPU) |" in text
    assert "GPU latency and the oracle DP: not measured (no GPU on this machine, and the dataset has no" in text
    assert "### GPU latency" not in text and "µs" not in text


def test_with_latency_each_model_has_its_sum_and_its_gaps(chain0, kernels, tmp_path):
    text = report(chain0, kernels, tmp_path, with_latency=True)
    assert ccm.NOT_MEASURED not in text
    total = [line for line in text.splitlines() if line.startswith("| ") and line.count("|") == 10]
    assert [line.rsplit(" | ", 1)[1] for line in total[1:]] == [
        "100.0 µs, +566.7% (1 programs) |", "15.0 µs, +0.0% (1 programs) |",
        "no program with every kernel labelled |",   # threshold(5,8) fuses 5+5: no such group in the dataset
        "15.0 µs, +0.0% (1 programs) |", "15.0 µs, +0.0% (1 programs) |"]
    lines = text.splitlines()
    start = lines.index("### GPU latency on the held-out programs (`heuristic`)")
    assert lines[start + 2].startswith("The oracle DP exists for 1 of 1 programs.")
    # only the grid points that fuse nothing are measured here, so the first of them is the best by latency
    assert lines[start + 4:start + 11] == [
        "| model | programs | summed latency µs | oracle µs, same programs | gap to oracle "
        "| gap to `threshold(1,4)` |",
        "|---|---|---|---|---|---|",
        "| unfused | 1 | 100.0 | 15.0 | +566.7% | +0.0% (1 programs) |",
        "| always | 1 | 15.0 | 15.0 | +0.0% | -85.0% (1 programs) |",
        "| best threshold by latency: threshold(1,4) | 1 | 100.0 | 15.0 | +566.7% | +0.0% (1 programs) |",
        "| analytical | 1 | 15.0 | 15.0 | +0.0% | -85.0% (1 programs) |",
        "| learned | 1 | 15.0 | 15.0 | +0.0% | -85.0% (1 programs) |"]
    assert ("| `heuristic` | learned's summed GPU latency vs the oracle DP and the best threshold by latency | "
            "+0.0% over 1 programs; -85.0% vs `threshold(1,4)` over 1 |") in text
    assert "_latency_provenance.json" in text and "GPU latency goals" not in text


def test_the_latency_table_says_which_programs_have_no_oracle_and_when_no_threshold_is_measured():
    grid = ["threshold(1,4)", "threshold(2,4)"]
    measured = {(m, "heuristic"): {} for m in ["unfused", "always", "analytical", "learned", *grid]}
    measured[("always", "heuristic")] = {"a": 12.0}
    lat = ccm.Latencies({"a": 10.0}, {"b": "g2 is in no group with a latency"}, measured)
    lines = ccm.latency_lines(lat, "heuristic", grid)
    assert lines[2].startswith("The oracle DP exists for 1 of 2 programs (none for b: g2 is in no group with a "
                               "latency). ")
    assert lines[4].endswith("| gap to oracle | gap to the best threshold |")
    assert lines[7] == "| always | 1 | 12.0 | 10.0 | +20.0% | n/a |"
    assert lines[8] == "| best threshold by latency: none measured | 0 | 0.0 | 0.0 | n/a | n/a |"
    assert ccm.latency_goal(lat, "heuristic", grid).endswith("| n/a: no program with every kernel labelled |")

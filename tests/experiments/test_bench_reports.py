"""The benches' reports: where they go, and that bench_decisions' figures cannot flatter.

No compile and no timing here: the report functions are fed hand-made results.
"""

from types import SimpleNamespace

import pytest

import experiments.bench_decisions as bd
from experiments.bench_report import emit


def _result(policy: str, model_fuses: list[bool], ptxas_fuses: list[bool]) -> bd.PolicyResult:
    return bd.PolicyResult(policy, in_pass_s=1e-3, decisions=len(model_fuses), cold_s=5e-4, compile_s=0.2,
                           wall_s=0.25, timed=3, metrics=bd.decision_metrics(model_fuses, ptxas_fuses),
                           spilling=ptxas_fuses.count(False), predict_ms={1: (0.3, 0.05, 0.02), 3: (0.3, 0.1, None)})


def test_always_fuse_report_shows_its_baseline_and_fails_the_goals():
    ptxas = [False] + [True] * 99  # 99% agreement for a model that fuses everything
    text = bd.render("python experiments/bench_decisions.py", "conditions", SimpleNamespace(source="m", spill_budget=0),
                     "3 held-out programs", 5, [_result("heuristic", [True] * 100, ptxas)], 1001, 0.6, 0.2)
    row = next(line for line in text.splitlines() if line.startswith("| `heuristic` | 100 |"))
    cells = [c.strip() for c in row.split("|")[1:-1]]
    assert cells[4] == "99/100 = 99.0%" and cells[5] == "99.0%" and cells[6] == "1.0%"  # learned = always-fuse
    assert cells[7] == "0.500" and cells[8] == "0/1 = 0.000" and cells[9] == "0/0 = n/a"
    assert "on spilling candidates: NOT met (recall 0.000, precision n/a)" in text
    assert "agreement: met" not in text
    assert "| `heuristic` | 1 | 0.300 ms | 0.050 ms | 0.020 ms | 0.07x |" in text
    assert "| `heuristic` | 3 | 0.300 ms | 0.100 ms | not built | |" in text


def test_split_problem_refuses_another_dataset_or_split(tmp_path):
    from costfuse.train.dataset import dataset_hash

    h = dataset_hash(tmp_path)
    assert "trained on other" in bd.split_problem(tmp_path, {"dataset_hash": "other"}, {"test_rows": 5})
    meta = {"dataset_hash": h, "rows": {"test": 7}}
    assert "5 test rows, the model's had 7" in bd.split_problem(tmp_path, meta, {"test_rows": 5})
    assert bd.split_problem(tmp_path, meta, {"test_rows": 7}) is None


def test_emit_writes_the_report_unless_dash(tmp_path, capsys):
    out = tmp_path / "results" / "x.md"
    emit("# x\n\n| a |", str(out))
    assert out.read_text() == "# x\n\n| a |\n"
    emit("# y", "-")
    assert capsys.readouterr().out == "# x\n\n| a |\n# y\n"
    assert not (tmp_path / "-").exists()


def test_regs_error_breakdown_counts_each_group_and_its_share_of_the_error():
    import pandas as pd

    from experiments.regs_error import breakdown

    err = pd.Series([1.0, 3.0, 6.0])
    rows = breakdown(err, [pd.Series(["a", "a", "b"]), pd.Series(["x", "x", "y"])])
    assert rows == ["| a / x | 2 | 2.0 | 40% |", "| b / y | 1 | 6.0 | 60% |"]


def test_regs_error_same_feature_spread_reads_only_repeated_vectors():
    import numpy as np
    import pandas as pd

    from experiments.regs_error import same_feature_spread

    X = pd.DataFrame({"f": [1.0, 1.0, 1.0, 2.0]})
    n, spread = same_feature_spread(X, np.array([10.0, 12.0, 20.0, 99.0]))  # median 12: |10-12| + 0 + |20-12|
    assert (n, spread) == (3, 10.0 / 3)


def test_regs_error_names_the_command_that_trained_a_bundle_it_was_given():
    """A bundle outside the repository (a retrained head, not shipped) is described by what it records,
    so the report's Model line is the script's, not a hand's."""
    from types import SimpleNamespace

    from experiments.regs_error import model_origin

    made = SimpleNamespace(metadata={"command": "costfuse-train --data d --export X",
                                     "created_at": "2026-12-06T07:20:00+00:00"})
    assert model_origin(made) == "; trained by `costfuse-train --data d --export X` on 2026-12-06"
    assert model_origin(SimpleNamespace(metadata={})) == ""


def test_holdout_misses_picks_the_worst_held_out_kind_among_those_asked():
    from experiments.holdout_misses import worst_kind

    metrics = {"spill.holdout.a.auc": 0.95, "spill.holdout.b.auc": 0.90, "spill.holdout.c.auc": 0.80}
    meta = {"heads": {"spill": {"metrics": metrics}}}
    assert worst_kind(meta, {"a", "b"}, "m/metadata.json") == "b"           # c is not a v2 kind here
    with pytest.raises(SystemExit, match="m/metadata.json: no held-out spill AUC for any of"):
        worst_kind(meta, {"z"}, "m/metadata.json")


def test_column_ablation_refits_each_kind_without_it_and_reports_every_seed():
    """A column that carries the label lifts every held-out kind; the report gives each seed's mean and each
    kind's AUC at every seed, on hand-made rows (no dataset, a few trees)."""
    import numpy as np
    import pandas as pd

    from experiments.column_ablation import held_out_aucs, markdown

    rng = np.random.default_rng(0)
    n = 240
    families = np.array(["a", "b", "c"] * (n // 3))
    signal = rng.random(n)
    X = pd.DataFrame({"noise": rng.random(n), "signal": signal})
    y = signal > 0.6
    params = dict(n_estimators=5, max_depth=2, learning_rate=0.5, n_jobs=1)
    scored = families != "c"                              # kind c has no rows of the scored dataset
    runs = {("old", s): held_out_aucs(X[["noise"]], y, families, scored, params, s) for s in (0, 1)}
    runs |= {("new", s): held_out_aucs(X, y, families, scored, params, s) for s in (0, 1)}
    assert set(runs["new", 0]) == {"a", "b"}
    assert all(runs["new", s][k] > 0.95 > runs["old", s][k] for s in (0, 1) for k in ("a", "b"))
    text = markdown(["a", "b"], {"a": "80 / 30", "b": "80 / 33"}, runs, ("old", "new"), [], "header")
    assert text.count("| 0 | ") == 2 and text.count("| 1 | ") == 2
    row = next(line for line in text.splitlines() if line.startswith("| a | 80 / 30 |"))
    old, new, diff = (c.strip() for c in row.split("|")[3:6])
    assert len(old.split(" / ")) == 2 and len(new.split(" / ")) == 2 and float(diff) > 0.3

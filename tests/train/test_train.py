"""costfuse-train end to end on a small *synthetic* dataset, plus the pieces
(splits, metrics, baselines, model files, tracking URI resolution).

The dataset has real rows (real fused IR of the random families, real launch
configs, the store's schema) but made-up labels: registers and spills follow
a documented function of liveness and elements per thread.  That keeps the
test fast and independent of ptxas; it checks the machinery, not the goals,
which ``costfuse-train`` reports on a real dataset.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from costfuse.data.families import FAMILIES, generate
from costfuse.featurize.features import FEATURE_COLUMNS
from helpers.synthetic_v1 import SEEDS_PER_FAMILY, write_synthetic_dataset


@pytest.fixture(scope="session")
def synthetic_dir(tmp_path_factory) -> Path:
    """A synthetic dataset: 2 programs per family, 1-3 configs per group, GPU latency labels too."""
    d = tmp_path_factory.mktemp("synthetic")
    write_synthetic_dataset(d, with_latency=True)
    return d


@pytest.fixture(scope="session")
def table(synthetic_dir):
    from costfuse.train.dataset import load_table
    return load_table(synthetic_dir)


FAST = dict(n_estimators=25, max_depth=4, learning_rate=0.3, n_jobs=1)


@pytest.fixture(scope="session")
def result(table):
    from costfuse.train.fit import XGBParams
    from costfuse.train.pipeline import run
    return run(table, "all", XGBParams(**FAST), holdout=True, log=lambda m: None)


# --- dataset, splits, metrics ------------------------------------------------------

def test_table_has_features_in_order_and_labels(table):
    assert list(table.X.columns) == list(FEATURE_COLUMNS)
    assert len(table) == len(table.rows) > 100
    assert table.spills.any() and not table.spills.all()
    assert table.has_latency
    assert set(table.families) == set(FAMILIES)


def test_grouped_split_never_shares_a_program(table):
    from costfuse.train.splits import family_holdouts, grouped_split
    split = grouped_split(table.programs, 0.25, seed=0)
    assert not set(table.programs[split.train]) & set(table.programs[split.test])
    assert (split.train ^ split.test).all()
    holdouts = list(family_holdouts(table.families))
    assert [h.name for h in holdouts] == [f"holdout:{f}" for f in sorted(FAMILIES)]
    for h in holdouts:
        assert len(set(table.families[h.test])) == 1 and h.name.split(":")[1] not in set(table.families[h.train])


def test_twin_programs_land_on_one_side_of_the_split():
    """act-322 and act-340 are one program under two ids (seeds): every split keeps them together."""
    import pandas as pd

    from costfuse.data.dedupe import program_hashes
    from costfuse.train.dataset import TrainingTable
    from costfuse.train.splits import grouped_split

    ids = [("act", 322), ("act", 340)] + [(f, s) for f in FAMILIES for s in range(3)]
    rows = pd.DataFrame([dict(program_id=f"{f}-{s}", family=f, generator_seed=s, program_params=None)
                         for f, s in ids for _ in range(3)])
    rows["program_hash"] = program_hashes(rows)
    table = TrainingTable(pd.DataFrame(index=rows.index), rows, "h", "test")
    twins = rows.program_id.isin(["act-322", "act-340"]).to_numpy()
    for seed in range(20):
        split = grouped_split(table.groups, 0.5, seed)
        assert len(set(split.test[twins])) == 1


def test_training_splits_by_program_content(table, result):
    """load_table names each row's program by content, and the pipeline splits by it."""
    from costfuse.train.splits import grouped_split

    content = {f"{f}-{s}": generate(f, s).content_hash for f in FAMILIES for s in range(SEEDS_PER_FAMILY)}
    assert list(table.groups) == [content[p] for p in table.programs]
    assert (result.split.test == grouped_split(table.groups, 0.25, result.params.seed).test).all()


def test_best_f1_threshold_and_degenerate_metrics():
    from costfuse.train.metrics import best_f1_threshold, classification, ranking, regression
    y = np.array([0, 0, 1, 1, 1], bool)
    s = np.array([0.1, 0.4, 0.35, 0.8, 0.9])
    assert best_f1_threshold(y, s) == pytest.approx(0.35)
    m = classification(np.zeros(4, bool), np.array([0.1, 0.2, 0.3, 0.4]), 0.5)
    assert math.isnan(m["auc"]) and m["f1"] == 0
    r = regression(np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 4.0]))
    assert r["mae"] == pytest.approx(1 / 3)
    assert ranking(np.array([1.0, 2.0, 3.0]), np.array([2.0, 3.0, 4.0]))["kendall_tau"] == pytest.approx(1.0)


def test_recall_threshold_is_the_highest_cut_that_keeps_the_asked_share_of_positives():
    from costfuse.train.metrics import recall_threshold
    y = np.array([1, 0, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1], bool)          # 9 positives
    s = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.45, 0.4, 0.3, 0.2, 0.15, 0.1, 0.05])
    for recall, cut in [(0.95, 0.05), (8 / 9, 0.1), (0.5, 0.3), (1 / 9, 0.9), (0.0, 0.9)]:
        got = recall_threshold(y, s, recall)
        assert got == pytest.approx(cut), recall
        assert (s[y] >= got).mean() >= recall
    assert recall_threshold(np.zeros(3, bool), np.array([0.1, 0.2, 0.3]), 0.95) == 0.5


def test_precision_threshold_is_the_lowest_cut_that_keeps_the_asked_precision():
    from costfuse.train.metrics import precision_threshold

    y = np.array([1, 1, 0, 1, 0, 1, 0, 0], bool)
    s = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2])
    # precision at each cut, best first: 1, 1, 2/3, 3/4, 3/5, 4/6, 4/7, 4/8
    assert precision_threshold(y, s, 0.75) == 0.6
    assert precision_threshold(y, s, 0.6) == 0.4
    assert precision_threshold(y, s, 0.5) == 0.2
    tied = np.array([0.9, 0.5, 0.5, 0.5, 0.1, 0.1, 0.1, 0.1])   # no cut inside a run of equal scores
    assert precision_threshold(y, tied, 0.7) == 0.5   # 3 of 4 at or above 0.5
    assert precision_threshold(y, tied, 0.99) == 0.9
    assert precision_threshold(~y & False, s, 0.8) == 0.5
    assert precision_threshold(np.array([0, 0, 1], bool), np.array([0.9, 0.8, 0.1]), 0.9) == 0.1   # the best it can


def test_the_decision_cut_keeps_the_decision_recall_out_of_fold():
    """The learned group policy decides at ``decision_threshold``: on the same out-of-fold scores it keeps at
    least DECISION_RECALL of the positives, and it is no higher than the F1-best cut on these overlapping scores."""
    import pandas as pd
    from sklearn.linear_model import LogisticRegression

    from costfuse.train.fit import DECISION_PRECISION, DECISION_RECALL, oof_scores, oof_thresholds
    rng = np.random.default_rng(0)
    x = rng.normal(size=400)
    y = (x + rng.normal(scale=1.0, size=400)) > 0.5
    X, groups = pd.DataFrame({"x": x}), np.repeat(np.arange(40), 10)
    f1_cut, cut, precision_cut = oof_thresholds(LogisticRegression, X, y, groups)
    yy, oof = oof_scores(LogisticRegression, X, y, groups)
    assert (oof[yy] >= cut).mean() >= DECISION_RECALL
    assert (oof[yy] >= f1_cut).mean() < DECISION_RECALL and cut < f1_cut
    assert yy[oof >= precision_cut].mean() >= DECISION_PRECISION > yy[oof >= cut].mean()
    assert oof_thresholds(LogisticRegression, X, np.zeros(400, bool), groups) == (0.5, 0.5, 0.5)


def test_threshold_baseline_picks_the_separating_limits():
    import pandas as pd

    from costfuse.train.baselines import LiveValueRule, ThresholdRule
    X = pd.DataFrame({"chain_length": [1, 2, 3, 4, 5, 6], "n_body_ops": [1, 2, 3, 40, 50, 60],
                      "live_regs_est": [10, 20, 30, 300, 400, 500]})
    y = np.array([0, 0, 0, 1, 1, 1], bool)
    rule = ThresholdRule().fit(X, y)
    assert (rule.predict(X) == y).all()
    assert rule.max_chain_length == 3 or rule.max_body_ops == 3
    live = LiveValueRule().fit(X, y)
    assert live.cut == 300 and (live.predict(X) == y).all()


# --- the run ------------------------------------------------------------------

def test_run_trains_every_head_and_baseline(result):
    assert set(result.heads) == {"spill", "spill_bytes", "regs", "latency"}
    assert [b.name for b in result.baselines] == ["threshold", "live_values", "histgb"]
    s = result.summary()
    assert s["spill.auc"] > 0.8  # learnable synthetic labels; the real goals are reported, not asserted
    for key in ("spill.f1", "spill.precision", "spill.recall", "regs.mae", "regs.r2", "spill_bytes.mae",
                "latency.kendall_tau", "latency.mape", "baseline_threshold.f1", "spill.f1_gain_over_threshold"):
        assert key in s, key
    assert any(k.startswith("spill.holdout.") for k in s)
    assert [g[0] for g in result.goals()] == ["spill.auc", "spill.f1", "spill.holdout_min_auc", "regs.mae",
                                             "spill.f1_gain_over_threshold"]


def test_run_logs_one_line_per_fit_and_per_held_out_family(table):
    """What costfuse-train shows as progress: each fit, and each held-out family as i/n."""
    from costfuse.train.fit import XGBParams
    from costfuse.train.pipeline import run
    lines: list[str] = []
    run(table, "regs", XGBParams(**{**FAST, "n_estimators": 5}), holdout=True, log=lines.append)
    n = len(FAMILIES)
    assert lines[0].startswith("fit regs on ")
    assert [line.split(":")[0] for line in lines[1:]] == [f"held-out family {i}/{n} {f}"
                                                          for i, f in enumerate(sorted(FAMILIES), 1)]


def test_report_shows_models_side_by_side(result):
    from costfuse.train.report import render
    text = render(result)
    for needle in ("xgboost", "threshold", "live_values", "histgb", "held-out families", "goals", "regs"):
        assert needle in text


def test_importances_cover_the_feature_columns(result):
    imp = result.heads["spill"].head.importances()
    assert list(imp) == list(FEATURE_COLUMNS)
    assert sum(imp.values()) == pytest.approx(1.0)


# --- model files ----------------------------------------------------------------

def test_export_roundtrip_predicts_the_same(result, table, tmp_path):
    from costfuse.train import model_io
    path = model_io.export(result, tmp_path / "bundle", "costfuse-train --data X")
    files = sorted(p.name for p in path.iterdir())
    assert files == ["latency.json", "metadata.json", "regs.json", "spill.json", "spill_bytes.json"]
    json.loads((path / "spill.json").read_text())  # XGBoost JSON, not pickle
    boosters, meta = model_io.load_model(path)
    assert meta["feature_schema_version"] and meta["dataset_hash"] == table.dataset_hash
    assert meta["command"] == "costfuse-train --data X" and "spill.auc" in meta["metrics"]
    assert (meta["arch"], meta["triton_version"], meta["ptxas_version"]) == ("sm_90", "test", "")  # the rows'
    X = table.X.iloc[:50]
    got = model_io.predict(boosters, meta, X)
    for name, r in result.heads.items():
        want = r.head.score(X) if r.spec.kind == "classifier" else r.head.predict(X)
        np.testing.assert_allclose(got[name], want, rtol=1e-5)
    assert model_io.in_training_range(meta, X).dtype == bool
    one, one_meta = model_io.load_model(path / "regs.json")
    assert list(one) == ["regs"] and list(one_meta["heads"]) == ["regs"]


def test_export_writes_the_runs_report_beside_the_bundle(result, tmp_path):
    """``costfuse-train --export`` ships the report the model was chosen on (``report.txt``)."""
    from costfuse.train import model_io
    path = model_io.export(result, tmp_path / "bundle", "cmd", report="spill AUC 0.98")
    assert (path / model_io.REPORT_FILE).read_text() == "spill AUC 0.98\n"
    model_io.load_model(path)   # the report is not a head


def test_schema_mismatch_fails_clearly(result, tmp_path):
    from costfuse.train import model_io
    path = model_io.export(result, tmp_path / "bundle", "cmd")
    meta = json.loads((path / "metadata.json").read_text())
    meta["feature_schema_version"] = -1
    (path / "metadata.json").write_text(json.dumps(meta))
    with pytest.raises(model_io.ModelSchemaError, match="feature schema v-1.*retrain"):
        model_io.load_model(path)
    with pytest.raises(FileNotFoundError):
        model_io.load_model(tmp_path / "nowhere")


# --- tracking --------------------------------------------------------------------

def test_tracking_uri_precedence(monkeypatch, tmp_path):
    from costfuse.train.tracking import default_tracking_uri, resolve_tracking_uri
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    assert resolve_tracking_uri() == default_tracking_uri() == f"sqlite:///{tmp_path.resolve()}/mlflow.db"
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "http://127.0.0.1:5999")
    assert resolve_tracking_uri() == "http://127.0.0.1:5999"
    assert resolve_tracking_uri("sqlite:////x/y.db") == "sqlite:////x/y.db"


def test_cli_logs_to_sqlite_and_registry_roundtrips(synthetic_dir, table, tmp_path, monkeypatch, capsys):
    """The embedded default store: a SQLite file in the working dir, artifacts in ./mlartifacts beside it;
    ``-q`` keeps stderr empty, MLflow's own lines included."""
    import mlflow

    from costfuse.train import model_io
    from costfuse.train.cli import main
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    rc = main(["--data", str(synthetic_dir), "--target", "spills", "--no-holdout", "-q",
               "--n-estimators", "30", "--export", str(tmp_path / "export")])
    assert rc == 0
    out, err = capsys.readouterr()
    assert "models:/costfuse-spill@champion" in out and "goals" in out
    assert err == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["export", "mlartifacts", "mlflow.db"]
    mlflow.set_tracking_uri(f"sqlite:///{tmp_path}/mlflow.db")
    boosters, meta = model_io.load_model("models:/costfuse-spill@champion")
    local, local_meta = model_io.load_model(tmp_path / "export")
    assert list(boosters) == ["spill"] and meta["heads"]["spill"]["file"] == "model.json"
    X = table.X.iloc[:40]
    np.testing.assert_allclose(model_io.predict(boosters, meta, X)["spill"],
                               model_io.predict(local, local_meta, X)["spill"], rtol=1e-6)
    run = mlflow.get_run(mlflow.search_runs(experiment_names=["costfuse"]).run_id[0])
    assert run.data.tags["dataset_hash"] == table.dataset_hash
    assert "spill.auc" in run.data.metrics and "xgb.n_estimators" in run.data.params
    artifacts = {a.path for a in mlflow.MlflowClient().list_artifacts(run.info.run_id)}
    assert {"plots", "bundle", "importances", "report.txt"} <= artifacts
    assert (tmp_path / "export" / "report.txt").read_text() in out   # --export ships the printed report


def test_cli_artifacts_go_beside_the_store_not_the_cwd(synthetic_dir, tmp_path, monkeypatch, capsys):
    """A store elsewhere leaves the working dir untouched; progress lines go to stderr; an --artifacts
    folder the existing experiment cannot use fails in one line before any training."""
    from costfuse.train.cli import main
    cwd, store = tmp_path / "cwd", tmp_path / "store"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    uri = f"sqlite:///{store}/m.db"
    assert main(["--data", str(synthetic_dir), "--target", "spills", "--no-holdout", "--n-estimators", "10",
                 "--tracking-uri", uri, "--no-register"]) == 0
    err = capsys.readouterr().err
    assert list(cwd.iterdir()) == []
    assert sorted(p.name for p in store.iterdir()) == ["m.db", "mlartifacts"]
    assert "] fit spill on " in err and "] logging the run to MLflow at " in err
    assert main(["--data", str(synthetic_dir), "--tracking-uri", uri, "--artifacts", str(tmp_path / "other")]) == 1
    err = capsys.readouterr().err
    assert err.splitlines()[-1].startswith("costfuse-train: error: experiment 'costfuse' already keeps its "
                                           f"artifacts in file://{store}/mlartifacts")
    assert "fit spill" not in err and not (tmp_path / "other").exists()


def test_cli_rejects_a_missing_dataset(tmp_path, capsys):
    from costfuse.train.cli import main
    assert main(["--data", str(tmp_path / "none"), "--no-tracking"]) == 1
    assert "no Parquet shards" in capsys.readouterr().err

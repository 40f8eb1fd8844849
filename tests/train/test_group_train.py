"""Training the group heads (issue #13): the v2 table, ``costfuse-train`` on it, the peers' rules, the bundle.

The dataset is ``group_v2_dir`` (``tests/conftest.py``): real kernel groups
and launches from ``data.group_job.program_candidates`` with synthetic
labels, written as schema-v2 shards without compiling (``tests/helpers/group_data.py``
says why).  These tests check the machinery; the goals are read on the real
``data/sm90_v2``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers.group_data import KINDS, SPEC

from costfuse.featurize.group_features import GROUP_FEATURE_COLUMNS, GROUP_FEATURE_SCHEMA_VERSION
from costfuse.train.group_baselines import InductorRule, XlaRule

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def v1_dir(tmp_path_factory):
    """A small v1 dataset (synthetic labels, as tests/train/test_train.py builds it): reduce and norm programs."""
    from helpers.synthetic_v1 import write_synthetic_dataset

    d = tmp_path_factory.mktemp("group_train") / "rows_v1"
    write_synthetic_dataset(d, seeds=1, families=("reduce", "norm"))
    return d


def test_the_v2_table_has_the_group_features_and_its_dataset(group_v2_dir):
    from costfuse.data.store import read_dataset
    from costfuse.train.group_dataset import load_group_table

    table = load_group_table([group_v2_dir])
    assert list(table.X.columns) == list(GROUP_FEATURE_COLUMNS)
    assert table.schema == (GROUP_FEATURE_SCHEMA_VERSION, GROUP_FEATURE_COLUMNS) == (5, GROUP_FEATURE_COLUMNS)
    stored = read_dataset(group_v2_dir, 2)
    assert len(table) == int((stored.status == "ok").sum()) and np.isfinite(table.X.to_numpy()).all()
    rows = table.rows
    assert set(rows["dataset"]) == {"groups_v2"} and set(rows["dataset_version"]) == {2}
    assert set(table.families) == set(KINDS) and set(table.programs) == {f"{k}-{s}" for k, s in SPEC.program_list()}
    assert (table.groups == table.programs).all()             # a v2 program's configs stay on one side
    assert table.spills.any() and not table.spills.all()
    modes = table.X[["mode_pointwise", "mode_persistent", "mode_looped"]].to_numpy()
    assert (modes.sum(axis=1) == 1).all() and (modes[:, 0] == 1).tolist() == (rows["mode"] == "pointwise").tolist()
    # every row has its spill kind, from its ptxas figures against its launch's register cap
    from costfuse.data.spill_kind import spill_kind

    assert set(rows["spill_kind"]) <= {"none", "pressure", "collapse", "tiny"}
    assert (rows["spill_kind"] != "none").tolist() == table.spills.tolist()
    assert rows["spill_kind"].tolist() == list(spill_kind(rows["regs"], rows["spill_store_bytes"],
                                                          rows["spill_load_bytes"], rows["stack_bytes"],
                                                          table.X["regs_available"]))


def test_v1_row_kernels_join_the_v2_rows(group_v2_dir, v1_dir):
    from costfuse.data.group_job import group_id
    from costfuse.data.store import read_dataset
    from costfuse.train.group_dataset import load_group_table

    v2 = load_group_table([group_v2_dir])
    both = load_group_table([group_v2_dir, v1_dir])
    rows = both.rows
    v1 = (rows["dataset"] == "rows_v1").to_numpy()
    assert 0 < v1.sum() <= len(read_dataset(v1_dir)) and len(both) == len(v2) + v1.sum()
    assert set(rows.loc[v1, "dataset_version"]) == {1} and set(rows.loc[~v1, "dataset_version"]) == {2}
    assert set(rows.loc[v1, "family"]) <= {"reduce", "norm"}
    ir = read_dataset(v1_dir).set_index("kernel_id")["ir"]
    assert (rows.loc[v1, "group_id"] == [group_id(ir[k]) for k in rows.loc[v1, "kernel_id"]]).all()  # reproducible
    assert (both.X.loc[v1, "n_members"] == 1).all()           # a v1 row is its generic as a one-member group
    assert both.X.loc[v1, ["mode_pointwise", "mode_persistent", "mode_looped"]].sum(axis=1).eq(1).all()
    assert sum(both.dropped.values()) + v1.sum() == len(read_dataset(v1_dir))


def test_several_v1_directories_without_v2_are_refused(v1_dir, tmp_path):
    from helpers.group_data import train_cli

    code, _, err = train_cli([v1_dir, v1_dir], tmp_path / "out")
    assert code == 1 and err.count("\n") == 1
    assert "several --data directories train the group heads: one of them must be dataset v2" in err


def test_costfuse_train_on_v2_exports_group_heads(group_run):
    assert group_run.code == 0, group_run.err
    meta = json.loads((group_run.bundle / "metadata.json").read_text())
    assert meta["feature_schema_version"] == 5 and meta["feature_columns"] == list(GROUP_FEATURE_COLUMNS)
    assert set(meta["feature_ranges"]) == set(GROUP_FEATURE_COLUMNS) and meta["arch"] == "sm_90"
    assert set(meta["heads"]) == {"spill", "spill_bytes", "regs"}
    # the register head learns a share of the register cap, by absolute error (bundle.GROUP_HEADS)
    assert (meta["heads"]["regs"]["scale"], meta["heads"]["regs"]["objective"]) == ("regs_available",
                                                                                    "reg:absoluteerror")
    assert all((group_run.bundle / h["file"]).is_file() for h in meta["heads"].values())
    assert "v2.spill.auc" in meta["metrics"]


def test_the_report_has_the_v2_section_and_the_group_goals(group_run):
    report = group_run.report
    assert "dataset v2 (kernel groups) only: " in report and "only: 0 test rows" not in report
    assert "spilling), no kind held out\n" in report          # --no-holdout: no held-out kind to speak of
    for goal in ("v2.spill.auc", "v2.spill.holdout_min_auc", "v2.regs.mae"):
        assert goal in report.split("\ngoals\n")[1], goal
    for rule in ("inductor_rule", "xla_rule", "live_values", "threshold", "histgb"):
        assert rule in report.split("dataset v2 (kernel groups) only")[1], rule
    assert "spill kinds, all v2 rows: none " in report and "spill kinds, v2 test rows: none " in report
    assert "(by spill kind: none " in report
    assert "exported model bundle to" in report


def _rows(launches) -> pd.DataFrame:
    """Hand-made feature rows: just the launch columns the peers' rules read."""
    return pd.DataFrame([{"mode_persistent": float(m == "persistent"), "mode_looped": float(m == "looped"),
                          "log2_xblock": np.log2(x), "log2_rblock": np.log2(r), "log2_tile": np.log2(x * r)}
                         for m, x, r in launches])


def test_inductor_rule_marks_what_inductor_would_never_run():
    launches = [("persistent", 1, 1024), ("persistent", 1, 2048),          # I1: a persistent row up to 1,024
                ("persistent", 4, 1024), ("persistent", 8, 1024),          # I3: a multi-row tile up to 4,096
                ("looped", 1, 2048), ("looped", 2, 4096),                  # I4: a looped chunk up to 2,048
                ("pointwise", 4096, 1)]
    rule = InductorRule().fit(_rows(launches), np.zeros(len(launches), bool))
    assert rule.predict(_rows(launches)).tolist() == [False, True, False, True, False, True, False]
    assert rule.score(_rows(launches)).tolist() == [0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0]
    assert rule.threshold == 0.5 and "1024" in rule.describe() and "4096" in rule.describe()


def test_xla_rule_marks_tiles_above_its_register_fraction():
    """0.4 x 65,536 registers = 26,214 elements: a 16,384-element tile passes, 32,768 does not."""
    launches = [("persistent", 1, 16384), ("persistent", 1, 32768), ("looped", 8, 4096), ("pointwise", 4096, 1)]
    assert XlaRule().predict(_rows(launches)).tolist() == [False, True, True, False]


def test_a_group_bundle_is_refused_as_v1_and_loads_as_a_group_bundle(group_run):
    from costfuse.cost_models.bundle import BundleError, load_bundle

    assert group_run.code == 0, group_run.err
    with pytest.raises(BundleError) as exc:
        load_bundle(group_run.bundle)
    message = str(exc.value)
    assert "\n" not in message and "trained on feature schema v5, but this featurize computes v1" in message
    bundle = load_bundle(group_run.bundle, schema=5)
    assert set(bundle.heads) == {"spill", "spill_bytes", "regs"} and bundle.metadata["feature_schema_version"] == 5
    assert set(load_bundle(group_run.bundle, schema=2).heads) == set(bundle.heads)   # a group schema: either
    assert set(load_bundle(group_run.bundle, schema=None).heads) == set(bundle.heads)


def test_the_trainer_reads_a_group_bundle_back_and_names_an_unknown_schema(group_run, tmp_path):
    """``model_io.load_model`` takes a bundle of either schema; one of neither is named as such."""
    from costfuse.train.model_io import ModelSchemaError, load_model

    assert group_run.code == 0, group_run.err
    boosters, meta = load_model(group_run.bundle)
    assert set(boosters) == {"spill", "spill_bytes", "regs"} and meta["feature_schema_version"] == 5
    future = tmp_path / "future"
    shutil.copytree(group_run.bundle, future)
    meta["feature_schema_version"] = 99
    (future / "metadata.json").write_text(json.dumps(meta))
    with pytest.raises(ModelSchemaError, match="trained on feature schema v99, but this featurize computes v1, v2, v3, v4 or v5;"):
        load_model(future)


@pytest.mark.slow  # four held-out kinds, each refitting 3 heads and 5 baselines: ~10 s here
def test_held_out_kinds_are_scored_on_v2(group_v2_dir, tmp_path):
    from helpers.group_data import train_cli

    code, report, err = train_cli([group_v2_dir], tmp_path / "out", holdout=True)
    assert code == 0, err
    assert "no kind held out" not in report and f"{len(KINDS)} kinds held out in turn" in report
    meta = json.loads((tmp_path / "out" / "metadata.json").read_text())
    assert {"v2.spill.holdout_min_auc", "v2.baseline_inductor_rule.holdout_min_auc"} <= set(meta["metrics"])


def test_programs_compiling_the_same_group_kernel_share_a_side_of_the_split(group_v2_dir, tmp_path):
    """Two programs can compile one group kernel (``attention_causal-8`` and ``-98`` do in sm90_v2): split
    by program alone, its rows would be on both sides, and the test would score kernels seen in training."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from costfuse.data.store import read_shard, shards
    from costfuse.train.group_dataset import load_group_table

    d = tmp_path / "groups_v2"
    shutil.copytree(group_v2_dir, d)
    shard = read_shard(shards(d)[0], 2)                      # one program's rows, copied as another program
    first = shard.column("program_id")[0].as_py()
    twin = shard.set_column(shard.schema.get_field_index("program_id"), "program_id",
                            pa.array(["twin-1"] * len(shard)))
    twin = twin.set_column(twin.schema.get_field_index("kernel_id"), "kernel_id",
                           pa.array([f"{k}-twin" for k in shard.column("kernel_id").to_pylist()]))
    pq.write_table(twin, d / "twin-1.parquet")

    table = load_group_table([d])
    twins = (table.rows["program_id"] == "twin-1").to_numpy()
    assert twins.any()
    assert set(table.groups[twins]) == set(table.groups[(table.rows["program_id"] == first).to_numpy()]) == {first}
    others = ~twins & (table.rows["program_id"] != first).to_numpy()
    assert (table.groups[others] == table.programs[others]).all()  # the rest are still split by program


@pytest.fixture(scope="module")
def v3_dir(tmp_path_factory):
    """Eight real shards of dataset ``sm90_inductor_v1`` (Inductor's kernels, ptxas labels, schema v3): the
    first by name, which later shards of the job never displace."""
    from costfuse.data.store import shards

    d = tmp_path_factory.mktemp("inductor_data") / "ind_v3"
    d.mkdir()
    for shard in shards(REPO / "data" / "sm90_inductor_v1")[:8]:
        shutil.copy(shard, d / shard.name)
    return d


def test_v3_rows_are_featurized_from_their_kernel_description(v3_dir, group_v2_dir):
    from costfuse.data.store import read_dataset
    from costfuse.train.group_dataset import load_group_table

    table = load_group_table([v3_dir, group_v2_dir])
    v3 = (table.rows["dataset_version"] == 3).to_numpy()
    stored = read_dataset(v3_dir, 3)
    described = stored[(stored.status == "ok") & stored.kernel_desc.notna()]
    assert v3.sum() == len(described) and np.isfinite(table.X.to_numpy()).all()
    assert set(table.rows.loc[v3, "group_id"]) == set(described.source_hash.str[:16])
    assert table.spills[v3].any() and not table.spills[v3].all()   # ptxas labels: both kinds of rows


def test_training_on_inductor_kernels_reports_them_apart_and_registers_them_as_the_handlers(v3_dir, group_v2_dir,
                                                                                           tmp_path):
    """Heads trained on dataset v3 (with v2) are judged on v3's rows by issue #25's goals, in a section of
    their own, and registered apart from the pass's group heads (``costfuse-inductor-spill``, ...)."""
    from helpers.group_data import train_cli

    code, report, err = train_cli([v3_dir, group_v2_dir], tmp_path / "out")
    assert code == 0, err
    sections = report.split("\ngoals\n")[1]
    for goal in ("v3.spill.auc", "v3.spill.holdout_min_auc", "v2.spill.auc"):
        assert goal in sections, goal
    assert "dataset v3 (Inductor's kernels) only: " in report and "dataset v2 (kernel groups) only: " in report
    meta = json.loads((tmp_path / "out" / "metadata.json").read_text())
    assert "v3.spill.auc" in meta["metrics"] and 0.5 < meta["metrics"]["v3.spill.auc"] <= 1
    names = {h["registered_name"] for h in meta["heads"].values()}
    assert names == {"costfuse-inductor-spill", "costfuse-inductor-spill-bytes", "costfuse-inductor-regs"}, names


def test_a_held_out_kind_is_scored_on_each_datasets_own_rows():
    """A kind held out of a mixed table (softmax in v2 and v3) is judged on v3's goal by its v3 rows alone."""
    from types import SimpleNamespace

    from costfuse.train.group_report import holdout_auc
    from costfuse.train.pipeline import dataset_parts

    table = SimpleNamespace(rows=pd.DataFrame({"dataset_version": [2, 2, 3, 3, 1]}))
    test = np.array([True, False, True, True, False])
    parts = dataset_parts(table, test)
    assert [v for v, _ in parts] == [2, 3]
    assert [m.tolist() for _, m in parts] == [[True, False, False, False, False], [False, False, True, True, False]]
    assert dataset_parts(SimpleNamespace(rows=pd.DataFrame({"dataset_version": [2, 2]})), np.array([True, False])) == []
    assert dataset_parts(SimpleNamespace(rows=pd.DataFrame({"x": [1]})), np.array([True])) == []
    m = {"auc": 0.97, "auc_v3": 0.91}
    assert holdout_auc(m, 3) == 0.91 and holdout_auc(m, 2) == 0.97 and holdout_auc({"auc": 0.9}, 3) == 0.9


def test_the_exported_register_head_never_predicts_past_the_cap(group_run, group_v2_dir):
    """The pass's reader (bundle.Head) and the trainer's (model_io.predict) both scale the register head's
    share by each row's ``regs_available`` and agree."""
    from costfuse.cost_models.bundle import load_bundle
    from costfuse.train.group_dataset import load_group_table
    from costfuse.train.model_io import load_model, predict

    assert group_run.code == 0, group_run.err
    X = load_group_table([group_v2_dir]).X
    regs = load_bundle(group_run.bundle, ("regs",), schema=4).heads["regs"].predict(X.to_numpy(float))
    assert (regs <= X["regs_available"].to_numpy() + 1e-9).all() and (regs >= 0).all()
    boosters, meta = load_model(group_run.bundle)
    np.testing.assert_allclose(predict(boosters, meta, X)["regs"], regs, rtol=1e-5)


def test_a_held_out_family_without_a_heads_labels_is_not_scored_for_it():
    """Latency labels exist for some families only (dataset v2's GPU runs; none for v1's): holding out a
    family without any skips the latency head there instead of scoring zero rows (which raised)."""
    from costfuse.train.dataset import TrainingTable
    from costfuse.train.fit import XGBParams
    from costfuse.train.pipeline import run

    rng = np.random.default_rng(0)
    n = 120
    X = pd.DataFrame(rng.random((n, 3)), columns=["a", "b", "c"])
    family = np.array(["timed_a", "timed_b", "untimed"])[np.arange(n) // 40]
    rows = pd.DataFrame({"program_id": [f"p{i // 4}" for i in range(n)], "family": family,
                         "regs": 32 + 64 * X["a"], "spill_store_bytes": 0.0, "spill_load_bytes": 0.0,
                         "latency_us": np.where(family != "untimed", 1 + X["b"], np.nan)})
    result = run(TrainingTable(X, rows, "h", "synthetic"), "latency", XGBParams(n_estimators=3, n_jobs=1),
                 holdout=True, baselines=False, log=lambda msg: None)
    assert set(result.heads["latency"].holdout) == {"timed_a", "timed_b"}

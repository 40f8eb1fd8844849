"""The model bundle and loading it (issue #11 items 2, 3, 7a, 8).

Broken bundles fail in one line naming the file; ``--model`` takes a folder;
a model of another arch is refused unless ``--allow-arch-mismatch``; a
registry URI with no tracking store fails at once and writes nothing; the
learned pass never imports the trainer, XGBoost, scikit-learn or pandas.
The bundles here are tiny XGBoost models on random rows, built in about a
second: the tests check the loading, not the predictions' quality.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from costfuse.cli import opt_main
from costfuse.cost_models import learned as learned_mod, registry
from costfuse.cost_models.bundle import (Bundle, BundleError, FORMAT, Head, NEEDS_XGBOOST, arch_problem, check_schema,
                                         is_uri, load_bundle, read_json)
from costfuse.cost_models.forest import flatten
from costfuse.cost_models.learned import LearnedEdges, SHIPPED_MODEL_DIR
from costfuse.featurize.features import FEATURE_COLUMNS
from helpers.analytical_modules import chain_module
from helpers.bundles import group_bundle, make_bundle
from helpers.errors import one_line

REPO = Path(__file__).resolve().parents[3]
HEAVY = ("xgboost", "sklearn", "pandas", "costfuse.train", "mlflow")


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    return make_bundle(tmp_path_factory.mktemp("bundle") / "model")


@pytest.fixture
def scratch(bundle, tmp_path):
    """A fresh copy of the test bundle, to break."""
    import shutil

    return Path(shutil.copytree(bundle, tmp_path / "model"))


def run_opt(tmp_path: Path, capfd, *args: str) -> tuple[int, str]:
    """``costfuse-opt`` on a 3-generic chain with the learned model: (exit code, stderr at the fd level)."""
    src = tmp_path / "chain.mlir"
    src.write_text(chain_module(3))
    rc = opt_main([str(src), "--fusion", "elementwise", "--cost-model", "learned", "-o", str(tmp_path / "out.mlir"), *args])
    return rc, capfd.readouterr().err


def set_head(directory: Path, head: str, **entries) -> None:
    meta = json.loads((directory / "metadata.json").read_text())
    meta["heads"][head].update(entries)
    (directory / "metadata.json").write_text(json.dumps(meta))


def truncate(path: Path) -> None:
    text = path.read_text()
    path.write_text(text[: len(text) // 2])


# --- item 2: broken bundles, a file as --model, the arch ---------------------------


@pytest.mark.parametrize("breakage, file, what", [
    (lambda d: truncate(d / "spill.json"), "spill.json", "not valid JSON"),
    (lambda d: truncate(d / "metadata.json"), "metadata.json", "not valid JSON"),
    (lambda d: (d / "spill_bytes.json").write_text("{}"), "spill_bytes.json", "not an XGBoost JSON model"),
    (lambda d: (d / "spill.json").unlink(), "spill.json", "no such file"),
    (lambda d: (d / "metadata.json").write_text("[]"), "metadata.json", "not a CostFuse model"),
    (lambda d: set_head(d, "spill", decision_threshold="high"), "metadata.json", "decision_threshold that is not a"),
])
def test_a_broken_bundle_fails_in_one_line_naming_the_file(scratch, tmp_path, capfd, breakage, file, what):
    """A truncated head used to print XGBoost's C++ backtrace; a truncated metadata.json named no file."""
    breakage(scratch)
    rc, err = run_opt(tmp_path, capfd, "--model", str(scratch))
    assert rc == 1
    assert err.count("\n") == 1 and str(scratch / file) in err and what in err, err


def test_metadata_without_heads_is_refused_naming_the_file(scratch):
    meta = json.loads((scratch / "metadata.json").read_text())
    del meta["heads"]
    (scratch / "metadata.json").write_text(json.dumps(meta))
    with pytest.raises(BundleError, match=r"metadata\.json: 'heads' is missing"):
        load_bundle(scratch)


def test_a_file_as_model_is_refused_with_the_folder_to_pass(bundle, tmp_path, capfd):
    """It used to load the file's folder silently."""
    for name in ("spill.json", "metadata.json"):
        rc, err = run_opt(tmp_path, capfd, "--model", str(bundle / name))
        assert rc == 1 and err.count("\n") == 1
        assert "--model takes a model folder" in err and f"--model {bundle})" in err and "models:/NAME@ALIAS" in err


def test_arch_mismatch_is_an_error_unless_allowed(bundle, tmp_path, capfd):
    with pytest.raises(ValueError, match=r"trained on sm_90 labels \(triton 3\.6\.0, ptxas 12\.8\.93\), "
                                         r"but the target is sm_80; pass --allow-arch-mismatch"):
        LearnedEdges.load(model=str(bundle), arch="sm_80")
    assert LearnedEdges.load(model=str(bundle), arch="sm_80", allow_arch_mismatch=True).metadata["arch"] == "sm_90"
    rc, err = run_opt(tmp_path, capfd, "--model", str(bundle), "--arch", "sm_80")
    assert rc == 1 and err.count("\n") == 1 and "--allow-arch-mismatch" in err
    assert run_opt(tmp_path, capfd, "--model", str(bundle), "--arch", "sm_80", "--allow-arch-mismatch")[0] == 0
    assert run_opt(tmp_path, capfd, "--model", str(bundle), "--arch", "sm_90")[0] == 0


def test_a_bundle_that_does_not_record_its_arch_is_refused_unless_allowed(tmp_path):
    old = make_bundle(tmp_path / "old", arch=None)
    with pytest.raises(ValueError, match="does not record the arch of its labels.*--allow-arch-mismatch"):
        LearnedEdges.load(model=str(old))
    assert LearnedEdges.load(model=str(old), allow_arch_mismatch=True).heads


def test_shipped_model_records_the_arch_and_toolchain_of_its_dataset():
    """So it loads under the arch check; the values are the dataset's own (``data/sm90_v1``)."""
    from costfuse.data.store import read_dataset

    meta = json.loads((SHIPPED_MODEL_DIR / "metadata.json").read_text())
    rows = read_dataset(REPO / meta["dataset"])
    for column in ("arch", "triton_version", "ptxas_version"):
        assert [meta[column]] == sorted(rows[column].unique()), column
    assert LearnedEdges.load().metadata["arch"] == "sm_90"


def test_a_head_numpy_cannot_evaluate_falls_back_to_xgboost(tmp_path, monkeypatch):
    """A Poisson head has no flattened form here: XGBoost evaluates it, with the same numbers; without
    XGBoost the bundle is refused at load time, naming the head's file."""
    import xgboost as xgb

    from costfuse.cost_models import bundle as bundle_mod

    path = make_bundle(tmp_path / "poisson", bytes_objective="count:poisson")
    m = LearnedEdges.load(model=str(path))
    assert m.heads["spill"].forest is not None and m.heads["spill_bytes"].forest is None
    X = np.random.default_rng(2).random((5, len(FEATURE_COLUMNS)))
    ref = xgb.Booster(model_file=str(path / "spill_bytes.json")).inplace_predict(X)
    np.testing.assert_allclose(m._predict(X)["spill_bytes"], ref, rtol=1e-6)
    monkeypatch.setattr(bundle_mod, "_xgboost_installed", lambda: False)
    with pytest.raises(ValueError, match=r"spill_bytes\.json: its trees need XGBoost.*pip install xgboost"):
        LearnedEdges.load(model=str(path))


# --- item 3: models:/ without a tracking store ------------------------------------------


def _opt_in_subprocess(cwd: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """``opt_main(args)`` in a fresh interpreter; prints which of :data:`HEAVY` it imported, exits with its code."""
    code = ("import sys; from costfuse.cli import opt_main; rc = opt_main(['--fusion', 'elementwise', *sys.argv[1:]]); "
            f"print(','.join(m for m in {HEAVY!r} if m in sys.modules)); sys.exit(rc)")
    env = {**os.environ, **(env or {})}
    env.pop("MLFLOW_TRACKING_URI", None)
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize("extra, says", [
    ((), "pass --tracking-uri URI"),
    (("--tracking-uri", "sqlite:///mlflow.db"), "mlflow.db does not exist"),
])
def test_models_uri_without_a_tracking_store_fails_at_once_writing_nothing(tmp_path, extra, says):
    """It used to create ./mlflow.db, migrate it for 16 s, then fail."""
    src = tmp_path / "in" / "chain.mlir"
    src.parent.mkdir()
    src.write_text(chain_module(3))
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    p = _opt_in_subprocess(cwd, str(src), "--cost-model", "learned", "--model", "models:/costfuse-spill@champion",
                           "-o", "-", *extra)
    assert p.returncode == 1
    assert p.stderr.count("\n") == 1 and says in p.stderr and "models:/costfuse-spill@champion" in p.stderr
    assert "mlflow" not in p.stdout  # failed before importing MLflow
    assert list(cwd.iterdir()) == []


# --- item 7a: a registered sibling head is skipped only when it is not registered --------


def test_sibling_heads_skip_only_the_unregistered(bundle, monkeypatch):
    full = load_bundle(bundle)
    spill_only = Bundle({**full.metadata, "heads": {"spill": full.metadata["heads"]["spill"]}},
                        {"spill": full.heads["spill"]})
    bytes_only = Bundle({**full.metadata, "heads": {"spill_bytes": full.metadata["heads"]["spill_bytes"]}},
                        {"spill_bytes": full.heads["spill_bytes"]})
    answers = {}

    def fake_load_uri(uri, tracking_uri="", heads=None):
        answer = answers[uri]
        if isinstance(answer, Exception):
            raise answer
        return answer

    monkeypatch.setattr(registry, "load_uri", fake_load_uri)
    answers.update({"models:/costfuse-spill@champion": spill_only, "models:/costfuse-spill-bytes@champion": bytes_only,
                    "models:/costfuse-latency@champion": registry.NotRegistered("no latency head")})
    got = registry.load_registered("models:/costfuse-spill@champion", "sqlite:////x.db", ("spill", "spill_bytes",
                                                                                          "latency"))
    assert set(got.heads) == set(got.metadata["heads"]) == {"spill", "spill_bytes"}
    answers["models:/costfuse-spill-bytes@champion"] = BundleError("model.json: not valid JSON")
    with pytest.raises(BundleError, match="not valid JSON"):  # it used to drop the head on any exception
        registry.load_registered("models:/costfuse-spill@champion", "sqlite:////x.db", ("spill", "spill_bytes"))


# --- item 8: the learned pass loads a model, it never imports the trainer ----------------


def test_learned_pass_imports_neither_the_trainer_nor_xgboost_sklearn_pandas(tmp_path):
    p = _opt_in_subprocess(tmp_path, str(REPO / "examples" / "softmax_gelu.mlir"), "--cost-model", "learned",
                           "--explain", "-o", str(tmp_path / "out.mlir"))
    assert p.returncode == 0, p.stderr
    assert "# learned:" in p.stderr
    assert p.stdout.strip() == ""  # none of HEAVY was imported


def test_learned_groups_import_neither_the_trainer_nor_xgboost_sklearn_pandas(tmp_path):
    """The group heads run in NumPy too: the learned group pass (the README's main job) stays light."""
    code = ("import sys; from costfuse.cli import opt_main; rc = opt_main(sys.argv[1:]); "
            f"print(','.join(m for m in {HEAVY!r} if m in sys.modules)); sys.exit(rc)")
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"}
    p = subprocess.run([sys.executable, "-c", code, str(REPO / "examples" / "softmax_gelu.mlir"), "--fusion", "groups",
                        "--cost-model", "learned", "--explain", "-o", str(tmp_path / "out.mlir")],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "# learned groups:" in p.stderr and "predicted spill-free of least expected time" in p.stderr
    assert p.stdout.strip() == ""


def test_an_arch_is_one_name_however_it_is_spelled():
    """The shipped sm_90 model serves sm_90a (its features change no register file), as the analytical
    model's constants already did: one parser of arch names (targets.arch_name)."""
    from costfuse.cost_models.learned_groups import LearnedGroups
    from costfuse.targets import arch_name

    assert [arch_name(a) for a in ("sm_90", "90", "SM_90", "sm_90a", " sm_90a ")] == ["sm_90"] * 5
    assert LearnedEdges.load(arch="sm_90a").metadata["arch"] == "sm_90"
    assert LearnedGroups.load(arch="sm_90a").heads.bundle.metadata["arch"] == "sm_90"


def test_a_learned_policy_reads_nothing_until_used(tmp_path):
    """Constructing checks the options only; the model is read on first use or by ``load``."""
    from costfuse.cost_models.learned_groups import LearnedGroups

    missing = str(tmp_path / "nothing")
    edges, groups = LearnedEdges(model=missing), LearnedGroups(group_model=missing)   # no error: nothing read
    with pytest.raises(ValueError, match="cannot load model"):
        LearnedEdges.load(model=missing)
    with pytest.raises(ValueError, match="cannot load the group model"):
        groups.heads  # noqa: B018
    with pytest.raises(ValueError, match="cannot load model"):
        edges.heads  # noqa: B018


# ---------------------------------------------------------------------------
# The NumPy forest on trees written by hand (XGBoost's float32 splits, NaN defaults, base score, what
# it leaves to XGBoost), the heads' predictions, and each of the bundle's one-line errors.


def _tree(nodes: list[tuple]) -> dict:
    """An XGBoost JSON tree from ``(feature, split value or leaf value, left, right, default_left)`` rows
    (``left == -1``: a leaf)."""
    feature, cond, left, right, default_left = zip(*nodes)
    return {"left_children": list(left), "right_children": list(right), "split_indices": list(feature),
            "split_conditions": list(cond), "default_left": [int(d) for d in default_left],
            "split_type": [0] * len(nodes)}


def _stump(feature: int, split: float, lo: float, hi: float, default_left: bool = True) -> dict:
    return _tree([(feature, split, 1, 2, default_left), (0, lo, -1, -1, False), (0, hi, -1, -1, False)])


def _model(*trees: dict, objective: str = "reg:squarederror", base_score: str = "0", **param) -> dict:
    return {"learner": {"objective": {"name": objective},
                        "gradient_booster": {"name": "gbtree", "model": {"trees": list(trees)}},
                        "learner_model_param": {"base_score": base_score, **param}}}


def test_flatten_lays_the_trees_out_as_forest_documents():
    """Node i of the ensemble: its split feature and value (float32), its children at 2i and 2i + 1 (itself
    at a leaf, whose feature is 0 whatever the JSON holds there), its leaf value (0 at inner nodes)."""
    leaf = _tree([(0, 5.0, -1, -1, False)])                                     # a tree that is one leaf
    split = _tree([(1, 0.25, 1, 2, True), (3, -1.0, -1, -1, False), (3, 2.0, -1, -1, False)])
    forest = flatten(_model(split, leaf, split))
    assert forest.roots.tolist() == [0, 3, 4] and forest.depth == 1
    assert forest.children.tolist() == [1, 2, 1, 1, 2, 2, 3, 3, 5, 6, 5, 5, 6, 6]
    assert forest.feature.tolist() == [1, 0, 0, 0, 1, 0, 0]
    assert forest.threshold.dtype == np.float32 and forest.threshold[0] == np.float32(0.25)
    assert forest.value.dtype == np.float32 and forest.value.tolist() == [0.0, -1.0, 2.0, 5.0, 0.0, -1.0, 2.0]
    assert forest.default_left.tolist() == [True, False, False, False, True, False, False]
    np.testing.assert_array_equal(forest.predict(np.array([[0.0, 0.0], [0.0, 1.0]])), [3.0, 9.0])
    only_leaf = flatten(_model(leaf))
    assert only_leaf.depth == 0 and only_leaf.predict(np.zeros((2, 1))).tolist() == [5.0, 5.0]


def test_forest_compares_features_and_splits_in_float32():
    # float32(0.1) is just above 0.1 and float32(0.7) just below 0.7: a row holding the split value
    # itself goes right (not x < split) only when both sides are float32, as in XGBoost
    forest = flatten(_model(_stump(0, 0.1, 1.0, 2.0), _stump(1, 0.7, 10.0, 20.0)))
    np.testing.assert_array_equal(forest.predict(np.array([[0.1, 0.7], [0.05, 0.5]])), [22.0, 11.0])


def test_forest_sends_a_missing_value_the_default_way():
    forest = flatten(_model(_stump(0, 0.5, 1.0, 2.0, default_left=True),
                            _stump(1, 0.5, 10.0, 20.0, default_left=False)))
    np.testing.assert_array_equal(forest.predict(np.array([[np.nan, 0.0], [1.0, np.nan], [np.nan, np.nan]])),
                                  [11.0, 22.0, 21.0])


def test_forest_on_a_single_feature():
    np.testing.assert_array_equal(flatten(_model(_stump(0, 0.5, 1.0, 2.0))).predict(np.array([[0.0], [1.0]])),
                                  [1.0, 2.0])


def test_forest_walks_trees_of_different_depths():
    deep = _tree([(0, 0.5, 1, 2, True), (0, 1.0, -1, -1, False), (1, 0.5, 3, 4, True),
                  (0, 3.0, -1, -1, False), (0, 4.0, -1, -1, False)])  # right of f0 < 0.5, a split on f1
    forest = flatten(_model(_stump(1, 0.5, 10.0, 20.0), deep))
    assert forest.depth == 2
    np.testing.assert_array_equal(forest.predict(np.array([[0.0, 0.0], [0.9, 0.1], [0.9, 0.9]])),
                                  [11.0, 13.0, 24.0])


def test_forest_offsets_a_logistic_margin_by_the_base_score():
    # base_score 0.25 is the margin log(0.25 / 0.75) = -log 3: leaves 0 and log 3 give P = 0.25 and 0.5
    forest = flatten(_model(_stump(0, 0.5, 0.0, math.log(3)), objective="binary:logistic", base_score="[2.5E-1]"))
    np.testing.assert_allclose(forest.predict(np.array([[0.0], [1.0]])), [0.25, 0.5], rtol=1e-6)


def test_forest_sums_the_leaves_in_float64():
    # 1000 leaves of float32(0.1) = 0.10000000149: a float32 sum would round them to 100.0
    forest = flatten(_model(*[_stump(0, 0.5, 0.1, 0.1)] * 1000))
    assert forest.margin(np.zeros((1, 1)))[0] == pytest.approx(1000 * float(np.float32(0.1)), rel=1e-12)


def _dart(model: dict) -> dict:
    model["learner"]["gradient_booster"]["name"] = "dart"
    return model


def _categorical(model: dict) -> dict:
    model["learner"]["gradient_booster"]["model"]["trees"][0]["split_type"][0] = 1
    return model


@pytest.mark.parametrize("model", [
    _model(_stump(0, 0.5, 1.0, 2.0), objective="reg:pseudohubererror"),  # a link NumPy does not know
    _dart(_model(_stump(0, 0.5, 1.0, 2.0))),
    _model(_stump(0, 0.5, 1.0, 2.0), num_target="2"),
    _model(_stump(0, 0.5, 1.0, 2.0), num_class="2"),
    _model(),                                                            # no trees
    _categorical(_model(_stump(0, 0.5, 1.0, 2.0))),
], ids=["objective", "dart", "multi-target", "multi-class", "no-trees", "categorical"])
def test_flatten_leaves_to_xgboost_what_numpy_cannot_run(model):
    assert flatten(model) is None


def test_flatten_takes_one_target_and_one_class_as_plain():
    forest = flatten(_model(_stump(0, 0.5, 1.0, 2.0), num_target="1", num_class="1"))
    np.testing.assert_array_equal(forest.predict(np.array([[0.0], [1.0]])), [1.0, 2.0])


def test_the_xgboost_fallback_runs_on_one_thread():
    head = load_bundle(learned_mod.SHIPPED_MODEL_DIR, ("spill",)).heads["spill"]
    config = json.loads(head.booster().save_config())
    assert config["learner"]["generic_param"]["nthread"] == "1"
    assert head.booster() is head.booster()


def test_the_xgboost_fallback_without_xgboost_says_what_to_install(monkeypatch):
    head = load_bundle(learned_mod.SHIPPED_MODEL_DIR, ("spill",)).heads["spill"]
    monkeypatch.setitem(sys.modules, "xgboost", None)  # import xgboost raises ImportError
    with pytest.raises(BundleError) as err:
        head.booster()
    one_line(err, f"{head.where}: ", NEEDS_XGBOOST)


def test_arch_problem_names_what_is_missing():
    assert arch_problem({}, "sm_90") == (
        "it does not record the arch of its labels (re-export it with costfuse-train), target sm_90")
    assert arch_problem({"arch": "sm_80"}, "sm_90") == (
        "trained on sm_80 labels (triton ?, ptxas ?), but the target is sm_90")
    assert arch_problem({"arch": "sm_80", "triton_version": "3.6.0", "ptxas_version": "12.8"}, "sm_90") == (
        "trained on sm_80 labels (triton 3.6.0, ptxas 12.8), but the target is sm_90")
    assert arch_problem({"arch": "sm_90"}, "sm_90") is None


@pytest.fixture
def shipped_head():
    """A fresh copy of the shipped model's ``spill_bytes`` head (a log1p regressor) and its feature count."""
    bundle = load_bundle(learned_mod.SHIPPED_MODEL_DIR, ("spill_bytes",))
    return bundle.heads["spill_bytes"], len(bundle.metadata["feature_columns"])


def test_head_predicts_up_to_a_small_batch_in_numpy_then_in_xgboost(shipped_head, monkeypatch):
    """Without the compiled walk (no C compiler): NumPy up to a small batch, XGBoost past it."""
    from costfuse.cost_models import bundle as bundle_mod

    monkeypatch.setattr(bundle_mod, "native_walk", lambda: None)

    head, n = shipped_head
    calls = []
    real = head.booster

    def booster():
        calls.append(1)
        return real()

    monkeypatch.setattr(head, "booster", booster)
    X = np.zeros((bundle_mod.SMALL_BATCH + 1, n))
    head.predict(X[:bundle_mod.SMALL_BATCH])
    assert calls == []
    out = head.predict(X)
    assert calls == [1] and out.shape == (len(X),) and out.dtype == np.float64
    monkeypatch.setattr(bundle_mod, "_xgboost_installed", lambda: False)  # then NumPy takes any batch
    head.predict(X)
    assert calls == [1]


def test_the_compiled_walk_takes_every_batch(shipped_head, monkeypatch):
    from costfuse.cost_models import bundle as bundle_mod

    head, n = shipped_head
    assert bundle_mod.native_walk() is not None, "cc builds the walk on this machine"
    monkeypatch.setattr(head, "booster", lambda: pytest.fail("XGBoost called although the compiled walk is built"))
    X = np.random.default_rng(5).random((4 * bundle_mod.SMALL_BATCH, n))
    np.testing.assert_allclose(head.predict(X), np.expm1(head.forest.numpy_margin(X)), rtol=1e-12)


def test_head_flattens_the_xgboost_output(shipped_head, monkeypatch):
    head, n = shipped_head
    monkeypatch.setattr(head, "forest", None)  # trees NumPy cannot run: XGBoost answers every batch
    head._booster = SimpleNamespace(inplace_predict=lambda X: np.zeros((len(X), 1), np.float32))
    out = head.predict(np.zeros((3, n)))
    np.testing.assert_array_equal(out, np.expm1(np.zeros(3)))
    assert out.shape == (3,)


def test_a_classifier_head_gives_probabilities_whatever_its_transform(shipped_head):
    head, n = shipped_head
    X = np.zeros((2, n))
    margin = head.forest.predict(X)  # the regressor's raw output, before its log1p is undone
    as_classifier = Head("p", {**head.spec, "kind": "classifier"}, head.where, head.raw, head.forest)
    np.testing.assert_array_equal(as_classifier.predict(X), margin)
    np.testing.assert_allclose(head.predict(X), np.expm1(margin))


def test_read_json_says_what_is_wrong_with_the_file(tmp_path):
    with pytest.raises(BundleError) as err:
        read_json(tmp_path)
    one_line(err, f"{tmp_path}: ", "Is a directory")
    assert str(err.value) == f"{tmp_path}: cannot read it (Is a directory)"   # the reason, not the errno text
    with pytest.raises(BundleError) as err:
        read_json(tmp_path / "none.json")
    one_line(err, f"{tmp_path / 'none.json'}: ", "no such file")
    (tmp_path / "cut.json").write_text('{"learner": ')
    with pytest.raises(BundleError) as err:
        read_json(tmp_path / "cut.json")
    one_line(err, f"{tmp_path / 'cut.json'}: ", "not valid JSON", "line 1 column 13")


@pytest.fixture(scope="module")
def v1_metadata() -> dict:
    """The shipped model's metadata (feature schema v1)."""
    return json.loads((learned_mod.SHIPPED_MODEL_DIR / "metadata.json").read_text())


def _schema_error(metadata, schema=1) -> str:
    with pytest.raises(BundleError) as err:
        check_schema(metadata, "m", schema)
    return str(err.value)


def test_check_schema_names_what_it_found_instead_of_a_model(v1_metadata):
    assert _schema_error([]) == f"m: not a CostFuse model (format 'list', expected {FORMAT})"
    assert _schema_error({**v1_metadata, "format": "x/1"}) == (
        f"m: not a CostFuse model (format 'x/1', expected {FORMAT})")


def test_check_schema_holds_a_model_to_the_schema_asked_for(v1_metadata):
    retrain = "retrain it (costfuse-train --data DIR --export DIR) or use a matching CostFuse version"
    assert _schema_error(v1_metadata, 2) == (
        f"m: trained on feature schema v1, but this featurize computes v2, v3, v4 or v5; {retrain}")
    assert _schema_error({**v1_metadata, "feature_schema_version": 7}, None) == (
        f"m: trained on feature schema v7, but this featurize computes v1, v2, v3, v4 or v5; {retrain}")
    check_schema(v1_metadata, "m", None)  # None: any known schema
    check_schema(v1_metadata, "m", 1)


def test_check_schema_needs_the_columns_their_ranges_and_the_heads(v1_metadata):
    no_columns = {k: v for k, v in v1_metadata.items() if k != "feature_columns"}
    assert _schema_error(no_columns) == ("m: feature columns differ from featurize's schema v1 columns "
                                         "(schema v1 on both sides: bump the schema version when columns change)")
    no_ranges = {k: v for k, v in v1_metadata.items() if k != "feature_ranges"}
    assert _schema_error(no_ranges) == "m: 'feature_ranges' is missing or lacks some feature columns"
    assert _schema_error({k: v for k, v in v1_metadata.items() if k != "heads"}) == "m: 'heads' is missing"
    extra = {**v1_metadata, "feature_ranges": {**v1_metadata["feature_ranges"], "other": [0, 1]}}
    check_schema(extra, "m", 1)  # more ranges than columns are fine


@pytest.mark.parametrize("spec", [
    "spill.json",                                                                    # not a table
    {"kind": "ranker", "transform": "none", "threshold": 0.5, "file": "spill.json"},
    {"kind": "classifier", "transform": "sqrt", "threshold": 0.5, "file": "spill.json"},
    {"kind": "classifier", "transform": "none", "threshold": 0.5},                   # no file
    {"kind": "classifier", "transform": "none", "threshold": "high", "file": "spill.json"},
], ids=["not-a-table", "kind", "transform", "file", "threshold"])
def test_check_schema_wants_each_head_complete(v1_metadata, spec):
    assert _schema_error({**v1_metadata, "heads": {"spill": spec}}) == (
        "m: head 'spill' needs a kind (classifier, regressor), a transform (none, log1p, log), a threshold and a file")


@pytest.mark.parametrize("cut", ["decision_threshold", "precision_threshold"])
def test_check_schema_wants_each_recorded_cut_to_be_a_number(v1_metadata, cut):
    spill = v1_metadata["heads"]["spill"]
    check_schema({**v1_metadata, "heads": {"spill": {**spill, cut: 0.1}}}, "m", 1)
    assert _schema_error({**v1_metadata, "heads": {"spill": {**spill, cut: "high"}}}) == (
        f"m: head 'spill' has a {cut} that is not a number")


def test_load_bundle_names_the_file_or_folder_at_fault(bundle_dir, tmp_path):
    with pytest.raises(BundleError) as err:
        load_bundle(tmp_path / "none")
    one_line(err, f"{tmp_path / 'none'}: ", "no such model folder")
    meta = json.loads((bundle_dir / "metadata.json").read_text())
    with pytest.raises(BundleError) as err:  # metadata given: the folder
        load_bundle(bundle_dir, metadata={**meta, "format": None})
    one_line(err, f"{bundle_dir}: ", "not a CostFuse model", FORMAT)
    other = Path(shutil.copytree(bundle_dir, tmp_path / "other"))
    (other / "metadata.json").write_text(json.dumps({**meta, "format": None}))
    with pytest.raises(BundleError) as err:  # read from the folder: its metadata.json
        load_bundle(other)
    one_line(err, f"{other / 'metadata.json'}: ", "not a CostFuse model", FORMAT)


def test_load_bundle_keeps_to_the_schema_asked_for():
    from costfuse.featurize.group_features import GROUP_FEATURE_SCHEMA_VERSION

    groups = learned_mod.SHIPPED_MODEL_DIR / "groups"
    shipped = load_bundle(groups, schema=GROUP_FEATURE_SCHEMA_VERSION).metadata["feature_schema_version"]
    with pytest.raises(BundleError, match=f"trained on feature schema v{shipped}, but this featurize computes v1"):
        load_bundle(groups)


def test_a_group_bundle_of_an_older_schema_takes_its_own_columns_from_this_codes_rows(tmp_path):
    """A schema-v2 group bundle under schema-v3 featurize: rows of this code's columns go to its heads as the
    v2 prefix they were trained on (so such a bundle keeps working), and rows of its own width as they are;
    a bundle whose columns are not one schema's is still refused."""
    from costfuse.featurize.group_features import GROUP_FEATURE_COLUMNS, GROUP_SCHEMAS

    v2 = group_bundle(tmp_path / "v2", GROUP_SCHEMAS[2], 2)
    head = load_bundle(v2, schema=3).heads["regs"]
    rng = np.random.default_rng(1)
    X = rng.random((5, len(GROUP_FEATURE_COLUMNS)))
    np.testing.assert_allclose(head.predict(X), head.predict(X[:, :len(GROUP_SCHEMAS[2])]))
    meta = json.loads((v2 / "metadata.json").read_text())
    meta["feature_columns"] = list(GROUP_FEATURE_COLUMNS)      # v3's columns, labelled v2
    with pytest.raises(BundleError, match="feature columns differ from featurize's schema v2 columns"):
        check_schema(meta, "m", 3)


def test_a_scaled_head_predicts_a_share_of_its_column_never_above_it(tmp_path):
    """``scale`` (bundle.HeadSpec): the booster's output is a share of the column, clipped to [0, 1]."""
    from costfuse.featurize.group_features import GROUP_FEATURE_COLUMNS, GROUP_FEATURE_SCHEMA_VERSION as NOW

    d = group_bundle(tmp_path / "now", GROUP_FEATURE_COLUMNS, NOW, scale="regs_available", share=1.7)
    head = load_bundle(d, schema=NOW).heads["regs"]
    X = np.random.default_rng(2).random((4, len(GROUP_FEATURE_COLUMNS)))
    X[:, GROUP_FEATURE_COLUMNS.index("regs_available")] = [32, 64, 128, 255]
    np.testing.assert_allclose(head.predict(X), [32, 64, 128, 255])    # a share of 1.7 is clipped to the column
    meta = json.loads((d / "metadata.json").read_text())
    meta["heads"]["regs"]["scale"] = "no_such_column"
    with pytest.raises(BundleError, match="head 'regs' is scaled by 'no_such_column', not a feature column"):
        check_schema(meta, "m", 3)


def test_load_bundle_heads_know_their_name_and_file(bundle_dir):
    head = load_bundle(bundle_dir).heads["spill_bytes"]
    assert (head.name, head.where) == ("spill_bytes", str(bundle_dir / "spill_bytes.json"))


def test_load_bundle_says_why_a_head_is_not_an_xgboost_model(bundle_dir, tmp_path):
    broken = Path(shutil.copytree(bundle_dir, tmp_path / "broken"))
    (broken / "spill.json").write_text("{}")
    with pytest.raises(BundleError) as err:
        load_bundle(broken)
    one_line(err, f"{broken / 'spill.json'}: ", "not an XGBoost JSON model", "'learner'")
    assert "(KeyError: 'learner')" in str(err.value)   # what was missing, and how the model failed


@pytest.mark.parametrize("text, uri", [
    ("models:/costfuse-spill@champion", True), ("runs:/0123/model", True), ("s3://bucket/model", True),
    ("file:///abs/model", True), ("/abs/model", False), ("models/costfuse", False), ("runs", False),
])
def test_a_scheme_makes_a_model_uri_a_plain_path_does_not(text, uri):
    assert is_uri(text) is uri


def test_the_columns_this_code_computes_are_the_newest_group_columns_for_any_group_schema():
    """A group bundle of an older schema still gets this code's rows (its head maps them, ``Head.take``);
    the edge schema gets v1's columns."""
    from costfuse.cost_models.bundle import current_columns
    from costfuse.featurize.features import FEATURE_SCHEMA_VERSION
    from costfuse.featurize.group_features import GROUP_FEATURE_COLUMNS, GROUP_SCHEMAS

    assert current_columns(FEATURE_SCHEMA_VERSION) == FEATURE_COLUMNS
    for version in GROUP_SCHEMAS:
        assert current_columns(version) == GROUP_FEATURE_COLUMNS


def test_an_older_group_heads_rows_reach_xgboost_at_the_width_it_was_trained_on(tmp_path, monkeypatch):
    """Past a small batch the head runs in XGBoost, which refuses rows wider than its trees: this code's
    wider rows are cut to the bundle's own columns first, and rows of the bundle's width pass as they are."""
    from costfuse.cost_models import bundle as bundle_mod
    from costfuse.featurize.group_features import GROUP_FEATURE_COLUMNS, GROUP_SCHEMAS

    head = load_bundle(group_bundle(tmp_path / "v2", GROUP_SCHEMAS[2], 2), schema=3).heads["regs"]
    monkeypatch.setattr(head, "forest", None)     # every batch through XGBoost
    X = np.random.default_rng(3).random((bundle_mod.SMALL_BATCH + 4, len(GROUP_FEATURE_COLUMNS)))
    own = X[:, :len(GROUP_SCHEMAS[2])]
    np.testing.assert_allclose(head.predict(X), head.predict(own))
    assert head.predict(own).shape == (len(X),)


@pytest.mark.parametrize("share, expected", [(-0.3, 0.0), (0.5, 0.5), (1.7, 1.0)])
def test_a_scaled_heads_share_is_clipped_to_between_none_and_all_of_its_column(tmp_path, share, expected):
    from costfuse.featurize.group_features import GROUP_FEATURE_COLUMNS, GROUP_FEATURE_SCHEMA_VERSION as NOW

    d = group_bundle(tmp_path / "now", GROUP_FEATURE_COLUMNS, NOW, scale="regs_available", share=share)
    head = load_bundle(d, schema=NOW).heads["regs"]
    X = np.random.default_rng(4).random((3, len(GROUP_FEATURE_COLUMNS)))
    X[:, GROUP_FEATURE_COLUMNS.index("regs_available")] = [64, 128, 255]
    np.testing.assert_allclose(head.predict(X), np.array([64, 128, 255]) * expected, rtol=1e-5, atol=1e-4)


def test_registry_names_carry_the_prefix_of_the_heads_seam():
    """v1's heads keep their names; group heads are ``costfuse-group-*`` and the Inductor handler's
    ``costfuse-inductor-*`` (the trainer registers them so, the loaders ask for them so)."""
    from costfuse.cost_models.bundle import HEADS, registered_name
    from costfuse.featurize.group_features import GROUP_FEATURE_SCHEMA_VERSION

    spec = HEADS["spill_bytes"]
    assert registered_name(spec) == "costfuse-spill-bytes"
    assert registered_name(spec, GROUP_FEATURE_SCHEMA_VERSION) == "costfuse-group-spill-bytes"
    assert registered_name(spec, GROUP_FEATURE_SCHEMA_VERSION, inductor=True) == "costfuse-inductor-spill-bytes"
    assert registered_name(spec, inductor=True) == "costfuse-spill-bytes"


def test_a_bundle_of_the_other_seam_is_sent_to_its_own_option():
    """``load_model`` (what ``--model`` and ``--group-model`` call) names the other seam's bundle for what it
    is and the option that takes it."""
    from costfuse.cost_models.bundle import load_model
    from costfuse.featurize.features import FEATURE_SCHEMA_VERSION

    groups = SHIPPED_MODEL_DIR / "groups"
    with pytest.raises(BundleError) as err:
        load_model(str(groups), ("spill",), FEATURE_SCHEMA_VERSION)
    assert str(err.value) == (f"{groups}: holds kernel-group heads (feature schema v2), but --model takes v1's edge "
                              "heads (v1); pass it as --group-model, with --fusion groups")
    with pytest.raises(BundleError) as err:
        load_model(str(SHIPPED_MODEL_DIR), ("spill",), 3)
    assert str(err.value) == (f"{SHIPPED_MODEL_DIR}: holds v1's edge heads (feature schema v1), but --group-model "
                              "takes kernel-group heads (v2, v3, v4 or v5); pass it as --model, with --fusion elementwise")


def test_a_models_uri_with_no_tracking_store_given_or_set_asks_for_one(monkeypatch):
    from costfuse.cost_models.bundle import load_model

    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    with pytest.raises(BundleError, match="pass --tracking-uri"):
        load_model("models:/costfuse-spill@champion", ("spill",), 1)


@pytest.mark.parametrize("versions, text", [((1,), "v1"), ((1, 2), "v1 or v2"), ((2, 3, 4), "v2, v3 or v4")])
def test_schema_versions_are_named_as_a_sentence_names_them(versions, text):
    from costfuse.cost_models.bundle import _either

    assert _either(versions) == text

"""The learned cost model's loading and bookkeeping, pinned line by line (issue #15: mutation testing of
cost_models/registry.py, learned.py, forest.py, bundle.py).

registry.py's own tests go through a subprocess or MLflow's registry (marked slow), so mutmut's fast
selection reached none of it.  Here each piece runs in-process: the tracking-store rules on URIs
written out by hand, :func:`load_uri` on local folders (a bundle, a hand-written ``MLmodel`` file)
that MLflow copies like any artifact, with MLflow's download monkeypatched where a registry would
answer, and :func:`load_registered` against a fake ``load_uri``.  The rest pins what test_learned.py
and test_bundle.py check only loosely: each field of a kernel prediction, each number and word of a
decision's reason (worked out by hand from test_analytical's roofline), the NumPy forest on trees
written by hand (XGBoost's float32 splits, NaN defaults, base score), the bundle's one-line errors,
the group heads' loading.  Mutants no test can tell apart are listed, each with its reason, in
experiments/mutation_equivalent.toml.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from costfuse.cost_models import learned as learned_mod
from costfuse.cost_models import learned_groups, registry
from costfuse.cost_models.analytical import Analytical, kernel_features
from costfuse.cost_models.bundle import (
    FORMAT, NEEDS_XGBOOST, Bundle, BundleError, Head, arch_problem, check_schema, is_uri, load_bundle, read_json,
)
from costfuse.cost_models.forest import flatten
from costfuse.cost_models.learned import KernelPrediction, LearnedEdges
from costfuse.cost_models.learned_groups import LearnedGroups
from costfuse.cost_models.registry import NotRegistered, _is_not_registered, _local_store, load_uri, tracking_uri_for
from costfuse.policy import Decision
from helpers.analytical_modules import _f, candidate, chain_module
from helpers.bundles import make_bundle
from helpers.peer_kernels import multi_use

REGISTRY_ENV = ("MLFLOW_TRACKING_URI", "MLFLOW_DISABLE_TELEMETRY", "DO_NOT_TRACK")


@pytest.fixture
def clean_env(monkeypatch):
    """No tracking store in the environment and MLflow's telemetry switches unset (restored afterwards)."""
    for name in REGISTRY_ENV:
        monkeypatch.setenv(name, "")  # recorded, so teardown restores (or removes) it
        monkeypatch.delenv(name)


@pytest.fixture(scope="module")
def bundle_dir(tmp_path_factory) -> Path:
    """A two-head bundle (spill, spill_bytes) from test_bundle.py's :func:`make_bundle`."""
    return make_bundle(tmp_path_factory.mktemp("mutants_learned") / "bundle")


# --- registry.tracking_uri_for ------------------------------------------------------------

@pytest.mark.parametrize("uri", ["models:/costfuse-spill@champion", "runs:/0123/model"])
def test_a_registry_uri_without_a_store_says_what_to_pass(clean_env, uri):
    with pytest.raises(BundleError) as err:
        tracking_uri_for(uri)
    assert str(err.value) == (f"{uri}: a registry URI needs an MLflow tracking store; pass --tracking-uri URI "
                              "(e.g. sqlite:////abs/path/mlflow.db or http://HOST:5000) or set MLFLOW_TRACKING_URI")


def test_a_plain_uri_needs_no_store_but_keeps_one_given(clean_env, tmp_path):
    assert tracking_uri_for("s3://bucket/model") == ""
    assert tracking_uri_for(tmp_path.as_uri()) == ""
    assert tracking_uri_for("s3://bucket/model", str(tmp_path)) == str(tmp_path)


def test_the_store_comes_from_the_argument_else_the_environment(clean_env, monkeypatch, tmp_path):
    monkeypatch.setenv("MLFLOW_TRACKING_URI", str(tmp_path))
    assert tracking_uri_for("models:/costfuse-spill@champion") == str(tmp_path)
    assert tracking_uri_for("models:/costfuse-spill@champion", "http://localhost:5000") == "http://localhost:5000"


def test_a_missing_local_store_is_refused_a_server_is_not_checked(clean_env, tmp_path):
    db, uri = tmp_path / "mlflow.db", "models:/costfuse-spill@champion"
    with pytest.raises(BundleError) as err:
        tracking_uri_for(uri, f"sqlite:///{db}")
    assert str(err.value) == (f"{uri}: tracking store {db} does not exist (from sqlite:///{db}); "
                              "pass the --tracking-uri costfuse-train logged to")
    db.write_bytes(b"")
    assert tracking_uri_for(uri, f"sqlite:///{db}") == f"sqlite:///{db}"
    assert tracking_uri_for(uri, "http://localhost:5000") == "http://localhost:5000"  # never looked up


# --- registry._local_store ----------------------------------------------------------------

@pytest.mark.parametrize("uri, path", [
    ("sqlite:///rel/mlflow.db", "rel/mlflow.db"),    # three slashes: relative
    ("sqlite:////abs/mlflow.db", "/abs/mlflow.db"),  # four: absolute
    ("sqlite:///m.db?mode=ro", "m.db"),              # the query is not part of the file
    ("sqlite:///m.db?mode=ro?x", "m.db"),            # ... from its first '?'
    ("sqlite:///a", "a"),                            # a one-letter file name
    ("sqlite:///", None),                            # no file name
    ("sqlite://", None),                             # SQLite in memory
    ("sqlite://host/m.db", None),                    # not a file URI at all
    ("file:///abs/mlruns", "/abs/mlruns"),
    ("file:rel/mlruns", "rel/mlruns"),
    ("/abs/mlruns", "/abs/mlruns"),
    ("mlruns", "mlruns"),
    ("C:/mlruns", "C:/mlruns"),                      # a Windows drive, not a scheme
    ("http://localhost:5000", None),
    ("https://mlflow.example.com", None),
    ("databricks://profile", None),
    ("databricks", None),                            # MLflow's bare Databricks names: a server, not a folder
    ("databricks-uc", None),
])
def test_local_store_of_each_kind_of_tracking_uri(uri, path):
    assert _local_store(uri) == (None if path is None else Path(path))


def test_mlflows_in_memory_sqlite_uri_is_no_local_file():
    """MLflow's own in-memory URI names no file: tracking_uri_for must not refuse it as a missing store."""
    assert _local_store("sqlite:///:memory:") is None
    assert _local_store("sqlite:///:memory:?cache=shared") is None
    assert tracking_uri_for("runs:/abc/model", "sqlite:///:memory:") == "sqlite:///:memory:"


# --- registry.load_uri --------------------------------------------------------------------

def _copy_heads(bundle_dir: Path, dst: Path) -> dict:
    """``dst`` holding ``bundle_dir``'s head files but not its metadata.json; returns that metadata."""
    dst.mkdir()
    meta = json.loads((bundle_dir / "metadata.json").read_text())
    for spec in meta["heads"].values():
        shutil.copy(bundle_dir / spec["file"], dst / spec["file"])
    return meta


def test_load_uri_copies_a_bundle_folder_and_loads_the_heads_asked_for(bundle_dir, clean_env, monkeypatch):
    import mlflow

    calls = []
    monkeypatch.setattr(mlflow, "set_tracking_uri", calls.append)
    got = load_uri(bundle_dir.as_uri(), heads=("spill",))
    assert set(got.heads) == set(got.metadata["heads"]) == {"spill"}
    assert got.metadata["dataset_hash"] == "test"
    # read from a temporary copy named for us, gone once loaded
    copy = Path(got.heads["spill"].where).parents[1]
    assert copy.name.startswith("costfuse-model-") and not copy.exists()
    assert calls == []  # no store needed, none set
    assert os.environ["MLFLOW_DISABLE_TELEMETRY"] == "true" and os.environ["DO_NOT_TRACK"] == "true"
    X = np.zeros((2, len(got.metadata["feature_columns"])))
    np.testing.assert_array_equal(got.heads["spill"].predict(X), load_bundle(bundle_dir).heads["spill"].predict(X))


def test_load_uri_sets_the_store_it_resolved(bundle_dir, clean_env, monkeypatch, tmp_path):
    import mlflow

    calls = []
    monkeypatch.setattr(mlflow, "set_tracking_uri", calls.append)
    load_uri(str(bundle_dir), str(tmp_path))
    assert calls == [str(tmp_path)]


def test_load_uri_names_the_uri_in_a_bundle_error(bundle_dir, clean_env, tmp_path):
    bad = tmp_path / "bad"
    shutil.copytree(bundle_dir, bad)
    meta = json.loads((bad / "metadata.json").read_text())
    (bad / "metadata.json").write_text(json.dumps({**meta, "format": "other/1"}))
    with pytest.raises(BundleError) as err:
        load_uri(bad.as_uri())
    assert str(err.value) == f"{bad.as_uri()}: not a CostFuse model (format 'other/1', expected {FORMAT})"


def test_load_uri_reads_the_metadata_of_an_mlmodel_file(bundle_dir, clean_env, tmp_path):
    """A registered head: an MLflow model folder whose MLmodel file carries the bundle's metadata."""
    model = tmp_path / "model"
    meta = _copy_heads(bundle_dir, model)
    (model / "MLmodel").write_text(json.dumps({"flavors": {}, "metadata": meta}))  # JSON is YAML
    got = load_uri(model.as_uri(), heads=("spill_bytes",))
    assert set(got.heads) == set(got.metadata["heads"]) == {"spill_bytes"}
    assert got.metadata["dataset_hash"] == "test"


def test_load_uri_refuses_an_mlmodel_file_without_our_metadata(bundle_dir, clean_env, tmp_path):
    model = tmp_path / "model"
    _copy_heads(bundle_dir, model)
    (model / "MLmodel").write_text(json.dumps({"flavors": {}}))
    with pytest.raises(BundleError) as err:
        load_uri(model.as_uri())
    assert str(err.value) == f"{model.as_uri()}: not a CostFuse model (format None, expected {FORMAT})"


def test_load_uri_refuses_a_folder_with_neither_file(clean_env, tmp_path):
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "README").write_text("not a model")
    with pytest.raises(BundleError) as err:
        load_uri((tmp_path / "other").as_uri())
    assert str(err.value) == f"{(tmp_path / 'other').as_uri()}: neither metadata.json nor an MLflow MLmodel file in it"


def _failing_download(monkeypatch, err: Exception) -> None:
    import mlflow

    def download(**kwargs):
        raise err

    monkeypatch.setattr(mlflow, "set_tracking_uri", lambda uri: None)
    monkeypatch.setattr(mlflow.artifacts, "download_artifacts", download)


def test_load_uri_an_unknown_alias_is_not_registered(clean_env, monkeypatch, tmp_path):
    from mlflow.exceptions import MlflowException
    from mlflow.protos.databricks_pb2 import INVALID_PARAMETER_VALUE

    _failing_download(monkeypatch, MlflowException("  Registered model alias champion not found.\nDetails: ...",
                                                   INVALID_PARAMETER_VALUE))
    with pytest.raises(NotRegistered) as err:
        load_uri("models:/costfuse-spill@champion", str(tmp_path))
    assert str(err.value) == ("models:/costfuse-spill@champion: MlflowException: "
                              "Registered model alias champion not found.")


def test_load_uri_other_mlflow_and_os_errors_are_bundle_errors(clean_env, monkeypatch, tmp_path):
    from mlflow.exceptions import MlflowException

    _failing_download(monkeypatch, MlflowException("Connection refused\nretries exhausted"))
    with pytest.raises(BundleError) as err:
        load_uri("models:/costfuse-spill@champion", str(tmp_path))
    assert not isinstance(err.value, NotRegistered)
    assert str(err.value) == "models:/costfuse-spill@champion: MlflowException: Connection refused"
    _failing_download(monkeypatch, OSError("No space left on device"))
    with pytest.raises(BundleError) as err:
        load_uri("models:/costfuse-spill@champion", str(tmp_path))
    assert str(err.value) == "models:/costfuse-spill@champion: No space left on device"


# --- registry._is_not_registered ----------------------------------------------------------

def _mlflow_error(message: str, code: str):
    from mlflow.exceptions import MlflowException
    from mlflow.protos import databricks_pb2

    return MlflowException(message, getattr(databricks_pb2, code))


@pytest.mark.parametrize("message, code, expected", [
    ("Registered Model with name=costfuse-latency not found", "RESOURCE_DOES_NOT_EXIST", True),
    ("Registered model alias champion not found.", "INVALID_PARAMETER_VALUE", True),
    ("Invalid alias name: 'a b'.", "INVALID_PARAMETER_VALUE", False),        # about an alias, but found
    ("Model version 7 not found", "INVALID_PARAMETER_VALUE", False),         # not found, but not an alias
    ("Registered model alias champion not found.", "INTERNAL_ERROR", False),  # another code
    ("Connection refused", "INTERNAL_ERROR", False),
])
def test_which_mlflow_errors_mean_not_registered(message, code, expected):
    assert _is_not_registered(_mlflow_error(message, code)) is expected


def test_an_error_without_a_code_is_not_not_registered():
    assert _is_not_registered(OSError("Registered model alias champion not found.")) is False


# --- registry.load_registered -------------------------------------------------------------

def _fake_bundle(*heads: str, dataset_hash: str = "d1") -> Bundle:
    specs = {h: {"file": f"{h}.json"} for h in heads}
    return Bundle({"dataset_hash": dataset_hash, "heads": dict(specs)},
                  {h: SimpleNamespace(spec=spec) for h, spec in specs.items()})


@pytest.fixture
def fake_registry(monkeypatch):
    """``(answers, calls)``: ``registry.load_uri`` replaced by a lookup of ``answers[uri]`` (a bundle, or an
    exception to raise); ``calls`` records each ``(uri, tracking_uri, heads)``."""
    answers, calls = {}, []

    def fake_load_uri(uri, tracking_uri="", heads=None):
        calls.append((uri, tracking_uri, heads))
        answer = answers[uri]
        if isinstance(answer, Exception):
            raise answer
        return answer

    monkeypatch.setattr(registry, "load_uri", fake_load_uri)
    return answers, calls


def test_load_registered_gathers_the_alias_across_an_unregistered_head(fake_registry):
    answers, calls = fake_registry
    answers.update({"models:/costfuse-spill@champion": _fake_bundle("spill"),
                    "models:/costfuse-spill-bytes@champion": NotRegistered("no such alias"),
                    "models:/costfuse-regs@champion": _fake_bundle("regs"),
                    "models:/costfuse-latency@champion": _fake_bundle("latency", dataset_hash="d2")})
    got = registry.load_registered("models:/costfuse-spill@champion", "sqlite:////x.db")
    assert set(got.heads) == set(got.metadata["heads"]) == {"spill", "regs"}  # latency: another dataset
    assert got.metadata["heads"]["regs"] == {"file": "regs.json"}
    assert calls == [(f"models:/{name}@champion", "sqlite:////x.db", None)
                     for name in ("costfuse-spill", "costfuse-spill-bytes", "costfuse-regs", "costfuse-latency")]


def test_load_registered_passes_the_heads_asked_for_to_every_load(fake_registry):
    answers, calls = fake_registry
    heads = ("spill", "latency")
    answers.update({"models:/costfuse-spill@champion": _fake_bundle("spill"),
                    "models:/costfuse-latency@champion": _fake_bundle("latency")})
    got = registry.load_registered("models:/costfuse-spill@champion", "sqlite:////x.db", heads)
    assert set(got.heads) == {"spill", "latency"}
    assert calls == [("models:/costfuse-spill@champion", "sqlite:////x.db", heads),
                     ("models:/costfuse-latency@champion", "sqlite:////x.db", heads)]


def test_load_registered_reads_the_alias_after_the_last_at_as_mlflow_does(fake_registry):
    answers, calls = fake_registry  # mlflow.store.artifact.utils.models: parts[0].rsplit("@", 1)
    answers["models:/team@costfuse-spill@champion"] = _fake_bundle("spill", "spill_bytes", "regs")
    answers["models:/costfuse-latency@champion"] = NotRegistered("no latency head")
    registry.load_registered("models:/team@costfuse-spill@champion")
    assert calls[-1] == ("models:/costfuse-latency@champion", "", None)


def test_load_registered_takes_a_version_uri_as_it_is(fake_registry):
    answers, calls = fake_registry
    answers["models:/costfuse-spill/3"] = bundle = _fake_bundle("spill")
    assert registry.load_registered("models:/costfuse-spill/3") is bundle
    assert calls == [("models:/costfuse-spill/3", "", None)]


# --- learned.load_heads / LearnedEdges.load -------------------------------------------------

def test_load_heads_reads_only_the_heads_the_pass_uses():
    assert set(learned_mod.load_heads().heads) == {"spill", "spill_bytes"}  # the shipped model has regs too


def test_load_heads_asks_the_registry_for_the_heads_the_pass_uses(monkeypatch):
    calls = []
    monkeypatch.setattr(registry, "load_registered", lambda *args: calls.append(args) or _fake_bundle("spill"))
    learned_mod.load_heads("models:/costfuse-spill@champion")  # no store given: "" (then $MLFLOW_TRACKING_URI)
    assert calls == [("models:/costfuse-spill@champion", "", learned_mod.HEADS_USED)]


def _with_heads(bundle_dir: Path, dst: Path, heads: dict) -> Path:
    """``bundle_dir`` copied to ``dst`` with its metadata's heads replaced by ``heads``."""
    shutil.copytree(bundle_dir, dst)
    meta = json.loads((dst / "metadata.json").read_text())
    (dst / "metadata.json").write_text(json.dumps({**meta, "heads": heads}))
    return dst


def test_a_model_without_a_spill_head_is_refused_naming_its_heads(bundle_dir, tmp_path):
    spec = json.loads((bundle_dir / "metadata.json").read_text())["heads"]["spill_bytes"]
    two = _with_heads(bundle_dir, tmp_path / "two", {"spill_bytes": spec, "latency": {**spec, "transform": "log"}})
    with pytest.raises(ValueError) as err:
        learned_mod.load_heads(str(two))
    assert str(err.value) == f"model {two} has no 'spill' head (heads: spill_bytes, latency)"
    unused = _with_heads(bundle_dir, tmp_path / "unused", {"regs": spec})  # a head the pass does not load
    with pytest.raises(ValueError) as err:
        learned_mod.load_heads(str(unused))
    assert str(err.value) == f"model {unused} has no 'spill' head (heads: none)"


def test_load_heads_errors_say_what_to_pass(bundle_dir, monkeypatch, tmp_path):
    head_file = bundle_dir / "spill.json"
    with pytest.raises(ValueError) as err:
        learned_mod.load_heads(str(head_file))
    assert str(err.value) == (f"cannot load model {head_file}: a file; --model takes a model folder (the one holding "
                              f"metadata.json, e.g. --model {bundle_dir}) or models:/NAME@ALIAS")
    monkeypatch.setattr(learned_mod, "SHIPPED_MODEL_DIR", tmp_path / "none")
    with pytest.raises(ValueError) as err:
        learned_mod.load_heads()
    assert str(err.value) == (f"no shipped model in {tmp_path / 'none'} (costfuse-train --data DIR --export "
                              f"{tmp_path / 'none'}), so pass --model DIR|models:/NAME@ALIAS")


def test_a_model_of_another_arch_is_refused_unless_allowed(bundle_dir):
    with pytest.raises(ValueError) as err:
        LearnedEdges.load(model=str(bundle_dir), arch="sm_80")
    assert str(err.value) == (f"model {bundle_dir}: trained on sm_90 labels (triton 3.6.0, ptxas 12.8.93), but the "
                              "target is sm_80; pass --allow-arch-mismatch to use it anyway")
    assert LearnedEdges.load(model=str(bundle_dir), arch="sm_80", allow_arch_mismatch=True).heads


def test_the_corners_of_the_training_range_are_in_range():
    m = LearnedEdges.load()
    ranges = m.metadata["feature_ranges"]
    corners = [tuple(float(ranges[c][k]) for c in m._columns) for k in (0, 1)]
    assert [p.in_range for p in m.predict_rows(corners)] == [True, True]


def test_a_latency_head_is_noticed(bundle_dir, tmp_path):
    heads = json.loads((bundle_dir / "metadata.json").read_text())["heads"]
    latency = {**heads["spill_bytes"], "transform": "log"}  # any regressor's trees will do
    timed = _with_heads(bundle_dir, tmp_path / "timed", {**heads, "latency": latency})
    assert LearnedEdges.load(model=str(timed)).has_latency is True
    assert LearnedEdges.load(model=str(bundle_dir)).has_latency is False


def test_learned_checks_its_options_when_made():
    with pytest.raises(ValueError) as err:
        LearnedEdges.load(spill_budget=-1.0)
    assert str(err.value) == "--spill-budget must be >= 0 bytes, got -1.0"
    with pytest.raises(ValueError, match=r"^--tile-policy must be one of heuristic, wide, got 'huge'$"):
        LearnedEdges.load(tile_policy="huge")
    assert LearnedEdges.load(tile_policy="wide")._fallback.tile_policy == "wide"


def test_learned_reads_a_registry_uri_from_its_tracking_store(bundle_dir, monkeypatch, tmp_path):
    calls = []
    real = load_bundle(bundle_dir)
    monkeypatch.setattr(registry, "load_registered", lambda *args: calls.append(args) or real)
    m = LearnedEdges.load(model="models:/costfuse-spill@champion", tracking_uri=str(tmp_path))
    assert calls == [("models:/costfuse-spill@champion", str(tmp_path), learned_mod.HEADS_USED)]
    assert set(m.heads) == {"spill", "spill_bytes"}


# --- learned.LearnedEdges.predict_rows -----------------------------------------------------------

def _on_two_columns(monkeypatch, pred: dict) -> LearnedEdges:
    """The shipped model with two feature columns ``a``, ``b`` in [0, 10], P(spill) cut 0.5, and ``pred``
    (head -> one value per row) as its heads' answer."""
    m = LearnedEdges.load()
    m._columns, m._lo, m._hi, m._threshold = ["a", "b"], np.array([0.0, 0.0]), np.array([10.0, 10.0]), 0.5
    monkeypatch.setattr(m, "_predict", lambda X: {k: np.asarray(v[:len(X)], float) for k, v in pred.items()})
    return m


def test_predict_rows_reads_every_head_for_each_row(monkeypatch):
    m = _on_two_columns(monkeypatch, {"spill": [0.5, 0.2, 0.9], "spill_bytes": [0.25, 100.0, 40.0],
                                      "latency": [3.0, 4.0, 5.0]})
    assert m.predict_rows([(1.0, 2.0), (3.0, 4.0), (5.0, 11.0)]) == [
        KernelPrediction(0.5, True, 1.0, 3.0, True, ""),  # P at the cut spills; at least 1 B when it does
        KernelPrediction(0.2, False, 0.0, 4.0, True, ""),  # no spill: 0 B whatever the bytes head says
        KernelPrediction(0.9, True, 40.0, 5.0, False, "b=11 not in [0, 10]"),
    ]


def test_predict_rows_without_bytes_or_latency_heads(monkeypatch):
    m = _on_two_columns(monkeypatch, {"spill": [0.7, 0.1]})
    spilling, clean = m.predict_rows([(1.0, 2.0), (3.0, 4.0)])
    assert (spilling.spills, spilling.spill_bytes) == (True, math.inf)  # spills, by how much unknown
    assert (clean.spills, clean.spill_bytes) == (False, 0.0)
    assert math.isnan(spilling.latency_us) and math.isnan(clean.latency_us)


# --- learned.LearnedEdges.decide_batch ---------------------------------------------------------

def test_a_candidate_that_cannot_be_featurized_is_left_unfused_and_the_rest_decided(monkeypatch):
    from costfuse.featurize.features import FeatureError

    m = LearnedEdges.load()
    unfeaturizable = object()
    real = learned_mod.candidate_features

    def features(c, policy):
        if c is unfeaturizable:
            raise FeatureError("dynamic shape")
        return real(c, policy)

    monkeypatch.setattr(learned_mod, "candidate_features", features)
    with candidate(chain_module(2)) as good:
        got = m.decide_batch([unfeaturizable, good, unfeaturizable])
        expected = m.decide(good)
    refused = Decision(False, "cannot featurize (dynamic shape); left unfused", {})
    assert got == [refused, expected, refused]
    assert got[0].fuse is False


def test_a_surviving_producer_is_charged_in_a_batch():
    from costfuse.cost_models.analytical import candidate_features, producer_survives

    m = LearnedEdges.load()
    with candidate(multi_use(2, 0)) as cand:  # the producer is read by both consumers: it survives
        assert producer_survives(cand)
        fs = candidate_features(cand, m.tile_policy)
        preds = m.predict_rows([m._row(f) for f in fs])
        assert m.decide_batch([cand]) == [m._decide(fs, preds, True)]
    assert m._decide(fs, preds, True) != m._decide(fs, preds, False)


# --- learned.LearnedEdges._decide ----------------------------------------------------------------

@pytest.fixture(scope="module")
def chain_features() -> tuple[dict, dict, dict]:
    """Features of (fused, producer, consumer) of a two-op elementwise chain."""
    with candidate(chain_module(2)) as cand:
        return tuple(kernel_features(op) for op in (cand.fused, cand.producer, cand.consumer))


INSIDE = KernelPrediction(0.0, False, 0.0, math.nan, True)


def test_decide_rounds_p_spill_to_four_places(chain_features):
    pf = KernelPrediction(0.123456, False, 0.0, math.nan, True)
    assert LearnedEdges.load()._decide(chain_features, [pf, INSIDE, INSIDE], False).estimates["p_spill"] == 0.1235


@pytest.mark.parametrize("who", ["producer", "consumer"])
def test_out_of_range_names_the_kernel_and_charges_a_surviving_producer(chain_features, who):
    outside = KernelPrediction(0.0, False, 0.0, math.nan, False, "numel=1e+09 not in [1, 2]")
    preds = [INSIDE, outside, INSIDE] if who == "producer" else [INSIDE, INSIDE, outside]
    survives, stays = (Analytical().decide_features(*chain_features, s) for s in (True, False))
    assert survives.reason != stays.reason  # the surviving producer's time counts after the fusion
    d = LearnedEdges.load()._decide(chain_features, preds, True)
    assert d.reason.startswith(f"outside training range ({who} numel=1e+09 not in [1, 2]): "
                               f"analytical: {survives.reason}, est. spill")


NO_LATENCY = "[analytical time + learned spill penalty (no latency head)]"


def test_decide_without_a_latency_head_charges_the_learned_spill_traffic():
    # test_analytical._f(): 8 MiB / 4.8 TB/s + 1 us launch = 2.7476 us; each spilled byte per thread moves
    # 1024 CTAs x 128 threads = 131072 B more: 100 B make the fused kernel 2.7476 + 2.7307 = 5.4783 us,
    # against 2 x 2.7476 = 5.4953 us for the parts.
    m, fs = LearnedEdges.load(), (_f(), _f(), _f())
    pf = KernelPrediction(0.9, True, 100.0, math.nan, True)
    est = {"p_spill": 0.9, "spill_pred_bytes": 100.0, "spill_added_bytes": 100.0, "t_fused_us": 5.4783,
           "t_parts_us": 5.4953}
    assert m._decide(fs, [pf, INSIDE, INSIDE], False) == Decision(
        False, f"spill +100 B > budget 0 B (P(spill)=0.90); t 5.48 us <= 1 x 5.5 us {NO_LATENCY}", est)
    m.spill_budget, m.margin = 128.0, 0.25
    assert m._decide(fs, [pf, INSIDE, INSIDE], False) == Decision(
        False, f"t 5.48 us > 0.75 x 5.5 us, spill +100 B <= budget 128 B (P(spill)=0.90) {NO_LATENCY}", est)
    m.margin = 0.0
    assert m._decide(fs, [pf, INSIDE, INSIDE], False).fuse


def _timed(us: float, spill_bytes: float = 0.0) -> KernelPrediction:
    return KernelPrediction(0.0, spill_bytes > 0, spill_bytes, us, True)


def test_decide_with_a_latency_head_reports_microseconds(monkeypatch):
    m = LearnedEdges.load()
    monkeypatch.setattr(LearnedEdges, "has_latency", True)
    # 99.94999 and 99.949992 us sit just below the edges of 4 decimals (99.95) and 3 digits (99.9):
    # a time scaled by anything but 1e6 rounds or prints otherwise.
    d = m._decide((_f(), _f(), _f()), [_timed(99.94999), _timed(49.974996), _timed(49.974996)], False)
    assert d == Decision(True, "t 99.9 us <= 1 x 99.9 us, spill +0 B <= budget 0 B (P(spill)=0.00) [latency head]",
                         {"p_spill": 0.0, "spill_pred_bytes": 0.0, "spill_added_bytes": 0.0, "t_fused_us": 99.95,
                          "t_parts_us": 99.95})


def test_decide_a_surviving_producer_keeps_its_time_and_its_spills(monkeypatch):
    m = LearnedEdges.load()
    monkeypatch.setattr(LearnedEdges, "has_latency", True)
    preds = [_timed(3.0), _timed(2.0, spill_bytes=50.0), _timed(2.0)]
    d = m._decide((_f(), _f(), _f()), preds, True)  # after: 3 + 2 us; the producer's 50 B still spill
    assert d.reason == "t 5 us > 1 x 4 us, spill +0 B <= budget 0 B (P(spill)=0.00) [latency head]" and not d.fuse
    assert d.estimates["spill_added_bytes"] == 0.0
    d = m._decide((_f(), _f(), _f()), preds, False)  # after: 3 us; the producer's spills go with it
    assert d.reason == "t 3 us <= 1 x 4 us, spill -50 B <= budget 0 B (P(spill)=0.00) [latency head]" and d.fuse
    assert d.estimates["spill_added_bytes"] == -50.0


def test_out_of_range_compares_the_liveness_spill_estimates_with_the_budget():
    # liveness estimates, 8 B per word past the 255-register cap: fused 8 x 145 = 1160 B, producer
    # 8 x 45 = 360 B, consumer 0 B
    m, fs = LearnedEdges.load(), (_f(live_regs_est=400), _f(live_regs_est=300), _f())
    preds = [KernelPrediction(0.0, False, 0.0, math.nan, False, "numel=1e+09 not in [1, 2]"), INSIDE, INSIDE]
    d = m._decide(fs, preds, False)
    assert d.reason.endswith(", est. spill +800 B > budget 0 B") and d.estimates["spill_added_bytes"] == 800.0
    assert not d.fuse
    m.spill_budget = 2000.0
    d = m._decide(fs, preds, True)  # a surviving producer's spills are not saved
    a = Analytical().decide_features(*fs, True)
    assert not a.fuse  # the fused kernel's own spill traffic makes it slower than the parts
    assert d == Decision(False, f"outside training range (fused numel=1e+09 not in [1, 2]): analytical: {a.reason}, "
                                "est. spill +1160 B <= budget 2000 B",
                         {**a.estimates, "spill_added_bytes": 1160.0, "in_range": 0})


# --- learned_groups.LearnedGroups.heads / best_config ----------------------------------------------

GROUP_CUT = 0.125  # the recall-first decision_threshold the fake group model records


@pytest.fixture
def group_loads(monkeypatch):
    """``(loads, set_arch)``: ``learned_groups.load_group_heads`` answering the shipped group model with its
    spill head's ``decision_threshold`` set to :data:`GROUP_CUT` and its ``arch`` to ``set_arch(arch)``
    (default sm_90); ``loads`` records each call's model argument."""
    shipped = learned_groups.load_group_heads()
    heads_meta = {**shipped.metadata["heads"],
                  "spill": {**shipped.metadata["heads"]["spill"], "decision_threshold": GROUP_CUT}}
    loads, arch = [], ["sm_90"]

    def load(model=""):
        loads.append(model)
        return Bundle({**shipped.metadata, "heads": heads_meta, "arch": arch[0]}, shipped.heads)

    monkeypatch.setattr(learned_groups, "load_group_heads", load)
    return loads, lambda a: arch.__setitem__(0, a)


def test_group_heads_load_once_from_the_group_model(group_loads):
    loads, _ = group_loads
    m = LearnedGroups(group_model="my/groups")
    heads = m.heads
    assert isinstance(heads, learned_groups.GroupHeads) and heads.bundle.metadata["arch"] == "sm_90"
    assert m.heads is heads and loads == ["my/groups"]
    recall = LearnedGroups(spill_cut="recall").heads  # the cut the policy decides at is the option's
    assert (recall.spill_cut, recall.threshold) == ("recall", GROUP_CUT)


@pytest.mark.parametrize("group_model, named", [("", "costfuse/models/groups"), ("my/groups", "my/groups")])
def test_group_heads_of_another_arch_are_refused(group_loads, group_model, named):
    _, set_arch = group_loads
    set_arch("sm_80")
    meta = learned_groups.load_group_heads().metadata
    versions = f"triton {meta['triton_version']}, ptxas {meta['ptxas_version']}"
    with pytest.raises(ValueError) as err:
        LearnedGroups(group_model=group_model).heads  # noqa: B018
    assert str(err.value) == (f"group model {named}: trained on sm_80 labels ({versions}), but the target is sm_90; "
                              "pass --allow-arch-mismatch to use it anyway")
    assert LearnedGroups(group_model=group_model, allow_arch_mismatch=True).heads.bundle.metadata["arch"] == "sm_80"


def test_best_config_asks_learned_groups_with_the_models_own_settings(group_loads, monkeypatch):
    m = LearnedGroups(spill_budget=16.0)
    calls = []
    monkeypatch.setattr(learned_groups, "best_config", lambda *args: calls.append(args) or "the estimate")
    shape = object()
    assert m.best_config(shape) == "the estimate"
    assert len(calls) == 1
    heads, got_shape, target, budget, fallback = calls[0]
    assert heads is m.heads and got_shape is shape and target is m._target
    assert budget == 16.0 and fallback is m.fallback and isinstance(m.fallback, Analytical)


# --- forest: XGBoost's semantics on trees written by hand -------------------------------------

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


# --- bundle.Head.booster ----------------------------------------------------------------------

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
    assert str(err.value) == f"{head.where}: {NEEDS_XGBOOST}"


# --- bundle.arch_problem / Head.predict -------------------------------------------------------

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
    from costfuse.cost_models import bundle as bundle_mod

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


# --- bundle.read_json / check_schema / load_bundle / is_uri ------------------------------------

def test_read_json_says_what_is_wrong_with_the_file(tmp_path):
    with pytest.raises(BundleError) as err:
        read_json(tmp_path)
    assert str(err.value) == f"{tmp_path}: cannot read it (Is a directory)"
    with pytest.raises(BundleError) as err:
        read_json(tmp_path / "none.json")
    assert str(err.value) == f"{tmp_path / 'none.json'}: no such file"
    (tmp_path / "cut.json").write_text('{"learner": ')
    with pytest.raises(BundleError) as err:
        read_json(tmp_path / "cut.json")
    assert str(err.value) == (f"{tmp_path / 'cut.json'}: not valid JSON, truncated or corrupt? "
                              "(Expecting value: line 1 column 13 (char 12))")


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
        f"m: trained on feature schema v1, but this featurize computes v2; {retrain}")
    assert _schema_error({**v1_metadata, "feature_schema_version": 7}, None) == (
        f"m: trained on feature schema v7, but this featurize computes v1 or v2; {retrain}")
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


def test_check_schema_wants_a_decision_threshold_to_be_a_number(v1_metadata):
    spill = v1_metadata["heads"]["spill"]
    check_schema({**v1_metadata, "heads": {"spill": {**spill, "decision_threshold": 0.1}}}, "m", 1)
    assert _schema_error({**v1_metadata, "heads": {"spill": {**spill, "decision_threshold": "high"}}}) == (
        "m: head 'spill' has a decision_threshold that is not a number")


def test_load_bundle_names_the_file_or_folder_at_fault(bundle_dir, tmp_path):
    with pytest.raises(BundleError) as err:
        load_bundle(tmp_path / "none")
    assert str(err.value) == f"{tmp_path / 'none'}: no such model folder"
    meta = json.loads((bundle_dir / "metadata.json").read_text())
    with pytest.raises(BundleError) as err:  # metadata given: the folder
        load_bundle(bundle_dir, metadata={**meta, "format": None})
    assert str(err.value) == f"{bundle_dir}: not a CostFuse model (format None, expected {FORMAT})"
    other = Path(shutil.copytree(bundle_dir, tmp_path / "other"))
    (other / "metadata.json").write_text(json.dumps({**meta, "format": None}))
    with pytest.raises(BundleError) as err:  # read from the folder: its metadata.json
        load_bundle(other)
    assert str(err.value) == f"{other / 'metadata.json'}: not a CostFuse model (format None, expected {FORMAT})"


def test_load_bundle_keeps_to_the_schema_asked_for():
    from costfuse.featurize.group_features import GROUP_FEATURE_SCHEMA_VERSION

    groups = learned_mod.SHIPPED_MODEL_DIR / "groups"
    assert load_bundle(groups, schema=GROUP_FEATURE_SCHEMA_VERSION).metadata["feature_schema_version"] == 2
    with pytest.raises(BundleError, match="trained on feature schema v2, but this featurize computes v1"):
        load_bundle(groups)


def test_load_bundle_heads_know_their_name_and_file(bundle_dir):
    head = load_bundle(bundle_dir).heads["spill_bytes"]
    assert (head.name, head.where) == ("spill_bytes", str(bundle_dir / "spill_bytes.json"))


def test_load_bundle_says_why_a_head_is_not_an_xgboost_model(bundle_dir, tmp_path):
    broken = Path(shutil.copytree(bundle_dir, tmp_path / "broken"))
    (broken / "spill.json").write_text("{}")
    with pytest.raises(BundleError) as err:
        load_bundle(broken)
    assert str(err.value) == f"{broken / 'spill.json'}: not an XGBoost JSON model (KeyError: 'learner')"


@pytest.mark.parametrize("text, uri", [
    ("models:/costfuse-spill@champion", True), ("runs:/0123/model", True), ("s3://bucket/model", True),
    ("file:///abs/model", True), ("/abs/model", False), ("models/costfuse", False), ("runs", False),
])
def test_is_uri(text, uri):
    assert is_uri(text) is uri

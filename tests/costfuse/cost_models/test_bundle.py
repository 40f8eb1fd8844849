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
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from costfuse.featurize.features import FEATURE_COLUMNS

from costfuse.cli import opt_main
from costfuse.cost_models import registry
from costfuse.cost_models.bundle import Bundle, BundleError, load_bundle
from costfuse.cost_models.learned import SHIPPED_MODEL_DIR, LearnedEdges
from helpers.analytical_modules import chain_module
from helpers.bundles import make_bundle

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
    assert "# learned groups:" in p.stderr and "learned: fastest config predicted spill-free" in p.stderr
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

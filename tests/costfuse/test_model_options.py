"""``--model`` and ``--group-model`` take the same kinds of source and name a wrong one for what it is
(issue #27, item 5): a folder or ``models:/NAME@ALIAS``; a file is refused; the other seam's bundle is
sent to its own option, not called a feature-schema mismatch to retrain."""

from __future__ import annotations

from pathlib import Path

import pytest

from costfuse.cli import opt_main
from costfuse.cost_models import registry
from costfuse.cost_models.bundle import load_bundle

REPO = Path(__file__).parents[2]
EXAMPLE = REPO / "examples" / "softmax_gelu.mlir"
EDGES, GROUPS = REPO / "costfuse" / "models", REPO / "costfuse" / "models" / "groups"


def _error(capsys, *args) -> str:
    assert opt_main([str(EXAMPLE), "-o", "/dev/null", *args]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_group_model_refuses_a_file_as_model_does(capsys):
    err = _error(capsys, "--group-model", str(GROUPS / "spill.json"))
    assert f"{GROUPS / 'spill.json'}: a file; --group-model takes a model folder" in err
    assert f"e.g. --group-model {GROUPS})" in err


def test_the_group_heads_given_to_model_are_named_for_what_they_are(capsys):
    err = _error(capsys, "--fusion", "elementwise", "--model", str(GROUPS))
    assert f"{GROUPS}: holds kernel-group heads (feature schema v2), but --model takes v1's edge heads (v1); " \
           "pass it as --group-model, with --fusion groups" in err
    assert "retrain" not in err


def test_the_edge_heads_given_to_group_model_are_named_for_what_they_are(capsys):
    err = _error(capsys, "--group-model", str(EDGES))
    assert f"{EDGES}: holds v1's edge heads (feature schema v1), but --group-model takes kernel-group heads (v2, v3, v4 or v5); " \
           "pass it as --model, with --fusion elementwise" in err


def _fake_registry(monkeypatch, bundle: Path, prefix: str) -> list[str]:
    """``registry.load_uri`` answering ``models:/<prefix><head>@ALIAS`` with that head of ``bundle`` (the
    registry is faked, as in test_bundle.py: a real store costs a migration); the URIs asked, in order."""
    asked = []

    def fake_load_uri(uri, tracking_uri="", heads=None):
        asked.append(uri)
        name = uri.split("/")[-1].split("@")[0].removeprefix(prefix).replace("-", "_")
        loaded = load_bundle(bundle, (name,), schema=None)
        if not loaded.heads:
            raise registry.NotRegistered(f"{uri}: not registered")
        return loaded

    monkeypatch.setattr(registry, "load_uri", fake_load_uri)
    return asked


def test_group_model_takes_a_registry_uri_and_gathers_the_group_heads_at_its_alias(monkeypatch, capsys):
    """``models:/costfuse-group-spill@champion`` loads the heads registered as ``costfuse-group-*`` at that
    alias."""
    asked = _fake_registry(monkeypatch, GROUPS, "costfuse-group-")
    assert opt_main([str(EXAMPLE), "-o", "/dev/null", "--explain", "--group-model",
                     "models:/costfuse-group-spill@champion", "--tracking-uri", "sqlite:////x.db"]) == 0
    assert "# learned groups: " in capsys.readouterr().err
    assert asked == ["models:/costfuse-group-spill@champion", "models:/costfuse-group-spill-bytes@champion",
                     "models:/costfuse-group-regs@champion"]


def test_a_v1_registry_uri_still_asks_for_v1_names(monkeypatch):
    asked = _fake_registry(monkeypatch, EDGES, "costfuse-")
    assert opt_main([str(EXAMPLE), "-o", "/dev/null", "--fusion", "elementwise", "--model",
                     "models:/costfuse-spill@champion", "--tracking-uri", "sqlite:////x.db"]) == 0
    assert asked == ["models:/costfuse-spill@champion", "models:/costfuse-spill-bytes@champion",
                     "models:/costfuse-latency@champion"]


@pytest.mark.parametrize("uri", ["models:/costfuse-group-spill@champion"])
def test_a_group_uri_without_a_store_is_one_line(uri, monkeypatch, capsys):
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    err = _error(capsys, "--group-model", uri)
    assert "a registry URI needs an MLflow tracking store; pass --tracking-uri URI" in err

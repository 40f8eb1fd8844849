"""The ``learned`` cost model: loading, the DESIGN §4 rule, the analytical fallback, caching, the CLI.

The model under test is the shipped one (``costfuse/models/``) when it exists,
else a tiny one trained here in a few seconds on the fused groups of a few
random programs, with labels from a documented rule (spill bytes = 8 x the
live-word estimate beyond the register cap): the tests check the machinery,
not accuracy (``experiments/compare_cost_models.py`` measures that against
ptxas).  The latency-head and registry tests always use the tiny model.
"""

from __future__ import annotations

import json
import random
import shutil

import numpy as np
import pandas as pd
import pytest

from costfuse.cli import opt_main
from costfuse.cost_models import MODELS, Analytical, Learned
from costfuse.cost_models import learned as learned_mod
from costfuse.cost_models.analytical import kernel_features
from costfuse.cost_models.learned import SHIPPED_MODEL_DIR, KernelPrediction
from costfuse.fusion_pass import FusionPass
from costfuse.ir import parse_module
from tests.test_analytical import candidate, chain_module, pressure_into_reduction_module

SHIPPED = (SHIPPED_MODEL_DIR / "metadata.json").is_file()


def _tiny_table():
    """Features of every fused group of 3 programs per family at 3 configs, with rule-made labels."""
    from costfuse.targets import get_target
    from costfuse.data.families import FAMILIES, generate
    from costfuse.data.groups import enumerate_groups, fuse_group
    from costfuse.data.launch_config import LaunchConfig, heuristic_config
    from costfuse.featurize.features import FEATURE_COLUMNS, analyze_generic, combine
    from costfuse.train.dataset import TrainingTable

    from costfuse.ir import new_context

    target, rng, ctx = get_target("sm_90"), random.Random(0), new_context()  # one context: 10x faster parses
    X, rows = [], []
    for family in FAMILIES:
        for seed in range(3):
            prog = generate(family, seed)
            for group in enumerate_groups(parse_module(prog.text, context=ctx), 6, seed):
                module = parse_module(prog.text, context=ctx)
                op = fuse_group(module, group)
                with module.context:
                    static = analyze_generic(op)
                s = static.values
                base = heuristic_config(int(s["xnumel"]), int(s["rnumel"]))
                for x, w in ((1, 1), (4, 1), (8, 2)):
                    try:
                        cfg = LaunchConfig(base.XBLOCK * x, base.RBLOCK, max(1, base.num_warps // w))
                    except ValueError:
                        continue
                    f = combine(static, cfg)
                    spill = int(8 * max(0.0, f["live_regs_est"] - target.reg_cap(cfg.num_warps)) * rng.uniform(0.9, 1.1))
                    X.append([f[c] for c in FEATURE_COLUMNS])
                    rows.append(dict(kernel_id=f"{prog.program_id}-{group.label}-{cfg.short()}",
                                     program_id=prog.program_id, family=family, group=group.label,
                                     group_size=len(group.members), arch="sm_90",
                                     regs=min(255, 30 + f["live_regs_est"]), spill_store_bytes=spill // 2,
                                     spill_load_bytes=spill - spill // 2,
                                     latency_us=2.0 + f["bytes_total"] / 3e6 * rng.uniform(0.9, 1.1)))
    return TrainingTable(pd.DataFrame(X, columns=list(FEATURE_COLUMNS)), pd.DataFrame(rows), "tiny", "tests/tiny")


@pytest.fixture(scope="session")
def tiny(tmp_path_factory):
    """``(TrainResult, bundle dir with a latency head, bundle dir without one)``."""
    from costfuse.train import model_io
    from costfuse.train.fit import XGBParams
    from costfuse.train.pipeline import run

    result = run(_tiny_table(), "all", XGBParams(n_estimators=30, max_depth=4, learning_rate=0.3, n_jobs=1),
                 holdout=False, baselines=False, log=lambda m: None)
    root = tmp_path_factory.mktemp("tiny_model")
    with_latency = model_io.export(result, root / "with_latency", "tests/test_learned.py")
    no_latency = root / "no_latency"
    shutil.copytree(with_latency, no_latency)
    meta = json.loads((no_latency / "metadata.json").read_text())
    del meta["heads"]["latency"]
    (no_latency / "metadata.json").write_text(json.dumps(meta))
    (no_latency / "latency.json").unlink()
    return result, with_latency, no_latency


@pytest.fixture(scope="session")
def model_path(tiny) -> str:
    """The shipped model ("" = default) if there is one, else the tiny compile-labels-only bundle."""
    return "" if SHIPPED else str(tiny[2])


@pytest.fixture(scope="session")
def model(model_path) -> Learned:
    return Learned(model=model_path)


def test_registered_with_its_options():
    assert MODELS["learned"] is Learned
    fields = {f for f in Learned.__dataclass_fields__ if Learned.__dataclass_fields__[f].init}
    assert fields == {"model", "tracking_uri", "arch", "margin", "spill_budget", "tile_policy"}


def test_fast_predict_matches_model_io(model):
    from costfuse.train.model_io import predict

    rng = np.random.default_rng(0)
    lo, hi = model._lo, model._hi
    X = lo + (hi - lo) * rng.random((16, len(lo)))
    ours, ref = model._predict(X), predict(model.boosters, model.metadata, X)
    assert set(ours) == set(ref)
    for k in ours:
        np.testing.assert_allclose(ours[k], ref[k], rtol=1e-5, atol=1e-6)


def test_numpy_forest_equals_xgboost_on_both_batch_paths(model, tiny):
    """The NumPy trees the pass predicts with (small batches) give XGBoost's own numbers."""
    from costfuse.cost_models.forest import flatten

    rng = np.random.default_rng(1)
    lo, hi = model._lo, model._hi
    X = lo + (hi - lo) * rng.random((200, len(lo)))
    X[:, 0] = np.round(X[:, 0])  # whole counts land exactly on split values, as real features do
    X[0, 3] = np.nan             # a missing value follows each split's default direction
    for booster in [*model.boosters.values(), *Learned(model=str(tiny[1])).boosters.values()]:
        forest = flatten(booster)
        assert forest is not None
        np.testing.assert_allclose(forest.predict(X), booster.inplace_predict(X), rtol=1e-5, atol=1e-5)
    small, large = model._predict(X[:3]), model._predict(X)  # forest path, inplace_predict path
    for k in small:
        np.testing.assert_allclose(small[k], large[k][:3], rtol=1e-5, atol=1e-5)


def test_forest_refuses_models_it_cannot_evaluate():
    import xgboost as xgb

    from costfuse.cost_models.forest import flatten

    X, y = np.arange(40.0).reshape(20, 2), np.arange(20) % 3
    booster = xgb.train({"objective": "multi:softprob", "num_class": 3}, xgb.DMatrix(X, y), 2)
    assert flatten(booster) is None


def test_pass_analyzes_each_op_once_per_run(model_path, monkeypatch):
    """The per-run memo: one IR analysis per distinct op, and the same decisions as without it."""
    from dataclasses import replace

    import costfuse.featurize.features as features
    from costfuse.cost_models import Always
    from costfuse.data.families import generate

    calls = []
    real = features.analyze_generic
    monkeypatch.setattr(features, "analyze_generic", lambda op: calls.append(1) or real(op))
    text = generate("tree", 2).text
    m = Learned(model=model_path)
    decisions = FusionPass(m).run(parse_module(text))
    legal = [d for d in decisions if d.legal]
    distinct = {d.producer for d in legal} | {d.consumer for d in legal} | {f"{d.producer}+{d.consumer}" for d in legal}
    assert len(legal) >= 3 and len(calls) == len(distinct) < 3 * len(legal)

    class NoMemo(Always):
        def decide(self, c):
            return m.decide(replace(c, memo=None))

    m._cache.clear()
    calls.clear()
    assert FusionPass(NoMemo()).run(parse_module(text)) == decisions and len(calls) == 3 * len(legal)


def test_pass_explains_predicted_spills_and_time(model):
    from costfuse.data.families import generate

    seen_learned = False
    for family in ("chain", "tree", "norm"):
        decisions = FusionPass(model).run(parse_module(generate(family, 0).text))
        for d in (d for d in decisions if d.legal):
            assert {"t_fused_us", "t_parts_us"} <= set(d.estimates)
            if "in_range" in d.estimates:
                assert d.reason.startswith("outside training range") and "analytical:" in d.reason
            else:
                seen_learned = True
                assert {"p_spill", "spill_pred_bytes", "spill_added_bytes"} <= set(d.estimates)
                assert "budget" in d.reason
                assert ("[latency head]" if model.has_latency else "(no latency head)") in d.reason
    assert seen_learned


def test_refuses_a_fusion_that_spills(model):
    """Ptxas spills 188 B on this fused kernel and nothing on its parts (checked when writing the test)."""
    with candidate(pressure_into_reduction_module()) as cand:
        d = model.decide(cand)
        assert not d.fuse and "spill" in d.reason


def test_out_of_training_range_falls_back_to_analytical(model):
    with candidate(chain_module(2, shape=(1 << 16, 1 << 14))) as cand:  # 2^30 elements: beyond every dataset
        d = model.decide(cand)
        a = Analytical().decide(cand)
        assert d.reason.startswith("outside training range (fused numel=") and d.estimates["in_range"] == 0
        assert d.fuse == a.fuse and a.reason in d.reason and "est. spill +0 B <= budget" in d.reason
    with candidate(pressure_into_reduction_module(rows=1 << 16)) as cand:  # fused: 336 live words > 255
        d = model.decide(cand)
        assert "outside training range" in d.reason and d.estimates["spill_added_bytes"] == 8 * (336 - 255)
        assert not d.fuse


def test_batched_decisions_equal_single_ones_and_are_cached(model_path, monkeypatch):
    m = Learned(model=model_path)
    calls = []
    real = m._predict
    monkeypatch.setattr(m, "_predict", lambda X: calls.append(len(X)) or real(X))
    with candidate(chain_module(2)) as c1, candidate(pressure_into_reduction_module()) as c2:
        batch = m.decide_batch([c1, c2])
        assert len(calls) == 1 and calls[0] <= 6  # one predict call for both candidates' 6 kernels
        assert [m.decide(c1), m.decide(c2)] == batch
        assert len(calls) == 1  # served from the cache


def test_rule_spill_budget_and_parts_that_already_spill(model):
    with candidate(chain_module(2)) as cand:
        fs = tuple(kernel_features(op) for op in (cand.fused, cand.producer, cand.consumer))

    def pred(b):
        return KernelPrediction(0.9 if b else 0.0, b > 0, float(b), float("nan"), True)

    m = Learned(model=model.model)
    assert not m._decide(fs, [pred(100), pred(0), pred(0)], False).fuse
    assert m._decide(fs, [pred(100), pred(0), pred(100)], False).fuse  # the consumer spilled as much already
    m.spill_budget = 128
    d = m._decide(fs, [pred(100), pred(0), pred(0)], False)
    assert d.fuse and d.estimates["spill_added_bytes"] == 100 and "<= budget 128 B" in d.reason
    m.margin = 0.99  # the fused kernel must be 100x faster than its parts: never
    assert not m._decide(fs, [pred(0), pred(0), pred(0)], False).fuse


def test_latency_head_is_used_when_present(tiny):
    m = Learned(model=str(tiny[1]))
    assert m.has_latency
    with candidate(chain_module(2)) as cand:
        fs = tuple(kernel_features(op) for op in (cand.fused, cand.producer, cand.consumer))
    preds = [KernelPrediction(0.0, False, 0.0, lat, True) for lat in (3.0, 2.0, 2.0)]
    d = m._decide(fs, preds, False)
    assert d.fuse and d.reason.endswith("[latency head]") and d.estimates["t_fused_us"] == 3.0
    assert not m._decide(fs, [KernelPrediction(0.0, False, 0.0, lat, True) for lat in (5.0, 2.0, 2.0)], False).fuse


def test_cli_explain_and_errors(model_path, tmp_path, capsys, monkeypatch):
    src = tmp_path / "chain.mlir"
    src.write_text(chain_module(3))
    args = [str(src), "--cost-model", "learned", "--explain", "-o", str(tmp_path / "out.mlir")]
    assert opt_main(args + (["--model", model_path] if model_path else [])) == 0
    err = capsys.readouterr().err
    assert "p_spill=" in err or "in_range=0" in err
    assert "t_fused_us=" in err and "# learned:" in err
    assert opt_main(args + ["--model", str(tmp_path / "nope")]) == 1
    assert "cannot load model" in capsys.readouterr().err
    monkeypatch.setattr(learned_mod, "SHIPPED_MODEL_DIR", tmp_path / "empty")
    assert opt_main(args) == 1
    assert "no shipped model" in capsys.readouterr().err
    assert opt_main(args + ["--model", model_path or str(SHIPPED_MODEL_DIR), "--spill-budget", "-1"]) == 1


def test_schema_mismatch_is_refused(tiny, tmp_path):
    bad = tmp_path / "bad"
    shutil.copytree(tiny[2], bad)
    meta = json.loads((bad / "metadata.json").read_text())
    meta["feature_schema_version"] = -1
    (bad / "metadata.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="feature schema"):
        Learned(model=str(bad))


@pytest.mark.slow  # MLflow logging and registering takes ~20 s here
def test_registry_alias_loads_every_head(tiny, tmp_path, monkeypatch):
    """``models:/costfuse-spill@champion`` brings the spill-bytes and latency heads of the same run."""
    from costfuse.train.tracking import log_run

    monkeypatch.chdir(tmp_path)
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    log_run(tiny[0], tracking_uri=uri, command="test", alias="champion")
    m = Learned(model="models:/costfuse-spill@champion", tracking_uri=uri)
    assert set(m.boosters) == {"spill", "spill_bytes", "latency"}
    local = Learned(model=str(tiny[1]))
    with candidate(chain_module(2)) as c1, candidate(pressure_into_reduction_module()) as c2:
        assert m.decide_batch([c1, c2]) == local.decide_batch([c1, c2])
    with pytest.raises(ValueError, match="cannot load model"):
        Learned(model="models:/costfuse-nothing@champion", tracking_uri=uri)

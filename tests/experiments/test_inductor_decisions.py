"""experiments/inductor_decisions.py: the handler's decision configs on a stored Inductor kernel (no compile here)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import experiments.inductor_decisions as idec
from costfuse.cost_models.group_time import score_configs
from costfuse.data.store import read_shard, shards
from costfuse.featurize.inductor_kernel import kernel_from_dict
from costfuse.inductor.decide import Decider

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def reductions():
    """``(kernel, its mode)`` of the reduction kernels with a description in the first shards of
    ``data/sm90_inductor_v1``."""
    out = []
    for shard in shards(REPO / "data" / "sm90_inductor_v1")[:8]:
        rows = read_shard(shard, 3).to_pandas()
        rows = rows[(rows.status == "ok") & rows.kernel_desc.notna() & rows.heuristic.isin(idec.REDUCTIONS)]
        out += [(kernel_from_dict(json.loads(r.kernel_desc)), "persistent" if r.persistent else "looped")
                for r in rows.drop_duplicates("source_hash").itertuples()]
    assert out
    return out


def test_the_pick_comes_first_then_the_faster_configs_the_heads_turned_down(reductions):
    decider = Decider("", "sm_90", "recall")
    seen_rejections = False
    for kernel, mode in reductions:
        got = idec.decision_configs(decider, kernel, mode, top=3)
        if got is None:
            continue
        launches, predicted, is_pick = got
        assert is_pick == [True] + [False] * (len(launches) - 1)
        assert launches[0] == decider.pick(kernel, mode)[0].launch and not predicted[0]
        # turned down for a predicted spill, or (predicted spill-free) for its spill risk: the expected time
        assert all(c.mode == mode for c in launches) and len(launches) <= 4
        t = score_configs(kernel, launches, decider.target, predicted_spill=np.zeros(len(launches))).time_s
        assert (t[1:] < t[0]).all()                 # each turned-down config is ranked faster than the pick
        seen_rejections |= len(launches) > 1
    assert seen_rejections, "no kernel here had a faster config the heads turned down: the test shows nothing"


def test_a_model_trained_on_other_data_is_refused_not_scored(tmp_path):
    """Scoring on a grown dataset would split it afresh and test programs the heads were trained on."""
    meta = json.loads((idec.SHIPPED / "metadata.json").read_text())
    idec.require_trained_data(meta)                       # the shipped heads match the shipped data
    with pytest.raises(SystemExit, match="changed since the model was trained"):
        idec.require_trained_data({**meta, "dataset_hash": "0" * 16 + "+" + meta["dataset_hash"].split("+", 1)[1]})


def test_prune_is_scored_on_inductors_candidates_of_the_decided_kernels_with_their_ptxas_labels(monkeypatch):
    """prune_scores: only the default and max-autotune candidates (not the forced lists, not the sampled
    configs), of kernels the handler decides in their own mode; each cut drops what P(spill) >= its
    threshold; the truth is the dataset's spill bytes."""
    from costfuse.data.store import read_dataset

    rows = read_dataset(REPO / "data" / "sm90_inductor_v1", 3)
    rows = rows[(rows.status == "ok") & rows.kernel_desc.notna() & rows.heuristic.isin(idec.REDUCTIONS)]
    rows = rows[rows.source_hash.isin(rows.source_hash.drop_duplicates().head(40))]
    sources = rows.config_source.fillna("").str.split(",")
    candidates = rows[sources.map(lambda s: bool(set(s) & {"inductor", "max_autotune"}))]
    assert 0 < len(candidates) < len(rows)
    scored, kernels = idec.prune_scores(idec.SHIPPED, rows)
    f1, recall = scored
    assert (f1.cut, recall.cut) == ("f1", "recall") and f1.p_cut > recall.p_cut
    assert 0 < kernels <= candidates.source_hash.nunique() and len(f1.truth) <= len(candidates)
    assert (f1.dropped <= recall.dropped).all()   # a lower cut drops every config a higher one drops
    # the section names the cut prune uses and judges both goals per cut
    monkeypatch.setattr(idec, "prune_scores", lambda model, rows: (scored, kernels))
    text = "\n".join(idec.prune_section(idec.SHIPPED, rows))
    from costfuse.inductor.decide import PRUNE_SPILL_CUT

    assert f"`prune` drops at the `{PRUNE_SPILL_CUT}` cut" in text and text.count("| f1 |") == 1
    decider = Decider("", "sm_90", "recall")
    decided = [g for _, g in candidates.groupby("source_hash")
               if decider.pick(kernel_from_dict(json.loads(g.kernel_desc.iloc[0])),
                               "persistent" if g.persistent.iloc[0] else "looped")[0] is not None]
    assert len(decided) == kernels and len(f1.truth) == sum(map(len, decided))
    assert int(f1.truth.sum()) == sum(int(((g.spill_store_bytes + g.spill_load_bytes) > 0).sum()) for g in decided)

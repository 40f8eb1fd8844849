"""experiments/decision_warmth.py: the parts of a decision, timed inside and after Inductor's codegen."""

from __future__ import annotations

import pytest

import costfuse.inductor.choices as choices
import experiments.decision_warmth as dw


def _row(decision, describe, fresh_in, warm_in, fresh_after=1.0, warm_after=1.0):
    return {"block": "b", "decision": decision, "describe": describe, "fresh in codegen": fresh_in,
            "warm in codegen": warm_in, "fresh after codegen": fresh_after, "warm after codegen": warm_after}


def test_summary_parts_a_decision_by_medians():
    rows = [_row(0.004, 0.001, 0.002, 0.001), _row(0.006, 0.002, 0.001, 0.0005), _row(0.010, 0.001, 0.004, 0.002)]
    s = dw.summary(rows)
    assert s["decision"] == pytest.approx(6.0) and s["describe"] == pytest.approx(1.0)
    assert s["checks + first pick"] == pytest.approx(4.0)   # 3, 4, 9 ms
    assert s["cold penalty"] == pytest.approx(3.0)           # 1, 3, 5 ms
    assert s["per-kernel work"] == pytest.approx(1.0)        # 1, 0.5, 2 ms


def test_markdown_states_the_ratios():
    rows = [_row(0.004, 0.001, 0.002, 0.001, fresh_after=0.001, warm_after=0.0005)]
    text = dw.markdown(rows, "python experiments/decision_warmth.py", (0.5, 0.6))
    assert "| decision | 4.000 |" in text and "| cold penalty (decision - describe - fresh in codegen) | 1.000 |" in text
    assert "costs 2.00 times inside codegen what it costs after it, and a warm one 2.00 times" in text
    assert "the decision costs 4.00 times a fresh pick after codegen" in text
    assert "0.50 ms before the blocks and 0.60 ms after" in text


def test_run_times_every_decided_kernel_and_restores_the_description():
    original = choices.describe_features
    rows = dw.run("log_softmax_bf16", 1)
    assert choices.describe_features is original
    assert rows and {r["block"] for r in rows} == {"log_softmax_bf16"}
    for r in rows:
        assert set(dw.PARTS) <= set(r) and all(r[p] > 0 for p in dw.PARTS)
        assert r["describe"] < r["decision"]   # the description is part of the decision

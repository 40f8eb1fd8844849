"""experiments/looped_passes.py: passes and row reads per softmax-like and layer-norm workload kernel (issue #26
part 3)."""

from pathlib import Path

import experiments.looped_passes as lp

WORKLOADS = Path(__file__).resolve().parents[2] / "experiments" / "workloads"


def test_softmax_and_cross_entropy_read_the_row_twice_and_the_pass_agrees_with_the_lowering():
    rows = lp.kernels(WORKLOADS / "softmax_f32.mlir") + lp.kernels(WORKLOADS / "cross_entropy_fwd_32k_f32.mlir")
    online = [r for r in rows if r["online"]]
    assert len(online) == 2
    for r in online:
        assert (r["passes"], r["loops"], r["row_reads"]) == (2, 2, 2)
        assert (r["passes_before"], r["row_reads_before"]) == (3, 3)
        assert r["issued"] == r["lowered"] < r["issued_before"] == r["lowered_before"]
    assert all(r["space_agree"] == r["space"] > 0 for r in rows)


def test_report_states_the_command_and_the_totals():
    rows = lp.kernels(WORKLOADS / "softmax_f32.mlir")
    text = lp.report(rows, ["--report", "-"])
    assert "Command: `python experiments/looped_passes.py --report -`" in text
    assert "1 looped row kernels; 1 with an online sum, 0 with a Welford sum. Most row reads: 2 (without " \
           "folding: 3)." in text


def test_an_f32_layer_norm_reads_its_row_twice_with_its_variance_a_welford_sum():
    (r,) = lp.kernels(WORKLOADS / "layernorm_fwd_f32.mlir")
    assert (r["online"], r["welford"], r["passes"], r["loops"], r["row_reads"]) == (0, 1, 2, 2, 2)
    assert (r["passes_before"], r["row_reads_before"]) == (3, 3)
    assert r["issued"] == r["lowered"] < r["issued_before"] == r["lowered_before"]
    assert r["space_agree"] == r["space"] > 0

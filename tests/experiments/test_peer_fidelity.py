"""experiments/peer_fidelity.py: the ``inductor`` peer's candidate lists beside Inductor's own (issue #26).

Inductor's side is a per-kernel record as ``inductor_report.py`` writes it; the peer's is run here on the
real ``softmax_f32`` workload graph (one looped row kernel, 4096 x 8192).
"""

from __future__ import annotations

import json
from pathlib import Path

from experiments import peer_fidelity

WORKLOADS = Path(__file__).parents[2] / "experiments" / "workloads"


def _config(persistent, xblock, rblock, warps):
    return {"config": {"persistent": persistent, "xblock": xblock, "rblock": rblock, "num_warps": warps}}


def _row(kernel, xnumel, rnumel, configs, fallback=None, block="softmax_f32"):
    return {"block": block, "kernel": kernel, "xnumel": xnumel, "rnumel": rnumel,
            "inductor": [_config(*c) for c in configs], "fallback": fallback}


def test_inductors_configs_are_spelled_as_the_peers_launches():
    assert peer_fidelity.inductor_list([_config(False, 1, 8192, 16), _config(True, 4, 512, 4),
                                        _config(False, 1024, 1, 4)]) == [
        "looped x1 r8192 w16", "persistent x4 r512 w4", "pointwise x1024 r1 w4"]


def test_each_inductor_kernel_gets_a_verdict_against_the_peers_kernels_of_its_shape(tmp_path):
    """Inductor's softmax list (the whole-row candidate, then the contiguous one) is the peer's; a list in
    another order differs; a split reduction is not modelled; a shape the peer never forms is named so;
    a block with no workload graph is left out."""
    rows = [_row("same", 4096, 8192, [(False, 1, 8192, 16), (False, 1, 2048, 16)]),
            _row("reordered", 4096, 8192, [(False, 1, 2048, 16), (False, 1, 8192, 16)]),
            _row("split", 4096, 8192, [(False, 1, 2048, 16)], fallback="split reduction"),
            _row("other_shape", 2048, 8192, [(False, 1, 8192, 16)]),
            _row("elsewhere", 4096, 8192, [(False, 1, 8192, 16)], block="no_such_block")]
    kernels = tmp_path / "kernels.jsonl"
    kernels.write_text("".join(json.dumps(r) + "\n" for r in rows))
    got = {r["kernel"]: r for r in peer_fidelity.compare(kernels, WORKLOADS)}
    assert {k: r["verdict"] for k, r in got.items()} == {
        "same": "same", "reordered": "differs", "split": "split reduction",
        "other_shape": "no peer kernel of that shape"}
    assert got["reordered"]["peer"] == [["looped x1 r8192 w16", "looped x1 r2048 w16"]]
    report = peer_fidelity.render(list(got.values()), "python experiments/peer_fidelity.py")
    assert "Kernels: differs 1, no peer kernel of that shape 1, same 1, split reduction 1 (of 4)." in report
    assert "| softmax_f32 | reordered | 4096 x 8192 | looped x1 r2048 w16, looped x1 r8192 w16 | " \
           "looped x1 r8192 w16, looped x1 r2048 w16 | **differs** |" in report


def test_a_missing_kernel_file_is_one_line(tmp_path, capsys):
    assert peer_fidelity.main(["--kernels", str(tmp_path / "none.jsonl"), "--report", "-"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "none.jsonl: no such file" in err

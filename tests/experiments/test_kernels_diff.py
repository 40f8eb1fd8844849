"""experiments/kernels_diff.py: two inductor_report runs' kernels compared (torch 2.13 against 2.11)."""

from __future__ import annotations

import json

from experiments.kernels_diff import compare, kernels, main


def _config(persistent, xblock, rblock, warps):
    return {"persistent": persistent, "xblock": xblock, "rblock": rblock, "num_warps": warps}


def _kernel(block, name, pick, regs, spill=0, candidates=((False, 1, 2048, 16),), cand_regs=40):
    return {"block": block, "kernel": name, "inductor": [{"config": _config(*c), "regs": cand_regs, "spill_bytes": 0}
                                                        for c in candidates],
            "inductor_max_autotune": [], "costfuse": None if pick is None else
            {"config": _config(*pick), "regs": regs, "spill_bytes": spill}}


def _write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records + [{"block": "failed", "error": "x"}]))
    return str(path)


def test_picks_lists_and_labels_that_moved_are_each_counted(tmp_path, capsys):
    a = [_kernel("softmax", "k0", (True, 1, 8192, 8), 48), _kernel("softmax", "k1", None, 0),
         _kernel("ce", "k2", (True, 1, 2048, 16), 30), _kernel("gone", "k3", None, 0)]
    b = [_kernel("softmax", "k0", (True, 1, 8192, 8), 56),   # same pick, the source moved its registers
         _kernel("softmax", "k1", None, 0, candidates=((False, 1, 1024, 8),)),   # Inductor's list moved
         _kernel("ce", "k2", (True, 1, 4096, 16), 30, spill=8)]   # another pick, which spills
    out = compare(kernels(_write(tmp_path / "a.jsonl", a)), kernels(_write(tmp_path / "b.jsonl", b)))
    assert [k[1] for k in out["both"]] == ["k2", "k0", "k1"] and out["only_a"] == [("gone", "k3")]
    assert out["picks"] == [("ce", "k2")] and out["decided"] == 2 and out["spilling_picks"] == [0, 1]
    assert out["lists"] == {"inductor": [("softmax", "k1")], "inductor_max_autotune": []}
    assert [(k[1], where, x, y) for k, where, _, x, y in out["labels"]] == [("k0", "pick", (48, 0), (56, 0))]
    assert main([str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"), "--report", "-"]) == 0
    text = capsys.readouterr().out
    assert "picks that differ: 1 (ce `k2`)" in text and "| softmax | `k0` | persistent x1 r8192 w8 | pick | 48, 0 | 56, 0 |" in text

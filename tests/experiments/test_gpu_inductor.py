"""``experiments/gpu_inductor.sh``, issue #25's one device command, checked on the CPU (--dry-run).

A GPU session has one short call, so the script must run end to end the first time: it builds every
chosen block, installs and removes the handler in both modes, and writes its rows and report with
every latency "not measured".  The report's ratios are checked on made-up rows (a formatting check,
not a figure).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from experiments import gpu_inductor

REPO = Path(__file__).resolve().parents[2]


def test_the_device_script_dry_runs_on_a_cpu(tmp_path):
    out = tmp_path / "out"
    env = {**os.environ, "PYTHON": sys.executable}
    done = subprocess.run(["bash", "experiments/gpu_inductor.sh", str(out), "--dry-run"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [json.loads(line) for line in (out / "inductor_gpu.jsonl").read_text().splitlines()]
    assert {r["variant"] for r in rows} == set(gpu_inductor.VARIANTS)
    assert not [r for r in rows if "error" in r] and all(r["ms"] is None for r in rows)
    assert all(r["handler"].startswith(f"costfuse-{r['variant']}-") for r in rows if r["variant"] in ("pin", "prune"))
    assert rows[0]["block"].startswith(("softmax", "rmsnorm", "layernorm", "log_softmax", "cross_entropy"))
    report = (out / "inductor_gpu.md").read_text()
    assert "not measured" in report and "dry run" in report and "x |" not in report


def test_the_report_states_ratios_against_the_default():
    rows = [{"block": "softmax_bf16", "variant": v, "ms": ms} for v, ms in
            (("default", 2.0), ("max-autotune", 1.9), ("pin", 1.0), ("prune", 2.1))]
    text = gpu_inductor.markdown(rows, "cmd", False)
    assert "| 2.00x | 0.95x |" in text
    assert "`pin`: >= 1.2x on the long-row norm, softmax and cross-entropy blocks: 1 of 1" in text
    assert "worst 0.952x (**not met**)" in text


def test_a_run_resumes_from_the_blocks_measured_before_and_remeasures_a_partial_one(tmp_path):
    gpu = {"gpu": "NVIDIA H100 80GB HBM3", "torch": "2.11.0+cu130", "date": "2026-12-09"}
    prior = [{"block": "log_softmax_bf16", "variant": v, "ms": ms, "ok": True, **gpu} for v, ms in
             (("default", 2.0), ("max-autotune", 1.9), ("pin", 1.0), ("prune", 2.1))]
    prior += [{"block": "log_softmax_f32", "variant": "default", "ms": 3.0, "ok": True, **gpu}]   # cut short
    prior += [{"block": "rmsnorm_fwd_bf16", "variant": v, "ms": None, "ok": None, "gpu": "none"}   # a dry run
              for v in gpu_inductor.VARIANTS]
    (tmp_path / "prior.jsonl").write_text("".join(json.dumps(r) + "\n" for r in prior) + '{"block": "torn')
    out = tmp_path / "out"
    assert gpu_inductor.main([str(out), "--dry-run", "--only", "log_softmax_bf16,log_softmax_f32",
                              "--prior", str(tmp_path / "prior.jsonl")]) == 0
    rows = [json.loads(line) for line in (out / "inductor_gpu.jsonl").read_text().splitlines()]
    assert rows[:4] == prior[:4]   # the measured block is kept and not run again
    assert [(r["block"], r["variant"], r["gpu"]) for r in rows[4:]] == [("log_softmax_f32", v, "none")
                                                                       for v in gpu_inductor.VARIANTS]
    report = (out / "inductor_gpu.md").read_text()
    assert "| log_softmax_bf16 | 2.0000 | 1.9000 | 1.0000 | 2.1000 | 2.00x | 0.95x | NVIDIA H100 80GB HBM3, torch 2.11.0+cu130, 2026-12-09 |" in report
    assert "| log_softmax_f32 | not measured |" in report and "rmsnorm_fwd_bf16" not in report
    # a second run finds the same measured block in its own rows, and nothing else to skip
    assert gpu_inductor.main([str(out), "--dry-run", "--only", "log_softmax_bf16"]) == 0
    assert [json.loads(line) for line in (out / "inductor_gpu.jsonl").read_text().splitlines()] == prior[:4]

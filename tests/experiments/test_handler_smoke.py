"""experiments/handler_smoke.py: the handler pins both blocks' reductions without xgboost, iree, mlflow or
scikit-learn imported (a fresh process: the suite's own imports must not count)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_smoke_check_pins_both_blocks_and_imports_none_of_the_absent_packages():
    run = subprocess.run([sys.executable, "experiments/handler_smoke.py"], cwd=REPO, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr[-2000:]
    lines = run.stdout.splitlines()
    assert lines[0].startswith("AttentionCausal 1x32x2048x2048: {'pin': 1}") and "pinned 1 of 1" in lines[0]
    assert lines[1].startswith("RMSNormBackward 4096x16384:") and "pinned 1 of 2" in lines[1]
    assert lines[2].endswith("imported of xgboost, iree, mlflow, sklearn: none")

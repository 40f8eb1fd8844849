"""The v1 dataset job run from its command line, as the job and Ray tests both drive it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ARGS = ["--families", "act,reduce", "--programs", "4", "--seed", "7", "--max-groups", "3",
        "--sample-configs", "2", "--jobs", "2", "--batch-programs", "1"]


LABELS = ["kernel_id", "program_id", "group", "xblock", "rblock", "num_warps", "status", "regs",
          "spill_store_bytes", "spill_load_bytes", "stack_bytes"]


def generate(out: Path, cache: Path, extra=(), wait=True):
    """``costfuse-data generate`` on a small spec (:data:`ARGS` plus ``extra``) into ``out``, with its compile
    cache in ``cache``: its output once it exits 0, or the running process (``wait=False``) for a kill."""
    env = {**os.environ, "COSTFUSE_CACHE_DIR": str(cache)}
    cmd = [sys.executable, "-m", "costfuse.data.cli", "generate", "--out", str(out), *ARGS, *extra]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    if wait:
        out_text = proc.communicate(timeout=900)[0]
        assert proc.returncode == 0, out_text
        return out_text
    return proc

"""The dataset job from its command line: labels rows, resumes after a kill, same rows every time."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from costfuse.data.store import read_dataset

ARGS = ["--families", "act,reduce", "--programs", "4", "--seed", "7", "--max-groups", "3",
        "--sample-configs", "2", "--jobs", "2", "--batch-programs", "1"]
LABELS = ["kernel_id", "program_id", "group", "xblock", "rblock", "num_warps", "status", "regs",
          "spill_store_bytes", "spill_load_bytes", "stack_bytes"]


def generate(out: Path, cache: Path, extra=(), wait=True):
    env = {**os.environ, "COSTFUSE_CACHE_DIR": str(cache)}
    cmd = [sys.executable, "-m", "costfuse.data.cli", "generate", "--out", str(out), *ARGS, *extra]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    if wait:
        out_text = proc.communicate(timeout=900)[0]
        assert proc.returncode == 0, out_text
        return out_text
    return proc


def labels(directory: Path):
    df = read_dataset(directory)
    return df[LABELS].sort_values("kernel_id").reset_index(drop=True)


@pytest.fixture(scope="module")
def clean_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("clean")
    text = generate(root / "ds", root / "cache")
    return root / "ds", text


def test_generate_writes_labelled_rows(clean_run):
    directory, text = clean_run
    df = read_dataset(directory)
    assert set(df.program_id) == {"act-7", "reduce-8", "act-9", "reduce-10"}
    assert (df.status == "ok").all()
    assert df.regs.min() > 0
    assert set(df.config_source) == {"heuristic", "sampled"}
    assert df.kernel_id.is_unique
    assert (df.arch == "sm_90").all() and (df.triton_version == "3.6.0").all()
    assert df.ptxas_version.str.match(r"\d+\.\d+\.\d+").all()
    assert df.command.str.startswith("costfuse-data generate").all()
    assert "wrote" in text


def test_rerun_is_a_no_op(clean_run, tmp_path):
    directory, _ = clean_run
    before = sorted(p.name for p in directory.glob("*.parquet"))
    text = generate(directory, tmp_path / "cache")
    assert "4 of 4 programs already" in text
    assert sorted(p.name for p in directory.glob("*.parquet")) == before


def test_killed_run_resumes_with_no_duplicate_and_no_lost_row(clean_run, tmp_path):
    clean, _ = clean_run
    out = tmp_path / "ds"
    proc = generate(out, tmp_path / "cache", wait=False)
    deadline = time.time() + 600
    while not list(out.glob("*.parquet")) and time.time() < deadline:  # at least one shard landed
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = read_dataset(out)
    assert 0 < partial.program_id.nunique() <= 4
    generate(out, tmp_path / "cache")  # resume
    resumed = labels(out)
    assert resumed.kernel_id.is_unique
    assert resumed.equals(labels(clean))


def test_bad_family_is_one_line(tmp_path):
    r = subprocess.run([sys.executable, "-m", "costfuse.data.cli", "generate", "--out", str(tmp_path), "--families", "nope"],
                       capture_output=True, text=True)
    assert r.returncode != 0
    assert "unknown families ['nope']" in r.stderr
    assert "Traceback" not in r.stderr

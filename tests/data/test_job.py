"""The dataset job from its command line: labels rows, resumes after a kill, same rows every time."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from costfuse.data.store import read_dataset
from helpers.job import LABELS, generate


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


def test_shards_are_named_for_the_seeds_they_hold(clean_run):
    """Issue #27, bug 15: `shard-chain-1-*` also held reduce and tree rows; a name now says which seeds it holds."""
    import pyarrow.parquet as pq

    from costfuse.data.job import shard_name

    batch = [("chain", 12), ("tree", 13), ("reduce", 14)]
    assert shard_name(batch).startswith("shard-seeds-12-14-") and shard_name(batch) == shard_name(list(batch))
    assert shard_name(batch) != shard_name(batch[:2]) and not any(f in shard_name(batch) for f, _ in batch)
    directory, _ = clean_run
    for path in directory.glob("*.parquet"):
        low, high = map(int, path.name.split("-")[2:4])
        seeds = {int(p.rsplit("-", 1)[1]) for p in pq.read_table(path, columns=["program_id"]).column(0).to_pylist()}
        assert path.name.startswith("shard-seeds-") and low == min(seeds) and high == max(seeds), path.name


def test_rerun_is_a_no_op(clean_run, tmp_path):
    directory, _ = clean_run
    before = sorted(p.name for p in directory.glob("*.parquet"))
    text = generate(directory, tmp_path / "cache")
    assert "4 of 4 programs already" in text
    assert sorted(p.name for p in directory.glob("*.parquet")) == before


# Slow (a second labelled run, about 16 s on 2 idle cores and three times that on busy ones); the default
# suite keeps resuming without a duplicate or a lost row in process (test_a_kernel_shared_by_two_programs_is_
# stored_once here, test_run_local_writes_v2_shards_and_resumes in test_group_job.py) and a killed write
# leaving the old file whole (test_atomic.py).
@pytest.mark.slow
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


def test_program_list_has_no_repeated_content():
    """Seeds draw repeated programs; the job keeps the lowest index of each, for any range of seeds."""
    from costfuse.data.families import generate
    from costfuse.data.job import JobSpec

    spec = JobSpec(programs=1200, seed=0, command="test")
    kept = spec.program_list()
    hashes = [generate(f, s).content_hash for f, s in kept]
    assert len(set(hashes)) == len(hashes)
    assert len(kept) + len(spec.repeats()) == 1200
    shipped = JobSpec(programs=402, seed=0, command="test")  # data/sm90_v1's command
    assert shipped.repeats() == {"norm-183": "norm-159", "norm-225": "norm-213", "act-340": "act-322"}
    assert shipped.program_list() == kept[:399]  # a longer job extends a shorter one


def test_a_kernel_shared_by_two_programs_is_stored_once(tmp_path, monkeypatch):
    """The job stores a kernel under its first program only, in one run and across a resume."""
    import contextlib

    from helpers.rows import row

    from costfuse.data import job

    def label(batch, spec, pool, on_kernel=None):  # every program has the kernel "shared" and one of its own
        return [row(kernel_id=k, program_id=f"{f}-{s}", family=f, generator_seed=s)
                for f, s in batch for k in ("shared", f"own-{f}-{s}")]

    monkeypatch.setattr(job, "label_programs", label)
    monkeypatch.setattr(job, "CompilePool", lambda *a: contextlib.nullcontext())
    spec = job.JobSpec(families=("chain",), programs=2, seed=0, command="test")
    job.run_local(spec, tmp_path / "one", batch_programs=2, progress=False)
    job.run_local(spec, tmp_path / "two", batch_programs=1, progress=False)
    job.run_local(job.JobSpec(families=("chain",), programs=3, seed=0, command="test"), tmp_path / "two",
                  batch_programs=1, progress=False)  # resumed with one more program
    for directory, n in ((tmp_path / "one", 3), (tmp_path / "two", 4)):
        df = read_dataset(directory)
        assert df.kernel_id.is_unique and len(df) == n
        assert df.set_index("kernel_id").program_id["shared"] == "chain-0"

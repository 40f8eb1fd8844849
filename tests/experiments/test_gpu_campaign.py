"""``experiments/gpu_campaign.sh``, the one command a GPU session runs (issue #14), checked on the CPU.

A session has one or two device calls, so the script must be right the first
time: it parses, every path and option it names exists, its time limit fits
the call's timeout in docs/design.md, it resumes from the rows carried back
by an earlier call, skips what the time left cannot hold, and its steps run
end to end in dry-run mode (one program per dataset).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq

from costfuse.data import profile
from experiments import gpu_collect, gpu_run

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "experiments" / "gpu_campaign.sh"
TEXT = SCRIPT.read_text()
V1, V2 = REPO / "data" / "sm90_v1", REPO / "data" / "sm90_v2"


def campaign(out: Path, build: Path, *args: str, script: Path = SCRIPT, **env: str) -> subprocess.CompletedProcess:
    """The script with ``build`` as its carried rows and no committed rows (``build/rows``, empty) unless
    ``CAMPAIGN_ROWS`` says otherwise."""
    env = {**os.environ, "PYTHON": sys.executable, "CAMPAIGN_BUILD": str(build),
           "CAMPAIGN_ROWS": str(build / "rows"), **env}
    return subprocess.run(["bash", str(script), str(out), *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=300)


def options_of(command: str) -> set[str]:
    """The ``--options`` the script passes to ``"$PY" command`` (up to the next blank line, ``fi`` or ``done``)."""
    found = set()
    for m in re.finditer(r'"\$PY" ' + re.escape(command) + r"(.*?)(?=\n\s*\n|\nfi\b|\ndone\b)", TEXT, re.S):
        found |= set(re.findall(r"(--[a-z][a-z-]+)", m.group(1)))
    return found


def parser_options(add_arguments) -> set[str]:
    import argparse

    p = argparse.ArgumentParser()
    add_arguments(p)
    return {o for a in p._actions for o in a.option_strings}


def test_script_parses():
    subprocess.run(["bash", "-n", str(SCRIPT)], check=True)


def test_every_path_and_option_it_names_exists():
    for path in ("experiments/gpu_run.py", "data/profile.py", "data/sm90_v2", "data/sm90_v1"):
        assert path in TEXT and (REPO / path).exists(), path
    assert {"--out", "--jobs", "--budget-s", "--graph-rep-ms"} <= options_of("data/profile.py") \
        <= parser_options(profile.add_arguments) | {"--dry-run"}
    assert {"--check-shapes", "--out", "--budget-s"} <= options_of("experiments/gpu_run.py") \
        <= parser_options(gpu_run.add_arguments)


def test_its_time_limit_fits_the_documented_call():
    total = int(re.search(r"TOTAL_S=\$\{CAMPAIGN_TOTAL_S:-(\d+)\}", TEXT).group(1))
    design = (REPO / "docs" / "design.md").read_text()
    call = re.search(r'command="bash experiments/gpu_call.sh \$OUT", carry=\[(.*?)\], timeout_s=(\d+)', design)
    assert call, "docs/design.md §10 gives the run call"
    assert total + 15 <= int(call.group(2)) <= 600
    carried = set(re.findall(r'"(build/[a-z_0-9]+)"', call.group(1)))
    assert carried == {"build/gpu_workloads", "build/gpu_results", "build/latency_v2", "build/latency_v1"}
    for d in carried - {"build/gpu_workloads"}:
        assert f"$BUILD/{d.removeprefix('build/')}" in TEXT or d.removeprefix("build/") in TEXT


def test_with_no_time_left_it_skips_every_step_and_returns_the_carried_rows(tmp_path):
    first = profile.load_kernels(V1, programs=1)[:1]
    profile.write_rows(tmp_path / "build" / "latency_v1", "carried", [
        {"kernel_id": first[0]["kernel_id"], "program_id": first[0]["program_id"], "status": "ok",
         "latency_us": 3.0}])
    done = campaign(tmp_path / "out", tmp_path / "build", CAMPAIGN_TOTAL_S="20")
    assert done.returncode == 0, done.stderr
    for step in ("latency v2", "latency v1"):
        assert re.search(rf"== {step}: skipped, -?\d+ s left", done.stdout)
    assert "no " + str(tmp_path / "build" / "gpu_workloads" / "manifest.json") in done.stdout
    assert pq.read_table(tmp_path / "out" / "latency_v1" / "carried.parquet").column("latency_us").to_pylist() == [3.0]
    assert (tmp_path / "out" / "campaign.log").read_text() == done.stdout


def test_dry_run_runs_every_step_and_resumes(tmp_path):
    """One program per dataset; a row carried back for v2 is kept, its kernel not profiled again."""
    v2 = profile.load_kernels(V2, programs=1)
    carried = {"kernel_id": v2[0]["kernel_id"], "program_id": v2[0]["program_id"], "status": "ok", "latency_us": 5.0}
    profile.write_rows(tmp_path / "build" / "latency_v2", "carried", [carried])
    done = campaign(tmp_path / "out", tmp_path / "build", "--dry-run", CAMPAIGN_PROFILE_ARGS="--programs 1")
    assert done.returncode == 0, done.stderr
    assert re.findall(r"== (latency v\d): exit 0 at", done.stdout) == ["latency v2", "latency v1"]
    assert f"{len(v2) - 1} kernels to time (1 done)" in done.stdout
    lat = pq.read_table(sorted((tmp_path / "out" / "latency_v2").glob("*.parquet"))).to_pandas()
    assert sorted(lat.kernel_id) == sorted(k["kernel_id"] for k in v2)
    assert lat.set_index("kernel_id").status.to_dict() == {**{k["kernel_id"]: "dry-run" for k in v2},
                                                           carried["kernel_id"]: "ok"}
    v1 = pq.read_table(tmp_path / "out" / "latency_v1").to_pandas()
    assert len(set(v1.program_id)) == 1 and (v1.status == "dry-run").all()
    command = shlex.split(v1.command[0])
    assert command[command.index("--budget-s") + 1].isdigit() and "--jobs" in command


def test_it_resumes_from_the_committed_rows_too(tmp_path):
    """Rows filed in data/gpu_rows (experiments/gpu_collect.py) travel with the checkout: the next campaign
    starts from them without any carry."""
    first = profile.load_kernels(V2, programs=1)[:1]
    profile.write_rows(tmp_path / "rows" / "latency_v2", "committed", [
        {"kernel_id": first[0]["kernel_id"], "program_id": first[0]["program_id"], "status": "ok",
         "latency_us": 4.0}])
    done = campaign(tmp_path / "out", tmp_path / "build", CAMPAIGN_TOTAL_S="20", CAMPAIGN_ROWS=str(tmp_path / "rows"))
    assert done.returncode == 0, done.stderr
    assert f"resumed latency_v2 from {tmp_path / 'rows' / 'latency_v2'}" in done.stdout
    assert pq.read_table(tmp_path / "out" / "latency_v2" / "committed.parquet").column("latency_us").to_pylist() == [4.0]


def test_the_default_committed_rows_are_the_filed_ones():
    assert 'ROWS=${CAMPAIGN_ROWS:-data/gpu_rows}' in TEXT and gpu_collect.ROWS == REPO / "data" / "gpu_rows"


def test_a_lost_cuda_context_reruns_the_profile_step(tmp_path):
    """data/profile.py exits 3 when a kernel broke the CUDA context; the step runs again in a fresh process
    (here a stand-in python that exits 3 on its first profile call) while time is left, then moves on."""
    fake = tmp_path / "python"
    fake.write_text(f"""#!/usr/bin/env bash
if [ "$1" = data/profile.py ]; then
    n=$(cat {tmp_path}/calls 2>/dev/null || echo 0); echo $((n + 1)) > {tmp_path}/calls
    echo "profile call $((n + 1)): $2"
    [ "$n" = 0 ] && exit 3
    exit 0
fi
exec {sys.executable} "$@"
""")
    fake.chmod(0o755)
    done = campaign(tmp_path / "out", tmp_path / "build", PYTHON=str(fake), CAMPAIGN_TOTAL_S="200")
    assert done.returncode == 0, done.stderr
    assert re.findall(r"profile call (\d): (\S+)", done.stdout) == [
        ("1", "data/sm90_v2"), ("2", "data/sm90_v2"), ("3", "data/sm90_v1")]
    assert "== latency v2: CUDA context lost; resuming in a fresh process" in done.stdout


def test_the_device_call_packs_every_row_into_one_file(tmp_path):
    """The device tool returns at most 8 files, and a campaign writes a shard per batch: gpu_call.sh packs
    the campaign's folder into OUT/campaign.tgz beside OUT/campaign.log, which gpu_collect.py files."""
    v1 = profile.load_kernels(V1, programs=1)
    start = time.monotonic()
    done = campaign(tmp_path / "out", tmp_path / "build", "--dry-run", script=REPO / "experiments" / "gpu_call.sh",
                    CAMPAIGN_WORK=str(tmp_path / "work"), CAMPAIGN_PROFILE_ARGS="--programs 1 --kinds "
                    + v1[0]["family"])
    assert done.returncode == 0, done.stderr
    # the packer's 30-s nap ends with it: its sleep, orphaned, held the output pipe open until it woke
    assert time.monotonic() - start < 25
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["campaign.log", "campaign.tgz"]
    rows = tmp_path / "rows"
    filed = gpu_collect.collect(tmp_path / "out" / "campaign.tgz", rows)
    assert filed["latency_v1"] == len(v1) and filed["gpu_results"] == 0
    assert gpu_collect.collect(tmp_path / "out" / "campaign.tgz", rows) == {"latency_v2": 0, "latency_v1": 0,
                                                                          "gpu_results": 0, "dram": 0}   # once
    assert len(list((rows / "latency_v1").glob("*.parquet"))) == 1


def test_the_dram_check_is_filed_once_ncu_measured(tmp_path):
    """gpu_dram.sh's files are filed only when ncu counted something, and only once."""
    src, rows = tmp_path / "campaign" / "dram", tmp_path / "rows"
    src.mkdir(parents=True)
    (src / "launches.jsonl").write_text('{"kernel": "main_k0"}\n')
    (src / "ncu_status.txt").write_text("not measured: ncu not found\n")
    assert gpu_collect.collect(tmp_path / "campaign", rows)["dram"] == 0 and not (rows / "dram").exists()
    (src / "ncu.csv").write_text('"ID","Kernel Name","dram__bytes_read.sum","dram__bytes_write.sum"\n'
                                 '"","","byte","byte"\n"0","kernel","1,024","512"\n')
    assert gpu_collect.collect(tmp_path / "campaign", rows)["dram"] == 1
    assert sorted(p.name for p in (rows / "dram").iterdir()) == ["launches.jsonl", "ncu.csv", "ncu_status.txt"]
    assert gpu_collect.collect(tmp_path / "campaign", rows)["dram"] == 0

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
from pathlib import Path

import pyarrow.parquet as pq

from costfuse.data import profile
from experiments import gpu_run

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "experiments" / "gpu_campaign.sh"
TEXT = SCRIPT.read_text()
V1, V2 = REPO / "data" / "sm90_v1", REPO / "data" / "sm90_v2"


def campaign(out: Path, build: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHON": sys.executable, "CAMPAIGN_BUILD": str(build), **env}
    return subprocess.run(["bash", str(SCRIPT), str(out), *args], cwd=REPO, env=env, capture_output=True,
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
    call = re.search(r'command="bash experiments/gpu_campaign.sh \$OUT", carry=\[(.*?)\], timeout_s=(\d+)', design)
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

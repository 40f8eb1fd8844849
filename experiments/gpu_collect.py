"""``python experiments/gpu_collect.py FILES_AT/campaign.tgz``: file a device call's rows in the repo.

The GPU machine is lent for minutes, and only what is committed outlives the
session, so every row a call brings back (``experiments/gpu_call.sh`` packs
them into ``campaign.tgz``) is filed under ``data/gpu_rows/``, which the next
campaign resumes from (``gpu_campaign.sh`` copies it into its OUT first):

- ``latency_v2`` / ``latency_v1``: the profile rows (``data/profile.py``) of
  kernels not filed yet, as one new shard each (the campaign writes a shard
  per batch; hundreds of tiny files serve nobody);
- ``gpu_results``: each workload's file (``experiments/gpu_run.py``) not filed yet;
- ``dram``: the L2 model's check (``experiments/gpu_dram.sh``: the launch order, ncu's rows and its
  status), once ncu measured something and none is filed yet.

A row already filed is never replaced: a kernel or workload is measured once
per campaign, and re-measuring it means deleting its row first, on purpose.
Then ``costfuse-data merge-latency data/sm90_v2 --latency data/gpu_rows/latency_v2``
and ``python experiments/gpu_workloads.py report data/gpu_rows/gpu_results``
turn the rows into labels and the report (docs/design.md §10, "GPU latency").
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tarfile
import tempfile
from pathlib import Path

import pyarrow.parquet as pq

from costfuse.data import profile

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gpu_dram  # noqa: E402  (a sibling script, as gpu_workloads.py imports gpu_plan)

REPO = Path(__file__).resolve().parents[1]
ROWS = REPO / "data" / "gpu_rows"
LATENCY = ("latency_v2", "latency_v1")


def file_latency(src: Path, dest: Path) -> int:
    """New profile rows of ``src`` (a campaign's folder) as one shard in ``dest``; how many."""
    paths = sorted(src.glob("*.parquet"))
    if not paths:
        return 0
    done = profile.done_kernels(dest) if dest.is_dir() else set()
    rows, seen = [], set(done)
    for path in paths:
        for r in pq.read_table(path).to_pylist():
            if r["kernel_id"] not in seen:
                seen.add(r["kernel_id"])
                rows.append(r)
    if rows:
        rows.sort(key=lambda r: r["created_at"] or "")
        first = rows[0]
        day = (first["created_at"] or "undated")[:10]
        gpu = (first["gpu_name"] or "cpu").split()[-1].lower()
        profile.write_rows(dest, f"latency-{day}-{gpu}-{first['kernel_id'][:8]}-{len(rows)}", rows)
    return len(rows)


def file_results(src: Path, dest: Path) -> int:
    """Copy each workload's result file of ``src`` that ``dest`` lacks; how many."""
    dest.mkdir(parents=True, exist_ok=True)
    new = [p for p in sorted(src.glob("*.parquet")) if not (dest / p.name).exists()]
    for path in new:
        shutil.copy2(path, dest / path.name)
    return len(new)


def file_dram(src: Path, dest: Path) -> int:
    """The DRAM check's files of ``src`` into ``dest`` when ncu measured and ``dest`` has none; how many kernels."""
    if not (src / "ncu.csv").is_file() or (dest / "ncu.csv").is_file():
        return 0
    n = len(gpu_dram.ncu_rows(src / "ncu.csv"))
    if n:
        dest.mkdir(parents=True, exist_ok=True)
        for name in ("launches.jsonl", "ncu.csv", "ncu_status.txt"):
            if (src / name).is_file():
                shutil.copy2(src / name, dest / name)
    return n


def collect(campaign: Path, rows: Path = ROWS) -> dict[str, int]:
    """File the rows of ``campaign`` (a ``campaign.tgz`` or the folder it packs) under ``rows``."""
    with tempfile.TemporaryDirectory() as tmp:
        if campaign.is_file():
            with tarfile.open(campaign) as tar:
                tar.extractall(tmp, filter="data")
            campaign = Path(tmp)
        if not campaign.is_dir():
            raise FileNotFoundError(f"{campaign}: no campaign folder or campaign.tgz")
        filed = {d: file_latency(campaign / d, rows / d) for d in LATENCY}
        filed["gpu_results"] = file_results(campaign / "gpu_results", rows / "gpu_results")
        filed["dram"] = file_dram(campaign / "dram", rows / "dram")
    return filed


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python experiments/gpu_collect.py", description=__doc__.splitlines()[0])
    p.add_argument("campaign", type=Path, help="campaign.tgz from experiments/gpu_call.sh, or an unpacked campaign")
    p.add_argument("--rows", type=Path, default=ROWS, help=f"where rows are filed (default {ROWS})")
    args = p.parse_args(argv)
    try:
        filed = collect(args.campaign, args.rows)
    except (OSError, tarfile.TarError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(", ".join(f"{d}: {n} new" for d, n in filed.items()) + f" (filed under {args.rows})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

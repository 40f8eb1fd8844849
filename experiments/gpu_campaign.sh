#!/usr/bin/env bash
# Issue #14's device call, as ONE command on the GPU machine (docs/design.md §10, "GPU latency"):
#
#   bash experiments/gpu_campaign.sh OUT [--dry-run]
#
# Run from the repo root.  Step 1: the workloads (experiments/gpu_run.py on build/gpu_workloads, as §10
# says); step 1b: the L2 model's DRAM check under ncu (experiments/gpu_dram.sh; not in a dry run, and only
# until data/gpu_rows/dram holds an ncu.csv).  Step 2: latency labels (data/profile.py) of data/sm90_v2, then
# of data/sm90_v1 while time is left.
# Every step resumes: the rows committed in data/gpu_rows/{gpu_results,latency_v2,latency_v1} and the rows an
# earlier call of this session returned, carried as build/gpu_results, build/latency_v2 and build/latency_v1,
# are copied into OUT first, so OUT always holds every row so far and the finished parts are skipped.  Each
# step stops by itself (--budget-s) and is killed (timeout) by CAMPAIGN_TOTAL_S (default 540) seconds from
# the start, so a 560 s call timeout leaves margin; OUT/campaign.log has the log.
# --dry-run (CPU, no GPU figure): step 1 checks every plan's shapes on torch's meta device, step 2 profiles
# with --dry-run (no warm-up, no latency).  Environment, for tests: PYTHON (default python3), CAMPAIGN_BUILD
# (default build), CAMPAIGN_ROWS (default data/gpu_rows), CAMPAIGN_TOTAL_S, CAMPAIGN_PROFILE_ARGS (more options
# for every profile call).
set -u
OUT=${1:?usage: bash experiments/gpu_campaign.sh OUT [--dry-run]}
DRY=${2:-}
if [ -n "$DRY" ] && [ "$DRY" != --dry-run ]; then
    echo "usage: bash experiments/gpu_campaign.sh OUT [--dry-run]" >&2
    exit 2
fi
PY=${PYTHON:-python3}
BUILD=${CAMPAIGN_BUILD:-build}
TOTAL_S=${CAMPAIGN_TOTAL_S:-540}
EXTRA=${CAMPAIGN_PROFILE_ARGS:-}
ROWS=${CAMPAIGN_ROWS:-data/gpu_rows}
export PYTHONUNBUFFERED=1
start=$SECONDS
left() { echo $(( TOTAL_S - (SECONDS - start) )); }

mkdir -p "$OUT"
exec > >(tee -a "$OUT/campaign.log") 2>&1
TEE=$!
echo "== $(date -u +%FT%TZ) experiments/gpu_campaign.sh $* (total ${TOTAL_S} s)"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv 2>/dev/null \
    || echo "nvidia-smi: not found"

# Every row so far into OUT before anything runs, so OUT is complete even if a step never starts: the
# committed rows (data/gpu_rows, which travel with the checkout) and the rows carried from earlier calls.
for d in gpu_results latency_v2 latency_v1; do
    mkdir -p "$OUT/$d"
    for src in "$ROWS/$d" "$BUILD/$d"; do
        cp "$src"/*.parquet "$OUT/$d/" 2>/dev/null && echo "== resumed $d from $src: $(ls "$OUT/$d" | wc -l) shards"
    done
done

command -v timeout >/dev/null || timeout() { shift 2; "$@"; }   # no coreutils timeout: --budget-s alone

step() {   # NAME LIMIT_S COMMAND...: COMMAND, killed after LIMIT_S; skipped under 30 s; COMMAND's exit status
    local name=$1 limit=$2 rc
    shift 2
    if (( limit < 30 )); then echo "== $name: skipped, ${limit} s left"; return 0; fi
    echo "== $name at $((SECONDS - start)) s (limit ${limit} s): $*"
    timeout --kill-after=5 "$limit" "$@"
    rc=$?
    echo "== $name: exit $rc at $((SECONDS - start)) s"
    return $rc
}

# Step 1: every policy's kernels on the workloads, against torch.compile (at least 60 s left for step 2).
if [ ! -f "$BUILD/gpu_workloads/manifest.json" ]; then
    echo "== workloads: no $BUILD/gpu_workloads/manifest.json (make gpu-prepare, and carry it): skipped"
elif [ -n "$DRY" ]; then
    step workloads $(( $(left) - 60 )) "$PY" experiments/gpu_run.py "$BUILD/gpu_workloads" --check-shapes
else
    step workloads $(( $(left) - 60 )) "$PY" experiments/gpu_run.py "$BUILD/gpu_workloads" \
        --out "$OUT/gpu_results" --jobs 12 --warmup-ms 10 --rep-ms 50 --warm-timeout-s 240 --budget-s 420
fi

# Step 1b: the L2 model's check, each planned kernel once under ncu (experiments/gpu_dram.sh; short).
if [ -z "$DRY" ] && [ -f "$BUILD/gpu_workloads/manifest.json" ] && [ ! -f "$ROWS/dram/ncu.csv" ]; then
    export DRAM_TIMEOUT_S=150
    step dram $(( $(left) > 240 ? 160 : 0 )) bash experiments/gpu_dram.sh "$OUT/dram"
fi

# Step 2: latency labels, v2 (each group at all its compiled configs) first, then v1 whole programs.
# Exit 3: a kernel broke the CUDA context (its row says so); a fresh process resumes after it.
for v in v2 v1; do
    # shellcheck disable=SC2086  # DRY and EXTRA are option lists
    while step "latency $v" $(( $(left) - 5 )) "$PY" data/profile.py "data/sm90_$v" --out "$OUT/latency_$v" \
        --jobs 14 --warmup-ms 5 --rep-ms 25 --graph-rep-ms 5 --budget-s $(( $(left) - 25 )) $DRY $EXTRA
        [ $? -eq 3 ]; do
        echo "== latency $v: CUDA context lost; resuming in a fresh process"
    done
done

"$PY" - "$OUT" <<'EOF' || true
import sys
from pathlib import Path

import pyarrow.parquet as pq

for d in ("gpu_results", "latency_v2", "latency_v1"):
    paths = sorted((Path(sys.argv[1]) / d).glob("*.parquet"))
    status = [s for p in paths for s in pq.read_table(p, columns=["status"]).column("status").to_pylist()]
    print(f"== {d}: {len(status)} rows", {s: status.count(s) for s in sorted(set(status))})
EOF
echo "== done at $((SECONDS - start)) s"
exec >&- 2>&-
wait "$TEE"

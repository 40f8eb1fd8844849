#!/usr/bin/env bash
# The L2 model's device check (issue #26 part 2; experiments/gpu_dram.py says what it measures):
#
#   bash experiments/gpu_dram.sh OUT [--dry-run]
#
# Run from the repo root on the GPU machine, with build/gpu_workloads carried (make gpu-prepare).  Launches
# each prepared kernel of the learned, inductor and analytical plans once under Nsight Compute (caches flushed
# before each kernel) and writes OUT/launches.jsonl, OUT/ncu.csv and OUT/ncu_status.txt; on the CPU,
# `python experiments/gpu_dram.py report OUT` writes experiments/results/gpu_dram.md.  No ncu, or counters
# not permitted (ERR_NVGPUCTRPERM): the kernels still run once, and the status file says why nothing was
# measured.  --dry-run (CPU): interpret the kernels of a `prepare --small` folder, no ncu.
# Environment: PYTHON (default python3), CAMPAIGN_BUILD (default build), DRAM_ONLY (workload globs),
# DRAM_TIMEOUT_S (default 240).
set -u
OUT=${1:?usage: bash experiments/gpu_dram.sh OUT [--dry-run]}
DRY=${2:-}
PY=${PYTHON:-python3}
DIR=${CAMPAIGN_BUILD:-build}/gpu_workloads
LIMIT=${DRAM_TIMEOUT_S:-240}
mkdir -p "$OUT"
RUN=("$PY" experiments/gpu_dram.py run "$DIR" --out "$OUT" --only "${DRAM_ONLY:-}")
if [ -n "$DRY" ]; then
    echo "dry run: no ncu" > "$OUT/ncu_status.txt"
    exec "${RUN[@]}" --dry-run
fi
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
if [ -z "$NCU" ]; then
    echo "not measured: ncu not found on $(hostname)" | tee "$OUT/ncu_status.txt"
    exec "${RUN[@]}"
fi
echo "$("$NCU" --version | tail -1), $(date -u +%FT%TZ), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)" \
    > "$OUT/ncu_status.txt"
timeout --kill-after=5 "$LIMIT" "$NCU" --csv --page raw --print-units base --metrics dram__bytes_read.sum,dram__bytes_write.sum \
    --cache-control all --kernel-name kernel --target-processes all --log-file "$OUT/ncu.csv" "${RUN[@]}"
rc=$?
if grep -q "ERR_NVGPUCTRPERM" "$OUT/ncu.csv" 2>/dev/null; then
    echo "not measured: ncu may not read the GPU's counters here (ERR_NVGPUCTRPERM)" | tee -a "$OUT/ncu_status.txt"
fi
echo "ncu exit $rc" | tee -a "$OUT/ncu_status.txt"
exit $rc

#!/usr/bin/env bash
# Issue #25's device call, as ONE command on the GPU machine (docs/inductor.md, "On a GPU"):
#
#   bash experiments/gpu_inductor.sh OUT [--dry-run]
#
# Run from the repo root.  Times every workload block under torch.compile: Inductor's default, max-autotune,
# and CostFuse's handler in pin and prune (experiments/gpu_inductor.py; the goal's long-row blocks first).
# Rows are appended to OUT/inductor_gpu.jsonl as they are measured, OUT/inductor_gpu.md states the goals, and
# OUT/inductor_gpu.log has the log.  The Python step stops starting blocks after INDUCTOR_BUDGET_S (default
# 420) seconds and is killed at INDUCTOR_TOTAL_S (default 540), so a 560 s call timeout leaves margin.
# --dry-run (a CPU, no GPU figure): every block built on torch's meta device, the handler installed and
# removed in each mode, every latency "not measured".  PYTHON (default python3) chooses the interpreter.
# It resumes: blocks already measured on a GPU in data/gpu_rows/inductor_gpu.jsonl (committed rows) or
# build/inductor_gpu.jsonl (an earlier call's, carried) are skipped, and the report covers them too.
set -u
OUT=${1:?usage: bash experiments/gpu_inductor.sh OUT [--dry-run]}
DRY=${2:-}
if [ -n "$DRY" ] && [ "$DRY" != --dry-run ]; then
    echo "usage: bash experiments/gpu_inductor.sh OUT [--dry-run]" >&2
    exit 2
fi
PY=${PYTHON:-python3}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
{
    echo "== $(date -u +%FT%TZ) experiments/gpu_inductor.sh $*"
    nvidia-smi --query-gpu=name,driver_version --format=csv 2>/dev/null || echo "nvidia-smi: not found"
    "$PY" -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
    PRIOR=()
    for f in data/gpu_rows/inductor_gpu.jsonl build/inductor_gpu.jsonl; do
        [ -f "$f" ] && PRIOR+=(--prior "$f")
    done
    timeout --kill-after=5 "${INDUCTOR_TOTAL_S:-540}" "$PY" experiments/gpu_inductor.py "$OUT" \
        --budget-s "${INDUCTOR_BUDGET_S:-420}" "${PRIOR[@]}" $DRY
    echo "== exit $?"
} 2>&1 | grep -v '^DEBUG' | tee -a "$OUT/inductor_gpu.log"
test -s "$OUT/inductor_gpu.md"

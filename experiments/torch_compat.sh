#!/usr/bin/env bash
# The Inductor handler on another torch than the pinned one: by default 2.11.0, the GPU machine's
# (docs/inductor.md, "Torch versions"). On a CPU, no GPU needed:
#
#   bash experiments/torch_compat.sh [VERSION] [REPORT]
#
# Two virtual environments of its own, each with torch==VERSION from the package index (its CUDA build on
# Linux: a GPU-less machine runs it on CPU) and Triton at pyproject.toml's pin:
#   * VENV (default .venv-torchVERSION): every other dependency of pyproject.toml as `make install` takes
#     them, and this checkout installed.  It runs the handler's tests and the CPU harness's (Inductor's sm_90
#     kernels generated here, compiled by ptxas, run under the Triton interpreter): every test of
#     costfuse/inductor and data/inductor_*.  For the record, not the exit status, it also holds the
#     `inductor` peer's launch rules to this torch's own heuristics (test_peer_inductor_source.py; the peer
#     restates torch 2.13's).
#   * GPU_VENV (default .venv-torchVERSION-gpu, Python GPU_PYTHON, default a Python 3.12 where there is one):
#     only the GPU machine's packages (torch, Triton, NumPy, pandas, pyarrow; docs/design.md §10), CostFuse
#     not installed, as there.  It runs both device scripts' dry runs (experiments/gpu_inductor.sh and
#     experiments/gpu_campaign.sh) and experiments/handler_smoke.py, which makes the handler decide.
# REPORT (default experiments/results/torch_compat_VERSION.md) gets the versions, the commands and their
# outcomes.  Exit 0 only when all but the peer's check pass.  About 3 minutes with the wheels cached.
set -u
VERSION=${1:-2.11.0}
REPORT=${2:-experiments/results/torch_compat_${VERSION//./_}.md}
VENV=${VENV:-.venv-torch$VERSION}
GPU_VENV=${GPU_VENV:-.venv-torch$VERSION-gpu}
# The GPU machine's Python is 3.12: a python3.12 that runs, else pyenv's, else python3.
GPU_PYTHON=${GPU_PYTHON:-$(python3.12 -c 'import sys; print(sys.executable)' 2>/dev/null \
    || ls "$(pyenv root 2>/dev/null || echo /nonexistent)"/versions/3.12*/bin/python3.12 2>/dev/null | tail -1 \
    | grep . || command -v python3)}
TESTS="tests/costfuse/inductor tests/data/test_inductor_harness.py tests/data/test_inductor_numerics.py tests/data/test_inductor_job.py"
PEER=tests/costfuse/cost_models/test_peer_inductor_source.py
LOG=$(mktemp -d)

# pyproject.toml's dependencies, but torch at VERSION (the pins in it are this machine's, docs/design.md §5).
DEPS=$(python3 -c 'import tomllib; print("\n".join(d for d in tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"] if not d.startswith("torch")))')
TRITON=$(echo "$DEPS" | grep '^triton')
install() {   # install VENV PYTHON PACKAGES...
    local venv=$1 python=$2
    shift 2
    "$python" -m venv "$venv" && "$venv/bin/pip" install -q "torch==$VERSION" "$@" >> "$LOG/install.txt" 2>&1 \
        || { tail -20 "$LOG/install.txt"; exit 1; }
}
versions() { "$1/bin/python" -c "import sys, torch, triton; print(f'torch {torch.__version__}, triton {triton.__version__}, Python {sys.version.split()[0]}, CUDA available: {torch.cuda.is_available()}')"; }

install "$VENV" python3 $DEPS
"$VENV/bin/pip" install -q --no-deps -e . >> "$LOG/install.txt" 2>&1 || { tail -20 "$LOG/install.txt"; exit 1; }
install "$GPU_VENV" "$GPU_PYTHON" "$TRITON" numpy pandas pyarrow

"$VENV/bin/python" -m pytest -q -p no:cacheprovider -n 2 $TESTS > "$LOG/tests.txt" 2>&1
TESTS_RC=$?
"$VENV/bin/python" -m pytest -q -p no:cacheprovider $PEER > "$LOG/peer.txt" 2>&1
PEER_RC=$?
PYTHON="$GPU_VENV/bin/python" bash experiments/gpu_inductor.sh "$LOG/inductor" --dry-run > "$LOG/dry.txt" 2>&1
DRY_RC=$?
PYTHON="$GPU_VENV/bin/python" bash experiments/gpu_campaign.sh "$LOG/campaign" --dry-run > "$LOG/campaign.txt" 2>&1
CAMPAIGN_RC=$?
"$GPU_VENV/bin/python" experiments/handler_smoke.py 2>&1 | grep -v '^DEBUG' > "$LOG/smoke.txt"
SMOKE_RC=${PIPESTATUS[0]}

verdict() { [ "$1" = 0 ] && echo "passed" || echo "FAILED (exit $1)"; }
summary() { tail -1 "$1" | tr -d '=' | sed 's/^ *//; s/ *$//'; }
failures() { grep -E '^(FAILED|ERROR) ' "$1" | sed 's/ - .*//; s/^/- /'; }
{
    echo "# The Inductor handler on torch $VERSION (CPU, no GPU)"
    echo
    echo "Command: \`bash experiments/torch_compat.sh${*:+ $*}\`  "
    echo "Conditions: $(date -u +%F), $(uname -m), $(nproc) CPUs  "
    echo "Full environment ($VENV): $(versions "$VENV")  "
    echo "The GPU machine's packages ($GPU_VENV, GPU_PYTHON=$GPU_PYTHON): $(versions "$GPU_VENV"); $("$GPU_VENV/bin/pip" list 2>/dev/null | grep -ciE '^(xgboost|iree|mlflow|scikit-learn|costfuse) ') of xgboost, iree, mlflow, scikit-learn and costfuse installed"
    echo
    echo "| environment | check | command | outcome |"
    echo "|---|---|---|---|"
    echo "| full | the handler's and the CPU harness's tests | \`pytest -n 2 $TESTS\` | $(verdict $TESTS_RC): $(summary "$LOG/tests.txt") |"
    echo "| full | (for the record) the \`inductor\` peer's rules against this torch's heuristics | \`pytest $PEER\` | $(verdict $PEER_RC): $(summary "$LOG/peer.txt") |"
    echo "| GPU machine's packages | the Inductor device script, dry run | \`bash experiments/gpu_inductor.sh OUT --dry-run\` | $(verdict $DRY_RC): $(grep -c '"variant"' "$LOG/dry.txt") rows, handlers $(grep -o 'costfuse-[a-z]*-v[0-9]*-[0-9a-f]*' "$LOG/dry.txt" | sort -u | tr '\n' ' ')|"
    echo "| GPU machine's packages | the latency campaign, dry run | \`bash experiments/gpu_campaign.sh OUT --dry-run\` | $(verdict $CAMPAIGN_RC): $(grep '^== done' "$LOG/campaign.txt" | tail -1) |"
    echo "| GPU machine's packages | the handler decides on the faked sm_90 | \`python experiments/handler_smoke.py\` | $(verdict $SMOKE_RC): $(tr '\n' ' ' < "$LOG/smoke.txt" | sed 's/|/\\|/g') |"
    for f in tests peer; do
        if [ -n "$(failures "$LOG/$f.txt")" ]; then
            echo
            echo "Failures of \`$f\`:"
            echo
            failures "$LOG/$f.txt"
        fi
    done
} > "$REPORT"
cat "$REPORT"
[ "$TESTS_RC" = 0 ] && [ "$DRY_RC" = 0 ] && [ "$CAMPAIGN_RC" = 0 ] && [ "$SMOKE_RC" = 0 ]

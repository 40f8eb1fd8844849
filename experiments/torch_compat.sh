#!/usr/bin/env bash
# The Inductor handler on another torch than the pinned one: by default 2.11.0, the GPU machine's
# (docs/inductor.md, "Torch versions"). On a CPU, no GPU needed:
#
#   bash experiments/torch_compat.sh [VERSION] [REPORT]
#
# Makes a virtual environment of its own (VENV, default .venv-torchVERSION), with torch==VERSION from the
# package index (its CUDA build on Linux: a GPU-less machine runs it on CPU) and every other dependency of
# pyproject.toml as `make install` takes them, installs this checkout into it, and then runs:
#   * the handler's tests and the CPU harness's (Inductor's sm_90 kernels generated here, compiled by
#     ptxas, run under the Triton interpreter), i.e. every test of costfuse/inductor and data/inductor_*;
#   * `experiments/gpu_inductor.sh --dry-run`, the device script, which installs the handler in each mode;
#   * for the record, not the exit status: the `inductor` peer's launch rules held to this torch's own
#     heuristics (tests/costfuse/cost_models/test_peer_inductor_source.py; the peer restates torch 2.13's).
# REPORT (default experiments/results/torch_compat_VERSION.md) gets the versions, the commands and their
# outcomes.  Exit 0 only when the first two pass.  About 3 minutes with the wheels cached, most of it installing.
set -u
VERSION=${1:-2.11.0}
REPORT=${2:-experiments/results/torch_compat_${VERSION//./_}.md}
VENV=${VENV:-.venv-torch$VERSION}
TESTS="tests/costfuse/inductor tests/data/test_inductor_harness.py tests/data/test_inductor_numerics.py tests/data/test_inductor_job.py"
PEER=tests/costfuse/cost_models/test_peer_inductor_source.py
LOG=$(mktemp -d)

python3 -m venv "$VENV" || exit 1
# pyproject.toml's dependencies, but torch at VERSION (the pins in it are this machine's, docs/design.md §5).
DEPS=$(python3 -c 'import tomllib; print("\n".join(d for d in tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"] if not d.startswith("torch")))')
"$VENV/bin/pip" install -q "torch==$VERSION" $DEPS > "$LOG/install.txt" 2>&1 || { tail -20 "$LOG/install.txt"; exit 1; }
"$VENV/bin/pip" install -q --no-deps -e . >> "$LOG/install.txt" 2>&1 || { tail -20 "$LOG/install.txt"; exit 1; }
VERSIONS=$("$VENV/bin/python" -c "import sys, torch, triton; print(f'torch {torch.__version__}, triton {triton.__version__}, Python {sys.version.split()[0]}, CUDA available: {torch.cuda.is_available()}')")

"$VENV/bin/python" -m pytest -q -p no:cacheprovider -n 2 $TESTS > "$LOG/tests.txt" 2>&1
TESTS_RC=$?
"$VENV/bin/python" -m pytest -q -p no:cacheprovider $PEER > "$LOG/peer.txt" 2>&1
PEER_RC=$?
PYTHON="$VENV/bin/python" bash experiments/gpu_inductor.sh "$LOG/dry" --dry-run > "$LOG/dry.txt" 2>&1
DRY_RC=$?

verdict() { [ "$1" = 0 ] && echo "passed" || echo "FAILED (exit $1)"; }
summary() { tail -1 "$1" | tr -d '=' | sed 's/^ *//; s/ *$//'; }
failures() { grep -E '^(FAILED|ERROR) ' "$1" | sed 's/ - .*//; s/^/- /'; }
{
    echo "# The Inductor handler on torch $VERSION (CPU, no GPU)"
    echo
    echo "Command: \`bash experiments/torch_compat.sh${*:+ $*}\`  "
    echo "Conditions: $(date -u +%F), $(uname -m), $(nproc) CPUs; $VERSIONS"
    echo
    echo "| check | command | outcome |"
    echo "|---|---|---|"
    echo "| the handler's and the CPU harness's tests | \`pytest -n 2 $TESTS\` | $(verdict $TESTS_RC): $(summary "$LOG/tests.txt") |"
    echo "| the device script, dry run | \`bash experiments/gpu_inductor.sh OUT --dry-run\` | $(verdict $DRY_RC): $(grep -c '"variant"' "$LOG/dry.txt") rows, handlers $(grep -o 'costfuse-[a-z]*-v[0-9]*-[0-9a-f]*' "$LOG/dry.txt" | sort -u | tr '\n' ' ')|"
    echo "| (for the record) the \`inductor\` peer's rules against this torch's heuristics | \`pytest $PEER\` | $(verdict $PEER_RC): $(summary "$LOG/peer.txt") |"
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
[ "$TESTS_RC" = 0 ] && [ "$DRY_RC" = 0 ]

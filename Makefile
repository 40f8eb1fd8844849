# Two commands for a fresh machine: `make demo` and `make test` (see README).
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed

.PHONY: install demo test test-slow bench gpu-prepare clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	# torch==2.13.0 is pinned: its CPU build lies on disk; any other version downloads gigabytes.
	$(BIN)/pip install -q -e .
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	@echo "== the main job: the shipped learned model (costfuse/models/groups/) forms the kernel groups of an LLM-size RMSNorm backward and picks their configs =="
	$(BIN)/costfuse-opt experiments/workloads/rmsnorm_bwd_bf16.mlir --explain -o /dev/null   # the defaults: --fusion groups --cost-model learned
	@echo "== the same under the analytical model, and under Inductor's rules, for comparison =="
	$(BIN)/costfuse-opt experiments/workloads/rmsnorm_bwd_bf16.mlir --cost-model analytical --explain -o /dev/null
	$(BIN)/costfuse-opt experiments/workloads/rmsnorm_bwd_bf16.mlir --cost-model inductor --explain -o /dev/null
	@echo "== v1 elementwise fusion with the shipped learned model (costfuse/models/) =="
	$(BIN)/costfuse-opt examples/softmax_gelu.mlir --fusion elementwise --cost-model learned --explain -o /dev/null

# Two workers (pytest-xdist): the suite's tests share no state but the content-addressed, atomically
# written caches, and on the CI machine's two cores it takes about 5 min instead of about 9.
test: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 -m "not gpu and not slow"

test-slow: $(STAMP)
	$(BIN)/pip install -q -e ".[ray]"
	$(BIN)/python -m pytest -q -m "slow and not gpu"

bench: $(STAMP)
	$(BIN)/python experiments/bench_pass.py

# Issue #14, CPU side: plan every policy's kernels on every workload, then check every plan's shapes.
# Carry build/gpu_workloads to the GPU machine and run experiments/gpu_run.py there (docs/design.md §10).
gpu-prepare: $(STAMP)
	$(BIN)/python experiments/gpu_workloads.py prepare --out build/gpu_workloads
	$(BIN)/python experiments/gpu_run.py build/gpu_workloads --check-shapes

clean:
	rm -rf $(VENV) .pytest_cache

"""``--fusion groups`` on every workload (experiments/workloads/), at small sizes:

* the grouped module computes what the exported one does, through IREE;
* every outlined kernel lowers, and its Triton kernel agrees with IREE under
  the interpreter at the config the policy chose.

The LLM-size files only change the sizes (the same export command), which
the interpreter cannot run in a test; compare_groups.py compiles those.
One workload per group kind runs by default, the rest are marked slow.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from costfuse.data.lowering.kernel import lower_kernels
from costfuse.data.lowering.kernel_function import kernel_functions
from costfuse.data.verify_kernel import verify_kernel

from costfuse.cost_models import policy_class
from costfuse.group_pass import GroupFusionPass, run_group_pipeline
from costfuse.ir import parse_module, print_module, verify
from costfuse.reference import assert_same_semantics
from experiments.workloads import export as workloads

REPO = Path(__file__).resolve().parents[2]
# One workload per group kind in the default suite; every other one runs with -m slow.
DEFAULT = {"softmax_f32", "log_softmax_bf16", "layernorm_bwd_f32", "rmsnorm_bwd_bf16", "cross_entropy_bwd_32k_f32",
           "attention_softcap_f32", "adamw_f32", "swiglu_bf16", "add_rmsnorm_f32"}
CASES = [pytest.param(n, marks=() if n in DEFAULT else pytest.mark.slow) for n in sorted(workloads.BY_NAME)]


@pytest.fixture(scope="module")
def small_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("small_workloads")


def small_export(name: str, out: Path, monkeypatch) -> str:
    monkeypatch.chdir(REPO)   # the recorded command's paths are relative to the repo root
    path = out / f"{name}.mlir"
    if not path.exists():
        workloads.export(workloads.BY_NAME[name], out, workloads.SMALL)
    return path.read_text()


@pytest.mark.parametrize("name", CASES)
def test_grouped_workload_keeps_its_numbers_and_every_kernel_lowers(name, small_dir, monkeypatch):
    before = small_export(name, small_dir, monkeypatch)
    module = parse_module(before, name)
    run_group_pipeline(module, GroupFusionPass(policy_class("analytical", "groups")()))
    verify(module)
    after = print_module(module)
    assert_same_semantics(before, after, "main", seed=0)
    report = lower_kernels(module)
    assert not report.unsupported, report.summary()
    for fn in kernel_functions(module):
        verify_kernel(fn, seed=1)

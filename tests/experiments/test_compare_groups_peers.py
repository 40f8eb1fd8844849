"""compare_groups.py's peers (issue #26 part 4): inductor on ptxas labels with the range over its
surviving configs, xla and xla-triton as columns."""

import experiments.compare_groups as cg
from costfuse.graph import function_blocks
from costfuse.groups import form_groups
from costfuse.ir import parse_module
from helpers.generic_ops import _ID2, _op
from helpers.peer_kernels import FakePool
from helpers.peer_kernels import softmax


def test_every_peer_is_a_column():
    assert {"groups inductor", "groups xla", "groups xla-triton"} <= set(cg.POLICIES)
    assert cg.parse_policies("xla-triton") == ["groups xla-triton"]


def test_a_policy_without_decision_costs_reports_none():
    assert cg.model_costs(cg.make_model("analytical", None, "sm_90", "")) == {}


def test_inductor_sums_the_dram_range_of_its_kernels_survivors_from_ptxas_labels():
    model = cg.make_model("inductor", FakePool(), "sm_90", "")
    module = parse_module(softmax(4096, 8192))
    kernels, _ = form_groups(function_blocks(module)[0], model)
    costs = cg.model_costs(model)
    est = kernels[0].estimate
    assert est.labels == "ptxas labels"
    assert costs == {"survivor_dram_fewest": est.dram_fewest, "survivor_dram_most": est.dram_most,
                     "survivor_spills": int(est.survivor_spills)}
    assert 0 < costs["survivor_dram_fewest"] <= costs["survivor_dram_most"]


def test_a_kernel_run_at_one_config_adds_its_bytes_to_both_ends_of_the_range():
    """A column sum is no row kernel (v1's config, one pass): its bytes are its range, as the workload's row
    counts them; before, such kernels (the backward workloads' weight gradients) were left out of the range."""
    model = cg.make_model("inductor", FakePool(), "sm_90", "")
    module, _ = _op(["%r = arith.addf %a, %o : f32", "linalg.yield %r : f32"],
                    maps=(_ID2, "affine_map<(d0, d1) -> (d1)>"), iters=("reduction", "parallel"), out="tensor<8xf32>")
    with module.context:
        (kernel,), _ = form_groups(function_blocks(module)[0], model)
    assert kernel.shape is None and kernel.estimate.dram_bytes == (4 * 8 + 2 * 8) * 4   # + the sum's initial value
    assert cg.model_costs(model) == {"survivor_dram_fewest": kernel.estimate.dram_bytes,
                                     "survivor_dram_most": kernel.estimate.dram_bytes, "survivor_spills": 0}


def test_the_range_table_has_a_row_per_workload_inductor_ran_on():
    results = {"w1": {"groups inductor": cg.Outcome(kernels=2, survivor_dram_fewest=3_000_000,
                                                    survivor_dram_most=5_000_000, survivor_spills=1)},
               "w2": {"groups xla": cg.Outcome(kernels=1)}}
    lines = cg.inductor_range(results).splitlines()
    assert lines[2] == "| w1 | 2 | 3.0 | 5.0 | 1 |" and lines[3] == "| **all** | 2 | 3.0 | 5.0 | 1 |" and len(lines) == 4
    assert cg.inductor_range({"w2": results["w2"]}) == "`groups inductor` did not run."

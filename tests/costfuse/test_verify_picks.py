"""``--verify-picks`` (costfuse/verify_picks.py): each kernel's config confirmed by a compile, the next-best
tried while it spills, and the compiles counted.  Fakes stand in for ptxas except in the last two tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from costfuse.cost_models import policy_class
from costfuse.group_pass import GroupFusionPass, run_group_pipeline
from costfuse.ir import load_module
from costfuse.launch import LAUNCH_ATTR, KernelLaunch
from costfuse.verify_picks import PickCheck, PickVerifier, ranked_configs

EXAMPLE = Path(__file__).parents[2] / "examples" / "softmax_gelu.mlir"


class FakePtxas:
    """Spills at the launches in ``spilling`` (every one when ``spill_all``); records what it was asked,
    and that the kernel function it got carries the launch it is compiled at."""

    def __init__(self, spilling=(), spill_all=False):
        self.spilling, self.spill_all, self.asked = set(spilling), spill_all, []

    def __call__(self, fn, launch: KernelLaunch) -> PickCheck:
        assert KernelLaunch.from_attr(fn.attributes[LAUNCH_ATTR]) == launch
        self.asked.append(launch)
        spills = self.spill_all or launch in self.spilling
        return PickCheck("ok", regs=255 if spills else 40, spill_bytes=100 + len(self.asked) if spills else 0)


def run(policy="analytical", verifier=None):
    module = load_module(EXAMPLE)
    fusion = GroupFusionPass(policy_class(policy, "groups")(), verifier=verifier)
    return run_group_pipeline(module, fusion), module


def test_a_spill_free_pick_costs_one_compile_and_is_kept():
    (plain,), _ = run()
    fake = FakePtxas()
    (checked,), _ = run(verifier=PickVerifier(fake))
    assert fake.asked == [plain.kernel.estimate.launch]
    assert checked.kernel.estimate.launch == plain.kernel.estimate.launch
    assert checked.kernel.estimate.regs == 40 and "spill-free at the pick (1 compile)" in checked.kernel.estimate.reason


def test_a_spilling_pick_is_replaced_by_the_next_best_config_and_outlined_so():
    (plain,), _ = run()
    pick = plain.kernel.estimate.launch
    fake = FakePtxas(spilling={pick})
    verifier = PickVerifier(fake)
    (checked,), module = run(verifier=verifier)
    new = checked.kernel.estimate.launch
    assert fake.asked == [pick, new] and new != pick
    assert verifier.counts.compiles == 2 and verifier.counts.replaced == 1 and verifier.counts.spilling == 0
    assert f"the pick {pick.short()} spills 101 B; next-best {new.short()} spill-free (2 compiles)" \
        in checked.kernel.estimate.reason
    assert f"xblock = {new.xblock}" in str(module) and f"num_warps = {new.num_warps}" in str(module)


def test_the_next_best_is_the_policys_order():
    """The analytical policy's order: the fastest config by its time after the pick."""
    (plain,), _ = run()
    shape_policy = policy_class("analytical", "groups")()
    fake = FakePtxas(spilling={plain.kernel.estimate.launch})
    (checked,), _ = run(verifier=PickVerifier(fake))
    # ranked_configs on the live shape is what the verifier asked: the first config after the pick.
    module = load_module(EXAMPLE)
    captured = {}

    class Capture(PickVerifier):
        def verify(self, kernel, policy):
            captured["order"] = ranked_configs(policy, kernel.shape)
            return kernel

    run_group_pipeline(module, GroupFusionPass(shape_policy, verifier=Capture(fake)))
    scores, order = captured["order"]
    expected = next(scores.configs[i] for i in order if scores.configs[i] != plain.kernel.estimate.launch)
    assert checked.kernel.estimate.launch == expected


def test_when_every_config_spills_the_least_spilling_is_kept_within_max_compiles():
    fake = FakePtxas(spill_all=True)
    verifier = PickVerifier(fake, max_compiles=3)
    (plain,), _ = run()
    (checked,), _ = run(verifier=verifier)
    assert len(fake.asked) == 3 and verifier.counts.spilling == 1
    assert checked.kernel.estimate.launch == plain.kernel.estimate.launch   # the pick spilled least (101 B)
    assert checked.kernel.estimate.spill_bytes == 101
    assert "none of 3 configs compiled spill-free; the pick spills least" in checked.kernel.estimate.reason


def test_counts_line_and_bad_max():
    verifier = PickVerifier(FakePtxas())
    run(verifier=verifier)
    assert verifier.counts.line().startswith("# verify-picks: 1 ptxas compiles (0 cached) for 1 row kernels (1.00 per")
    with pytest.raises(ValueError, match="at least one compile"):
        PickVerifier(FakePtxas(), max_compiles=0)


def test_learned_ranks_its_predicted_spill_free_configs_first():
    (plain,), _ = run("learned")
    learned = policy_class("learned", "groups")()
    captured = {}

    class Capture(PickVerifier):
        def verify(self, kernel, policy):
            captured["ranked"] = policy.ranked_configs(kernel.shape)
            return kernel

    run_group_pipeline(load_module(EXAMPLE), GroupFusionPass(learned, verifier=Capture(FakePtxas())))
    scores, order = captured["ranked"]
    assert scores.configs[order[0]] == plain.kernel.estimate.launch   # the pick is first in its own order
    assert sorted(order) == list(range(len(scores.configs)))


def opt(*args):
    cmd = [sys.executable, "-c", "import sys; from costfuse.cli import opt_main; sys.exit(opt_main())", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def test_cli_verify_picks_compiles_with_ptxas_and_counts_in_explain(tmp_path):
    r = opt(str(EXAMPLE), "--cost-model", "learned", "--verify-picks", "--explain", "-o", str(tmp_path / "o.mlir"))
    assert r.returncode == 0, r.stderr
    assert "# verify-picks: 1 ptxas compiles" in r.stderr
    assert "ptxas: spill-free at the pick (1 compile)" in r.stderr


@pytest.mark.parametrize("args, message", [
    (["--fusion", "elementwise", "--cost-model", "always", "--verify-picks"], "--verify-picks applies to --fusion groups"),
    (["--cost-model", "learned", "--verify-picks", "--verify-timeout", "0"], "--verify-timeout must be > 0"),
])
def test_cli_verify_picks_refusals_are_one_line(args, message):
    r = opt(str(EXAMPLE), *args, "-o", "/dev/null")
    assert r.returncode == 1
    assert r.stderr.count("\n") == 1 and message in r.stderr

"""``--explain=configs`` (issue #27, item 4): under each kernel, every config the model weighed, with its
P(spill), registers, bytes and time, and why the pick won; plain ``--explain`` is unchanged."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from costfuse.cli import opt_main
from costfuse.cost_models import make_policy
from costfuse.group_pass import GroupFusionPass, run_group_pipeline
from costfuse.ir import parse_module

REPO = Path(__file__).parents[2]
EXAMPLES = REPO / "examples"
RMSNORM_BWD_16K = REPO / "experiments" / "workloads" / "rmsnorm_bwd_16k_bf16.mlir"
ROW = re.compile(r"^  ([* ]) (\w+ x\d+ r\d+ w\d+) +P\(spill\) (\d\.\d\d| +- +) +regs +(\d+|\?) +spill (\d+|\?) B "
                 r"+issued [\d.]+ MB +dram [\d.]+ MB +[\d.]+ us +(.+)$")


def _explain(capsys, path: Path, *args) -> list[str]:
    assert opt_main([str(path), "-o", "/dev/null", *args]) == 0
    return capsys.readouterr().err.splitlines()


def test_each_kernel_lists_the_configs_weighed_and_marks_the_one_it_runs_at(capsys):
    lines = _explain(capsys, RMSNORM_BWD_16K, "--explain=configs")
    kernels = [i for i, ln in enumerate(lines) if ln.startswith("kernel @")]
    weighed_any = False
    for i in kernels:
        launch = re.match(r"kernel @\w+ = [^:]+: (\w+ x\d+ r\d+ w\d+),", lines[i])[1]
        rows = []
        for ln in lines[i + 2:]:
            if not ln.startswith("  "):
                break
            rows.append(ROW.match(ln))
        if lines[i + 1].startswith("  no configs weighed"):
            continue
        weighed_any = True
        assert re.match(r"  \d+ configs weighed by learned, fastest first by its time:", lines[i + 1])
        assert rows and all(rows), lines[i + 2:i + 2 + len(rows)]
        picked = [m for m in rows if m[1] == "*"]
        assert len(picked) == 1 and picked[0][2] == launch
        assert picked[0][6].startswith("picked: the fastest predicted spill-free (P(spill) ")
        # every config faster than the pick lost for a reason the heads gave
        before = rows[:rows.index(picked[0])]
        assert all(m[6].startswith(("predicted to spill (P(spill) ", "outside the training range")) for m in before)
        spilled = [m for m in before if m[6].startswith("predicted to spill")]
        assert spilled and all(float(m[3]) >= float(re.search(r"cut (\d\.\d\d)", m[6])[1]) for m in spilled)
    assert weighed_any


def test_plain_explain_is_unchanged(capsys):
    lines = _explain(capsys, EXAMPLES / "softmax_gelu.mlir", "--explain")
    assert not [ln for ln in lines if ln.startswith("  ")]
    assert any(ln.startswith("kernel @softmax_gelu_k0 = ") for ln in lines)


def test_a_policy_with_a_fixed_config_says_it_weighed_none(capsys):
    lines = _explain(capsys, EXAMPLES / "softmax_gelu.mlir", "--cost-model", "always", "--explain=configs")
    k = next(i for i, ln in enumerate(lines) if ln.startswith("kernel @"))
    assert lines[k + 1] == "  no configs weighed: always runs a fixed config or accepts none"


@pytest.mark.parametrize("name", ["learned", "analytical", "inductor", "xla"])
@pytest.mark.parametrize("example", ["layernorm_gelu_mlp.mlir", "transformer_encoder_layer.mlir"])
def test_the_weighed_pick_is_the_config_the_kernel_runs_at(name, example):
    """weigh_configs spells out best_config: its pick is the launch the pass outlined with."""
    fusion = GroupFusionPass(make_policy(name, "groups"), weigh_configs=True)
    records = run_group_pipeline(parse_module((EXAMPLES / example).read_text()), fusion)
    checked = 0
    for r in records:
        if not r.weighed:
            continue
        (picked,) = [w for w in r.weighed if w.picked]
        assert picked.launch == r.kernel.estimate.launch, r.name
        assert [w.time_s for w in r.weighed] == sorted(w.time_s for w in r.weighed)
        checked += 1
    assert checked

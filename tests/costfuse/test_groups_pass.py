"""``--fusion groups``: formation, outlining and numerics through IREE (docs/groups.md)."""

from pathlib import Path

import pytest
from helpers.corpus import CORPUS

from costfuse.cost_models.always import Always
from costfuse.cost_models.analytical import Analytical
from costfuse.cost_models.inductor import Inductor
from costfuse.cost_models.threshold import Threshold
from costfuse.cost_models.xla import Xla
from costfuse.cost_models.xla_triton import XlaTriton
from costfuse.group_pass import GroupFusionPass, run_group_pipeline
from costfuse.ir import parse_module, print_module, verify
from costfuse.launch import KERNEL_ATTR, LAUNCH_ATTR, KernelLaunch
from costfuse.reference import assert_same_semantics

EXAMPLES = Path(__file__).parents[2] / "examples"
MODELS = {"always": Always, "analytical": Analytical, "threshold": lambda: Threshold(3, 16),
          "inductor": Inductor, "xla-triton": XlaTriton, "xla": Xla}


def grouped(text: str, model) -> tuple[str, GroupFusionPass]:
    module = parse_module(text)
    p = GroupFusionPass(model)
    run_group_pipeline(module, p)
    verify(module)
    return print_module(module), p


def kernel_functions(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if "func.func private" in ln and KERNEL_ATTR in ln]


@pytest.mark.parametrize("model", sorted(MODELS))
@pytest.mark.parametrize("example", ["softmax_gelu", "layernorm_gelu_mlp", "attention_softmax",
                                     "transformer_encoder_layer"])
def test_examples_keep_their_numbers(example, model):
    before = (EXAMPLES / f"{example}.mlir").read_text()
    after, p = grouped(before, MODELS[model]())
    assert len(kernel_functions(after)) == len(p.kernels) > 0
    assert "linalg.generic" not in after.split("func.func private")[0], "every generic is outlined"
    assert_same_semantics(before, after, "softmax_gelu" if example == "softmax_gelu" else "main", seed=3)


@pytest.mark.parametrize("case", sorted(CORPUS))
def test_corpus_keeps_its_numbers(case):
    before = CORPUS[case]()
    after, _ = grouped(before, Always())
    assert_same_semantics(before, after, "main", seed=1)


def test_softmax_is_one_persistent_kernel_with_its_launch():
    text, p = grouped((EXAMPLES / "softmax_gelu.mlir").read_text(), Analytical())
    assert [r.kernel.label for r in p.kernels] == ["+".join(f"g{i}" for i in range(1, 11))]
    (line,) = kernel_functions(text)
    assert "@softmax_gelu_k0" in line and LAUNCH_ATTR in line and 'mode = "persistent"' in line
    assert "call @softmax_gelu_k0" in text
    assert p.kernels[0].kernel.estimate.launch.mode == "persistent"


def test_layernorm_with_keepdim_rows_forms_one_kernel():
    _, p = grouped((EXAMPLES / "layernorm_gelu_mlp.mlir").read_text(), Always())
    assert p.kernels[0].kernel.label == "+".join(f"g{i}" for i in range(1, 14))


def test_threshold_caps_group_size():
    _, p = grouped((EXAMPLES / "softmax_gelu.mlir").read_text(), Threshold(3, 16))
    assert all(len(r.kernel.members) <= 3 for r in p.kernels)
    assert len(p.kernels) == 4


def test_formation_is_deterministic():
    text = (EXAMPLES / "transformer_encoder_layer.mlir").read_text()
    a, pa = grouped(text, Analytical())
    b, pb = grouped(text, Analytical())
    assert a == b and [d.line() for d in pa.decisions] == [d.line() for d in pb.decisions]


def test_a_merge_that_would_close_a_cycle_is_refused():
    # g1 -> tensor.expand_shape (not foldable: it splits a real dim) -> g2, and g1 -> g2 directly:
    # merging g1 and g2 would put the reshape both before and after the kernel.
    text = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = arith.addf %i, %i : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  %c = tensor.collapse_shape %a [[0, 1]] : tensor<8x16xf32> into tensor<128xf32>
  %ex = tensor.expand_shape %c [[0, 1]] output_shape [8, 16] : tensor<128xf32> into tensor<8x16xf32>
  %b = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %ex : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %r = arith.mulf %i, %j : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  return %b : tensor<8x16xf32>
}
"""
    after, p = grouped(text, Always())
    assert len(p.kernels) == 2
    assert any(d.verdict == "skip" and "cycle" in d.reason for d in p.decisions)
    assert_same_semantics(text, after, "main", seed=2)


def test_launch_attr_roundtrip():
    from iree.compiler import ir

    with ir.Context():
        launch = KernelLaunch("looped", 2, 1024, 8)
        assert KernelLaunch.from_attr(launch.to_attr()) == launch
    with pytest.raises(ValueError, match="pointwise"):
        KernelLaunch("pointwise", 1024, 2, 4)


WORKLOADS = Path(__file__).parents[2] / "experiments" / "workloads"


def test_masks_and_biases_are_recomputed_in_the_attention_kernel():
    """A causal mask and an ALiBi bias are built from indices over (s, t) and read by scores over (b, h, s, t):
    they are inlined into the scores' kernel, which is then the whole epilogue (IREE forms 1 dispatch too)."""
    for name in ("attention_causal_bf16", "attention_alibi_f32"):
        _, p = grouped((WORKLOADS / f"{name}.mlir").read_text(), Analytical())
        assert p.recomputed and all("recomputed in its consumer" in d.reason for d in p.recomputed)
        assert len(p.kernels) == 1 and p.kernels[0].kernel.estimate.launch.mode == "persistent"


def test_per_row_statistics_are_members_not_recomputed():
    """LayerNorm's mean and rstd fit the rows of their consumers: computed once per row, never per element."""
    _, p = grouped((EXAMPLES / "layernorm_gelu_mlp.mlir").read_text(), Always())
    assert p.recomputed == []


def test_explain_names_match_the_outlined_functions(tmp_path, capsys):
    from costfuse.cli import opt_main

    out = tmp_path / "out.mlir"
    assert opt_main([str(EXAMPLES / "transformer_encoder_layer.mlir"), "--cost-model", "analytical", "--explain",
                     "-o", str(out)]) == 0
    err = capsys.readouterr().err.splitlines()
    kernel_lines = [ln for ln in err if ln.startswith("kernel @")]
    text = out.read_text()
    assert kernel_lines and err[-1].startswith("# analytical groups: ")
    for k, line in enumerate(kernel_lines):
        name = f"main_k{k}"
        assert line.startswith(f"kernel @{name} = ")
        mode = line.split(": ", 1)[1].split()[0]
        fn = next(ln for ln in text.splitlines() if f"@{name}(" in ln and "func.func private" in ln)
        assert f'mode = "{mode}"' in fn


RECOMPUTE = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @main(%x: tensor<16x1024xf32>) -> (tensor<16xf32>, tensor<16x1024xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x1024xf32>
  %er = tensor.empty() : tensor<16xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<16x1024xf32>) outs(%e : tensor<16x1024xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = arith.mulf %i, %i : f32
    linalg.yield %r : f32
  } -> tensor<16x1024xf32>
  %init = linalg.fill ins(%zero : f32) outs(%er : tensor<16xf32>) -> tensor<16xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%p : tensor<16x1024xf32>) outs(%init : tensor<16xf32>) {
  ^bb0(%i: f32, %acc: f32):
    %r = arith.addf %i, %acc : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %a = tensor.expand_shape %s [[0, 1]] output_shape [4, 4] : tensor<16xf32> into tensor<4x4xf32>
  %b = tensor.collapse_shape %a [[0, 1]] : tensor<4x4xf32> into tensor<16xf32>
  %q = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %b : tensor<16x1024xf32>, tensor<16xf32>) outs(%e : tensor<16x1024xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %r = arith.divf %i, %j : f32
    linalg.yield %r : f32
  } -> tensor<16x1024xf32>
  return %s, %q : tensor<16xf32>, tensor<16x1024xf32>
}
"""


X, ROW = 16 * 1024 * 4, 16 * 4


@pytest.mark.parametrize("model, recomputes, hbm", [
    ("analytical", True, 3 * X + 2 * ROW),   # x read by both kernels, q written; the sum written and read
    ("inductor", True, 3 * X + 2 * ROW),
    ("always", False, 4 * X + 2 * ROW),      # p written by the sum's kernel and read back by q's
    ("xla-triton", False, 5 * X + 2 * ROW),  # all users or none: p stays a kernel of its own
])
def test_a_multi_use_producer_is_recomputed_or_stored_as_the_model_decides(model, recomputes, hbm):
    """``p = x*x`` feeds a row sum and, through a reshape round trip that keeps them apart, a consumer
    of that sum.  Recomputing ``p`` in the consumer stores it nowhere (analytical: faster; inductor:
    one read and one op, so it inlines it); ``always`` and ``xla`` store it."""
    from costfuse.data.lowering.kernel_function import kernel_functions
    from costfuse.data.verify_kernel import verify_kernel

    after, p = grouped(RECOMPUTE, MODELS[model]())
    verdicts = {d.verdict for d in p.decisions}
    assert ("recompute" in verdicts) == recomputes
    assert sum(r.kernel.estimate.issued_bytes for r in p.kernels) == hbm
    assert_same_semantics(RECOMPUTE, after, "main", seed=0)
    module = parse_module(after)
    for fn in kernel_functions(module):
        verify_kernel(fn, seed=1)


def test_a_stored_producer_read_by_a_copy_in_another_kernel_is_passed_from_its_call():
    """Residual add + RMSNorm (bf16, 4052 rows of 32768, dataset v2's ``add_rmsnorm-1014``): analytical
    merges the add ``g1`` into the statistics kernel, which stores it (it is returned), and copies the
    upcast ``g2`` into the normalising kernel.  The copy's input is then the first call's result; it
    was the erased add (a dangling use: the verifier crashed).  Numbers are checked on the outlined
    module shrunk to 8 rows of 64 (the decisions stay those taken at full size)."""
    from costfuse.data.group_programs import generate_group_program

    text = generate_group_program("add_rmsnorm", 1014).text
    after, p = grouped(text, Analytical())
    assert any(d.verdict == "recompute" for d in p.decisions) and len(p.kernels) == 2
    shrink = lambda t: t.replace("4052x", "8x").replace("32768x", "64x")  # noqa: E731
    assert_same_semantics(shrink(text), shrink(after), "main", seed=0)


def test_a_value_only_a_copy_in_another_kernel_reads_is_stored_by_its_kernel():
    """Cross-entropy backward (f32, 2048 x 32000): the learned policy copies g2 (reading g1) into the
    gradient kernel, then merges g1 into g2's own kernel, where g1's only use looks internal (the copy is
    the same op).  That kernel must still store g1 for the copy; it stored nothing, and the call read an
    erased value ("operand is unlinked").  Numbers are checked on the outlined module shrunk to 8 rows
    of 96 (decisions as taken at full size, by the shipped group heads)."""
    from costfuse.cost_models.learned_groups import LearnedGroups

    path = Path(__file__).parents[2] / "experiments" / "workloads" / "cross_entropy_bwd_32k_f32.mlir"
    text = path.read_text()
    after, p = grouped(text, LearnedGroups())
    import re

    shrink = lambda t: re.sub(r"(?<![\d.e])32000(?!\d)", "96", re.sub(r"(?<![\d.e])2048(?!\d)", "8", t))  # noqa: E731
    assert_same_semantics(shrink(text), shrink(after), "main", seed=0)


def test_groups_output_carries_no_v1_chain_mark():
    """Recomputing an expanding producer (the attention mask) goes through v1's rewrite, which marks what it
    fuses with ``costfuse.chain_length``; kernel groups have no chains, so the mark must not reach the output."""
    path = Path(__file__).parents[2] / "experiments" / "workloads" / "attention_alibi_f32.mlir"
    after, p = grouped(path.read_text(), Analytical())
    assert p.recomputed and "costfuse.chain_length" not in after


def test_a_skip_is_said_once_and_a_priced_answer_each_time():
    from costfuse.groups import GroupDecision, _Formation
    formation = _Formation.__new__(_Formation)   # note() reads only the decision log
    formation.decisions, formation._noted = [], set()
    skip = GroupDecision("skip", "g1", "g2", "the merged kernel would close a cycle through other ops")
    keep = GroupDecision("keep", "g1", "g3", "slower merged: 2.00 us vs 1.00 apart")
    for decision in (skip, keep, skip, keep, skip):
        formation.note(decision)
    assert formation.decisions == [skip, keep, keep]

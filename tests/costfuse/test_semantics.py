"""Fusion preserves semantics: IR before and after the pass agree on IREE's llvm-cpu."""

import pytest
from helpers.corpus import CORPUS

from costfuse.cost_models.always import Always
from costfuse.cost_models.threshold import Threshold
from costfuse.fusion_pass import FusionPass, run_pipeline
from costfuse.ir import parse_module, print_module
from costfuse.reference import assert_same_semantics
from costfuse.upstream import count_generics

SETTINGS = {
    "always": lambda: FusionPass(Always()),
    "threshold": lambda: FusionPass(Threshold(max_chain_length=2, max_body_ops=4)),
    "multi_use": lambda: FusionPass(Always(), allow_multi_use=True),
}


def fused(text: str, setting: str) -> tuple[str, int]:
    module = parse_module(text)
    decisions = run_pipeline(module, SETTINGS[setting]())
    return print_module(module), sum(d.fuse for d in decisions)


@pytest.mark.parametrize("setting", sorted(SETTINGS))
@pytest.mark.parametrize("case", sorted(CORPUS))
def test_corpus_semantics(case, setting):
    before = CORPUS[case]()
    after, n_fused = fused(before, setting)
    if setting == "always":
        assert n_fused > 0, "the corpus case should exercise fusion"
    assert_same_semantics(before, after, "main", seed=1)


def test_softmax_gelu_example_semantics():
    from pathlib import Path

    before = (Path(__file__).parents[2] / "examples" / "softmax_gelu.mlir").read_text()
    after, n_fused = fused(before, "always")
    assert n_fused == 5
    assert_same_semantics(before, after, "softmax_gelu", seed=2)


def test_transformer_encoder_layer_semantics(encoder_layer_mlir):
    """A torch.nn.TransformerEncoderLayer exported through IREE's FX importer."""
    before = encoder_layer_mlir
    n_before = count_generics(parse_module(before))
    for setting in ("always", "threshold"):
        after, n_fused = fused(before, setting)
        assert n_fused > 0
        assert count_generics(parse_module(after)) < n_before
        assert_same_semantics(before, after, "main", seed=3)

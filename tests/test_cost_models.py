"""The threshold model's boundaries, and its decisions inside the pass."""

import pytest
from corpus import CORPUS

from costfuse.cost_models import Always, Threshold
from costfuse.fusion_pass import FusionPass
from costfuse.ir import parse_module
from costfuse.upstream import count_generics


def fuse(text, model):
    module = parse_module(text)
    decisions = FusionPass(model).run(module)
    return module, decisions


@pytest.mark.parametrize("max_chain, expected", [(1, 5), (2, 3), (3, 2), (5, 1), (8, 1)])
def test_chain_length_limit(max_chain, expected):
    module, _ = fuse(CORPUS["chain_f32"](), Threshold(max_chain_length=max_chain, max_body_ops=100))
    assert count_generics(module) == expected


@pytest.mark.parametrize("max_ops, expected", [(1, 5), (2, 3), (3, 2), (4, 2), (5, 1)])
def test_body_op_limit(max_ops, expected):
    module, _ = fuse(CORPUS["chain_f32"](), Threshold(max_chain_length=100, max_body_ops=max_ops))
    assert count_generics(module) == expected


def test_decisions_explain_themselves():
    _, decisions = fuse(CORPUS["chain_f32"](), Threshold(max_chain_length=2, max_body_ops=100))
    lines = [d.line() for d in decisions]
    assert lines[0] == "fuse g1 -> g2: chain length 2 <= 2, body ops 2 <= 100 [chain_length=2 body_ops=2]"
    assert lines[1] == "keep g1+g2 -> g3: chain length 3 > 2 [chain_length=3 body_ops=3]"
    assert all(d.legal for d in decisions)


def test_always_fuses_every_legal_edge():
    module, decisions = fuse(CORPUS["chain_f32"](), Always())
    assert [d.fuse for d in decisions] == [True] * 4
    assert count_generics(module) == 1


def test_threshold_rejects_nonsense():
    with pytest.raises(ValueError):
        Threshold(max_chain_length=0)

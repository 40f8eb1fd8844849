"""Fusion groups: segments of chains, subtrees of DAGs, each fused by the pass's rewrite."""

from helpers.corpus import CORPUS

from costfuse.data.edge_groups import enumerate_groups, fuse_group
from costfuse.graph import chain_length
from costfuse.ir import parse_module, print_module
from costfuse.reference import assert_same_semantics
from costfuse.data.families import generate
from costfuse.data.lowering.reference_functions import generic_as_function


def labels(text, **kw):
    return [g.label for g in enumerate_groups(parse_module(text), **kw)]


def test_chain_groups_are_contiguous_segments():
    got = labels(CORPUS["chain_f32"](), max_groups=100)  # 5 ops: 5 singletons + 10 segments
    assert got[:5] == ["g1", "g2", "g3", "g4", "g5"]
    assert sorted(got[5:]) == sorted(
        "+".join(f"g{k}" for k in range(i, j + 1)) for i in range(1, 6) for j in range(i + 1, 6))


def test_reduction_is_a_root_never_an_inner_member():
    got = labels(CORPUS["reduction_sum"](), max_groups=100)
    assert "g1+g2+g3" in got and "g3+g4" not in got and "g1+g2+g3+g4" not in got


def test_diamond_needs_both_users_inside():
    got = labels(CORPUS["multi_use"](), max_groups=100)
    assert "g1+g2" not in got and "g1+g3" not in got  # exp has two users
    assert "g1+g2+g3+g4" in got and "g2+g3+g4" in got


def test_cap_keeps_singletons_and_the_maximal_group():
    prog = generate("chain", 3)
    n = prog.params["length"]
    groups = enumerate_groups(parse_module(prog.text), max_groups=4, seed=0)
    assert sum(len(g.members) == 1 for g in groups) == n
    assert sum(len(g.members) > 1 for g in groups) == 4
    assert max(len(g.members) for g in groups) == n


def test_fused_group_is_one_generic_with_the_same_semantics():
    text = CORPUS["multi_use"]()
    module = parse_module(text)
    op = fuse_group(module, max(enumerate_groups(parse_module(text), max_groups=100), key=lambda g: len(g.members)))
    assert chain_length(op) == 4
    assert print_module(module).count("linalg.generic") == 1
    assert_same_semantics(text, print_module(module), "main")
    assert "func.func @kernel" in generic_as_function(op, "kernel")

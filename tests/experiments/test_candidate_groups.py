"""Candidate groups of the exact optimum (experiments/candidate_groups.py, issue #26).

On the softmax + GELU of examples/softmax_gelu.mlir (10 generics, all groupable), the enumeration is
checked against a brute force over every subset of generics, written from the rules alone: connected by
producer->consumer edges, convex (no path leaves the set and comes back), row-legal (analyze_kernel).
No compile: enumeration is IR work only (well under a second).
"""

import itertools
import time
from pathlib import Path

import pytest

from costfuse.group_pass import prepare_for_forming
from costfuse.ir import load_module
from costfuse.kernel import NotAKernel, analyze_kernel
from experiments.candidate_groups import FunctionGraph, enumerate_candidates

EXAMPLES = Path(__file__).parents[2] / "examples"


@pytest.fixture(scope="module")
def graph():
    m = load_module(EXAMPLES / "softmax_gelu.mlir")
    with m.context:
        funcs, _ = prepare_for_forming(m.operation)
        yield FunctionGraph.of(funcs[0].regions[0].blocks[0])


def _connected(graph, s) -> bool:
    s = set(s)
    seen, todo = set(), [min(s)]
    while todo:
        v = todo.pop()
        if v in seen:
            continue
        seen.add(v)
        todo += [u for u in (graph.readers[v] | graph.producers(v)) & s if u not in seen]
    return seen == s


def _convex(graph, s) -> bool:
    """No op outside ``s`` is reached from ``s`` and reaches ``s`` (plain DFS, not the enumeration's bit masks)."""
    s = set(s)

    def reach(starts, step):
        out, todo = set(), list(starts)
        while todo:
            v = todo.pop()
            for u in step(v):
                if u not in out:
                    out.add(u)
                    todo.append(u)
        return out

    after = reach(s, lambda v: graph.readers[v])
    before = reach(s, graph.producers)
    return not (after & before) - s


def _row_legal(graph, s) -> bool:
    try:
        analyze_kernel([graph.ops[i] for i in sorted(s)])
        return True
    except NotAKernel:
        return False


def test_owned_sets_are_exactly_the_connected_convex_row_legal_sets(graph):
    with graph.ops[0].context:
        enum = enumerate_candidates(graph)
        assert enum.complete and not enum.stopped
        kernels = [p for p in enum.priced if p.candidate.is_kernel]
        got = {p.candidate.owns for p in kernels}
        gs = sorted(graph.groupable)
        assert len(gs) == 10 and not graph.generics - graph.groupable
        want = {frozenset(s) for k in range(1, len(gs) + 1) for s in itertools.combinations(gs, k)
                if _connected(graph, s) and _convex(graph, s) and _row_legal(graph, s)}
        assert got == want
        assert enum.owned_sets == len(want)
        # and the subsets left out are left out for a reason the brute force sees
        assert not _convex(graph, {4, 7}) and _connected(graph, {4, 7})     # g1 -> g2 -> g3 and g1 -> g3
        assert frozenset({4, 7}) not in got


def test_variants_copy_producers_and_choose_what_they_store(graph):
    with graph.ops[0].context:
        enum = enumerate_candidates(graph)
    by_owns: dict = {}
    for p in enum.priced:
        by_owns.setdefault(p.candidate.owns, []).append(p)
    for p in enum.priced:
        c = p.candidate
        assert c.stores <= c.owns and not c.copies & c.owns
        for g in c.copies:   # a copy: a non-reduction producer of a member, with a reader outside the kernel
            assert g not in graph.reductions and graph.readers[g] & c.owns and graph.readers[g] - c.members
        if not c.is_kernel:
            assert len(c.owns) == 1 and p.label.endswith("(no kernel: every reader recomputes it)")
            continue
        for g in c.owns:     # what a non-kernel op (here the return) or a reduction's outside reader needs is stored
            outside = graph.readers[g] - c.members
            if outside - graph.groupable or (outside and g in graph.reductions):
                assert g in c.stores
    # g1 (position 4) is read by g2 and g3: the group {g2} may recompute it (a copy), and store g2 or not
    g2 = by_owns[frozenset({6})]
    assert {(c.candidate.copies, c.candidate.stores) for c in g2} == {(frozenset(), frozenset({6})),
                                                                       (frozenset({4}), frozenset({6}))}
    assert {p.label for p in g2} == {"g2", "g1'+g2"}
    # g1 alone: stored (read by g2 and g3 from it), or no kernel at all (both readers recompute it)
    g1 = by_owns[frozenset({4})]
    assert {c.candidate.stores for c in g1} == {frozenset({4}), frozenset()}
    # a member no one outside reads is not stored: g3 (7) is read by g4 (8) alone
    g34 = by_owns[frozenset({7, 8})]
    assert all(c.candidate.stores == frozenset({8}) for c in g34)
    # whole function: one kernel storing only the returned value
    whole = by_owns[frozenset(graph.groupable)]
    assert [c.candidate.stores for c in whole] == [frozenset({15})]


def test_a_candidate_budget_stops_the_enumeration_and_says_so(graph):
    with graph.ops[0].context:
        full = enumerate_candidates(graph)
        cut = enumerate_candidates(graph, max_candidates=20)
        late = enumerate_candidates(graph, deadline=time.monotonic() - 1)
    assert full.complete and len(full.priced) == 115
    assert not cut.complete and "candidate budget 20 reached" in cut.stopped and len(cut.priced) <= 20
    # smaller sets first: what was enumerated is a prefix by size
    sizes = [len(p.candidate.owns) for p in cut.priced if p.candidate.is_kernel]
    assert sizes == sorted(sizes)
    assert not late.complete and "time budget" in late.stopped

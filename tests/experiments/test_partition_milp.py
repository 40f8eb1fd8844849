"""The exact kernel choice (experiments/partition_milp.py) against a brute force over every subset of candidates.

The brute force is written from the rules alone (docs in the module): ownership a partition, every read
of an uncomputed generic served by its owner's store, every generic a non-kernel op reads stored, and the
graph of kernels and ops acyclic.  Problems are abstract (integers for ops), so each check takes
milliseconds.
"""

import itertools
import random

import pytest

from experiments.partition_milp import Candidate, Problem, kernel_graph, solve


def _valid(problem: Problem, chosen) -> bool:
    cands = [problem.candidates[k] for k in chosen]
    owned = [g for c in cands for g in c.owns]
    if sorted(owned) != sorted(problem.generics):
        return False
    stored = {g: i for i, c in enumerate(cands) for g in c.stores}
    producers = {v: {p for p, rs in problem.readers.items() if v in rs} for v in problem.readers}
    ops = [v for v in problem.readers if v not in problem.generics]
    edges = set()
    for i, c in enumerate(cands):
        for m in c.members if c.stores else ():     # a candidate storing nothing runs nowhere
            for p in producers[m]:
                if p in c.members:
                    continue
                if p in problem.generics:
                    if p not in stored:
                        return False
                    edges.add((("k", stored[p]), ("k", i)))
                else:
                    edges.add((("op", p), ("k", i)))
    for v in ops:
        for p in producers[v]:
            if p in problem.generics:
                if p not in stored:
                    return False
                edges.add((("k", stored[p]), ("op", v)))
            else:
                edges.add((("op", p), ("op", v)))
    nodes = {("k", i) for i in range(len(cands))} | {("op", v) for v in ops}
    indeg = {n: 0 for n in nodes}
    for _, b in edges:
        indeg[b] += 1
    ready = [n for n in nodes if indeg[n] == 0]
    seen = 0
    while ready:
        n = ready.pop()
        seen += 1
        for a, b in edges:
            if a == n:
                indeg[b] -= 1
                if indeg[b] == 0:
                    ready.append(b)
    return seen == len(nodes)


def brute_force(problem: Problem, costs):
    """(bytes, kernels) of the best valid subset, or None."""
    best = None
    avail = [k for k, c in enumerate(costs) if c is not None]
    for r in range(1, len(avail) + 1):
        for chosen in itertools.combinations(avail, r):
            if _valid(problem, chosen):
                key = (sum(costs[k] for k in chosen), len(chosen))
                best = key if best is None or key < best else best
    return best


def _random_problem(rng: random.Random) -> tuple[Problem, list]:
    n = rng.randint(3, 5)
    ops = list(range(n + 2))              # positions; two of them are non-kernel ops
    nonkernel = set(rng.sample(ops, 2))
    readers = {v: set() for v in ops}
    for a in ops:
        for b in ops:
            if a < b and rng.random() < 0.45:
                readers[a].add(b)
    generics = frozenset(v for v in ops if v not in nonkernel)
    cands = [Candidate(frozenset({g}), stores=frozenset({g})) for g in generics]   # singletons store all
    for _ in range(rng.randint(3, 7)):
        owns = frozenset(rng.sample(sorted(generics), rng.randint(1, min(3, len(generics)))))
        others = sorted(generics - owns)
        copies = frozenset(rng.sample(others, rng.randint(0, min(2, len(others)))))
        stores = frozenset(g for g in owns if rng.random() < 0.6)
        if stores:
            cands.append(Candidate(owns, copies, stores))
    cands = list(dict.fromkeys(cands))
    problem = Problem({v: frozenset(rs) for v, rs in readers.items()}, generics, cands)
    costs = [rng.choice([None] + [rng.randint(1, 9) * 8] * 6) for _ in cands]
    for k, c in enumerate(cands):
        if len(c.owns) == 1 and not c.copies:
            costs[k] = 64           # singletons always available: some schedule exists
    return problem, costs


@pytest.mark.parametrize("seed", range(60))
def test_the_milp_matches_a_brute_force_over_all_subsets(seed):
    problem, costs = _random_problem(random.Random(seed))
    want = brute_force(problem, costs)
    got = solve(problem, costs)
    if want is None:
        assert got.status == "infeasible"
        return
    assert got.status == "optimal"
    assert _valid(problem, got.chosen)
    assert (got.cost, len(got.chosen)) == want


def test_an_unconstrained_optimum_with_a_cycle_is_cut_off():
    """a -> b -> c -> d: kernels {a, d} and {b, c} are cheapest, but b+c reads a and d reads c: a cycle."""
    a, b, c, d = range(4)
    readers = {a: frozenset({b}), b: frozenset({c}), c: frozenset({d}), d: frozenset({4}), 4: frozenset()}
    cands = [Candidate(frozenset({g}), stores=frozenset({g})) for g in (a, b, c, d)]
    cands += [Candidate(frozenset({a, d}), stores=frozenset({a, d})), Candidate(frozenset({b, c}), stores=frozenset({c}))]
    problem = Problem(readers, frozenset({a, b, c, d}), cands)
    costs = [10, 10, 10, 10, 5, 5]
    cyclic = [4, 5]
    graph = kernel_graph(problem, cyclic)
    assert ("k", 5) in graph[("k", 4)] and ("k", 4) in graph[("k", 5)]   # the cheapest choice is cyclic
    got = solve(problem, costs)
    assert got.cuts >= 1 and got.solves >= 2
    assert sorted(got.chosen) == [0, 3, 5] and got.cost == 25 == brute_force(problem, costs)[0]


def test_a_producer_recomputed_by_a_second_reader_is_covered_twice_and_stored_never():
    """p (position 0) is read by a (1) and b (2); both results go to the return (3).  Storing p costs
    its bytes twice (write, read back); recomputing it in b's kernel costs less."""
    p, a, b, ret = range(4)
    readers = {p: frozenset({a, b}), a: frozenset({ret}), b: frozenset({ret}), ret: frozenset()}
    cands = [
        Candidate(frozenset({p}), stores=frozenset({p})),                          # 0
        Candidate(frozenset({a}), stores=frozenset({a})),                          # 1
        Candidate(frozenset({b}), stores=frozenset({b})),                          # 2
        Candidate(frozenset({p, a}), stores=frozenset({p, a})),                    # 3: stores p for b
        Candidate(frozenset({p, a}), stores=frozenset({a})),                       # 4: p unstored
        Candidate(frozenset({b}), copies=frozenset({p}), stores=frozenset({b})),   # 5: b recomputes p
    ]
    problem = Problem(readers, frozenset({p, a, b}), cands)
    costs = [30, 30, 30, 40, 30, 30]
    got = solve(problem, costs)
    assert sorted(got.chosen) == [4, 5] and got.cost == 60
    assert (got.cost, len(got.chosen)) == brute_force(problem, costs)
    costs[5] = None     # no recompute variant: p must be stored, once
    assert sorted(solve(problem, costs).chosen) == [2, 3]


def test_fewest_kernels_among_equal_bytes():
    readers = {0: frozenset({1}), 1: frozenset({2}), 2: frozenset()}
    cands = [Candidate(frozenset({0}), stores=frozenset({0})), Candidate(frozenset({1}), stores=frozenset({1})),
             Candidate(frozenset({0, 1}), stores=frozenset({1}))]
    problem = Problem(readers, frozenset({0, 1}), cands)
    assert solve(problem, [10, 10, 20]).chosen == [2]
    got = solve(problem, [10, 10, 21])
    assert got.chosen == [0, 1] and got.branched == 0      # a chain: the LP relaxation is 0/1, no branching


def test_a_candidate_storing_nothing_owns_a_value_every_reader_recomputes():
    """p (1) reads x (0) and is read by a (2) and b (3); both recompute it, so p needs no kernel at all, and
    x is read by the copies, not by p's owner."""
    readers = {0: frozenset({1}), 1: frozenset({2, 3}), 2: frozenset({4}), 3: frozenset({4}), 4: frozenset()}
    cands = [Candidate(frozenset({1}), stores=frozenset({1})), Candidate(frozenset({1})),
             Candidate(frozenset({2}), frozenset({1}), frozenset({2})), Candidate(frozenset({3}), frozenset({1}), frozenset({3})),
             Candidate(frozenset({2}), stores=frozenset({2})), Candidate(frozenset({3}), stores=frozenset({3})),
             Candidate(frozenset({0}), stores=frozenset({0}))]
    problem = Problem(readers, frozenset({0, 1, 2, 3}), cands)
    got = solve(problem, [10, 0, 12, 12, 11, 11, 5])
    assert sorted(got.chosen) == [1, 2, 3, 6] and got.cost == 29
    assert problem.reads(1) == frozenset() and problem.reads(2) == frozenset({0})   # the copies read x
    assert sorted(solve(problem, [10, 0, 20, 20, 11, 11, 5]).chosen) == [0, 4, 5, 6]


def _odd_cycle() -> tuple[Problem, list[int]]:
    """Generics 0, 1, 2 (a triangle of reads, all returned by op 3) and the three pairs: the LP takes each
    pair at one half (1.5 pairs' bytes), but a choice is one pair and one singleton."""
    readers = {0: frozenset({1, 2, 3}), 1: frozenset({2, 3}), 2: frozenset({3}), 3: frozenset()}
    single = [Candidate(frozenset({g}), stores=frozenset({g})) for g in range(3)]
    pairs = [Candidate(frozenset(p), stores=frozenset(p)) for p in ((0, 1), (1, 2), (0, 2))]
    return Problem(readers, frozenset({0, 1, 2}), single + pairs), [16, 16, 16, 20, 20, 20]


def test_a_fractional_relaxation_is_branched_on_and_still_exact(monkeypatch):
    import experiments.partition_milp as pm

    branched = []
    real = pm._branch
    monkeypatch.setattr(pm, "_branch", lambda *a, **k: branched.append(1) or real(*a, **k))
    problem, costs = _odd_cycle()
    got = solve(problem, costs)
    assert branched and 1 <= got.branched <= got.solves   # the LP alone did not settle it
    assert (got.cost, len(got.chosen)) == brute_force(problem, costs) == (36, 2)


@pytest.mark.parametrize("seed", range(40))
def test_reduced_cost_fixing_from_a_restricted_milp_keeps_the_optimum(monkeypatch, seed):
    """The first MILP sees one column beside those of reduced cost 0, so whenever the relaxation is fractional
    its answer is an upper bound, the columns fixed by it are dropped, and the rest solved again."""
    import experiments.partition_milp as pm

    monkeypatch.setattr(pm, "_FIRST_COLUMNS", 1)
    problem, costs = _random_problem(random.Random(1000 + seed))
    want = brute_force(problem, costs)
    got = solve(problem, costs)
    assert (got.cost, len(got.chosen)) == want if want else got.status == "infeasible"
    if want:
        assert _valid(problem, got.chosen)


def test_a_candidate_whose_reduced_cost_exceeds_the_gap_is_left_out_of_every_milp(monkeypatch):
    """On the odd cycle with a dear kernel of all three generics beside it: the relaxation's reduced cost of
    that kernel exceeds any incumbent's gap, so no MILP sees it, and the answer is still the optimum."""
    import experiments.partition_milp as pm

    seen = []
    real = pm._branch

    def spy(c, a, lo, hi, lower, upper, integrality, limit):
        seen.append(upper[6] > 0)
        return real(c, a, lo, hi, lower, upper, integrality, limit)

    monkeypatch.setattr(pm, "_branch", spy)
    monkeypatch.setattr(pm, "_FIRST_COLUMNS", 1)
    problem, costs = _odd_cycle()
    problem.candidates.append(Candidate(frozenset({0, 1, 2}), stores=frozenset({0, 1, 2})))
    costs.append(400)
    got = solve(problem, costs)
    assert (got.cost, len(got.chosen)) == brute_force(problem, costs) == (36, 2)
    assert seen and not any(seen)

"""The exact choice of kernels for one function, as a MILP over candidate kernels (issue #26).

A *schedule* of a function is a set of kernels.  Each kernel is a
:class:`Candidate`: the generics it **owns** (it computes them, and stores
those other kernels or ops read), the generics it **copies** (it recomputes
them from their inputs instead of reading what another kernel stored:
docs/groups.md, "Stored or recomputed"), and which owned generics it
**stores**.  A candidate that stores nothing is no kernel: it stands for a
generic every reader recomputes (docs/groups.md: "A goes entirely when it
then stores nothing"), owns it, reads nothing and costs nothing.  A schedule
is valid when

1. every generic is owned by exactly one kernel (a copy covers a generic a
   second time; ownership is a partition);
2. every value a kernel reads from a generic it does not compute is stored,
   by that generic's owner, and so is every generic a non-kernel op (a named
   op, ``tensor.*``, the return) reads;
3. the graph of kernels and non-kernel ops is acyclic: a kernel runs after
   every kernel and op it reads from.

:func:`solve` finds the valid schedule of least total cost among the
candidates given, exactly:

    minimize   sum_K x_K * ((cost_K // u) * (G + 1) + 1)
    subject to sum_{K owns g}   x_K = 1          for each generic g          (1)
               s_g = sum_{K stores g} x_K        for each generic g          (2)
               s_g = 1                           if a non-kernel op reads g  (2)
               x_K <= s_g                        for each K, g K reads unowned/uncopied  (2)
               lifted cycle cuts                                             (3)
               x_K in {0, 1},  0 <= s_g <= 1

``cost_K`` is the candidate's price in bytes (an integer; ``None`` takes it
out), ``u`` the greatest common divisor of the prices (integer coefficients
keep HiGHS exact), ``G`` the number of generics: a kernel adds 1 (a
candidate storing nothing, 0) and a byte ``G + 1``, and no schedule has more
than ``G`` kernels (each stores a generic no other kernel stores), so the
optimum has the fewest bytes and, among those, the fewest kernels.  HiGHS solves with ``mip_rel_gap = 0``; its absolute gap
(1e-6) is below one unit of the integer objective.

Each MILP of (1), (2) and the cuts so far is solved in steps (:func:`_milp`): the
LP relaxation first, which on these set partitions is usually already 0/1
and then the optimum; else a MILP over the candidates of least reduced cost
gives an incumbent, reduced-cost fixing drops every candidate that no choice
as good as it can take, and HiGHS, without its presolve, solves the rest.
Every step is exact.  (Before, HiGHS alone spent 25 s in presolve on
rmsnorm_bwd_f32's 3,525 candidates and then settled it at the root in 12
LP iterations; on the larger norm backwards, 12,149 to 51,043 candidates,
it did not finish in 300 s.)

Acyclicity (3) is added lazily: solve, build the kernel graph of the answer
(:func:`kernel_graph`), and while it has a cycle add, for each strongly
connected component, a cut on one shortest cycle through it and solve again.
A cut on a cycle ``K_1 -> ... -> K_m -> K_1`` is lifted: with ``V_i`` every
candidate that owns what ``K_i`` owns, reads what ``K_i`` reads on the cycle's
edge into it and stores what ``K_i`` stores on the edge out of it, any choice
of one candidate from each ``V_i`` closes the same cycle, and ownership lets
at most one of each ``V_i`` in, so ``sum over the V_i of x <= m - 1`` cuts off
exactly schedules with that cycle.  The loop ends with an acyclic optimum,
which is optimal for (1)-(3).

Pure: it sees generics and ops as integers (op positions), so the tests can
check it against a brute force over every subset of candidates.
Experiments only: not part of the installed package.
"""

from __future__ import annotations

import math
import time
from collections import deque
from dataclasses import dataclass, field
from functools import cached_property


@dataclass(frozen=True)
class Candidate:
    """One possible kernel: generics it ``owns``, ``copies`` (recomputes) and ``stores`` (a subset of ``owns``)."""

    owns: frozenset[int]
    copies: frozenset[int] = frozenset()
    stores: frozenset[int] = frozenset()

    @property
    def members(self) -> frozenset[int]:
        return self.owns | self.copies

    @property
    def is_kernel(self) -> bool:
        """Whether it runs: a candidate storing nothing stands for values every reader recomputes."""
        return bool(self.stores)


@dataclass
class Problem:
    """One function: ``readers[v]`` the ops reading op ``v`` (an acyclic op graph over op positions), the
    ``generics`` kernels own, and the ``candidates``."""

    readers: dict[int, frozenset[int]]
    generics: frozenset[int]
    candidates: list[Candidate]

    @cached_property
    def producers(self) -> dict[int, frozenset[int]]:
        out: dict[int, set[int]] = {v: set() for v in self.readers}
        for v, rs in self.readers.items():
            for r in rs:
                out.setdefault(r, set()).add(v)
        return {v: frozenset(ps) for v, ps in out.items()}

    @cached_property
    def must_store(self) -> frozenset[int]:
        """Generics a non-kernel op reads."""
        return frozenset(g for g in self.generics if self.readers.get(g, frozenset()) - self.generics)

    def reads(self, k: int) -> frozenset[int]:
        """Generics candidate ``k`` reads and does not compute (stored by their owners)."""
        return self._reads[k][0]

    def op_reads(self, k: int) -> frozenset[int]:
        """Non-kernel ops candidate ``k`` reads."""
        return self._reads[k][1]

    @cached_property
    def _reads(self) -> list[tuple[frozenset[int], frozenset[int]]]:
        out = []
        for c in self.candidates:
            members = c.members if c.is_kernel else frozenset()
            read = set().union(*(self.producers.get(m, frozenset()) for m in members)) - members
            out.append((frozenset(read & self.generics), frozenset(read - self.generics)))
        return out


@dataclass(frozen=True)
class Cut:
    """``sum of x over candidates <= rhs``: a lifted cycle cut."""

    candidates: frozenset[int]
    rhs: int


@dataclass
class Solution:
    """The chosen candidates of an acyclic optimum (``chosen`` is empty when ``status`` is not ``optimal``)."""

    status: str                  # optimal | time limit | infeasible
    chosen: list[int] = field(default_factory=list)
    cost: int = 0                # summed cost of the chosen candidates
    solves: int = 0              # MILPs solved (one more per round of cycle cuts)
    branched: int = 0            # of those, the ones whose LP relaxation was not 0/1 (HiGHS branched)
    cuts: int = 0                # cycle cuts added by this call
    solve_s: float = 0.0         # seconds inside HiGHS


def _objective(problem: Problem, costs: list[int | None]) -> list[int]:
    prices = [c for c in costs if c is not None]
    unit = max(1, math.gcd(*prices)) if prices else 1
    weight = len(problem.generics) + 1
    return [0 if c is None else (c // unit) * weight + cand.is_kernel for c, cand in zip(costs, problem.candidates)]


def _model(problem: Problem, costs: list[int | None], cuts: list[Cut]):
    """(objective, CSR matrix, row lower, row upper, column lower, column upper, integrality) of (1), (2) and
    ``cuts``: columns ``0..n-1`` are the candidates' ``x``, then one ``s`` per generic."""
    import numpy as np
    from scipy.sparse import coo_matrix

    n = len(problem.candidates)
    gens = sorted(problem.generics)
    s_index = {g: n + j for j, g in enumerate(gens)}
    rows, cols, vals, lo, hi = [], [], [], [], []

    def row(entries, lower, upper):
        r = len(lo)
        for col, val in entries:
            rows.append(r)
            cols.append(col)
            vals.append(val)
        lo.append(lower)
        hi.append(upper)

    owners = {g: [] for g in gens}
    storers = {g: [] for g in gens}
    for k, c in enumerate(problem.candidates):
        if costs[k] is None:
            continue
        for g in c.owns:
            owners[g].append(k)
        for g in c.stores:
            storers[g].append(k)
    for g in gens:
        row([(k, 1.0) for k in owners[g]], 1.0, 1.0)                                   # (1)
        row([(s_index[g], 1.0)] + [(k, -1.0) for k in storers[g]], 0.0, 0.0)          # (2)
    for k in range(n):
        if costs[k] is not None:
            for g in problem.reads(k):
                row([(k, 1.0), (s_index[g], -1.0)], -np.inf, 0.0)                     # (2)
    for cut in cuts:
        row([(k, 1.0) for k in sorted(cut.candidates)], -np.inf, float(cut.rhs))     # (3)
    a = coo_matrix((vals, (rows, cols)), shape=(len(lo), n + len(gens))).tocsr()
    c = np.array(_objective(problem, costs) + [0] * len(gens), dtype=float)
    lower = np.array([0.0] * n + [1.0 if g in problem.must_store else 0.0 for g in gens])
    upper = np.array([0.0 if x is None else 1.0 for x in costs] + [1.0] * len(gens))
    integrality = np.array([1] * n + [0] * len(gens))
    return c, a, np.array(lo), np.array(hi), lower, upper, integrality


# Slack on the LP's objective and reduced costs (HiGHS's tolerances are 1e-7; the objective is integral and
# of order 1e6 to 1e8 here): reduced-cost fixing keeps a column unless it provably cannot be in a solution
# at least as good as the incumbent, with this much to spare.
_LP_SLACK = 1e-6
# Columns of the first restricted MILP besides those of reduced cost 0 (doubled while it is infeasible).
_FIRST_COLUMNS = 64


def _feasible(a, lo, hi, lower, upper, x) -> bool:
    """Whether the 0/1 point ``x`` (``s`` columns included) satisfies every row and bound exactly."""
    import numpy as np

    ax = a @ x
    return bool(np.all(ax >= lo - 1e-9) and np.all(ax <= hi + 1e-9) and np.all(x >= lower - 1e-9)
                and np.all(x <= upper + 1e-9))


def _relaxation(c, a, lo, hi, lower, upper, time_limit: float):
    """The LP relaxation by HiGHS: (status, x, objective, reduced costs of the candidates' lower bounds)."""
    import numpy as np
    from scipy.optimize import linprog
    from scipy.sparse import vstack

    eq = lo == hi
    sub, lo_ub, hi_ub = a[~eq], lo[~eq], hi[~eq]
    upper_rows, lower_rows = np.isfinite(hi_ub), np.isfinite(lo_ub)     # rows x <= hi, and rows x >= lo
    a_ub = vstack([sub[upper_rows], -sub[lower_rows]]).tocsr()
    b_ub = np.concatenate([hi_ub[upper_rows], -lo_ub[lower_rows]])
    res = linprog(c, A_ub=a_ub if a_ub.shape[0] else None, b_ub=b_ub if a_ub.shape[0] else None,
                  A_eq=a[eq] if eq.any() else None, b_eq=lo[eq] if eq.any() else None,
                  bounds=np.column_stack([lower, upper]), method="highs",
                  options={"time_limit": max(1.0, time_limit), "presolve": True})
    if res.status == 2:
        return "infeasible", None, None, None
    if res.status != 0:
        return "time limit", None, None, None
    return "optimal", res.x, res.fun, res.lower.marginals


def _branch(c, a, lo, hi, lower, upper, integrality, time_limit: float):
    """One HiGHS MILP over the columns whose ``upper`` is 1, without presolve (for these set partitions
    HiGHS's presolve and probing cost far more than the search): (status, x)."""
    import numpy as np
    from scipy.optimize import Bounds, LinearConstraint, milp

    live = np.flatnonzero(upper > 0)
    res = milp(c[live], integrality=integrality[live], bounds=Bounds(lower[live], upper[live]),
               constraints=[LinearConstraint(a[:, live], lo, hi)],
               options={"time_limit": max(1.0, time_limit), "mip_rel_gap": 0.0, "presolve": False,
                        "disp": False})
    if res.status == 0:
        x = np.zeros(len(c))
        x[live] = res.x
        return "optimal", x
    return ("infeasible" if res.status == 2 else "time limit"), None


def _milp(problem: Problem, costs: list[int | None], cuts: list[Cut], time_limit: float):
    """The optimum of (1), (2) and ``cuts`` (status, chosen candidates, whether it branched), exactly, in
    three steps.

    1. The LP relaxation.  When its answer is already 0/1 (the usual case here), it is the optimum.
    2. Otherwise a MILP over a few columns, those of least reduced cost: any 0/1 answer is a valid choice,
       its value an upper bound ``U``.
    3. Reduced-cost fixing: every valid choice costs at least the LP's value plus the reduced cost of each
       candidate it takes, so a candidate whose reduced cost exceeds ``U`` minus the LP's value is in no
       choice better than ``U`` and is dropped.  When step 2 already held every candidate kept, its answer
       is the optimum; otherwise the MILP over the kept candidates is."""
    import numpy as np

    t_end = time.monotonic() + time_limit
    n = len(problem.candidates)
    c, a, lo, hi, lower, upper, integrality = _model(problem, costs, cuts)
    status, x, z, reduced = _relaxation(c, a, lo, hi, lower, upper, time_limit)
    if status != "optimal":
        return status, [], False
    xr = np.round(x)
    if np.all(np.abs(x[:n] - xr[:n]) < 1e-9) and _feasible(a, lo, hi, lower, upper, xr) \
            and float(c @ xr) - z < 0.5:
        return "optimal", [k for k in range(n) if xr[k] > 0.5], False
    d = np.maximum(np.asarray(reduced[:n]), 0.0)
    avail = np.flatnonzero(upper[:n] > 0)
    order = avail[np.argsort(d[avail], kind="stable")]
    size = max(_FIRST_COLUMNS, int(np.sum(d[avail] <= 1e-9)))
    while True:
        few = np.zeros(n, dtype=bool)
        few[order[:size]] = True
        up = np.concatenate([np.where(few, upper[:n], 0.0), upper[n:]])
        status, xs = _branch(c, a, lo, hi, lower, up, integrality, t_end - time.monotonic())
        if status == "optimal" or size >= len(order):
            break
        if status == "time limit":
            return status, [], True
        size *= 2
    if status != "optimal":
        return status, [], True
    xs = np.round(xs)
    bound = float(c @ xs)
    keep = d <= (bound - z) + _LP_SLACK * max(1.0, abs(bound))
    keep &= upper[:n] > 0
    if np.all(few[keep]):
        return "optimal", [k for k in range(n) if xs[k] > 0.5], True
    up = np.concatenate([np.where(keep, upper[:n], 0.0), upper[n:]])
    status, xk = _branch(c, a, lo, hi, lower, up, integrality, t_end - time.monotonic())
    if status != "optimal":
        return status, [], True
    return "optimal", [k for k in range(n) if xk[k] > 0.5], True


def kernel_graph(problem: Problem, chosen: list[int]) -> dict[tuple, dict[tuple, int | None]]:
    """The graph of a valid choice: nodes ``("k", candidate)`` and ``("op", position)`` (non-kernel ops);
    ``graph[a][b]`` is the generic carried from ``a`` to ``b`` (``None`` between two ops)."""
    storer = {g: k for k in chosen for g in problem.candidates[k].stores}
    ops = {v for v in problem.readers if v not in problem.generics}
    graph: dict[tuple, dict[tuple, int | None]] = {("k", k): {} for k in chosen}
    graph.update({("op", v): {} for v in ops})
    for k in chosen:
        for g in problem.reads(k):
            graph[("k", storer[g])][("k", k)] = g
        for v in problem.op_reads(k):
            graph[("op", v)][("k", k)] = None
    for v in ops:
        for p in problem.producers.get(v, ()):
            if p in problem.generics:
                graph[("k", storer[p])][("op", v)] = p
            else:
                graph[("op", p)][("op", v)] = None
    return graph


def _components(graph: dict) -> list[list[tuple]]:
    """Strongly connected components with more than one node (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(graph[w])))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(comp)
    return out


def _shortest_cycle(graph: dict, start: tuple, within: set) -> list[tuple]:
    """Nodes of a shortest cycle through ``start`` inside ``within`` (``start`` first)."""
    parent = {start: None}
    queue = deque([start])
    while queue:
        v = queue.popleft()
        for w in graph[v]:
            if w not in within:
                continue
            if w == start:
                path = [v]
                while parent[path[-1]] is not None:
                    path.append(parent[path[-1]])
                return path[::-1]
            if w not in parent:
                parent[w] = v
                queue.append(w)
    raise AssertionError("a strongly connected component without a cycle")


def cycle_cuts(problem: Problem, chosen: list[int]) -> list[Cut]:
    """A lifted cut on one shortest cycle of each cyclic component of the choice's kernel graph."""
    graph = kernel_graph(problem, chosen)
    cuts = []
    for comp in _components(graph):
        start = next(v for v in comp if v[0] == "k")
        cycle = _shortest_cycle(graph, start, set(comp))
        kernels = []
        for i, node in enumerate(cycle):
            if node[0] != "k":
                continue
            before, after = cycle[i - 1], cycle[(i + 1) % len(cycle)]
            carried_in, carried_out = graph[before][node], graph[node][after]
            owns = problem.candidates[node[1]].owns
            kernels.append(frozenset(
                k for k, c in enumerate(problem.candidates) if c.owns == owns and carried_out in c.stores
                and (carried_in in problem.reads(k) if before[0] == "k" else before[1] in problem.op_reads(k))))
        cuts.append(Cut(frozenset().union(*kernels), len(kernels) - 1))
    return cuts


def solve(problem: Problem, costs: list[int | None], cuts: list[Cut] | None = None,
          deadline: float = math.inf) -> Solution:
    """The acyclic optimum for ``costs`` (per candidate; ``None``: not available).  ``cuts`` (the caller's
    list, extended in place) carries the cycle cuts found so far from one call to the next: they hold for
    any costs.  ``deadline`` (``time.monotonic()``) bounds HiGHS."""
    cuts = [] if cuts is None else cuts
    out = Solution("optimal")
    while True:
        t0 = time.monotonic()
        status, chosen, branched = _milp(problem, costs, cuts, deadline - t0)
        out.solve_s += time.monotonic() - t0
        out.solves += 1
        out.branched += branched
        if status != "optimal":
            out.status = status
            return out
        new = cycle_cuts(problem, chosen)
        if not new:
            out.chosen, out.cost = chosen, sum(costs[k] for k in chosen)
            return out
        cuts += new
        out.cuts += len(new)
        if time.monotonic() >= deadline:
            out.status = "time limit"
            return out

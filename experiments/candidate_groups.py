"""Every candidate kernel of one function, for the exact optimum (issue #26).

A candidate (:class:`partition_milp.Candidate`) is a group of generics the
function's schedule may make one kernel.  It **owns** a set ``O`` of generics that is

* **connected**: joined by producer→consumer edges among its members;
* **convex**: no path through the function's ops leaves ``O`` and comes back
  (the kernel could not run before or after the op in between);
* **row-legal**: :func:`costfuse.kernel.analyze_kernel` accepts it: one row
  space, reads inside the row, no gather of a member's value
  (costfuse/rowspace.py, docs/groups.md);

and, as docs/groups.md "Stored or recomputed" allows, it may **copy**
producers of its members that other kernels own: recompute them from their
inputs instead of reading what their owner stored.  A copy is never a
reduction, and is a producer with several users: one in ``O`` and one
outside (with a single user, owning it is the same kernel).  Each owned
member that a generic outside reads is **stored**, or not when every such
reader recomputes it: that choice is part of the candidate, since storing
a value changes the kernel (an output, a longer live range, a last pass).
Not storing is offered only for a member that is no reduction, that a
member of the kernel reads (else it would be computed for nothing) and
whose outside readers are all generics that can share a kernel (a named
op or the return cannot recompute).  A candidate storing nothing is not
kept, except a lone non-reduction generic every reader may recompute: it
stands for "no kernel, every reader recomputes it" and costs nothing.

Generics that cannot share a kernel (:func:`costfuse.rowspace.op_space`
refuses them, or they are not a row kernel on their own) are lone kernels,
as the pass makes them (v1's config, :meth:`costfuse.policy.GroupPolicy.lone_estimate`);
generics with dynamic shapes are no kernel at all and stay among the ops.

The owned sets are grown breadth-first, one neighbour at a time, from the
singletons, keeping the convex ones (every connected convex set loses a
member and stays connected and convex, so growth reaches them all; row
legality is not kept under growth, so illegal sets are grown from too).  A
``max_candidates`` budget stops the growth between two owned sets, smaller
ones first, and says so (:attr:`Enumeration.complete`).

Experiments only: not part of the installed package.
"""

from __future__ import annotations

import itertools
import math
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from iree.compiler import ir

from costfuse.graph import GENERIC
from costfuse.groups import label, op_users
from costfuse.kernel import KernelShape, NotAKernel, analyze_kernel
from costfuse.rowspace import NotGroupable, op_space, static_shapes

sys.path.insert(0, str(Path(__file__).resolve().parent))

from partition_milp import Candidate, Problem  # noqa: E402


@dataclass
class FunctionGraph:
    """The ops of one function body as a graph: ``readers[p]`` the positions of the ops reading op ``p``."""

    ops: list[ir.Operation]
    readers: dict[int, frozenset[int]]
    generics: frozenset[int]          # generics that become kernels (static shapes)
    groupable: frozenset[int]         # of those, the ones that may share a kernel
    reductions: frozenset[int]
    gnum: dict[int, int]              # position -> generic number (program order, as --explain counts)

    @classmethod
    def of(cls, block: ir.Block) -> "FunctionGraph":
        ops = [op.operation for op in block.operations]
        pos = {op: i for i, op in enumerate(ops)}
        readers = {i: frozenset(op_users(op, pos)) for i, op in enumerate(ops)}
        gpos = [i for i, op in enumerate(ops) if op.name == GENERIC]
        generics = frozenset(i for i in gpos if static_shapes(ops[i]))
        groupable, reductions = set(), set()
        for i in generics:
            space = op_space(ops[i])
            if isinstance(space, NotGroupable):
                continue
            try:
                analyze_kernel([ops[i]])
            except NotAKernel:
                continue
            groupable.add(i)
            if space.reduces:
                reductions.add(i)
        return cls(ops, readers, generics, frozenset(groupable), frozenset(reductions),
                   {p: k for k, p in enumerate(gpos)})

    def producers(self, i: int) -> frozenset[int]:
        return self._producers[i]

    @cached_property
    def _producers(self) -> dict[int, frozenset[int]]:
        out: dict[int, set[int]] = {i: set() for i in self.readers}
        for i, rs in self.readers.items():
            for r in rs:
                out[r].add(i)
        return {i: frozenset(s) for i, s in out.items()}

    def reach(self) -> tuple[list[int], list[int]]:
        """(descendants, ancestors) of every op as bit masks over positions (program order is topological)."""
        n = len(self.ops)
        desc, anc = [0] * n, [0] * n
        for i in reversed(range(n)):
            for r in self.readers[i]:
                desc[i] |= (1 << r) | desc[r]
        for i in range(n):
            for p in self._producers[i]:
                anc[i] |= (1 << p) | anc[p]
        return desc, anc

    def name(self, owns, copies=()) -> str:
        """``g1+g2'+g5``: the generic numbers, 1-based, copies marked (costfuse.groups.label)."""
        return label([self.gnum[p] for p in (*owns, *copies)], [self.gnum[p] for p in copies])


@dataclass
class Priced:
    """A candidate with what pricing needs: its members' ops in program order, those not stored, and its
    shape (``None`` for a lone kernel, which keeps v1's config, and for a candidate that stores nothing)."""

    candidate: Candidate
    ops: list[ir.Operation]
    unstored: frozenset
    shape: KernelShape | None
    label: str


@dataclass
class Enumeration:
    """The candidates of one function and whether the enumeration saw them all."""

    graph: FunctionGraph
    priced: list[Priced] = field(default_factory=list)
    owned_sets: int = 0               # legal owned sets (before copy and store variants)
    complete: bool = True
    stopped: str = ""                 # why not complete

    @property
    def problem(self) -> Problem:
        return Problem(self.graph.readers, self.graph.generics, [p.candidate for p in self.priced])


def owned_sets(graph: FunctionGraph):
    """Connected convex sets of groupable generics as sorted position tuples, by size, then first found."""
    desc, anc = graph.reach()
    near = {i: (graph.readers[i] | graph.producers(i)) & graph.groupable for i in graph.groupable}
    level = {1 << i: (desc[i], anc[i]) for i in sorted(graph.groupable)}
    seen = set(level)
    while level:
        following = {}
        for s, (d, a) in level.items():
            members = [i for i in sorted(graph.groupable) if s >> i & 1]
            yield tuple(members)
            for u in sorted(set().union(*(near[i] for i in members))):
                s2 = s | (1 << u)
                if s2 in seen:
                    continue
                seen.add(s2)
                d2, a2 = d | desc[u], a | anc[u]
                if d2 & a2 & ~s2 == 0:       # no op outside is both after and before the set
                    following[s2] = (d2, a2)
        level = following


def _shape(graph: FunctionGraph, members, unstored) -> KernelShape | None:
    try:
        return analyze_kernel([graph.ops[i] for i in sorted(members)], frozenset(graph.ops[i] for i in unstored))
    except NotAKernel:
        return None


def variants(graph: FunctionGraph, owns: tuple[int, ...], shape: KernelShape) -> list[Priced]:
    """Every candidate owning ``owns`` (row-legal, with ``shape``): each set of copies, each choice of stores."""
    inside = set(owns)
    copyable = sorted({p for i in owns for p in graph.producers(i)
                       if p in graph.groupable and p not in graph.reductions and p not in inside
                       and graph.readers[p] - inside})
    out = []
    for k in range(len(copyable) + 1):
        for copies in itertools.combinations(copyable, k):
            members = inside | set(copies)
            legal = shape if not copies else _shape(graph, members, copies)
            if legal is None:
                continue
            must, may = [], []
            for g in owns:
                outside = graph.readers[g] - members
                if not outside:
                    continue
                if g in graph.reductions or not graph.readers[g] & members or outside - graph.groupable:
                    must.append(g)
                else:
                    may.append(g)
            for j in range(len(may) + 1):
                for dropped in itertools.combinations(may, j):
                    stores = frozenset(must) | (frozenset(may) - frozenset(dropped))
                    if not stores:
                        continue
                    unstored = frozenset(members) - stores
                    s = legal if not dropped else _shape(graph, members, unstored)
                    out.append(Priced(Candidate(frozenset(owns), frozenset(copies), stores),
                                      [graph.ops[i] for i in sorted(members)], frozenset(graph.ops[i] for i in unstored),
                                      s, graph.name(owns, copies)))
    return out


@contextmanager
def _ir_memo():
    """While the IR stands still (enumeration reads it, never rewrites it), answer the per-op row-space
    questions :func:`costfuse.kernel.analyze_kernel` asks of every candidate from a cache: on the larger
    backward graphs the same few ops are asked about tens of thousands of times.  The answers are those
    of :func:`costfuse.rowspace.op_space` and :func:`~costfuse.rowspace.reads_in_row`, unchanged."""
    import costfuse.kernel as kernel_mod
    import costfuse.rowspace as rowspace_mod

    saved = (rowspace_mod.op_space, kernel_mod.op_space, kernel_mod.reads_in_row)
    op_space_fn, reads_fn = saved[0], saved[2]
    spaces, reads = {}, {}

    def op_space_memo(op):
        if op not in spaces:
            spaces[op] = op_space_fn(op)
        return spaces[op]

    def reads_memo(producer, result, consumer, operand):
        key = (producer, result, consumer, operand)
        if key not in reads:
            reads[key] = reads_fn(producer, result, consumer, operand)
        return reads[key]

    rowspace_mod.op_space = kernel_mod.op_space = op_space_memo
    kernel_mod.reads_in_row = reads_memo
    try:
        yield
    finally:
        rowspace_mod.op_space, kernel_mod.op_space, kernel_mod.reads_in_row = saved


def enumerate_candidates(graph: FunctionGraph, max_candidates: int | None = None,
                         deadline: float = math.inf) -> Enumeration:
    """Every candidate of ``graph`` (module docstring), or as many as ``max_candidates`` and ``deadline``
    (``time.monotonic()``) allow."""
    with _ir_memo():
        return _enumerate(graph, max_candidates, deadline)


def _enumerate(graph: FunctionGraph, max_candidates: int | None, deadline: float) -> Enumeration:
    out = Enumeration(graph)
    for g in sorted(graph.generics - graph.groupable):      # lone kernels: alone in every schedule
        out.priced.append(Priced(Candidate(frozenset({g}), stores=frozenset({g})), [graph.ops[g]],
                                 frozenset(), None, graph.name([g])))
    for g in sorted(graph.groupable - graph.reductions):    # no kernel: every reader recomputes it
        if graph.readers[g] and not graph.readers[g] - graph.groupable:
            out.priced.append(Priced(Candidate(frozenset({g})), [], frozenset(), None,
                                     f"{graph.name([g])} (no kernel: every reader recomputes it)"))
    for owns in owned_sets(graph):
        if time.monotonic() >= deadline:
            out.complete = False
            out.stopped = f"time budget reached: owned groups of {len(owns)} generics and more not enumerated"
            break
        shape = _shape(graph, owns, ())
        if shape is None:
            continue
        more = variants(graph, owns, shape)
        if max_candidates is not None and len(out.priced) + len(more) > max_candidates:
            out.complete = False
            out.stopped = (f"candidate budget {max_candidates} reached: owned groups of {len(owns)} generics "
                           f"and more not enumerated")
            break
        out.owned_sets += 1
        out.priced += more
    return out


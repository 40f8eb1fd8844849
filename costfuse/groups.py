"""Kernel-group formation: which generics of a function share one kernel (docs/groups.md).

Priority fusion, as XLA's GPU ``PriorityFusion`` does it: every generic
starts as its own kernel; every pair of kernels joined by a producer→consumer
edge is a candidate; the cost model prices each kernel at its best config
(:meth:`CostModel.best_config`) and says whether a pair should become one
(:meth:`CostModel.merge_verdict`); the merge with the highest priority (the
time it saves) is applied first, then the candidates around the merged kernel
are priced again.  Ties break on program order, so the result is
deterministic.

A merge is legal when the members form one row kernel
(:func:`costfuse.kernel.analyze_kernel`) and the merged kernel does not
close a cycle through ops outside it: no path may leave the pair and come
back.  A value used outside its kernel is stored by it, so a kernel may have
several outputs.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

from iree.compiler import ir

from costfuse.cost_models.base import CostModel, GroupEstimate
from costfuse.data.launch_config import heuristic_config
from costfuse.graph import GENERIC, num_inputs
from costfuse.kernel import KernelShape, NotAKernel, analyze_kernel
from costfuse.launch import KernelLaunch


@dataclass
class Kernel:
    """One formed kernel: member generic numbers (0-based, program order), its
    row shape (``None`` when a lone generic is not a row kernel), and the config
    and estimates the cost model chose."""

    members: tuple[int, ...]
    shape: KernelShape | None
    estimate: GroupEstimate

    @property
    def label(self) -> str:
        return label(self.members)


def label(members) -> str:
    """``g1+g2+g5``: the members' generic numbers, 1-based as in v1's ``--explain``."""
    return "+".join(f"g{m + 1}" for m in sorted(members))


@dataclass(frozen=True)
class GroupDecision:
    """One candidate merge the pass looked at, for ``--explain``."""

    verdict: str             # merge | keep | skip
    a: str
    b: str
    reason: str
    estimate: GroupEstimate | None = None

    def line(self) -> str:
        est = f" [{self.estimate.line()}]" if self.estimate is not None else ""
        return f"{self.verdict:5} {self.a} + {self.b}: {self.reason}{est}"


def lone_estimate(op: ir.Operation) -> GroupEstimate:
    """A generic that is not a row kernel keeps v1's config (it never merges)."""
    ins = list(op.operands)[: num_inputs(op)]
    nbytes = sum(_tensor_bytes(v) for v in ins + list(op.results))
    red = 1
    kinds = [str(t) for t in ir.ArrayAttr(op.attributes["iterator_types"])]
    rows = _tensor_elems(op.results[0]) if op.results else 1
    if any("reduction" in k for k in kinds):
        red = max(1, _tensor_elems(ins[0]) // max(1, rows)) if ins else 1
    c = heuristic_config(rows, red)
    mode = "pointwise" if red == 1 else ("persistent" if c.RBLOCK >= red else "looped")
    return GroupEstimate(KernelLaunch(mode, c.XBLOCK, c.RBLOCK, c.num_warps), float("nan"), nbytes,
                         reason="not a row kernel: v1 config")


def _tensor_elems(v: ir.Value) -> int:
    n = 1
    for s in ir.RankedTensorType(v.type).shape:
        n *= s
    return n


def _tensor_bytes(v: ir.Value) -> int:
    t = ir.RankedTensorType(v.type)
    et = t.element_type
    bits = et.width if hasattr(et, "width") else 32
    return _tensor_elems(v) * max(8, bits) // 8


@dataclass
class _Formation:
    ops: list[ir.Operation]          # every op of the block, program order
    model: CostModel
    decisions: list[GroupDecision] = field(default_factory=list)

    def __post_init__(self):
        self.pos = {op: i for i, op in enumerate(self.ops)}
        self.generic_pos = [i for i, op in enumerate(self.ops) if op.name == GENERIC]
        self.gnum = {p: k for k, p in enumerate(self.generic_pos)}   # op position -> generic number
        self.users = [self._users(op) for op in self.ops]
        self.unit = list(range(len(self.ops)))       # op position -> unit id (a group's id is its first position)
        self.members = {p: [p] for p in self.generic_pos}
        self.version = {p: 0 for p in self.generic_pos}
        self.estimates: dict[frozenset, GroupEstimate | None] = {}
        self.shapes: dict[frozenset, KernelShape | NotAKernel] = {}
        self.user_pos: dict[int, set[int]] = {}      # unit -> positions of its members' users

    def _users(self, op: ir.Operation) -> set[int]:
        out = set()
        for res in op.results:
            for use in res.uses:
                owner = use.owner.operation
                while owner is not None and owner not in self.pos:   # a use nested in another op's region
                    owner = owner.parent
                if owner is not None and owner != op:
                    out.add(self.pos[owner])
        return out

    # -- kernels ---------------------------------------------------------------

    def shape(self, positions) -> KernelShape | NotAKernel:
        key = frozenset(positions)
        if key not in self.shapes:
            try:
                self.shapes[key] = analyze_kernel([self.ops[p] for p in sorted(key)])
            except NotAKernel as err:
                self.shapes[key] = err
        return self.shapes[key]

    def estimate(self, positions) -> GroupEstimate | None:
        key = frozenset(positions)
        if key not in self.estimates:
            s = self.shape(key)
            self.estimates[key] = None if isinstance(s, NotAKernel) else self.model.best_config(s)
        return self.estimates[key]

    def kernel(self, unit: int) -> Kernel:
        ps = self.members[unit]
        s = self.shape(ps)
        est = self.estimate(ps)
        if isinstance(s, NotAKernel):
            return Kernel(tuple(self.gnum[p] for p in ps), None, lone_estimate(self.ops[ps[0]]))
        if est is None:
            from costfuse.launch import heuristic_launch
            launch = heuristic_launch(s)
            est = GroupEstimate(launch, float("nan"), s.hbm_bytes(launch.mode),
                                reason=f"{self.model.name} accepts no config: heuristic config")
        return Kernel(tuple(self.gnum[p] for p in ps), s, est)

    # -- graph -------------------------------------------------------------------

    def successors(self, unit: int) -> set[int]:
        if unit not in self.user_pos:
            self.user_pos[unit] = set().union(*(self.users[p] for p in self.members.get(unit, [unit])))
        return {self.unit[u] for u in self.user_pos[unit]} - {unit}

    def closes_cycle(self, a: int, b: int) -> bool:
        """Whether some path leaves ``a`` and reaches ``b`` through another unit.

        A plain search over the unit graph: members of a merged unit are not
        contiguous in program order, so positions give no sound bound.
        """
        seen, stack = {a, b}, [u for u in self.successors(a) if u != b]
        while stack:
            u = stack.pop()
            if u in seen:
                continue
            seen.add(u)
            succ = self.successors(u)
            if b in succ:
                return True
            stack.extend(succ - seen)
        return False

    # -- candidates ----------------------------------------------------------------

    def name(self, unit: int) -> str:
        return label(self.gnum[p] for p in self.members[unit])

    def candidate(self, a: int, b: int) -> tuple[float, tuple, int, int, int, int] | None:
        """Price merging producer unit ``a`` into consumer unit ``b``; a heap entry if it should merge."""
        merged = sorted(self.members[a] + self.members[b])
        shape = self.shape(merged)
        if isinstance(shape, NotAKernel):
            self.decisions.append(GroupDecision("skip", self.name(a), self.name(b), str(shape)))
            return None
        ea, eb, eab = self.estimate(self.members[a]), self.estimate(self.members[b]), self.estimate(merged)
        if ea is None or eb is None or eab is None:
            self.decisions.append(GroupDecision("keep", self.name(a), self.name(b),
                                                f"{self.model.name} accepts no config for the merged kernel"))
            return None
        verdict = self.model.merge_verdict(ea, eb, eab, shape)
        if not verdict.merge:
            self.decisions.append(GroupDecision("keep", self.name(a), self.name(b), verdict.reason, eab))
            return None
        tie = (min(self.members[b]), min(self.members[a]))
        return (-verdict.priority, tie, a, b, self.version[a], self.version[b])

    def push_around(self, heap: list, unit: int) -> None:
        """Candidates between ``unit`` and every generic unit next to it."""
        for b in sorted(self.successors(unit)):
            if b in self.members and self._groupable(unit) and self._groupable(b):
                if (entry := self.candidate(unit, b)) is not None:
                    heapq.heappush(heap, entry)
        for a in sorted(self._predecessors(unit)):
            if a in self.members and self._groupable(a) and self._groupable(unit):
                if (entry := self.candidate(a, unit)) is not None:
                    heapq.heappush(heap, entry)

    def _predecessors(self, unit: int) -> set[int]:
        out = set()
        for p in self.members[unit]:
            for v in self.ops[p].operands:
                if not isinstance(v.owner, ir.Block) and v.owner.operation in self.pos:
                    out.add(self.unit[self.pos[v.owner.operation]])
        return out - {unit}

    def _groupable(self, unit: int) -> bool:
        return not (len(self.members[unit]) == 1 and isinstance(self.shape(self.members[unit]), NotAKernel))

    def run(self) -> list[Kernel]:
        heap: list = []
        for p in self.generic_pos:
            for b in sorted(self.successors(p)):
                if b in self.members and self._groupable(p) and self._groupable(b):
                    if (entry := self.candidate(p, b)) is not None:
                        heapq.heappush(heap, entry)
        while heap:
            _, _, a, b, va, vb = heapq.heappop(heap)
            if self.version.get(a) != va or self.version.get(b) != vb:
                continue   # stale: one side has merged since
            if self.closes_cycle(a, b):
                self.decisions.append(GroupDecision("skip", self.name(a), self.name(b),
                                                    "the merged kernel would close a cycle through other ops"))
                continue
            merged = sorted(self.members[a] + self.members[b])
            est = self.estimate(merged)
            self.decisions.append(GroupDecision("merge", self.name(a), self.name(b),
                                                self.model.merge_verdict(self.estimate(self.members[a]),
                                                                         self.estimate(self.members[b]), est,
                                                                         self.shape(merged)).reason, est))
            keep, gone = min(a, b), max(a, b)
            self.members[keep] = merged
            del self.members[gone], self.version[gone]
            self.user_pos.pop(keep, None)
            self.user_pos.pop(gone, None)
            self.version[keep] += 1
            for p in merged:
                self.unit[p] = keep
            self.push_around(heap, keep)
        return [self.kernel(u) for u in sorted(self.members)]


def form_groups(block: ir.Block, model: CostModel) -> tuple[list[Kernel], list[GroupDecision]]:
    """The kernels of ``block`` (a function body) and the decisions that formed them."""
    f = _Formation([op.operation for op in block.operations], model)
    kernels = f.run()
    return kernels, f.decisions

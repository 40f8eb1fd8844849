"""Kernel-group formation: which generics of a function share one kernel (docs/groups.md).

Priority fusion, as XLA's GPU ``PriorityFusion`` does it: every generic
starts as its own kernel; every pair of kernels joined by a producer→consumer
edge is a candidate; the cost model prices each kernel at its best config
(:meth:`GroupPolicy.best_config`) and says whether a pair should become one
(:meth:`GroupPolicy.merge_verdict`); the merge with the highest priority (the
time it saves) is applied first, then the candidates around the merged kernel
are priced again.  Ties break on program order, so the result is
deterministic.

A merge is legal when the members form one row kernel
(:func:`costfuse.kernel.analyze_kernel`) and the merged kernel does not
close a cycle through ops outside it: no path may leave the pair and come
back.  A value used outside its kernel is stored by it, so a kernel may have
several outputs.

A policy may ask for a multi-output phase once no merge is left
(:attr:`GroupPolicy.multi_output_fusion`), as XLA's ``MultiOutputFusion``
pass follows its priority fusion (``xla/service/gpu/fusion_pipeline.cc``):
kernels are visited uses before defs; the kernels reading one kernel's (or
argument's) outputs are offered to the policy as siblings, multi-output
kernels first, then fused ones, then lone generics; then that kernel is
offered as a producer to each of its readers, and the first one the policy
accepts, preferring multi-output, then fused readers, takes it
(:meth:`GroupPolicy.multi_output_verdict`).  Two kernels connected by a path
never merge as siblings.  Last, each kernel's config is the policy's
:meth:`GroupPolicy.final_config` of it.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field

from iree.compiler import ir

from costfuse.graph import GENERIC
from costfuse.kernel import KernelShape, NotAKernel, analyze_kernel, defining_op
from costfuse.policy import GroupEstimate, GroupPolicy, MergeVerdict
from costfuse.rowspace import DYNAMIC, static_shapes


@dataclass
class Kernel:
    """One formed kernel: member generic numbers (0-based, program order), its
    row shape (``None`` when a lone generic is not a row kernel), and the config
    and estimates the cost model chose."""

    members: tuple[int, ...]
    shape: KernelShape | None
    estimate: GroupEstimate
    recomputed: tuple[int, ...] = ()   # members that are copies of a producer (stored elsewhere, or nowhere)
    unstored: tuple[int, ...] = ()     # members whose results the kernel does not return (copies included)

    @property
    def label(self) -> str:
        return label(self.members, self.recomputed)


def label(members, recomputed=()) -> str:
    """``g1+g2'+g5``: the members' generic numbers, 1-based as in v1's ``--explain``; ``'`` marks a
    recomputed copy of a producer."""
    copies = set(recomputed)
    return "+".join(f"g{m + 1}" + ("'" if m in copies else "") for m in sorted(members))


@dataclass(frozen=True)
class GroupDecision:
    """One candidate merge the pass looked at, for ``--explain``."""

    verdict: str             # merge | keep | skip | recompute | store | stay
    a: str
    b: str
    reason: str
    estimate: GroupEstimate | None = None

    def line(self) -> str:
        est = f" [{self.estimate.line()}]" if self.estimate is not None else ""
        other = f" + {self.b}" if self.b else ""   # a decision on one unit names no second
        return f"{self.verdict:5} {self.a}{other}: {self.reason}{est}"


Refusal = Callable[[ir.Operation], "str | None"]
"""Why the lowering refuses a generic as a kernel (``None``: it lowers).  Injected by whoever may import
the lowering (``costfuse-opt`` passes ``costfuse.data.refusals.lowering_refusal``): the core does not."""


def op_users(op: ir.Operation, pos: dict[ir.Operation, int]) -> set[int]:
    """Positions (``pos``: the block's ops) of the ops that use ``op``'s results; a use nested in another
    op's region counts as a use by that op."""
    out = set()
    for res in op.results:
        for use in res.uses:
            owner = use.owner.operation
            while owner is not None and owner not in pos:   # a use nested in another op's region
                owner = owner.parent
            if owner is not None and owner != op:
                out.add(pos[owner])
    return out


@dataclass
class _Formation:
    ops: list[ir.Operation]          # every op of the block, program order
    model: GroupPolicy
    refuses: Refusal | None = None   # a generic it refuses stays in the caller, in no kernel
    arguments: tuple = ()            # the block's arguments (the multi-output phase's parameters)
    decisions: list[GroupDecision] = field(default_factory=list)

    def __post_init__(self):
        self.pos = {op: i for i, op in enumerate(self.ops)}
        self.generic_pos = [i for i, op in enumerate(self.ops) if op.name == GENERIC]
        self.gnum = {p: k for k, p in enumerate(self.generic_pos)}   # op position -> generic number
        self.users = [op_users(op, self.pos) for op in self.ops]
        self.unit = list(range(len(self.ops)))       # op position -> unit id (a group's id is its first position)
        self.members = {p: [p] for p in self.generic_pos}
        self.version = {p: 0 for p in self.generic_pos}
        self.estimates: dict[frozenset, GroupEstimate | None] = {}
        self.shapes: dict[frozenset, KernelShape | NotAKernel] = {}
        self.member_memo: dict = {}                  # (op, role) -> Member, shared by every shape priced here
        self.user_pos: dict[int, set[int]] = {}      # unit -> positions of its owned members' users
        self.copies: dict[int, set[int]] = {}        # unit -> positions it recomputes (owned by another unit)
        self._noted: set[GroupDecision] = set()
        self._refusals: dict[int, str | None] = {}

    def note(self, decision: GroupDecision) -> None:
        """Record a decision for ``--explain``.  A skip is a fact about the pair (it would close a cycle,
        it is no row kernel), not a priced answer, so it is said once, however often the pair comes up
        again; priced answers are said each time, since the kernels around them changed."""
        if decision.verdict == "skip":
            if decision in self._noted:
                return
            self._noted.add(decision)
        self.decisions.append(decision)

    # -- kernels ---------------------------------------------------------------

    def refusal(self, p: int) -> str | None:
        """Why the lowering refuses the generic at position ``p`` (``None``: it lowers, or nobody asked)."""
        if self.refuses is None or not static_shapes(self.ops[p]):   # a dynamic one stays anyway
            return None
        if p not in self._refusals:
            self._refusals[p] = self.refuses(self.ops[p])
        return self._refusals[p]

    def _key(self, positions, copies) -> tuple[frozenset, frozenset, frozenset]:
        """A would-be kernel's members, its copies, and the members it stores for copies elsewhere
        (:meth:`read_by_copies`): what its shape depends on."""
        return frozenset(positions), frozenset(copies), self.read_by_copies(positions, copies)

    def shape(self, positions, copies=frozenset()) -> KernelShape | NotAKernel:
        return self._shape_at(self._key(positions, copies))

    def _shape_at(self, key) -> KernelShape | NotAKernel:
        if key not in self.shapes:
            refused = next((p for p in sorted(key[0]) if self.refusal(p)), None)
            if refused is not None:
                self.shapes[key] = NotAKernel(f"the lowering refuses g{self.gnum[refused] + 1}")
                return self.shapes[key]
            try:
                self.shapes[key] = analyze_kernel([self.ops[p] for p in sorted(key[0])],
                                                  frozenset(self.ops[p] for p in key[1]),
                                                  frozenset(self.ops[p] for p in key[2]), self.member_memo)
            except NotAKernel as err:
                self.shapes[key] = err
        return self.shapes[key]

    def estimate(self, positions, copies=frozenset()) -> GroupEstimate | None:
        key = self._key(positions, copies)
        if key not in self.estimates:
            s = self._shape_at(key)
            self.estimates[key] = None if isinstance(s, NotAKernel) else self.model.best_config(s)
        return self.estimates[key]

    def of(self, unit: int) -> tuple[list[int], frozenset[int]]:
        """(members, members whose results ``unit`` does not store) of ``unit``."""
        return self.members[unit], self.unstored(self.members[unit], self.copies.get(unit, set()))

    def unstored(self, positions, copies) -> frozenset[int]:
        """Members of a would-be kernel over ``positions`` whose results it need not store: its
        ``copies``, and members every outside reader of which recomputes them itself.

        A reader is an op outside (in its own unit) or a copy another unit holds of a reader (a copy
        sits at its original's position, which may be inside us, yet reads our member from another
        kernel): each must hold its own copy of the member."""
        inside = set(positions)
        out = set(copies)
        elsewhere = self._copies_elsewhere(inside)
        for p in inside - set(copies):
            readers = self.users[p] - inside
            copied_readers = [cs for cs in elsewhere if cs & self.users[p]]
            if (readers or copied_readers) \
                    and all(self.ops[q].name == GENERIC and p in self.copies.get(self.unit[q], ()) for q in readers) \
                    and all(p in cs for cs in copied_readers):
                out.add(p)
        return frozenset(out)

    def _copies_elsewhere(self, inside: set[int]) -> list[set[int]]:
        """The copy sets of the units whose own members all lie outside ``inside``."""
        return [cs for u, cs in self.copies.items() if cs and not (set(self.members[u]) - cs) & inside]

    def read_by_copies(self, positions, copies) -> frozenset[int]:
        """Members of a would-be kernel over ``positions`` (``copies`` its own copies) that a copy held
        elsewhere reads without copying them too: the kernel stores them, though no op outside it reads
        them in the IR (the copy reads what its original read, and outlining passes it in).  Without
        this, a kernel's shape left out a value its outlined function stores: on gemma_span_bwd_640_bf16,
        Inductor's first kernel was priced 5.2 MB below the bytes its lowering moves."""
        if not self.copies:
            return frozenset()
        inside = set(positions)
        elsewhere = self._copies_elsewhere(inside)
        return frozenset(p for p in inside - set(copies)
                         if any(cs & self.users[p] and p not in cs for cs in elsewhere))

    def kernel(self, unit: int) -> Kernel:
        ps, unstored = self.of(unit)
        s = self.shape(ps, unstored)
        est = self.estimate(ps, unstored)
        gnums = tuple(self.gnum[p] for p in ps)
        recomputed = tuple(self.gnum[p] for p in sorted(self.copies.get(unit, ())))
        unstored_g = tuple(self.gnum[p] for p in sorted(unstored))
        if isinstance(s, NotAKernel):
            return Kernel(gnums, None, self.model.lone_estimate(self.ops[ps[0]]))
        est = self.model.refused_estimate(s) if est is None else self.model.final_config(s, est)
        return Kernel(gnums, s, est, recomputed, unstored_g)

    # -- graph -------------------------------------------------------------------

    def successors(self, unit: int) -> set[int]:
        """Units that read what ``unit`` stores (a recomputed copy stores nothing)."""
        if unit not in self.user_pos:
            copies = self.copies.get(unit, set())
            owned = [p for p in self.members.get(unit, [unit]) if p not in copies]
            self.user_pos[unit] = set().union(*(self.users[p] for p in owned))
        out = set()
        for u in self.user_pos[unit]:
            if self.unit[u] in self.members or self.ops[u].name != GENERIC:
                out.add(self.unit[u])
            else:   # a member whose kernel went: it reads us only in the units that hold its copies
                out |= {v for v, cs in self.copies.items() if u in cs}
        return out - {unit}

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
        return label((self.gnum[p] for p in self.members[unit]), (self.gnum[p] for p in self.copies.get(unit, ())))

    def merged(self, a: int, b: int) -> tuple[list[int], frozenset[int]]:
        """Members of ``a`` and ``b`` as one unit (a copy of a position the union owns is dropped), and
        those it need not store."""
        ca, cb = self.copies.get(a, set()), self.copies.get(b, set())
        owned = (set(self.members[a]) - ca) | (set(self.members[b]) - cb)
        copies = (ca | cb) - owned
        positions = sorted(owned | copies)
        return positions, self.unstored(positions, copies)

    def candidate(self, a: int, b: int) -> list[tuple]:
        """Heap entries for producer unit ``a`` and consumer unit ``b``: merging them (``a``'s values that
        others read are stored), and recomputing ``a`` inside ``b`` when ``a`` is a producer others read too."""
        merged, unstored = self.merged(a, b)
        shape = self.shape(merged, unstored)
        if isinstance(shape, NotAKernel):
            self.note(GroupDecision("skip", self.name(a), self.name(b), str(shape)))
            return []
        ea, eb, eab = self.estimate(*self.of(a)), self.estimate(*self.of(b)), self.estimate(merged, unstored)
        if ea is None or eb is None or eab is None:
            self.note(GroupDecision("keep", self.name(a), self.name(b),
                                                f"{self.model.name} accepts no config for the merged kernel"))
            return []
        tie = (min(self.members[b]), min(self.members[a]))
        out = []
        verdict = self.model.merge_verdict(ea, eb, eab, shape)
        if verdict.merge:
            out.append((-verdict.priority, tie, 0, a, b, self.version[a], self.version[b]))
        else:
            self.note(GroupDecision("keep", self.name(a), self.name(b), verdict.reason, eab))
        if (rec := self.recompute_candidate(a, b, ea, eb, tie)) is not None:
            out.append(rec)
        return out

    def _recompute_target(self, a: int, b: int) -> int | None:
        """The member of ``a`` that ``b`` could recompute instead of reading: one that ``b`` reads,
        that ``a`` stores, that ``b`` does not already recompute (``a`` may still store it for someone
        else, e.g. the caller), and that reads nothing computed inside ``a`` (so a copy needs no other
        value of ``a``).  The first such member in program order, or ``None``."""
        pa, unstored = self.of(a)
        inside = set(pa)
        copied = self.copies.get(b, set())
        pb = set(self.members[b]) - copied
        for p in pa:
            if p in unstored or p in copied or not (self.users[p] & pb):
                continue
            producers = {self.pos[d] for d in (defining_op(v) for v in self.ops[p].operands) if d in self.pos}
            if not producers & inside:
                return p
        return None

    def _after_recompute(self, a: int, b: int, p: int):
        """(b's members, b's unstored, a's members, a's unstored) once ``b`` recomputes ``p``."""
        cb = self.copies.get(b, set()) | {p}
        members_b = sorted(set(self.members[b]) | {p})
        saved = dict(self.copies)
        self.copies[b] = cb          # what a would store depends on who recomputes: look with the copy in place
        try:
            return members_b, self.unstored(members_b, cb), self.members[a], self.unstored(self.members[a],
                                                                                       self.copies.get(a, set()))
        finally:
            self.copies.clear()
            self.copies.update(saved)

    def recompute_candidate(self, a: int, b: int, ea, eb, tie) -> tuple | None:
        p = self._recompute_target(a, b)
        if p is None:
            return None
        members_b, unstored_b, members_a, unstored_a = self._after_recompute(a, b, p)
        shape_b = self.shape(members_b, unstored_b)
        if isinstance(shape_b, NotAKernel) or shape_b.members[members_b.index(p)].role == "reduce":
            return None
        eb2 = self.estimate(members_b, unstored_b)
        shape_a = self.shape(members_a, unstored_a)
        gone = not isinstance(shape_a, NotAKernel) and not shape_a.outputs
        ea2 = None if gone else self.estimate(members_a, unstored_a)
        if eb2 is None or (ea2 is None and not gone):
            return None
        verdict = self.model.recompute_verdict(ea, eb, ea2, eb2, shape_b, self.ops[p])
        if not verdict.merge:
            self.note(GroupDecision("store", self.name(a), self.name(b), verdict.reason, eb2))
            return None
        return (-verdict.priority, tie, 1, a, b, self.version[a], self.version[b])

    def push_around(self, heap: list, unit: int) -> None:
        """Candidates between ``unit`` and every generic unit next to it."""
        for b in sorted(self.successors(unit)):
            if b in self.members and self._groupable(unit) and self._groupable(b):
                for entry in self.candidate(unit, b):
                    heapq.heappush(heap, entry)
        for a in sorted(self._predecessors(unit)):
            if a in self.members and self._groupable(a) and self._groupable(unit):
                for entry in self.candidate(a, unit):
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
                    for entry in self.candidate(p, b):
                        heapq.heappush(heap, entry)
        while heap:
            _, _, kind, a, b, va, vb = heapq.heappop(heap)
            if self.version.get(a) != va or self.version.get(b) != vb:
                continue   # stale: one side has changed since
            if kind == 1:
                self._recompute(heap, a, b)
                continue
            if self.closes_cycle(a, b):
                self.note(GroupDecision("skip", self.name(a), self.name(b),
                                                    "the merged kernel would close a cycle through other ops"))
                continue
            self._merge(heap, a, b)
        if self.model.multi_output_fusion:
            self._multi_output()
        return [self.kernel(u) for u in sorted(self.members) if not self._stays(u)]

    def _stays(self, unit: int) -> bool:
        """A lone generic without static tensor shapes is no kernel at all: it stays in the caller as
        it is, as in ``--fusion elementwise`` (outlining would need its dynamic sizes as arguments, and
        no launch config or lowering exists for it)."""
        members = self.members[unit]
        if len(members) != 1:
            return False
        if not static_shapes(self.ops[members[0]]):
            self.note(GroupDecision("stay", self.name(unit), "", f"{DYNAMIC}: not outlined"))
            return True
        if why := self.refusal(members[0]):
            self.note(GroupDecision("stay", self.name(unit), "", f"the lowering refuses it ({why}): "
                                                                "left in the caller, not outlined"))
            return True
        return False

    def _merge(self, heap: list | None, a: int, b: int, verdict=None) -> int:
        """Make ``a`` and ``b`` one unit (its id: the smaller); ``verdict``: the policy's answer when
        already asked (else its merge verdict); ``heap``: where to push the candidates around the new
        unit (``None`` after forming, when no candidate is pushed any more)."""
        merged, unstored = self.merged(a, b)
        ca, cb = self.copies.get(a, set()), self.copies.get(b, set())
        copies = (ca | cb) - ((set(self.members[a]) - ca) | (set(self.members[b]) - cb))
        est = self.estimate(merged, unstored)
        if verdict is None:
            verdict = self.model.merge_verdict(self.estimate(*self.of(a)), self.estimate(*self.of(b)), est,
                                               self.shape(merged, unstored))
        self.note(GroupDecision("merge", self.name(a), self.name(b), verdict.reason, est))
        keep, gone = min(a, b), max(a, b)
        self.members[keep], self.copies[keep] = merged, copies
        del self.members[gone], self.version[gone]
        self.copies.pop(gone, None)
        self.user_pos.pop(keep, None)
        self.user_pos.pop(gone, None)
        self.version[keep] += 1
        for p in merged:
            if p not in copies:
                self.unit[p] = keep
        if heap is not None:
            self.push_around(heap, keep)
        return keep

    def _recompute(self, heap: list, a: int, b: int) -> None:
        """Put a copy of a member of ``a`` in ``b``; ``a`` stops storing it once every reader has a copy,
        and goes when it stores nothing.

        No cycle can appear: the copy reads only what ``a`` reads from outside, which ``b`` already
        depended on through ``a``.
        """
        p = self._recompute_target(a, b)
        if p is None:
            return
        self.members[b] = sorted(set(self.members[b]) | {p})
        self.copies[b] = self.copies.get(b, set()) | {p}
        shape_a = self.shape(*self.of(a))
        gone = not isinstance(shape_a, NotAKernel) and not shape_a.outputs
        self.note(GroupDecision("recompute", self.name(a), self.name(b),
                                            f"g{self.gnum[p] + 1} copied into the consumer"
                                            + ("; the producer's kernel goes" if gone else ""),
                                            self.estimate(*self.of(b))))
        for u in (a, b):
            self.version[u] += 1
            self.user_pos.pop(u, None)
        if gone:
            del self.members[a], self.version[a]
            self.copies.pop(a, None)
        else:
            self.push_around(heap, a)
        self.push_around(heap, b)


    # -- multi-output phase ---------------------------------------------------------

    def _reaches(self, a: int, b: int) -> bool:
        """Whether a path of reads leads from unit ``a`` to unit ``b``."""
        seen, stack = {a}, [a]
        while stack:
            succ = self.successors(stack.pop())
            if b in succ:
                return True
            stack.extend(succ - seen)
            seen |= succ
        return False

    def _outputs(self, unit: int) -> int:
        s = self.shape(*self.of(unit))
        return 0 if isinstance(s, NotAKernel) else len(s.outputs)

    def _mof_rank(self, unit: int) -> tuple:
        """XLA's ``FusionPriority`` order: multi-output kernels, then fused ones, then lone generics
        (ties in program order)."""
        return (-(self._outputs(unit) > 1), -(len(self.members[unit]) > 1), unit)

    def _readers(self, source) -> list[int]:
        """Live generic units reading ``source`` (a unit id, or a block argument), best-ranked first."""
        if isinstance(source, int):
            out = self.successors(source)
        else:
            out = set()
            for use in source.uses:
                owner = use.owner.operation
                while owner is not None and owner not in self.pos:
                    owner = owner.parent
                if owner is not None:
                    out.add(self.unit[self.pos[owner]])
        live = [u for u in out if u in self.members and self._groupable(u)]
        return sorted(live, key=self._mof_rank)

    def _offer(self, kind: str, a: int, b: int):
        """The policy's multi-output verdict on ``a`` and ``b``, or ``None`` when they cannot be one kernel."""
        if kind == "siblings" and (self._reaches(a, b) or self._reaches(b, a)):
            return None
        if kind == "producer-consumer" and self.closes_cycle(a, b):
            return None
        merged, unstored = self.merged(a, b)
        shape = self.shape(merged, unstored)
        ea, eb, eab = self.estimate(*self.of(a)), self.estimate(*self.of(b)), self.estimate(merged, unstored)
        if isinstance(shape, NotAKernel) or None in (ea, eb, eab):
            return None
        parts = (self.shape(*self.of(a)), self.shape(*self.of(b)))
        verdict = self.model.multi_output_verdict(kind, ea, eb, eab, shape, parts)
        if not verdict.merge:
            self.note(GroupDecision("keep", self.name(a), self.name(b),
                                    f"multi-output {kind}: {verdict.reason}", eab))
            return None
        return MergeVerdict(True, verdict.priority, f"multi-output {kind}: {verdict.reason}")

    def _multi_output(self) -> None:
        """Siblings, then producer into consumer, for each kernel uses before defs, then the arguments."""
        sources = sorted(self.members, reverse=True) + list(self.arguments)
        for source in sources:
            if isinstance(source, int) and source not in self.members:
                continue
            siblings = [] if _effective_scalar(source) else self._readers(source)
            i = 0
            while i < len(siblings):
                j = i + 1
                while j < len(siblings):
                    verdict = self._offer("siblings", siblings[i], siblings[j])
                    if verdict is None:
                        j += 1
                        continue
                    keep = self._merge(None, siblings[i], siblings.pop(j), verdict)
                    siblings[i] = keep
                i += 1
            if not isinstance(source, int) or source not in self.members:
                continue
            for consumer in self._readers(source):
                verdict = self._offer("producer-consumer", source, consumer)
                if verdict is not None:
                    self._merge(None, source, consumer, verdict)
                    break


def _effective_scalar(source) -> bool:
    """A block argument of at most one element (XLA's ``IsProfitableOperand``: no sibling fusion through it)."""
    if isinstance(source, int):
        return False
    if not isinstance(source.type, ir.ShapedType):
        return True
    return all(d == 1 for d in ir.ShapedType(source.type).shape)


def form_groups(block: ir.Block, model: GroupPolicy,
                refuses: Refusal | None = None) -> tuple[list[Kernel], list[GroupDecision]]:
    """The kernels of ``block`` (a function body) and the decisions that formed them; a generic
    ``refuses`` names a reason for stays in the caller (so every kernel formed lowers)."""
    f = _Formation([op.operation for op in block.operations], model, refuses, tuple(block.arguments))
    kernels = f.run()
    return kernels, f.decisions

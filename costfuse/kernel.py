"""What a set of generics would be as one row kernel (docs/groups.md).

:func:`analyze_kernel` takes the member generics of a would-be kernel, in
program order, and returns a :class:`KernelShape`: its rows and row length,
each member's role, the tensors it reads from outside and the results it
must store, and how many passes over the row each mode needs.  Group
formation asks it about candidate groups in the caller; the lowering asks it
about an outlined kernel function.  The same facts on both sides mean the
pass's HBM estimate and the lowered kernel's loads agree by construction.

It raises :class:`NotAKernel` with the reason when the members cannot share a
kernel: no common row space, a member reading another member's value at a
different row or column, a member initialized from another member.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from iree.compiler import ir

from costfuse.estimates import flop_weight, memory_bytes, words
from costfuse.graph import body, indexing_maps, num_inputs
from costfuse.launch import MODES
from costfuse.online_softmax import online_sums
from costfuse.welford import welford_sums
from costfuse.row_kernel import ModeCosts, dram_bytes_at
from costfuse.rowspace import FULL, REDUCE, ROWWISE, NotGroupable, OpSpace, gathers, op_space, reads_in_row


class NotAKernel(Exception):
    """The members cannot be one row kernel; the message says why."""


# What an online sum adds per element of a looped pass to the exp(x - m) it sums: rescaling its
# accumulator by exp(old max - new max) (costfuse/online_softmax.py; data/lowering/kernel.py).
ONLINE_RESCALE_OPS = ("arith.subf", "math.exp", "arith.mulf")
ONLINE_RESCALE_FLOPS = sum(flop_weight(o) for o in ONLINE_RESCALE_OPS)   # weighed once, not per shape
# What a Welford sum of squares costs per element of its mean's looped pass: the count's add, the delta,
# the mean's update (a divide and an add) and m2's (a subtract, a multiply and an add) (costfuse/welford.py).
WELFORD_UPDATE_OPS = ("arith.addf", "arith.subf", "arith.divf", "arith.addf", "arith.subf", "arith.mulf",
                      "arith.addf")
WELFORD_UPDATE_FLOPS = sum(flop_weight(o) for o in WELFORD_UPDATE_OPS)


@dataclass(frozen=True)
class Member:
    """One generic of a kernel, in the kernel's row space.  ``derived`` holds what a layer above works out of
    the op once (featurize's liveness walk): a formation hands every candidate kernel the same Member per op
    and role (:func:`analyze_kernel`'s ``members``), so that walk is done once per op, not per candidate."""

    op: ir.Operation
    role: str                # FULL | REDUCE | ROWWISE
    flops: int               # weighted body ops per loop point
    ins: tuple[ir.Value, ...]   # the values it reads through its ins (not its inits), read once at analysis
    derived: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def results(self) -> list[ir.Value]:
        return list(self.op.results)


@dataclass(frozen=True)
class KernelInput:
    """A tensor read from memory: its bytes and the members that read it.

    ``readers`` read it through an indexing map (a tile of it per row);
    ``gathers`` read single elements of it with ``tensor.extract`` at indices
    their bodies compute, as ``(member, extracts per loop point)``.
    ``per_row``: some reader's map varies with the rows (a broadcast weight,
    the same for every row, does not).
    """

    value: ir.Value
    nbytes: int
    elem_bytes: int              # bytes of one element in memory, read off its type once at analysis
    readers: tuple[int, ...]     # member positions
    gathers: tuple[tuple[int, int], ...] = ()
    per_row: bool = True


@dataclass(frozen=True)
class KernelOutput:
    member: int
    result: int
    nbytes: int


def defining_op(v: ir.Value) -> ir.Operation | None:
    """The op that defines ``v`` (``None`` for a block argument)."""
    return None if isinstance(v.owner, ir.Block) else v.owner.operation


def tensor_bytes(v: ir.Value) -> int:
    """Bytes of a static tensor value (sub-byte elements round up to one byte)."""
    n = 1
    for s in ir.RankedTensorType(v.type).shape:
        n *= s
    return n * _elem_bytes(v)


def _elem_bytes(v: ir.Value) -> int:
    return memory_bytes(_elem_bits(v))


def free_init(v: ir.Value) -> bool:
    """An init that costs no HBM read: ``tensor.empty``, or a ``linalg.fill`` of a
    scalar constant into one (a reduction's identity).  The outlining clones these in."""
    owner = defining_op(v)
    if owner is None:
        return False
    name = owner.name
    if name == "tensor.empty":
        return True
    if name == "linalg.fill":
        scalar, dest = owner.operands[0], owner.operands[1]
        return (getattr(defining_op(scalar), "name", None) == "arith.constant"
                and getattr(defining_op(dest), "name", None) == "tensor.empty")
    return False


def _flops(op: ir.Operation) -> int:
    return sum(flop_weight(o.name) for o in body(op).operations)


def _reads_init(op: ir.Operation, j: int) -> bool:
    return any(True for _ in body(op).arguments[num_inputs(op) + j].uses)


@dataclass(frozen=True)
class KernelShape:
    """One row kernel: ``rows`` (leading loop extents), ``n`` (the row length)."""

    rows: tuple[int, ...]
    n: int
    members: tuple[Member, ...]
    inputs: tuple[KernelInput, ...]
    outputs: tuple[KernelOutput, ...]
    # For each member: the pass it runs in (looped mode); a reduction's
    # result, and anything per-row computed from it, exists after that pass.
    pass_of: tuple[int, ...]
    # Full-row values (members' results and loaded inputs) live at once at
    # the worst point of the member sequence, for a persistent tile.
    live_full: int
    words: int = 1           # registers per element of a value: 2 when a member works on 64-bit values
    # (sum member, max member, max output) of each softmax-like sum a looped kernel computes in the
    # pass of its max, with the running max (costfuse/online_softmax.py): its pass_of is the max's.
    online: tuple[tuple[int, int, int], ...] = ()
    # (squares member, sum member) of each variance a looped kernel computes in the pass of the sum whose
    # mean it subtracts, with Welford's running mean (costfuse/welford.py): its pass_of is the sum's.
    welford: tuple[tuple[int, int], ...] = ()

    # The shape is frozen: what follows from its fields is computed once (every policy and the features ask).
    @cached_property
    def n_rows(self) -> int:
        p = 1
        for r in self.rows:
            p *= r
        return p

    @cached_property
    def reductions(self) -> int:
        return sum(1 for m in self.members if m.role == REDUCE)

    @cached_property
    def pointwise(self) -> bool:
        """No reduction and every member over the same loops: one flat 1-D kernel."""
        return self.reductions == 0 and len({m.role for m in self.members}) == 1

    @cached_property
    def n_passes(self) -> int:
        """Passes over the row a looped kernel makes (1 with no reduction)."""
        last_reduce = max((p + 1 for p, m in zip(self.pass_of, self.members) if m.role == REDUCE), default=0)
        stored_full = max((self.pass_of[o.member] + 1 for o in self.outputs
                           if self.members[o.member].role == FULL), default=0)
        return max(1, last_reduce, stored_full)

    @property
    def passes_without_online(self) -> int:
        """Passes a compiler that folds neither a softmax-like sum into its max's pass nor a variance into
        its mean's would make: one more per pass level holding such a sum (XLA's native emitters:
        docs/peers.md X-g)."""
        return self.n_passes + len({self.pass_of[s] for s in self._folded})

    @cached_property
    def _folded(self) -> set[int]:
        """Reduce members a looped kernel computes in another reduction's pass from the values that one
        reduces: online sums and Welford sums of squares (they need no full value of their own)."""
        return {s for s, _, _ in self.online} | {v for v, _ in self.welford}

    def passes_reading(self, inp: KernelInput, mode: str) -> int:
        """How many times ``mode`` reads ``inp`` from HBM."""
        if mode != "looped":
            return 1
        full_readers = [r for r in inp.readers if self.members[r].role != ROWWISE]
        if not full_readers:
            return 1
        return len(self._passes_needing(full_readers))

    def _passes_needing(self, readers: list[int]) -> set[int]:
        """Passes in which any of ``readers`` (full or reduce members) is computed."""
        return {p for p, needed in enumerate(self._needed) if needed & set(readers)}

    @cached_property
    def _needed(self) -> list[set[int]]:
        """For each pass of a looped kernel, the full/reduce members it computes:
        its reductions and stored full outputs, and the full values they need,
        recomputed from the inputs.  An online sum needs nothing of its own: it
        rescales the values its max member reduces in the same pass; nor does a
        Welford sum of squares, which updates from the values its sum reduces."""
        index = {m.op: i for i, m in enumerate(self.members)}
        stored = {o.member for o in self.outputs}
        online = self._folded
        out = []
        for p in range(self.n_passes):
            roots = [i for i, m in enumerate(self.members)
                     if self.pass_of[i] == p and (m.role == REDUCE or (m.role == FULL and i in stored))]
            needed: set[int] = set(r for r in roots if r in online)
            stack = [r for r in roots if r not in online]
            while stack:
                i = stack.pop()
                if i in needed:
                    continue
                needed.add(i)
                for v in self.members[i].ins:
                    j = index.get(defining_op(v))
                    if j is not None and self.members[j].role == FULL:
                        stack.append(j)
            out.append(needed)
        return out

    def input_bytes(self, inp: KernelInput, mode: str) -> int:
        """Bytes ``mode`` reads of ``inp``: its size × the passes that read it;
        for a tensor only gathered, the elements gathered (each gathering
        member's loop points × its extracts × the passes computing it), since a
        gather touches one element per index, not the tensor.  A tensor that
        is also read through a map counts that read only: the gathered
        elements are then in the tile or in L2."""
        if inp.readers or not inp.gathers:
            return inp.nbytes * self.passes_reading(inp, mode)
        return sum(self._points(m) * extracts * inp.elem_bytes * self._times_computed(m, mode)
                   for m, extracts in inp.gathers)

    def _points(self, i: int) -> int:
        p = 1
        for extent in op_space(self.members[i].op).loops:
            p *= extent
        return p

    def _times_computed(self, i: int, mode: str) -> int:
        """How many times ``mode`` emits member ``i``: once, or in a looped
        kernel once per pass that needs a full or reduce member."""
        if mode != "looped" or self.members[i].role == ROWWISE:
            return 1
        return sum(1 for s in self._needed if i in s)

    @cached_property
    def costs(self) -> ModeCosts:
        """Bytes and flops of every mode and the size (:class:`costfuse.row_kernel.ModeCosts`), computed
        once per shape: what the analytical time reads of it, in one answer.  Each input's bytes read in
        each mode (:meth:`input_bytes`), plus each output's size once."""
        stored = sum(o.nbytes for o in self.outputs)
        read = {m: [self.input_bytes(i, m) for i in self.inputs] for m in MODES}
        missed = sum(read["looped" if i.per_row else "persistent"][k] for k, i in enumerate(self.inputs))
        issued = tuple(sum(read[m]) + stored for m in MODES)
        return ModeCosts(issued, tuple(self.flops(m) for m in MODES), issued[MODES.index("persistent")],
                         missed + stored, self.n_rows, self.n_rows * self.n)

    def issued_bytes(self, mode: str) -> int:
        """Bytes ``mode``'s loads and stores issue: each input's bytes read (:meth:`input_bytes`), plus
        each output's size.  Not DRAM bytes: see :meth:`dram_bytes`."""
        return self.costs.issued[MODES.index(mode)]

    @cached_property
    def reread_row_bytes(self) -> float:
        """Bytes per row of the per-row inputs a looped kernel reads in more than one pass."""
        return sum(i.nbytes for i in self.inputs
                   if i.per_row and self.passes_reading(i, "looped") > 1) / max(1, self.n_rows)

    def dram_bytes(self, mode: str, l2_holds_rows: bool = True) -> int:
        """Estimated DRAM bytes of ``mode`` (:mod:`costfuse.estimates`, "Issued and DRAM bytes"): one
        read of every input and a write of every output, plus a looped kernel's re-reads of per-row
        inputs when L2 does not hold them between passes (``l2_holds_rows``, from
        :func:`costfuse.estimates.l2_holds` at the kernel's launch)."""
        return self.costs.dram(mode, l2_holds_rows)

    def dram_bytes_at(self, launch, target) -> int:
        """:meth:`dram_bytes` at ``launch`` (a ``costfuse.launch.KernelLaunch``) on ``target``."""
        return dram_bytes_at(self, launch, target)

    @cached_property
    def read_elem_bytes(self) -> float:
        """Bytes per element of the widest tensor the kernel reads (what its row runs are made of; 4 with
        no input)."""
        return float(max((i.elem_bytes for i in self.inputs), default=4))

    def _full_closure(self, i: int) -> set[int]:
        """The full members member ``i`` reads, directly or through other full members."""
        index = {m.op: k for k, m in enumerate(self.members)}
        out: set[int] = set()
        stack = [i]
        while stack:
            for v in self.members[stack.pop()].ins:
                j = index.get(defining_op(v))
                if j is not None and self.members[j].role == FULL and j not in out:
                    out.add(j)
                    stack.append(j)
        return out

    def flops(self, mode: str) -> float:
        """Weighted body ops executed, recomputation of looped passes included.  A looped online
        sum computes the ``exp(x - m)`` of its full members once more in its max's pass, and rescales
        its accumulator per element (a sub, an exp and a mul: :data:`ONLINE_RESCALE_OPS`); a looped
        Welford sum of squares updates its count, mean and m2 per element instead of its own body
        (:data:`WELFORD_UPDATE_OPS`)."""
        per_row = {ROWWISE: 1, FULL: self.n, REDUCE: self.n}
        if mode != "looped":
            return float(sum(m.flops * per_row[m.role] for m in self.members) * self.n_rows)
        times = [sum(1 for s in self._needed if i in s) or 1 for i in range(len(self.members))]
        for s, _, _ in self.online:
            done = self._needed[self.pass_of[s]]
            for j in self._full_closure(s) - done:
                times[j] += 1
        for v, _ in self.welford:
            times[v] = 0
        rescale = (ONLINE_RESCALE_FLOPS * len(self.online) + WELFORD_UPDATE_FLOPS * len(self.welford)) * self.n
        return float((sum(m.flops * per_row[m.role] * t for m, t in zip(self.members, times)) + rescale)
                     * self.n_rows)


def _common_space(spaces: list[OpSpace]) -> tuple[tuple[int, ...], int]:
    """The ``(rows, n)`` every member fits, preferring the longest loops' split."""
    # The row space comes from the members with the longest loops whose row
    # dim is not a keepdim 1; a group of keepdim-only members is pointwise.
    longest = max(len(s.loops) for s in spaces)
    full = {s.loops for s in spaces if len(s.loops) == longest and (s.loops[-1] != 1 or s.reduces)}
    if not full:
        full = {s.loops for s in spaces if len(s.loops) == longest}
    if len(full) != 1:
        raise NotAKernel(f"members have different loop extents {sorted(full)}")
    loops = next(iter(full))
    rows, n = loops[:-1], loops[-1]
    if n == 1 and all(s.loops == loops for s in spaces):    # every member one value per row: pointwise
        rows, n = loops, 1
    for s in spaces:
        if s.role_in(rows, n) is None:
            raise NotAKernel(f"a member over loops {s.loops} does not fit rows {rows} x {n}")
    return rows, n


def _member(op: ir.Operation, role: str, memo: dict | None) -> Member:
    """``op``'s :class:`Member` at ``role``: the one ``memo`` holds, else a new one (kept there)."""
    m = None if memo is None else memo.get((op, role))
    if m is None:
        m = Member(op, role, _flops(op), tuple(op.operands)[: num_inputs(op)])
        if memo is not None:
            memo[(op, role)] = m
    return m


def analyze_kernel(ops: list[ir.Operation], recomputed=frozenset(), read_by_copies=frozenset(),
                   members: dict | None = None) -> KernelShape:
    """The :class:`KernelShape` of ``ops`` (generics of one block, program order).

    ``recomputed``: members that are copies of a producer another kernel
    stores (or that nothing needs stored): their results are never outputs.
    ``read_by_copies``: members whose results another kernel's copy of one of
    our members reads (formation's copies are not in the IR yet): their results
    are outputs, as outlining makes them.
    ``members``: a memo ``(op, role) -> Member`` that a caller pricing many
    kernels of the same, unchanging ops keeps (formation), so that they share
    each :class:`Member` and what is derived from it.
    """
    spaces = []
    for op in ops:
        s = op_space(op)
        if isinstance(s, NotGroupable):
            if len(ops) == 1:
                raise NotAKernel(s.reason)
            raise NotAKernel(f"a member is not groupable: {s.reason}")
        spaces.append(s)
    rows, n = _common_space(spaces)
    members = tuple(_member(op, s.role_in(rows, n), members) for op, s in zip(ops, spaces))
    index = {op: i for i, op in enumerate(ops)}
    inputs: dict = {}
    per_row: dict = {}      # tensor -> whether some reader's map varies with the rows
    gathered: dict = {}     # tensor -> [(member, extracts)]
    avail: list[int] = []   # pass after which member i's per-row value exists / in which its full value is computable
    pass_of: list[int] = []
    online = online_sums(list(ops), [m.role for m in members])
    welford = welford_sums(list(ops), [m.role for m in members], n)
    max_of = {s: mx for s, mx, _ in online} | dict(welford)
    for i, m in enumerate(members):
        p = 0
        for v, extracts in gathers(m.op).items():
            if defining_op(v) in index:
                raise NotAKernel("a member gathers (tensor.extract) from another member's result, "
                                 "which the kernel never holds in memory")
            inputs.setdefault(v, [])
            gathered.setdefault(v, []).append((i, extracts))
        n_in = num_inputs(m.op)
        for k, v in enumerate(m.op.operands):
            inside = defining_op(v) in index
            if k >= n_in:  # an init
                if inside:
                    raise NotAKernel("a member is initialized from another member's result")
                if free_init(v) or not _reads_init(m.op, k - n_in):
                    continue
            if inside:
                j = index[defining_op(v)]
                if not reads_in_row(ops[j], ir.OpResult(v).result_number, m.op, k):
                    raise NotAKernel("a member reads another member's result at a different row or column")
                p = max(p, avail[j])
            else:
                inputs.setdefault(v, []).append(i)
                per_row.setdefault(v, False)
                per_row[v] |= _varies_with_rows(indexing_maps(m.op)[k], len(rows))
        if i in max_of:     # an online or Welford sum runs beside its max or sum (from the values those reduce)
            p = pass_of[max_of[i]]
        pass_of.append(p)
        avail.append(p + 1 if m.role == REDUCE else p)
    outputs = []
    member_ops = set(ops)
    for i, m in enumerate(members):
        if m.op in recomputed:
            continue
        for r, res in enumerate(m.op.results):
            if m.op in read_by_copies or any(u.owner.operation not in member_ops or _is_init_use(u)
                                             for u in res.uses):
                outputs.append(KernelOutput(i, r, tensor_bytes(res)))
    ins = tuple(KernelInput(v, tensor_bytes(v), _elem_bytes(v), tuple(dict.fromkeys(rs)),
                            tuple(gathered.get(v, ())), per_row.get(v, True))
                for v, rs in inputs.items())
    width = words(max(_elem_bits(v) for op in ops for v in list(op.operands) + list(op.results)))
    return KernelShape(rows, n, members, ins, tuple(outputs), tuple(pass_of), _live_full(members, ins, outputs), width,
                       online, welford)


def _varies_with_rows(amap: ir.AffineMap, n_row_dims: int) -> bool:
    """Whether an operand read through ``amap`` differs between rows: some result names a row loop."""
    return any(isinstance(e, ir.AffineDimExpr) and ir.AffineDimExpr(e).position < n_row_dims for e in amap.results)


def _elem_bits(v: ir.Value) -> int:
    et = ir.RankedTensorType(v.type).element_type
    return et.width if hasattr(et, "width") else 64


def _is_init_use(use) -> bool:
    owner = use.owner.operation
    return owner.name == "linalg.generic" and use.operand_number >= num_inputs(owner)


def _live_full(members, inputs, outputs) -> int:
    """Max full-row values alive at once in a persistent tile, walking the members in order.

    A loaded input lives from its first reader to its last; a member's full
    result from its definition to its last reader in the kernel (or the end,
    when it is stored, since stores come last in the tile code).
    """
    n = len(members)
    intervals = []
    for inp in inputs:
        if any(members[r].role != ROWWISE for r in inp.readers):
            intervals.append((min(inp.readers), max(inp.readers)))
    index = {m.op: i for i, m in enumerate(members)}
    stored = {o.member for o in outputs}
    for i, m in enumerate(members):
        if m.role != FULL:
            continue
        last = i
        for res in m.op.results:
            for u in res.uses:
                if u.owner.operation in index:
                    last = max(last, index[u.owner.operation])
        intervals.append((i, n - 1 if i in stored else last))
    if not intervals:
        return 1
    return max(1, max(sum(1 for a, b in intervals if a <= t <= b) for t in range(n)))

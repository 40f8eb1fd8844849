"""Register pressure of a ``linalg.generic`` body, estimated from its SSA form.

Spills happen when the values a thread must keep at once, times the elements
each thread holds, exceed the register file slice (docs/design.md §5: spills start
once live fp32 values x elements per thread pass about 128-256).  The body is
what the kernel computes per element, so two numbers of the body predict
that pressure before anything is compiled:

* **Maximum live values**: walk the body in program order (the order the
  lowering emits it) and, at each op, count the values *live into* it: its
  operands plus every value defined earlier and still used later.  Block
  arguments (loads) count from their first use, because the lowering loads an
  operand where it is first used.  Scalar constants are immediates, not
  per-element registers, so they never count.  The same maximum weighted by
  each value's width in 32-bit words is ``max_live_words``.
* **Sethi-Ullman number**: the registers needed to evaluate the body's
  expression DAG with the best operand order and no spills, labelling a leaf
  1 and an n-ary node ``max_j(l_j + j)`` over its operands' labels sorted in
  descending order.  A value shared by several users is labelled once (the
  usual tree approximation of a DAG); the live count above is what sees such
  values held across their siblings.

The analyses run on :class:`Body`, a plain-Python view of the block, so they
are testable without MLIR and cost O(ops log ops).  :func:`body_of` builds it
from a generic.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from itertools import accumulate
from typing import TYPE_CHECKING, NamedTuple

from costfuse.estimates import elem_bits, words

if TYPE_CHECKING:   # only body_of reads MLIR; the analyses run on plain Bodies (an Inductor loop body's too)
    from iree.compiler import ir

CONSTANT_OPS = frozenset({"arith.constant"})
"""Ops whose result is a uniform scalar: an immediate, not a per-element register."""

class Node(NamedTuple):
    """One body op: its name and the value ids it reads and defines.  A named tuple, not a frozen
    dataclass: a body is built one node per op, and a frozen dataclass's ``__init__`` (``object.__setattr__``
    per field) was a quarter of walking an Inductor loop body into liveness (``describe.body_live_words``)."""

    name: str
    operands: tuple[int, ...]
    results: tuple[int, ...]


@dataclass(frozen=True)
class Body:
    """A generic's block in program order, values numbered densely.

    Value ids ``0 .. n_args-1`` are the block arguments (inputs, then inits);
    op results follow.  ``types[v]`` is value ``v``'s type as spelled in the
    IR (``f32``, ``i1``, ``index``) and ``bits[v]`` its width.  The last node
    is the terminator (``linalg.yield``), which defines nothing.
    """

    n_args: int
    nodes: tuple[Node, ...]
    types: tuple[str, ...]
    bits: tuple[int, ...]

    @cached_property
    def words(self) -> tuple[int, ...]:
        """32-bit registers of each value per element (one width lookup per distinct width)."""
        per_width = {b: words(b) for b in set(self.bits)}
        return tuple(per_width[b] for b in self.bits)

    @cached_property
    def constants(self) -> frozenset[int]:
        """Values that are scalar immediates (never per-element registers)."""
        return frozenset(r for n in self.nodes if n.name in CONSTANT_OPS for r in n.results)

    def arg_used(self, k: int) -> bool:
        return any(k in n.operands for n in self.nodes)


@dataclass(frozen=True)
class Pressure:
    """Register-pressure figures of one body (per element, before times elements per thread)."""

    max_live_values: int
    max_live_words: int
    sethi_ullman: int


def body_of(generic: ir.Operation) -> Body:
    """The :class:`Body` of a ``linalg.generic`` (its first region's only block).

    Types are spelled once per distinct type (printing a type costs
    microseconds; a fused body has hundreds of values but a handful of types).
    """
    from iree.compiler import ir

    block = generic.regions[0].blocks[0]
    spelled: dict[ir.Type, str] = {}

    def spell(t: ir.Type) -> str:
        text = spelled.get(t)
        if text is None:
            text = spelled[t] = str(t)
        return text

    ids: dict[ir.Value, int] = {}
    types: list[str] = []
    for arg in block.arguments:
        ids[arg] = len(types)
        types.append(spell(arg.type))
    n_args = len(types)
    nodes = []
    known = ids.get  # one hash per operand: each is a call into the bindings
    for op in block.operations:
        operands = tuple(i for i in map(known, op.operands) if i is not None)  # outside values are uniform
        results = []
        for r in op.results:
            ids[r] = len(types)
            results.append(len(types))
            types.append(spell(r.type))
        nodes.append(Node(op.name, operands, tuple(results)))
    bits = {t: elem_bits(t) for t in set(types)}
    return Body(n_args, tuple(nodes), tuple(types), tuple(bits[t] for t in types))


def live_intervals(body: Body) -> dict[int, tuple[int, int]]:
    """``{value: (first, last)}``: the ops ``first..last`` that value is live into.

    An op result is live into the ops after its own up to its last use; a
    block argument from its first use (where the lowering loads it) to its
    last.  Constants and unused values are left out: they never hold a
    per-element register into an op.
    """
    constants = body.constants
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    for i, node in enumerate(body.nodes):
        for v in node.operands:
            first.setdefault(v, i)
            last[v] = i
    defined = {r: i for i, n in enumerate(body.nodes) for r in n.results}
    return {v: (defined[v] + 1 if v in defined else first[v], end)
            for v, end in last.items() if v not in constants}


def max_live(body: Body) -> tuple[int, int]:
    """``(values, words)``: the most per-element values live into any op, and the most 32-bit words.

    Live into op ``i``: its operands and everything defined before it and
    used after it (a sweep over :func:`live_intervals`).
    """
    n = len(body.nodes) + 1
    delta_v, delta_w = [0] * n, [0] * n
    for v, (begin, end) in live_intervals(body).items():
        w = body.words[v]
        delta_v[begin] += 1
        delta_v[end + 1] -= 1
        delta_w[begin] += w
        delta_w[end + 1] -= w
    return max(accumulate(delta_v)), max(accumulate(delta_w))


def sethi_ullman(body: Body) -> int:
    """Sethi-Ullman label of the body's expression DAG, rooted at the terminator.

    Leaves (block arguments) need 1 register, constants 0; a node needs
    ``max_j(l_j + j)`` over its distinct non-constant operands' labels
    ``l_0 >= l_1 >= ...`` (at least 1 if it defines a value).
    """
    constants = body.constants
    label: dict[int, int] = {v: 1 for v in range(body.n_args)}
    root = 0
    for node in body.nodes:
        kids = sorted((label[v] for v in set(node.operands) if label[v]), reverse=True)
        need = 0
        for j, lab in enumerate(kids):
            if lab + j > need:
                need = lab + j
        for r in node.results:
            label[r] = 0 if r in constants else (need or 1)
        if not node.results and need > root:  # the terminator
            root = need
    return root


def pressure(body: Body) -> Pressure:
    """All register-pressure figures of ``body``."""
    values, wds = max_live(body)
    return Pressure(values, wds, sethi_ullman(body))


def bodies_with_pressure(members) -> list[tuple[Body, Pressure]]:
    """Each kernel member's :class:`Body` and :class:`Pressure`, in order (``members``:
    :class:`costfuse.kernel.Member`): what the group features read of every member of a group, in one call.
    Each is kept in its member's ``derived``, so a formation that prices many candidate kernels of the same
    op (sharing its Member) walks that op's body once: the walk was a third of a group decision's time."""
    return [_member_liveness(m) for m in members]


def _member_liveness(member) -> tuple[Body, Pressure]:
    got = member.derived.get("liveness")
    if got is None:
        body = body_of(member.op)
        got = member.derived["liveness"] = (body, pressure(body))
    return got

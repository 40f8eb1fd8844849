"""How the lowering walks the IR: one set of traversals for every module of it.

The lowering reads the IR in a few ways only: the generics of a module, the
ops of a block in order, the op or block that defines a value, the values a
block takes from outside it, how often each value is used, and whether one
value is computed from others.  Each module once spelled these out itself
(an OpView here, an ``Operation`` there, a block argument's owner handled in
one place and not in the next); written once, here, they agree.  Blocks
themselves come from :func:`costfuse.graph.body` and defining ops from
:func:`costfuse.kernel.defining_op`, the compiler core's own helpers.
"""

from __future__ import annotations

from typing import Iterator

from iree.compiler import ir

from costfuse.data.lowering.unsupported import UnsupportedOp
from costfuse.graph import GENERIC
from costfuse.kernel import defining_op


def operation(op) -> ir.Operation:
    """``op`` as an ``ir.Operation``, whether it came as an OpView or as an Operation
    (an Operation's ``.operation`` is itself)."""
    return op.operation


def expect_op(op, name: str, reason: str) -> ir.Operation:
    """``op`` as an ``ir.Operation`` if it is a ``name`` op; else :class:`UnsupportedOp` with ``reason``."""
    operation_ = operation(op)
    if operation_.name != name:
        raise UnsupportedOp(operation_.name, reason)
    return operation_


def block_ops(block: ir.Block) -> list[ir.Operation]:
    """The ops of ``block``, in program order, as ``ir.Operation``s."""
    return [op.operation for op in block.operations]


def nested_ops(root: ir.Operation, descend=lambda op: True) -> Iterator[ir.Operation]:
    """Every op nested in ``root``'s regions, in textual order (pre-order); the
    ops inside an op are visited only when ``descend(op)`` holds."""
    for region in root.regions:
        for block in region.blocks:
            for op in block_ops(block):
                yield op
                if descend(op):
                    yield from nested_ops(op, descend)


def generics_of(module: ir.Module) -> list[ir.OpView]:
    """Every ``linalg.generic`` in ``module``, in textual order (nested regions
    included, but not the inside of a generic)."""
    return [op.opview for op in nested_ops(module.operation, lambda op: op.name != GENERIC) if op.name == GENERIC]


def defined_by(v: ir.Value, name: str) -> ir.Operation | None:
    """The op named ``name`` that defines ``v``, else ``None`` (a block argument,
    or a value another kind of op defines)."""
    owner = defining_op(v)
    return owner if owner is not None and owner.name == name else None


def defining_block(v: ir.Value) -> ir.Block:
    """The block ``v`` is defined in: the block of the op that defines it, or the
    block it is an argument of."""
    owner = defining_op(v)
    return v.owner if owner is None else owner.block


def outside_uses(block: ir.Block) -> Iterator[tuple[ir.Operation, ir.Value]]:
    """``(user, value)`` for each operand of an op of ``block`` that is defined
    outside ``block`` (captured from the enclosing function), in program order,
    repeats included."""
    for op in block_ops(block):
        for v in op.operands:
            if defining_block(v) != block:
                yield op, v


def use_counts(ops) -> dict:
    """How many times each value is an operand of ``ops``."""
    counts: dict = {}
    for op in ops:
        for v in op.operands:
            counts[v] = counts.get(v, 0) + 1
    return counts


def depends_on(value: ir.Value, targets: set, block: ir.Block) -> bool:
    """Whether ``value`` is computed (inside ``block``) from any of ``targets``."""
    stack, seen = [value], set()
    while stack:
        v = stack.pop()
        if v in targets:
            return True
        if v in seen:
            continue
        seen.add(v)
        owner = defining_op(v)
        if owner is not None and owner.block == block:
            stack.extend(owner.operands)
    return False

"""Kernel functions as the group pass outlines them: finding them, their members and their launch.

Under ``--fusion groups`` each kernel is a ``func.func`` carrying
``costfuse.kernel`` (docs/groups.md): member generics sharing rows, the inits
and constants they were cloned with, and the launch the pass chose in
``costfuse.launch``.  Reading that contract is apart from lowering it: the
dataset job, the statistics, the training set and the experiments all read
kernel functions without generating code.
"""

from __future__ import annotations

from iree.compiler import ir

from costfuse.data.lowering.unsupported import UnsupportedOp
from costfuse.data.lowering.walk import block_ops, expect_op
from costfuse.graph import GENERIC
from costfuse.graph import body as body_of
from costfuse.launch import KERNEL_ATTR, LAUNCH_ATTR, KernelLaunch

# Ops a kernel function may hold besides its member generics (docs/groups.md).
CLONED_OPS = ("tensor.empty", "linalg.fill", "arith.constant", "func.return")


def as_function(func_op) -> ir.Operation:
    """``func_op`` (an OpView or an Operation) as a ``func.func`` operation; anything else is refused."""
    return expect_op(func_op, "func.func", "only func.func kernel functions are lowered")


def function_name(func_op) -> str:
    return ir.StringAttr(as_function(func_op).attributes["sym_name"]).value


def kernel_functions(module: ir.Module) -> list[ir.Operation]:
    """Every ``func.func`` of ``module`` carrying ``costfuse.kernel``, in order."""
    return [op for op in block_ops(module.body) if op.name == "func.func" and KERNEL_ATTR in op.attributes]


def kernel_launch(func_op) -> KernelLaunch | None:
    """The function's ``costfuse.launch``, ``None`` if it has none."""
    attrs = as_function(func_op).attributes
    return KernelLaunch.from_attr(attrs[LAUNCH_ATTR]) if LAUNCH_ATTR in attrs else None


def kernel_members(func_op) -> list[ir.Operation]:
    """The member generics of a kernel function, in program order."""
    func = as_function(func_op)
    members = []
    for op in block_ops(body_of(func)):
        if op.name == GENERIC:
            members.append(op)
        elif op.name not in CLONED_OPS:
            raise UnsupportedOp(op.name, f"@{function_name(func)}: a kernel function holds only generics and "
                                         f"their cloned inits and constants ({', '.join(CLONED_OPS)})")
    if not members:
        raise UnsupportedOp("func.func", f"@{function_name(func)}: a kernel function without a linalg.generic")
    return members

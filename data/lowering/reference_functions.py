"""The same computation as a kernel, as a module IREE can run: the numerical oracle's input.

Every kernel is checked against IREE's llvm-cpu on the very generic or
kernel function it was lowered from (``data/verify.py``,
``data/verify_kernel.py``), and the datasets store that module as a row's
``ir``.  For the comparison to mean anything the module must take the
kernel's arguments in the kernel's order; that correspondence is kept here,
next to the lowering it mirrors.
"""

from __future__ import annotations

from iree.compiler import ir

from costfuse.data.lowering.generic_info import as_generic
from costfuse.data.lowering.kernel_function import as_function
from costfuse.data.lowering.unsupported import UnsupportedOp
from costfuse.data.lowering.walk import block_ops, outside_uses
from costfuse.graph import body as body_of
from costfuse.launch import KERNEL_ATTR, LAUNCH_ATTR
from costfuse.rowspace import gathers


def generic_as_function(op, name: str = "generic") -> str:
    """A module holding ``func.func @name`` that runs just ``op``: its
    arguments are the generic's operand tensors (inputs, then outputs, one
    argument per operand) and it returns the generic's results.  Scalar constants the body
    captures from outside are cloned in; tensors it gathers from
    (:func:`costfuse.rowspace.gathers`) are arguments after the inputs, in
    first-use order, as in the kernel's ``INPUTS``.  This is what the IREE
    oracle runs to check the Triton kernel of the same generic."""
    g = as_generic(op)
    gathered = list(gathers(g.operation))
    operands = list(g.inputs) + gathered + list(g.outputs)
    captured = []
    for user, v in outside_uses(body_of(g)):
        if v in gathered or v in captured:
            continue
        if isinstance(v, ir.OpResult):
            if v.owner.name != "arith.constant":
                raise UnsupportedOp(v.owner.name, "generic body captures a non-constant value")
            captured.append(v)
        else:
            raise UnsupportedOp(user.name, "generic body captures a function argument")
    from iree.compiler.dialects import func

    with g.context, ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            ftype = ir.FunctionType.get([v.type for v in operands], [r.type for r in g.results])
            fn = func.FuncOp(name, ftype)
            entry = fn.add_entry_block()
            with ir.InsertionPoint(entry):
                outside = {}
                for v in captured:
                    outside[v] = v.owner.clone().results[0]
                n_in = len(g.inputs)
                args = list(entry.arguments)
                outside.update(zip(gathered, args[n_in:n_in + len(gathered)]))
                clone = g.operation.clone()
                for i, arg in enumerate(args[:n_in] + args[n_in + len(gathered):]):
                    clone.operands[i] = arg
                for inner in block_ops(body_of(clone)):
                    for k, v in enumerate(inner.operands):
                        if v in outside:
                            inner.operands[k] = outside[v]
                func.ReturnOp(list(clone.results))
        text = str(module)
    return text


def kernel_as_function(func_op, name: str = "kernel") -> str:
    """A module holding a public copy of the kernel function as ``@name``: what
    the IREE oracle runs to check the kernel (same arguments, same results)."""
    func = as_function(func_op)
    with func.context, ir.Location.unknown():
        module = ir.Module.create()
        clone = func.clone(ir.InsertionPoint(module.body))
        clone.attributes["sym_name"] = ir.StringAttr.get(name)
        for attr in ("sym_visibility", KERNEL_ATTR, LAUNCH_ATTR):
            if attr in clone.attributes:
                del clone.attributes[attr]
        return str(module)

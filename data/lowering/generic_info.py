"""The static facts of one ``linalg.generic`` that its kernel is built from.

Loop extents, iterator kinds and the pointer argument of every operand do not
depend on the launch config, and callers need them before choosing one (the
dataset job sizes its configs from ``xnumel``/``rnumel``), so they are
computed here, once, apart from code generation.  Whatever the kernel
template cannot express (a map result that is neither a dim nor a constant,
an output map that omits a parallel dim) is refused here, before any code
is written.
"""

from __future__ import annotations

from dataclasses import dataclass

from iree.compiler import ir

from costfuse.data.lowering.kernel_args import TensorArg, gathered_arg, prod, tensor_arg
from costfuse.data.lowering.unsupported import UnsupportedOp
from costfuse.data.lowering.walk import expect_op
from costfuse.graph import GENERIC
from costfuse.rowspace import gathers


@dataclass(frozen=True)
class GenericInfo:
    """Static facts about a generic, independent of the launch config."""

    extents: tuple[int, ...]
    iterators: tuple[str, ...]
    inputs: tuple[TensorArg, ...]
    outputs: tuple[TensorArg, ...]
    ir: str
    gathered: tuple[TensorArg, ...] = ()   # tensors the body gathers from (no map): kernel inputs after ``inputs``

    @property
    def parallel(self) -> list[int]:
        return [d for d, it in enumerate(self.iterators) if it == "parallel"]

    @property
    def reduction(self) -> list[int]:
        return [d for d, it in enumerate(self.iterators) if it == "reduction"]

    @property
    def xnumel(self) -> int:
        return prod(self.extents[d] for d in self.parallel)

    @property
    def rnumel(self) -> int:
        return prod(self.extents[d] for d in self.reduction)


def as_generic(op) -> ir.OpView:
    """``op`` (an OpView or an Operation) as a generic's OpView; a named op is refused."""
    return expect_op(op, GENERIC, "only linalg.generic ops are lowered (named ops stay library calls)").opview


def analyze(op) -> GenericInfo:
    """Operands, loop extents and iterator kinds of ``op``; raise
    :class:`UnsupportedOp` for anything the kernel template cannot express."""
    g = as_generic(op)
    maps = [ir.AffineMapAttr(a).value for a in g.indexing_maps]
    iterators = tuple("reduction" if "reduction" in str(t) else "parallel" for t in g.iterator_types)
    ins = tuple(tensor_arg(f"in_ptr{i}", v, maps[i]) for i, v in enumerate(g.inputs))
    outs = tuple(tensor_arg(f"out_ptr{j}", v, maps[len(ins) + j]) for j, v in enumerate(g.outputs))
    if not outs:
        raise UnsupportedOp("linalg.generic", "has no outputs")
    extents: list[int | None] = [None] * len(iterators)
    for arg in ins + outs:
        for (kind, d), size in zip(arg.results, arg.shape):
            if kind != "d":
                continue
            if extents[d] is not None and extents[d] != size:
                raise UnsupportedOp("linalg.generic", f"loop dim d{d} has inconsistent sizes {extents[d]} and {size}")
            extents[d] = size
    missing = [f"d{d}" for d, e in enumerate(extents) if e is None]
    if missing:
        raise UnsupportedOp("linalg.generic", f"loop dims {', '.join(missing)} appear in no indexing map")
    gathered = tuple(gathered_arg(f"in_ptr{len(ins) + k}", v) for k, v in enumerate(gathers(g.operation)))
    info = GenericInfo(tuple(extents), iterators, ins, outs, str(g.operation), gathered)
    _check_outputs(info)
    return info


def _check_outputs(info: GenericInfo) -> None:
    red, par = set(info.reduction), set(info.parallel)
    for out in info.outputs:
        used = [v for k, v in out.results if k == "d"]
        if len(set(used)) != len(used):
            raise UnsupportedOp("linalg.generic", f"{out.name} map repeats a dim; outputs must be projected permutations")
        if red & set(used):
            raise UnsupportedOp("linalg.generic", f"{out.name} map uses reduction dims; outputs index parallel dims only")
        if par - set(used):
            missing = ", ".join(f"d{d}" for d in sorted(par - set(used)))
            raise UnsupportedOp("linalg.generic", f"{out.name} map omits parallel dims {missing} (writes would race)")

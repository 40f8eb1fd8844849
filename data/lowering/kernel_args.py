"""A kernel's pointer arguments: which tensors it can take, how a map addresses one, the bytes they hold.

Both lowerings (one generic, one kernel function) pass every tensor as one
pointer argument and address its elements through an indexing map, and both
report ``hbm_bytes`` in the same unit; so what a pointer argument is, which
tensors qualify (ranked, static, an element type the kernel can load, int32
offsets) and how many bytes a tensor moves are decided once, here.
"""

from __future__ import annotations

from dataclasses import dataclass

from iree.compiler import ir

from costfuse.estimates import memory_bytes
from costfuse.data.lowering.element_types import ELEM_TYPES, MEMORY_TYPES
from costfuse.data.lowering.unsupported import UnsupportedOp

MAX_NUMEL = 2**31 - 1  # offsets are int32, as in Inductor for tensors of this size


@dataclass(frozen=True)
class TensorArg:
    """One kernel pointer argument: a generic operand's tensor."""

    name: str                 # kernel parameter: in_ptr0, out_ptr0
    shape: tuple[int, ...]
    elem: str                 # MLIR element type
    results: tuple            # the indexing map's results: ("d", dim) or ("c", value)


def prod(xs) -> int:
    """The product of ``xs`` (1 for none): element counts of shapes and loop nests."""
    p = 1
    for x in xs:
        p *= x
    return p


def row_major_strides(shape) -> list[int]:
    """The element stride of each dim of a contiguous row-major tensor of ``shape``."""
    strides, s = [], 1
    for size in reversed(shape):
        strides.append(s)
        s *= size
    strides.reverse()
    return strides


def elem_bytes(elem: str) -> int:
    """Bytes of one element of MLIR type ``elem`` in memory (i1 as one byte)."""
    return memory_bytes(ELEM_TYPES[elem].bits)


def tensor_bytes(arg: TensorArg) -> int:
    """Bytes of ``arg``'s whole tensor in memory (i1 as one byte), the unit of
    ``hbm_bytes``; the same rule as :class:`costfuse.kernel.KernelShape`."""
    return prod(arg.shape) * elem_bytes(arg.elem)


def tensor_arg(name: str, value: ir.Value, amap: ir.AffineMap) -> TensorArg:
    """The pointer argument ``name`` of tensor ``value``, addressed through ``amap``:
    only dim and constant map results are lowered."""
    shape, elem = _memory_tensor(name, value)
    results = []
    for j, expr in enumerate(amap.results):
        if isinstance(expr, ir.AffineDimExpr):
            results.append(("d", expr.position))
        elif isinstance(expr, ir.AffineConstantExpr):
            if not 0 <= expr.value < shape[j]:
                raise UnsupportedOp("linalg.generic", f"operand {name} map result {j} is constant {expr.value}, "
                                                      f"outside dim size {shape[j]}")
            results.append(("c", expr.value))
        else:
            raise UnsupportedOp("linalg.generic", f"operand {name} map result {expr} is not a dim or a constant "
                                                  "(only permutations, projections and broadcasts are lowered)")
    return TensorArg(name, shape, elem, tuple(results))


def gathered_arg(name: str, value: ir.Value) -> TensorArg:
    """The pointer argument of a tensor a body gathers from: no indexing map
    (``results`` is empty), the body computes each index."""
    return TensorArg(name, *_memory_tensor(name, value), ())


def _memory_tensor(name: str, value: ir.Value) -> tuple[tuple[int, ...], str]:
    """(shape, element type) of a tensor a kernel can take a pointer to; else :class:`UnsupportedOp`."""
    t = value.type
    if not isinstance(t, ir.RankedTensorType):
        raise UnsupportedOp("linalg.generic", f"operand {name} has type {t}; only ranked tensors are lowered")
    if not t.has_static_shape:
        raise UnsupportedOp("linalg.generic", f"operand {name} has dynamic shape {t}; shapes must be static")
    elem = str(t.element_type)
    if elem not in MEMORY_TYPES:
        raise UnsupportedOp("linalg.generic", f"operand {name} has element type {elem} (supported: {', '.join(MEMORY_TYPES)})")
    shape = tuple(t.shape)
    if prod(shape) > MAX_NUMEL:
        raise UnsupportedOp("linalg.generic", f"operand {name} has {prod(shape)} elements; int32 offsets need < 2**31")
    return shape, elem

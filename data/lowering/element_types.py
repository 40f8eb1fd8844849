"""Element types the lowering understands, in each of the spellings it needs.

One table, so MLIR (``f32``), Triton (``tl.float32``, ``*fp32``) and torch
(``float32``) names can never drift apart: the body's expressions, the
kernel's ``SIGNATURE`` (which the compile worker specialises) and the torch
dtype names of ``INPUTS``/``OUTPUTS`` (which the interpreter runner and the GPU
profiler allocate) all come from it.  ``index`` is lowered to int64,
because that is its width on every target IREE's llvm-cpu reference uses.
Widths are not repeated here: they are :func:`costfuse.estimates.elem_bits`'s,
the one table the cost models read too, so a kernel's bytes and the model's
bytes use the same width.
"""

from __future__ import annotations

from dataclasses import dataclass

from costfuse.estimates import elem_bits


@dataclass(frozen=True)
class ElemType:
    mlir: str        # MLIR spelling: f32, bf16, i1, index
    tl: str          # Triton language dtype expression: tl.float32
    pointer: str     # Triton signature of a pointer to it: *fp32
    torch: str       # torch dtype attribute name: float32
    is_float: bool

    @property
    def bits(self) -> int:
        return elem_bits(self.mlir)


_TYPES = [
    ElemType("f64", "tl.float64", "*fp64", "float64", True),
    ElemType("f32", "tl.float32", "*fp32", "float32", True),
    ElemType("f16", "tl.float16", "*fp16", "float16", True),
    ElemType("bf16", "tl.bfloat16", "*bf16", "bfloat16", True),
    ElemType("i64", "tl.int64", "*i64", "int64", False),
    ElemType("i32", "tl.int32", "*i32", "int32", False),
    ElemType("i16", "tl.int16", "*i16", "int16", False),
    ElemType("i8", "tl.int8", "*i8", "int8", False),
    ElemType("i1", "tl.int1", "*i1", "bool", False),
    ElemType("index", "tl.int64", "*i64", "int64", False),
]
ELEM_TYPES: dict[str, ElemType] = {t.mlir: t for t in _TYPES}
# Types a kernel may read or write in memory (index tensors are not a thing in
# exported IR, and the oracle cannot feed them).
MEMORY_TYPES = ("f64", "f32", "f16", "bf16", "i64", "i32", "i16", "i8", "i1")
FLOAT_TYPES = ("f64", "f32", "f16", "bf16")
# Floats Triton computes math functions in only after an upcast (tl.exp & co.
# accept fp32/fp64; the interpreter stores bf16 as raw uint16 bits).
NARROW_FLOATS = ("f16", "bf16")


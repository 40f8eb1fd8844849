"""An Inductor kernel as a row kernel: the facts CostFuse's group features read, taken from Inductor.

Inductor describes a kernel it is about to generate as an ordered schedule of
scheduler nodes over ``numel`` rows of ``reduction_numel`` elements
(``SIMDKernelFeatures``): each node's loop body (op counts, loads, stores,
reductions) and the buffers it reads and writes, with their dtypes.
:mod:`costfuse.inductor.describe` reads that into :class:`InductorKernel`,
plain numbers only, so this module needs neither torch nor MLIR.  Here those
numbers become a :class:`costfuse.row_kernel.RowKernel` (what the config space
and the analytical time read) and the config-independent columns of group
feature schema v5 (:data:`costfuse.featurize.group_features.GROUP_COLUMNS`), so the
shipped group heads and the learned policy's own code decide Inductor's
kernels (docs/inductor.md, "Features").

The mapping, column by column, where Inductor's picture differs from a Linalg
group's:

* **members**: a scheduler node is a member.  Its role follows its loop
  space: a reduction node is ``reduce``; a pointwise node over all
  ``rows x n`` elements is ``full``; one over ``rows`` is ``rowwise``.
  Inductor inlines pointwise producers into the node that reads them, so a
  kernel has fewer members than the Linalg group of the same computation
  (the inlined ops still count in the op columns and the body liveness).
* **op classes and flops**: Inductor's op names (``add``, ``exp``,
  ``to_dtype``...) map to the MLIR op each lowers to (:data:`INDUCTOR_OPS`),
  then to the class and flop weight of :mod:`costfuse.featurize.columns` and
  :mod:`costfuse.estimates`; a reduction counts its combine op
  (:data:`REDUCTION_OPS`).  Loads, stores and index arithmetic are memory
  or addressing, not body ops, as in a Linalg body.
* **passes**: a node runs in the pass after the last reduction whose result
  it reads (:meth:`InductorKernel.pass_of`), as Inductor's looped code opens
  a new loop over the row after each reduction level.
* **live full-row values** (``live_full``): a full-row buffer read by the
  kernel is live from its first full reader to its last (Inductor's
  persistent code loads it once and keeps the tile); a full-row value a node
  writes and a later node reads, from the writer to that reader.  A buffer of
  fewer elements than a row (a per-row statistic) is a scalar per row.
* **body liveness**: the most 32-bit words live in one node's loop body, from
  :func:`costfuse.featurize.liveness.max_live` over that body's ops.
* **bytes**: each input buffer's bytes (times the passes reading it, looped),
  each output's bytes, as :meth:`costfuse.kernel.KernelShape.issued_bytes`; DRAM
  bytes by the same L2 model (a looped kernel's full-row re-reads hit L2 when
  the rows in flight fit).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

from costfuse.estimates import flop_weight, memory_bytes, words
from costfuse.featurize.columns import OP_CLASSES, op_class
from costfuse.row_kernel import ModeCosts, dram_bytes_at

FULL, REDUCE, ROWWISE = "full", "reduce", "rowwise"   # the roles of costfuse.rowspace, by the same names

INDUCTOR_OPS = {
    "add": "arith.addf", "sub": "arith.subf", "mul": "arith.mulf", "neg": "arith.negf", "fma": "math.fma",
    "abs": "math.absf", "floor": "math.floor", "ceil": "math.ceil", "trunc": "math.trunc",
    "round": "math.round", "sign": "math.copysign", "square": "arith.mulf", "relu": "arith.maximumf",
    "truediv": "arith.divf", "div": "arith.divf", "floordiv": "arith.floordivsi", "mod": "arith.remsi",
    "remainder": "arith.remf", "reciprocal": "arith.divf", "sqrt": "math.sqrt", "rsqrt": "math.rsqrt",
    "exp": "math.exp", "exp2": "math.exp2", "expm1": "math.exp", "log": "math.log", "log2": "math.log2",
    "log1p": "math.log1p", "tanh": "math.tanh", "erf": "math.erf", "sin": "math.sin", "cos": "math.cos",
    "pow": "math.powf", "sigmoid": "math.exp",
    "maximum": "arith.maximumf", "minimum": "arith.minimumf", "where": "arith.select",
    "eq": "arith.cmpf", "ne": "arith.cmpf", "lt": "arith.cmpf", "le": "arith.cmpf", "gt": "arith.cmpf",
    "ge": "arith.cmpf", "isinf": "arith.cmpf", "isnan": "arith.cmpf",
    "logical_and": "arith.andi", "logical_or": "arith.ori", "logical_not": "arith.xori",
    "bitwise_and": "arith.andi", "bitwise_or": "arith.ori", "bitwise_xor": "arith.xori",
    "to_dtype": "arith.extf", "to_dtype_bitcast": "arith.bitcast", "constant": "arith.constant",
}
"""Inductor's ops-handler names -> the MLIR op each computes (anything else counts as ``other``)."""

NOT_BODY_OPS = frozenset({
    "load", "store", "store_reduction", "reduction", "output", "index_expr", "indirect_indexing",
    "masked", "check_bounds", "get_index", "placeholder", "partial_accumulate",
})
"""Memory, addressing and bookkeeping ops: a Linalg body has none of them (a reduction counts its
combine op instead, :data:`REDUCTION_OPS`)."""

REDUCTION_OPS = {
    "sum": ("arith.addf",), "prod": ("arith.mulf",), "max": ("arith.maximumf",), "min": ("arith.minimumf",),
    "any": ("arith.ori",), "xor_sum": ("arith.xori",),
    "argmax": ("arith.cmpf", "arith.select"), "argmin": ("arith.cmpf", "arith.select"),
    "welford_reduce": ("arith.addf", "arith.subf", "arith.divf", "arith.mulf", "arith.addf"),
    "welford_combine": ("arith.addf", "arith.subf", "arith.divf", "arith.mulf", "arith.addf"),
    "online_softmax_reduce": ("arith.maximumf", "arith.subf", "math.exp", "arith.mulf", "arith.addf"),
}
"""A reduction's combine op(s) per element, by Inductor's reduction type."""


def mlir_name(op: str) -> str:
    """The MLIR op an Inductor op computes (``inductor.OP`` when it has none: class ``other``)."""
    return INDUCTOR_OPS.get(op, f"inductor.{op}")


@dataclass(frozen=True)
class KernelBuffer:
    """A buffer a kernel reads or writes: elements, bits per element."""

    name: str
    numel: int
    bits: int

    @property
    def nbytes(self) -> int:
        return self.numel * memory_bytes(self.bits)


@dataclass(frozen=True)
class KernelNode:
    """One scheduler node: its role, its body ops (Inductor's names, with counts), the buffers it reads and
    writes, its reduction type, and the most 32-bit words live in its body."""

    name: str
    role: str
    ops: tuple[tuple[str, int], ...]
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    reduction_type: str | None = None
    live_words: int = 1
    indirect_loads: int = 0

    def mlir_ops(self) -> list[tuple[str, int]]:
        """``(MLIR op, count)`` of the body's computing ops, the reduction's combine ops included."""
        out = [(mlir_name(op), k) for op, k in self.ops if op not in NOT_BODY_OPS]
        if self.reduction_type is not None:
            out += [(name, 1) for name in REDUCTION_OPS.get(self.reduction_type, ("arith.addf",))]
        return out

    @cached_property
    def flops(self) -> int:
        """Weighted body ops per loop point (:func:`costfuse.estimates.flop_weight`)."""
        return sum(flop_weight(name) * k for name, k in self.mlir_ops())


@dataclass(frozen=True)
class InductorKernel:
    """A kernel of ``rows`` x ``n``: its nodes in schedule order, the buffers they touch, the buffers it
    stores for later kernels (``outputs``).  A :class:`costfuse.row_kernel.RowKernel`."""

    rows: int
    n: int
    nodes: tuple[KernelNode, ...]
    buffers: tuple[KernelBuffer, ...]
    outputs: tuple[str, ...]

    @property
    def n_rows(self) -> int:
        return self.rows

    @cached_property
    def _buffer(self) -> dict[str, KernelBuffer]:
        return {b.name: b for b in self.buffers}

    @cached_property
    def written(self) -> frozenset[str]:
        return frozenset(w for node in self.nodes for w in node.writes)

    @cached_property
    def inputs(self) -> tuple[str, ...]:
        """Buffers read from memory: read by a node and written by none of the kernel's."""
        return tuple(dict.fromkeys(r for node in self.nodes for r in node.reads if r not in self.written))

    @property
    def reductions(self) -> int:
        return sum(1 for node in self.nodes if node.role == REDUCE)

    @property
    def pointwise(self) -> bool:
        return self.reductions == 0 and len({node.role for node in self.nodes}) == 1

    @cached_property
    def pass_of(self) -> tuple[int, ...]:
        """Per node, the pass over the row it runs in: after every reduction whose result it reads."""
        writer = {}
        passes, avail = [], {}
        for i, node in enumerate(self.nodes):
            p = max((avail[writer[r]] for r in node.reads if r in writer), default=0)
            passes.append(p)
            avail[i] = p + 1 if node.role == REDUCE else p
            for w in node.writes:
                writer[w] = i
        return tuple(passes)

    @cached_property
    def n_passes(self) -> int:
        """Passes over the row a looped kernel makes: through its last reduction and its last full node."""
        ends = [p + 1 for p, node in zip(self.pass_of, self.nodes) if node.role in (REDUCE, FULL)]
        return max(1, *ends) if ends else 1

    def _full_row(self, name: str) -> bool:
        """A row of values per row (a tile), not one value per row."""
        return self.n > 1 and self._buffer[name].numel >= self.n

    @cached_property
    def live_full(self) -> int:
        """Full-row values live at once in a persistent tile (the module docstring)."""
        readers: dict[str, list[int]] = {}
        for i, node in enumerate(self.nodes):
            if node.role == ROWWISE:
                continue
            for r in node.reads:
                if self._full_row(r):
                    readers.setdefault(r, []).append(i)
        intervals = []
        for name, idx in readers.items():
            start = min(idx)
            if name in self.written:   # a value a node of the kernel writes lives from its writer
                start = min(i for i, node in enumerate(self.nodes) if name in node.writes)
            intervals.append((start, max(idx)))
        if not intervals:
            return 1
        return max(1, max(sum(1 for a, b in intervals if a <= t <= b) for t in range(len(self.nodes))))

    @cached_property
    def words(self) -> int:
        """32-bit registers per element of the widest value read or written (2 for 64-bit dtypes)."""
        return words(max((b.bits for b in self.buffers), default=32))

    @cached_property
    def read_elem_bytes(self) -> float:
        return float(max((memory_bytes(self._buffer[r].bits) for r in self.inputs), default=4))

    def _passes_reading(self, name: str, mode: str) -> int:
        if mode != "looped":
            return 1
        passes = {p for p, node in zip(self.pass_of, self.nodes) if node.role != ROWWISE and name in node.reads}
        return max(1, len(passes))

    def issued_bytes(self, mode: str) -> int:
        """Each input's bytes times the passes reading it (looped), plus each output's bytes: what the
        loads and stores issue, as :meth:`costfuse.kernel.KernelShape.issued_bytes`."""
        return (sum(self._buffer[r].nbytes * self._passes_reading(r, mode) for r in self.inputs)
                + sum(self._buffer[w].nbytes for w in self.outputs))

    @cached_property
    def reread_row_bytes(self) -> float:
        """Bytes per row of the full-row inputs a looped kernel reads in more than one pass."""
        return sum(self._buffer[r].nbytes for r in self.inputs
                   if self._full_row(r) and self._passes_reading(r, "looped") > 1) / max(1, self.rows)

    def dram_bytes(self, mode: str, l2_holds_rows: bool = True) -> int:
        """Estimated DRAM bytes (the L2 model of :mod:`costfuse.estimates`): every input once and every
        output, plus a looped kernel's re-reads of full-row inputs when L2 does not hold them; as
        :meth:`costfuse.kernel.KernelShape.dram_bytes`."""
        if mode != "looped" or l2_holds_rows:
            return self.issued_bytes("persistent")
        return (sum(self._buffer[r].nbytes * (self._passes_reading(r, mode) if self._full_row(r) else 1)
                    for r in self.inputs)
                + sum(self._buffer[w].nbytes for w in self.outputs))

    @cached_property
    def costs(self) -> ModeCosts:
        """Bytes and flops of every mode and the size, computed once (:class:`costfuse.row_kernel.ModeCosts`)."""
        return ModeCosts.of(self)

    def dram_bytes_at(self, launch, target) -> int:
        """:meth:`dram_bytes` at ``launch`` on ``target`` (:func:`costfuse.row_kernel.dram_bytes_at`)."""
        return dram_bytes_at(self, launch, target)

    def flops(self, mode: str) -> float:
        """Weighted body ops of the whole kernel; Inductor computes each node once, in its own pass."""
        per = {FULL: self.rows * self.n, REDUCE: self.rows * self.n, ROWWISE: self.rows}
        return float(sum(node.flops * per[node.role] for node in self.nodes))

    @cached_property
    def group_columns(self) -> dict[str, float]:
        """The config-independent columns of group feature schema v5 (``GROUP_COLUMNS``), as
        :func:`costfuse.featurize.group_features.group_static` computes them for a Linalg group."""
        counts = dict.fromkeys(OP_CLASSES, 0)
        for node in self.nodes:
            for name, k in node.mlir_ops():
                counts[op_class(name)] += k
        roles = [node.role for node in self.nodes]
        elems = max(1, self.rows * self.n)
        n_pad = 1 << max(0, self.n - 1).bit_length()
        return {
            "log2_n": math.log2(max(1, self.n)),
            "log2_rows": math.log2(max(1, self.rows)),
            "n_pad_ratio": n_pad / max(1, self.n),
            "n_members": len(roles),
            "n_full": roles.count(FULL),
            "n_reduce": roles.count(REDUCE),
            "n_rowwise": roles.count(ROWWISE),
            "n_inputs": len(self.inputs),
            "n_outputs": len(self.outputs),
            "n_gathers": sum(1 for node in self.nodes if node.indirect_loads),
            "live_full": self.live_full,
            "words": self.words,
            "n_passes": self.n_passes,
            "pointwise": float(self.pointwise),
            "flops_per_elem": float(sum(node.flops for node in self.nodes if node.role != ROWWISE)),
            **{f"g_{c}": float(counts[c]) for c in OP_CLASSES if c != "constant"},
            "max_body_live_words": float(max((node.live_words for node in self.nodes), default=0)),
            "sum_body_live_words": float(sum(node.live_words for node in self.nodes)),
            "in_bytes_per_elem": sum(self._buffer[r].nbytes for r in self.inputs) / elems,
            "out_bytes_per_elem": sum(self._buffer[w].nbytes for w in self.outputs) / elems,
        }


def kernel_from_dict(d: dict) -> InductorKernel:
    """The :class:`InductorKernel` of ``dataclasses.asdict(kernel)`` (as dataset ``sm90_inductor_v1`` stores it in
    ``kernel_desc``, JSON lists for tuples)."""
    nodes = tuple(KernelNode(name=n["name"], role=n["role"], ops=tuple((op, int(k)) for op, k in n["ops"]),
                             reads=tuple(n["reads"]), writes=tuple(n["writes"]), reduction_type=n["reduction_type"],
                             live_words=int(n["live_words"]), indirect_loads=int(n["indirect_loads"]))
                  for n in d["nodes"])
    buffers = tuple(KernelBuffer(b["name"], int(b["numel"]), int(b["bits"])) for b in d["buffers"])
    return InductorKernel(int(d["rows"]), int(d["n"]), nodes, buffers, tuple(d["outputs"]))

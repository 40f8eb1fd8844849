"""Feature vector of one fused ``linalg.generic`` + launch config (docs/design.md §1, featurize/).

The features are computed from the IR the fusion pass sees (and the launch
config the lowering would pick), never from compile results, so the learned
cost model can score a candidate fusion before anything is compiled.  They
split in two:

* :func:`analyze_generic` -- everything that depends only on the IR (op
  counts, shapes, bytes, liveness).  Computed once per generic and reusable
  across launch configs (the dataset has several configs per generic).
* :func:`combine` -- adds the launch config and the products that need it
  (elements per thread, register estimates, grid size).

:func:`features` does both.  ``FEATURE_COLUMNS`` is the stable column order;
bump ``FEATURE_SCHEMA_VERSION`` whenever a column is added, removed,
renamed or changes meaning, because saved models check it on load.

Units: counts are per element of the iteration space unless named
otherwise; ``numel``/``xnumel``/``rnumel`` are elements; ``bytes_*`` are
bytes of the whole kernel; ``flops`` are operations of the whole kernel.

**Bytes saved by fusion** (``bytes_saved_est``): the fused op alone does not
know its parts, so this is an estimate from the fusion provenance: each of
the ``chain_length - 1`` internal edges removes one write and one read of an
intermediate of the iteration space's size at the body's compute width
(the widest float among body results).  It is exact for a chain of
same-shape elementwise ops, and an overestimate when an intermediate was
smaller (a row vector fused into its broadcast use).  The exact figure needs
the parts: :func:`bytes_saved_exact` (for experiments; it is not a column,
so that training and inference see the same definition).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from costfuse.featurize.liveness import Body, body_of, pressure
from iree.compiler import ir

from costfuse.estimates import elem_bits, memory_bytes, tile_registers
from costfuse.graph import GENERIC, chain_length, indexing_maps, iterator_kinds, num_inputs, walk_ops
from costfuse.ir import diagnostics_of
from costfuse.targets import DEFAULT_TARGET
from costfuse.featurize.columns import (  # noqa: F401  (re-exported: the schema's names live in columns.py)
    ADD_MUL, CASTS, COMPARE_SELECT, CONFIG_COLUMNS, CONSTANTS, DIV_SQRT, FEATURE_COLUMNS, FEATURE_SCHEMA_VERSION,
    FLOP_CLASSES, OP_CLASSES, STATIC_COLUMNS, TERMINATOR, class_counts, op_class,
)



class FeatureError(ValueError):
    """The op cannot be featurized (not a generic on static ranked tensors, unknown types)."""


# --- static part ----------------------------------------------------------------
@dataclass(frozen=True)
class Operand:
    """One tensor operand: its shape and element width in bits."""

    shape: tuple[int, ...]
    bits: int

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def bytes(self) -> int:
        return self.numel * memory_bytes(self.bits)


@dataclass(frozen=True)
class StaticFeatures:
    """The config-independent features of a generic, as an ordered dict in ``values``."""

    values: dict[str, float]


def _as_operation(op: Any) -> ir.Operation:
    operation = op.operation if hasattr(op, "operation") else op
    if operation.name != GENERIC:
        raise FeatureError(f"features are defined for {GENERIC}, got {operation.name}")
    return operation


def _operands(op: ir.Operation) -> list[Operand]:
    """Every operand's shape and width (each distinct tensor type is inspected once: printing is slow)."""
    seen: dict[ir.Type, Operand] = {}
    out = []
    for value in op.operands:
        t = value.type
        if t not in seen:
            if not isinstance(t, ir.RankedTensorType) or not t.has_static_shape:
                raise FeatureError(f"operand of type {t}: only statically shaped ranked tensors are featurized")
            try:
                seen[t] = Operand(tuple(t.shape), elem_bits(str(t.element_type)))
            except ValueError as err:
                raise FeatureError(str(err)) from None
        out.append(seen[t])
    return out


def _extents(operands: list[Operand], maps: list[ir.AffineMap], rank: int) -> list[int]:
    extents = [1] * rank
    for operand, amap in zip(operands, maps):
        for size, r in zip(operand.shape, amap.results):
            if isinstance(r, ir.AffineDimExpr):
                extents[r.position] = size
    return extents


def _counts(body: Body) -> dict[str, int]:
    return class_counts([node.name for node in body.nodes])


def _bytes_moved(operands: list[Operand], n_in: int, body: Body, reduction: bool) -> tuple[int, int]:
    """(read, written) bytes: every input once; an init too when the body reads it or the op reduces."""
    read = sum(o.bytes for o in operands[:n_in])
    outs = operands[n_in:]
    written = sum(o.bytes for o in outs)
    read += sum(o.bytes for k, o in enumerate(outs) if reduction or body.arg_used(n_in + k))
    return read, written


def analyze_generic(generic: Any) -> StaticFeatures:
    """The config-independent features of ``generic`` (an ``ir.Operation`` or OpView).

    Raise :class:`FeatureError` for ops that are not generics on static tensors.
    """
    op = _as_operation(generic)
    maps = indexing_maps(op)
    kinds = iterator_kinds(op)
    n_in = num_inputs(op)
    operands = _operands(op)
    rank = len(kinds)
    extents = _extents(operands, maps, rank)
    numel = math.prod(extents)
    rnumel = math.prod(e for e, k in zip(extents, kinds) if k == "reduction")
    reduction = "reduction" in kinds
    try:
        body = body_of(op)
    except ValueError as err:
        raise FeatureError(str(err)) from None
    counts = _counts(body)
    n_ops = sum(counts.values())
    compute_bits = max((body.bits[r] for n in body.nodes for r in n.results
                        if body.types[r].startswith(("f", "bf"))), default=operands[-1].bits)
    mem_bits = [o.bits for o in operands]
    read, written = _bytes_moved(operands, n_in, body, reduction)
    chain = chain_length(op)
    flops = numel * sum(counts[c] for c in FLOP_CLASSES)
    p = pressure(body)
    values = {
        **{f"n_{c}": counts[c] for c in OP_CLASSES},
        "n_body_ops": n_ops,
        "chain_length": chain,
        "n_inputs": n_in,
        "n_outputs": len(operands) - n_in,
        "n_broadcast_inputs": sum(1 for o in operands[:n_in] if o.numel < numel),
        "rank": rank,
        "numel": numel,
        "xnumel": numel // rnumel,
        "rnumel": rnumel,
        "is_reduction": int(reduction),
        "min_dtype_bits": min(mem_bits),
        "max_dtype_bits": max(mem_bits),
        "out_dtype_bits": operands[n_in].bits if len(operands) > n_in else 0,
        "compute_dtype_bits": compute_bits,
        "bytes_read": read,
        "bytes_written": written,
        "bytes_total": read + written,
        "bytes_saved_est": (chain - 1) * 2 * numel * (compute_bits // 8),
        "flops": flops,
        "arith_intensity": flops / max(1, read + written),
        "max_live_values": p.max_live_values,
        "max_live_words": p.max_live_words,
        "sethi_ullman": p.sethi_ullman,
    }
    return StaticFeatures({k: float(values[k]) for k in STATIC_COLUMNS})


# --- config part ----------------------------------------------------------------
def launch_params(config: Any) -> tuple[int, int, int]:
    """``(XBLOCK, RBLOCK, num_warps)`` from a ``LaunchConfig``-like object or a mapping.

    Mappings may use ``XBLOCK``/``RBLOCK``/``num_warps`` or the dataset's
    lowercase ``xblock``/``rblock``; ``RBLOCK`` defaults to 1 (pointwise).
    Taking a duck-typed value keeps featurize free of ``data``/triton imports.
    """
    get = config.get if isinstance(config, Mapping) else (lambda k, d=None: getattr(config, k, d))
    x = get("XBLOCK", get("xblock"))
    r = get("RBLOCK", get("rblock", 1))
    w = get("num_warps")
    if x is None or w is None:
        raise FeatureError(f"launch config {config!r} lacks XBLOCK or num_warps")
    return int(x), int(r if r is not None else 1), int(w)


def combine(static: StaticFeatures, config: Any) -> dict[str, float]:
    """Static features + launch-config features, in :data:`FEATURE_COLUMNS` order.

    ``elems_per_thread = max(1, XBLOCK*RBLOCK / (32*num_warps))``: the tile's
    elements each thread holds (docs/design.md §5's "elems"); register estimates are
    per-element figures times it, and ``pressure_ratio`` compares the
    live-value estimate with the registers a thread may have (``reg_cap``).
    """
    x, r, w = launch_params(config)
    s = static.values
    elems = max(1.0, x * r / (32.0 * w))
    reduction = s["is_reduction"] > 0
    rnumel = s["rnumel"]
    out = dict(s)
    out.update(
        xblock=float(x), rblock=float(r), num_warps=float(w), elems_per_thread=elems,
        grid_size=float(math.ceil(s["xnumel"] / x)),
        persistent_reduction=float(reduction and r >= rnumel),
        looped_reduction=float(reduction and r < rnumel),
        reduction_iters=float(math.ceil(rnumel / r)) if reduction else 1.0,
        live_regs_est=float(tile_registers(s["max_live_words"], elems)),
        su_regs_est=s["sethi_ullman"] * elems,
        reg_cap=float(DEFAULT_TARGET.reg_cap(w)),
    )
    out["pressure_ratio"] = out["live_regs_est"] / out["reg_cap"]
    return out


def features(generic: Any, config: Any) -> dict[str, float]:
    """The feature dict of ``generic`` launched with ``config``, keys in :data:`FEATURE_COLUMNS` order.

    ``generic``: a ``linalg.generic`` (``ir.Operation`` or OpView) whose
    context is current or reachable; ``config``: see :func:`launch_params`.
    """
    return combine(analyze_generic(generic), config)


# --- helpers for stored IR ------------------------------------------------------
def find_generic(module: ir.Module) -> ir.Operation:
    """The first ``linalg.generic`` of a standalone module (the dataset's ``ir`` column)."""
    found = next((op for op in walk_ops(module.operation) if op.name == GENERIC), None)
    if found is None:
        raise FeatureError("module has no linalg.generic")
    return found


def analyze_text(text: str, context: ir.Context | None = None) -> StaticFeatures:
    """:func:`analyze_generic` of the first generic in module ``text`` (e.g. the dataset's ``ir``).

    Keeps the parsed module alive while its op is read: an op does not own
    its module in these bindings, and reading one whose module was freed
    segfaults.  Raises :class:`FeatureError` for unparsable text too.
    """
    try:
        module = ir.Module.parse(text, context)
    except ir.MLIRError as err:
        raise FeatureError("unparsable IR: " + "; ".join(map(str, diagnostics_of(err, "<ir>")))) from None
    with module.context:
        static = analyze_generic(find_generic(module))
    del module
    return static


def bytes_saved_exact(fused: Any, parts: list[Any]) -> float:
    """Bytes the fused kernel moves less than its ``parts`` launched one by one.

    ``parts`` are the original generics (in any order).  Not a feature column
    (see the module docstring); used to check ``bytes_saved_est``.
    """
    total = lambda op: analyze_generic(op).values["bytes_total"]  # noqa: E731
    return sum(total(p) for p in parts) - total(fused)
